"""Every collective primitive, step by step on real numpy buffers, with one generic trace.

:func:`simulate` runs the standard point-to-point algorithm of a primitive on one 1-D buffer per rank and
returns a :class:`CollectiveTrace`: the schedule (synchronous steps of messages), the inputs and the final
buffers, from which every intermediate state, the bytes each rank sent and the α-β time are rebuilt.

Model
-----
Each rank owns a *working buffer* cut into **slots** (``trace.bounds``); a message carries the contents of
one slot of the sender (``Send.chunk``) into one slot of the receiver (``Send.into``). In a reducing phase
(``"reduce"``, ``"reduce_scatter"``) the receiver adds the message to its slot (``+=``, in the input dtype:
integers wrap around as ``np.sum(..., dtype=dtype)`` does); in every other phase it overwrites it (``=``).
All messages of a step are read before any is applied. ``trace.contributions_after(step)[r, k, j]`` says
whether slot ``k`` of rank ``r`` contains rank ``j``'s input; ``trace.pieces[r, k]`` which piece of it
(so the slot can be labelled ``a₂+c₂``: piece 2 of the inputs of ranks a = 0 and c = 2).

Sizes follow :mod:`clusterlab.communication.collectives`: ``S`` (``trace.buffer_bytes``) is one rank's full buffer, i.e.
the input of broadcast, reduce, all-reduce, reduce-scatter and send/recv, the **output** of all-gather and
the send buffer of all-to-all. Blocks of ``S`` that do not divide evenly follow ``np.array_split``.

Algorithms (``N`` ranks, rank ``r`` sends to ``r + 1 (mod N)`` on the ring)
--------------------------------------------------------------------------
``broadcast``, ``"chain"``
    pipelined chain along the ring from ``root``: the message is cut into ``c`` pieces (``pieces``, default
    ``N − 1``); in step ``t`` the ``i``-th rank of the chain forwards piece ``t − i``. ``(N−1) + (c−1)``
    steps; every rank but the last sends ``S``. (``collectives`` calls this the ring broadcast.)
``reduce``, ``"chain"``
    the mirror image: the chain runs against the ring direction into ``root`` (rank ``root + i + 1`` sends
    to ``root + i``), every rank adds its own piece before forwarding; same step count, root receives ``S``.
``reduce_scatter`` and ``all_gather``, ``"ring"``
    ``N − 1`` steps. Reduce-scatter step ``s``: rank ``r`` sends chunk ``(r − 1 − s) mod N``; at the end
    rank ``r`` holds the complete sum of chunk ``r`` (the block MPI and NCCL define as its result).
    All-gather step ``s``: rank ``r`` sends chunk ``(r − s) mod N``; its input is one piece per rank (``m``
    elements) and its output the concatenation of the ``N`` pieces in rank order (``N·m`` elements; with
    ``in_place=True`` each buffer is already the full output whose chunk ``r`` is rank ``r``'s piece).
``all_reduce``, ``"ring"``
    reduce-scatter followed by all-gather, ``2(N−1)`` steps: the chunk numbering of NCCL's ring kernels,
    in which rank ``r`` completes chunk ``r``. :func:`clusterlab.communication.ring.simulate_all_reduce` numbers the
    chunks
    one position later (rank ``r`` first sends chunk ``r`` and completes chunk ``r + 1``); same messages,
    same volumes. :func:`from_ring_trace` turns its :class:`~clusterlab.communication.ring.RingTrace` into a
    :class:`CollectiveTrace` without renumbering.
``all_reduce``, ``"tree"``
    a **single** binary tree, unpipelined: the whole buffer is summed up the tree to ``root``
    (``⌈log₂N⌉`` steps, a parent adds what its children send) and the result copied back down
    (``⌈log₂N⌉`` steps). The tree is NCCL's ``ncclGetBtree`` (``src/graph/trees.cc``) on the ranks
    counted from ``root``: the root has one child, every other inner node two, depth ``⌈log₂N⌉``.
    :mod:`clusterlab.communication.collectives`' ``tree`` model is NCCL's *pipelined double* binary tree (a second,
    mirrored or shifted tree, each carrying half the data, cut into many pieces that stream through both
    trees): same ``2⌈log₂N⌉`` latency terms, but its bandwidth term is ``2S/β`` while this picture-sized
    version pays the whole buffer at every level (and ``2S`` on a port of a node with two children).
``all_to_all``, ``"pairwise"``
    a transpose: rank ``r``'s send buffer holds ``N`` pieces, piece ``j`` for rank ``j``; in step
    ``s = 1 … N−1`` rank ``r`` sends piece ``(r + s) mod N`` to that rank. Each rank has a send and a receive
    buffer (slot groups ``"send"``, ``"recv"``); the piece a rank keeps is copied locally before step 1.
    The buffer length must be a multiple of ``N``.
``send_recv``, ``"direct"``
    one step: ``root`` sends its whole buffer to ``peer`` (default ``root + 1``).

Costs: ``time_after(step, α, β) = Σ (α + B_step/β)`` where ``B_step`` is the most bytes one rank sends
or receives in the step (a rank's port carries β in each direction). For the ring-type algorithms every rank
sends and receives at most one message per step and the byte counters equal
:func:`clusterlab.communication.collectives.rank_traffic` (``root = 0``, ``peer = 1``) when ``N`` divides the buffer
(or, for broadcast / reduce / send-recv, always).

Sources: Patarasuk & Yuan, *J. Parallel Distrib. Comput.* 69(2), 2009 (ring); Thakur, Rabenseifner & Gropp,
*Int. J. HPC Appl.* 19(1), 2005 (chains, pairwise exchange, α-β model); NVIDIA/nccl ``src/device/*.h`` ring
kernels and ``src/graph/trees.cc`` (binary trees).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..validate import choice, int_in_range
from .buffers import as_buffers, chunk_bounds
from .collectives import OPS
from .trace import (
    PHASES,
    CollectiveTrace,
    Send,
    Step,
    TransposeReplay,
    from_ring_trace,
    replay_steps,
    replay_transposed,
)
from .trees import BinaryTree, binary_tree

__all__ = [
    "ALGORITHMS",
    "COST_MODEL",
    "OPS",
    "PHASES",
    "BinaryTree",
    "CollectiveTrace",
    "Send",
    "Step",
    "TransposeReplay",
    "binary_tree",
    "from_ring_trace",
    "replay_transposed",
    "simulate",
]

#: Algorithms simulated for each op; the first one is the default.
ALGORITHMS: Final[dict[str, tuple[str, ...]]] = {
    "broadcast": ("chain",),
    "reduce": ("chain",),
    "all_reduce": ("ring", "tree"),
    "reduce_scatter": ("ring",),
    "all_gather": ("ring",),
    "all_to_all": ("pairwise",),
    "send_recv": ("direct",),
}
#: The :mod:`clusterlab.communication.collectives` cost model whose per-rank bytes each simulated algorithm reproduces
#: (``None``: no exact counterpart; the ``tree`` model there is the pipelined double binary tree).
COST_MODEL: Final[dict[str, str | None]] = {
    "chain": "ring",
    "ring": "ring",
    "pairwise": "ring",
    "direct": "ring",
    "tree": None,
}


# --------------------------------------------------------------------------------------------------------
# schedules
# --------------------------------------------------------------------------------------------------------
def _chain(n: int, root: int, lengths: npt.NDArray[np.int64], itemsize: int, reduce: bool) -> tuple[Step, ...]:
    """Pipelined chain: position i of the chain is rank root + i; broadcast sends down the chain, reduce up."""
    c = len(lengths)
    phase = "reduce" if reduce else "broadcast"
    out: list[Step] = []
    for t in range(n - 1 + c - 1):
        sends = []
        for i in range(n - 1):  # link between chain positions i and i + 1
            p = t - (n - 2 - i) if reduce else t - i
            if 0 <= p < c:
                a, b = (root + i + 1) % n, (root + i) % n
                src, dst = (a, b) if reduce else (b, a)
                sends.append(Send(src, dst, p, int(lengths[p]) * itemsize, p))
        sends.sort(key=lambda s: s.src)
        out.append(Step(t, phase, t, tuple(sends)))
    return tuple(out)


def _ring_phase(n: int, lengths: npt.NDArray[np.int64], itemsize: int, phase: str, first: int) -> list[Step]:
    """Ring reduce-scatter (rank r sends chunk r − 1 − s) or all-gather (chunk r − s), indices from ``first``."""
    offset = 1 if phase == "reduce_scatter" else 0
    steps = []
    for s in range(n - 1):
        sends = tuple(
            Send(r, (r + 1) % n, c, int(lengths[c]) * itemsize, c) for r in range(n) for c in [(r - offset - s) % n]
        )
        steps.append(Step(first + s, phase, s, sends))
    return steps


def _tree_steps(tree: BinaryTree, nbytes: int) -> tuple[Step, ...]:
    h = tree.height
    out: list[Step] = []
    for k in range(h):  # up: the nodes at depth h − k send to their parents
        sends = tuple(
            Send(r, tree.parent[r], 0, nbytes, 0) for r in range(tree.ranks) if tree.depth[r] == h - k
        )
        out.append(Step(len(out), "reduce", k, sends))
    for k in range(h):  # down: the nodes at depth k send to their children
        sends = tuple(Send(r, c, 0, nbytes, 0) for r in range(tree.ranks) if tree.depth[r] == k
                      for c in tree.children[r])
        out.append(Step(len(out), "broadcast", k, sends))
    return tuple(out)


def _pairwise(n: int, m: int, itemsize: int) -> tuple[Step, ...]:
    """Step s (1 … N−1): rank r sends its piece for rank r + s from its send slot into that rank's receive slot r."""
    return tuple(
        Step(s - 1, "all_to_all", s - 1,
             tuple(Send(r, (r + s) % n, (r + s) % n, m * itemsize, n + r) for r in range(n)))
        for s in range(1, n)
    )


