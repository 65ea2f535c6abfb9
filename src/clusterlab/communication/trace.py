"""The trace every collective simulator returns: synchronous steps of messages between slots of per-rank working
buffers, from which every intermediate state, the bytes each rank sent and the α-β time are rebuilt.

See :mod:`clusterlab.communication.primitives` for the model (slots, reducing and overwriting phases) and the
algorithms that produce traces. :func:`from_ring_trace` views a :class:`~clusterlab.communication.ring.RingTrace`
as a :class:`CollectiveTrace`; :func:`replay_transposed` plays a schedule backwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..validate import non_negative, positive
from .buffers import count_bytes
from .ring import RingTrace
from .trees import BinaryTree

__all__ = [
    "PHASES",
    "CollectiveTrace",
    "Send",
    "Step",
    "TransposeReplay",
    "from_ring_trace",
    "replay_steps",
    "replay_transposed",
]

#: Phase names a step can carry; the receiver adds (``+=``) in the reducing ones, else overwrites.
PHASES: Final = ("broadcast", "reduce", "reduce_scatter", "all_gather", "all_to_all", "send_recv")
_ADDING: Final = frozenset({"reduce", "reduce_scatter"})


@dataclass(frozen=True)
class Send:
    """One message: ``src`` sends its slot ``chunk`` (``nbytes`` bytes) to ``dst``, which adds it to or stores
    it in its slot ``into`` (the same slot except in all-to-all, where it lands in the receive buffer)."""

    src: int
    dst: int
    chunk: int
    nbytes: int
    into: int


@dataclass(frozen=True)
class Step:
    """One synchronous step: ``index`` counts from 0 over all phases, ``phase_step`` within ``phase``."""

    index: int
    phase: str
    phase_step: int
    sends: tuple[Send, ...]

    @property
    def reduces(self) -> bool:
        """True when receivers add what they get (``+=``), False when they overwrite (``=``)."""
        return self.phase in _ADDING

    @property
    def max_bytes(self) -> int:
        """The largest single message of the step."""
        return max((s.nbytes for s in self.sends), default=0)

    @property
    def port_bytes(self) -> int:
        """The most bytes one rank sends, or one rank receives, in this step: it sets the step's time."""
        out: dict[int, int] = {}
        inc: dict[int, int] = {}
        for s in self.sends:
            out[s.src] = out.get(s.src, 0) + s.nbytes
            inc[s.dst] = inc.get(s.dst, 0) + s.nbytes
        return max([0, *out.values(), *inc.values()])


# --------------------------------------------------------------------------------------------------------
# the trace
# --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CollectiveTrace:
    """Result of :func:`simulate` (or :func:`from_ring_trace`).

    Attributes: ``op``, ``algorithm``, ``ranks`` N, ``root``, ``dtype``; ``steps`` (:class:`Step`);
    ``bounds`` (slot boundaries in a rank's working buffer, ``slots + 1`` entries); ``groups``: the names of
    the buffers the slots are split over (``("",)``, or ``("send", "recv")`` for all-to-all: the first half of
    the slots is the send buffer); ``pieces[r, k]``: the piece of its contributors' inputs slot ``k`` of rank
    ``r`` stands for; ``final`` (N × width: every working buffer after the last step); ``tree`` (the
    :class:`BinaryTree` of the tree algorithm, else None). ``initial`` and ``initial_holders`` are the state
    before step 1, kept to rebuild intermediate states.
    """

    op: str
    algorithm: str
    ranks: int
    root: int
    dtype: np.dtype[Any]
    steps: tuple[Step, ...]
    bounds: npt.NDArray[np.int64]
    groups: tuple[str, ...]
    pieces: npt.NDArray[np.int64]
    final: npt.NDArray[Any]
    buffer_bytes: int
    initial: npt.NDArray[Any] = field(repr=False)
    initial_holders: npt.NDArray[np.bool_] = field(repr=False)
    tree: BinaryTree | None = None
    peer: int | None = None

    # ---- shape --------------------------------------------------------------------------------------------
    @property
    def num_steps(self) -> int:
        return len(self.steps)

    @property
    def slots(self) -> int:
        """Slots per rank (over all groups)."""
        return len(self.bounds) - 1

    @property
    def width(self) -> int:
        """Elements in one rank's working buffer."""
        return int(self.bounds[-1])

    @property
    def slot_bytes(self) -> npt.NDArray[np.int64]:
        """Bytes in each slot."""
        return np.diff(self.bounds) * self.dtype.itemsize

    @property
    def phases(self) -> tuple[str, ...]:
        """The phases in order of appearance (``("reduce_scatter", "all_gather")`` for ring all-reduce)."""
        seen: list[str] = []
        for st in self.steps:
            if st.phase not in seen:
                seen.append(st.phase)
        return tuple(seen)

    def phase_length(self, phase: str) -> int:
        """Number of steps of ``phase``."""
        return sum(st.phase == phase for st in self.steps)

    def _check_step(self, step: int) -> int:
        if isinstance(step, bool) or not isinstance(step, int | np.integer) or not 0 <= step <= self.num_steps:
            raise ValueError(f"step must be an integer in 0 … {self.num_steps}, got {step!r}")
        return int(step)

    # ---- bytes and time -----------------------------------------------------------------------------------
    def bytes_sent_after(self, step: int) -> npt.NDArray[np.int64]:
        """Bytes each rank has sent after ``step`` steps."""
        k = self._check_step(step)
        return count_bytes(self.steps[:k], self.ranks, "src")

    def bytes_received_after(self, step: int) -> npt.NDArray[np.int64]:
        """Bytes each rank has received after ``step`` steps."""
        k = self._check_step(step)
        return count_bytes(self.steps[:k], self.ranks, "dst")

    @property
    def bytes_sent(self) -> npt.NDArray[np.int64]:
        return self.bytes_sent_after(self.num_steps)

    @property
    def bytes_received(self) -> npt.NDArray[np.int64]:
        return self.bytes_received_after(self.num_steps)

    def time_after(self, step: int, latency: float, bandwidth: float) -> float:
        """α-β time of the first ``step`` steps: ``Σ (α + B/β)``, ``B`` the busiest port's bytes in the step
        (:attr:`Step.port_bytes`; equal to the largest message when no rank sends or receives two)."""
        k = self._check_step(step)
        alpha = non_negative("latency", latency)
        beta = positive("bandwidth", bandwidth)
        return sum(alpha + st.port_bytes / beta for st in self.steps[:k])

    # ---- states -------------------------------------------------------------------------------------------
    def buffers_after(self, step: int) -> npt.NDArray[Any]:
        """Every rank's working buffer (N × width) after ``step`` steps; ``0`` gives the starting state."""
        k = self._check_step(step)
        if k == self.num_steps:
            return self.final.copy()
        return replay_steps(self.initial, self.bounds, self.steps, k)

    def contributions_after(self, step: int) -> npt.NDArray[np.bool_]:
        """``C[r, k, j]``: slot ``k`` of rank ``r`` contains (a piece of) rank ``j``'s input after ``step`` steps.

        Shape N × slots × N. An all-False row is an empty slot (nothing received yet, or a receive buffer).
        """
        k = self._check_step(step)
        held = self.initial_holders.copy()
        for st in self.steps[:k]:
            msgs = [held[s.src, s.chunk].copy() for s in st.sends]
            for s, m in zip(st.sends, msgs, strict=True):
                if st.reduces:
                    held[s.dst, s.into] |= m
                else:
                    held[s.dst, s.into] = m
        return held

    @property
    def outputs(self) -> tuple[npt.NDArray[Any] | None, ...]:
        """What the primitive defines as each rank's result (None where it defines none):

        broadcast, all-reduce, all-gather: the whole buffer on every rank; reduce: the sum on ``root`` only;
        reduce-scatter: rank ``r`` gets the sum of chunk ``r``; all-to-all: the receive buffer; send/recv: the
        message on ``peer`` only.
        """
        n, f, b = self.ranks, self.final, self.bounds
        if self.op in ("broadcast", "all_reduce", "all_gather"):
            return tuple(f[r].copy() for r in range(n))
        if self.op == "reduce":
            return tuple(f[r].copy() if r == self.root else None for r in range(n))
        if self.op == "reduce_scatter":
            return tuple(f[r, b[r] : b[r + 1]].copy() for r in range(n))
        if self.op == "all_to_all":
            return tuple(f[r, b[n] :].copy() for r in range(n))
        return tuple(f[r].copy() if r == self.peer else None for r in range(n))