# --------------------------------------------------------------------------------------------------------
# simulate
# --------------------------------------------------------------------------------------------------------
def simulate(
    op: str,
    buffers: Sequence[npt.ArrayLike] | npt.NDArray[Any],
    algorithm: str | None = None,
    root: int = 0,
    *,
    pieces: int | None = None,
    peer: int | None = None,
    in_place: bool = False,
) -> CollectiveTrace:
    """Run ``op`` with ``algorithm`` (default: the first of ``ALGORITHMS[op]``) on one 1-D buffer per rank.

    ``buffers``: N ≥ 2 one-dimensional arrays of equal length and numeric dtype, or an N × L array.
    ``root``: the root of broadcast, reduce and tree all-reduce, the sender of send/recv (0 … N−1).
    ``pieces``: broadcast / reduce only, the number of pieces the message is cut into (≥ 1, default N − 1).
    ``peer``: send/recv only, the receiver (≠ ``root``, default ``root + 1``). ``in_place``: all-gather only,
    see the module docstring. The results (:attr:`CollectiveTrace.outputs`) equal the numpy references in
    the input dtype: the elementwise sum, the concatenation, the transpose, a copy.
    """
    choice("op", op, OPS)
    allowed = ALGORITHMS[op]
    alg = allowed[0] if algorithm is None else algorithm
    if alg not in allowed:
        raise ValueError(f"algorithm for op={op!r} must be one of {', '.join(allowed)}; got {algorithm!r}")
    data = as_buffers(buffers)
    n, length = data.shape
    rho = int_in_range("root", root, 0, n - 1)
    if pieces is not None and op not in ("broadcast", "reduce"):
        raise ValueError(f"pieces is only used by op='broadcast' or 'reduce', got op={op!r}")
    if peer is not None and op != "send_recv":
        raise ValueError(f"peer is only used by op='send_recv', got op={op!r}")
    if not isinstance(in_place, bool):
        raise ValueError(f"in_place must be True or False, got {in_place!r}")
    if in_place and op != "all_gather":
        raise ValueError(f"in_place is only used by op='all_gather', got op={op!r}")
    if root != 0 and op not in ("broadcast", "reduce", "send_recv") and not (op == "all_reduce" and alg == "tree"):
        raise ValueError(f"root is only used by broadcast, reduce, send_recv and tree all_reduce, got op={op!r}")
    item = data.dtype.itemsize
    ident = np.zeros((n, n), dtype=bool)
    np.fill_diagonal(ident, True)
    tree: BinaryTree | None = None
    dst_peer: int | None = None
    groups: tuple[str, ...] = ("",)

    if op in ("broadcast", "reduce"):
        c = n - 1 if pieces is None else int_in_range("pieces", pieces, 1, 1 << 16)
        bounds = chunk_bounds(length, c)
        lengths = np.diff(bounds)
        steps = _chain(n, rho, lengths, item, reduce=op == "reduce")
        initial = data
        held = np.zeros((n, c, n), dtype=bool)
        if op == "broadcast":
            held[rho, :, rho] = True
        else:
            held[:] = ident[:, None, :]
        piece_ids = np.broadcast_to(np.arange(c, dtype=np.int64), (n, c)).copy()
        size = length * item
    elif op in ("reduce_scatter", "all_reduce") and alg == "ring":
        bounds = chunk_bounds(length, n)
        lengths = np.diff(bounds)
        rs = _ring_phase(n, lengths, item, "reduce_scatter", 0)
        steps = tuple(rs + (_ring_phase(n, lengths, item, "all_gather", n - 1) if op == "all_reduce" else []))
        initial = data
        held = np.repeat(ident[:, None, :], n, axis=1)
        piece_ids = np.broadcast_to(np.arange(n, dtype=np.int64), (n, n)).copy()
        size = length * item
    elif op == "all_reduce":  # tree
        tree = binary_tree(n, rho)
        bounds = np.array([0, length], dtype=np.int64)
        steps = _tree_steps(tree, length * item)
        initial = data
        held = ident[:, None, :].copy()
        piece_ids = np.zeros((n, 1), dtype=np.int64)
        size = length * item
    elif op == "all_gather":
        if in_place:
            bounds = chunk_bounds(length, n)
            initial = data
        else:
            bounds = np.arange(n + 1, dtype=np.int64) * length
            initial = np.zeros((n, n * length), dtype=data.dtype)
            for r in range(n):
                initial[r, r * length : (r + 1) * length] = data[r]
        steps = tuple(_ring_phase(n, np.diff(bounds), item, "all_gather", 0))
        held = np.zeros((n, n, n), dtype=bool)
        held[np.arange(n), np.arange(n), np.arange(n)] = True
        piece_ids = np.broadcast_to(np.arange(n, dtype=np.int64), (n, n)).copy()
        size = int(bounds[-1]) * item
    elif op == "all_to_all":
        if length % n:
            raise ValueError(f"buffers must have a length divisible by the number of ranks for all_to_all; "
                             f"got length {length} on {n} ranks")
        m = length // n
        bounds = np.arange(2 * n + 1, dtype=np.int64) * m
        initial = np.zeros((n, 2 * length), dtype=data.dtype)
        initial[:, :length] = data
        for r in range(n):  # the piece a rank keeps: a local copy, no message
            initial[r, length + r * m : length + (r + 1) * m] = data[r, r * m : (r + 1) * m]
        steps = _pairwise(n, m, item)
        groups = ("send", "recv")
        held = np.zeros((n, 2 * n, n), dtype=bool)
        held[:, :n, :] = ident[:, None, :]
        held[np.arange(n), n + np.arange(n), np.arange(n)] = True
        piece_ids = np.concatenate(
            [np.broadcast_to(np.arange(n, dtype=np.int64), (n, n)),
             np.broadcast_to(np.arange(n, dtype=np.int64)[:, None], (n, n))], axis=1)
        size = length * item
    else:  # send_recv
        dst_peer = (rho + 1) % n if peer is None else int_in_range("peer", peer, 0, n - 1)
        if dst_peer == rho:
            raise ValueError(f"peer must differ from root = {rho}, got {peer!r}")
        bounds = np.array([0, length], dtype=np.int64)
        steps = (Step(0, "send_recv", 0, (Send(rho, dst_peer, 0, length * item, 0),)),)
        initial = data
        held = np.zeros((n, 1, n), dtype=bool)
        held[rho, 0, rho] = True
        piece_ids = np.zeros((n, 1), dtype=np.int64)
        size = length * item

    initial = np.array(initial, copy=True)
    final = replay_steps(initial, bounds, steps, len(steps))
    for arr in (initial, final, held, piece_ids, bounds):
        arr.setflags(write=False)
    return CollectiveTrace(
        op=op,
        algorithm=alg,
        ranks=n,
        root=rho,
        dtype=data.dtype,
        steps=steps,
        bounds=bounds,
        groups=groups,
        pieces=piece_ids,
        final=final,
        buffer_bytes=size,
        tree=tree,
        peer=dst_peer,
        initial=initial,
        initial_holders=held,
    )