def replay_steps(
    initial: npt.NDArray[Any], bounds: npt.NDArray[np.int64], steps: Sequence[Step], upto: int
) -> npt.NDArray[Any]:
    """The working buffers after the first ``upto`` of ``steps``, starting from ``initial`` (not modified)."""
    work = initial.copy()
    for st in steps[:upto]:
        msgs = [work[s.src, bounds[s.chunk] : bounds[s.chunk + 1]].copy() for s in st.sends]
        for s, m in zip(st.sends, msgs, strict=True):
            lo, hi = bounds[s.into], bounds[s.into + 1]
            if st.reduces:
                work[s.dst, lo:hi] += m  # in place: stays in the input dtype, integers wrap around
            else:
                work[s.dst, lo:hi] = m
    return work


def from_ring_trace(trace: RingTrace) -> CollectiveTrace:
    """The :class:`~clusterlab.communication.ring.RingTrace` of
    :func:`clusterlab.communication.ring.simulate_all_reduce` as a
    :class:`CollectiveTrace` (op ``"all_reduce"``, algorithm ``"ring"``), keeping its chunk numbering.

    Every state, byte counter and α-β time of the result equals the ring trace's.
    """
    if not isinstance(trace, RingTrace):
        raise ValueError(f"trace must be a clusterlab.communication.ring.RingTrace, got {type(trace).__name__}")
    n = trace.ranks
    steps = tuple(
        Step(st.index, st.phase, st.phase_step, tuple(Send(s.src, s.dst, s.chunk, s.nbytes, s.chunk) for s in st.sends))
        for st in trace.steps
    )
    held = np.zeros((n, n, n), dtype=bool)
    held[np.arange(n), :, np.arange(n)] = True
    pieces = np.broadcast_to(np.arange(n, dtype=np.int64), (n, n)).copy()
    for arr in (held, pieces):
        arr.setflags(write=False)
    return CollectiveTrace(
        op="all_reduce",
        algorithm="ring",
        ranks=n,
        root=0,
        dtype=trace.dtype,
        steps=steps,
        bounds=trace.bounds,
        groups=("",),
        pieces=pieces,
        final=trace.final,
        buffer_bytes=trace.buffer_bytes,
        initial=trace.inputs,
        initial_holders=held,
    )


@dataclass(frozen=True)
class TransposeReplay:
    """Result of :func:`replay_transposed`: the buffers after the reversed schedule and each rank's bytes sent."""

    buffers: npt.NDArray[Any]
    bytes_sent: npt.NDArray[np.int64]


def replay_transposed(trace: CollectiveTrace, buffers: npt.ArrayLike) -> TransposeReplay:
    """Run ``trace``'s schedule backwards — last step first, every message reversed (``dst → src``), the
    receiver **adding** what it gets — on ``buffers`` (N × width, one row per rank).

    This is the transpose of the collective: played backwards, an all-gather becomes a reduce-scatter (rank
    ``r`` ends with the sum of slot ``r``), and every rank sends what it received in the original, and vice
    versa. Within one reversed step all messages are read before any is added, as in a synchronous step.
    """
    data = np.array(buffers, copy=True)
    if data.ndim != 2 or data.shape[0] != trace.ranks or data.shape[1] != int(trace.bounds[-1]):
        raise ValueError(
            f"buffers must have shape ({trace.ranks}, {int(trace.bounds[-1])}) to match the trace, got {data.shape}"
        )
    b = trace.bounds
    sent = np.zeros(trace.ranks, dtype=np.int64)
    for st in reversed(trace.steps):
        msgs = [(s.dst, s.src, s.chunk, s.nbytes) for s in st.sends]
        payload = [data[src, b[c] : b[c + 1]].copy() for src, _, c, _ in msgs]
        for (src, dst, c, nbytes), piece in zip(msgs, payload, strict=True):
            data[dst, b[c] : b[c + 1]] += piece
            sent[src] += nbytes
    return TransposeReplay(data, sent)
