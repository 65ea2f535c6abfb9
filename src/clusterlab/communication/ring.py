"""Ring all-reduce on real numpy buffers, with a complete, compact trace.

Algorithm (Patarasuk & Yuan 2009; the scheme NCCL's ring uses): ``N`` ranks ``0 … N−1`` on a ring, rank
``r`` sends to ``r+1 (mod N)``. Each buffer is cut into ``N`` chunks (``np.array_split`` boundaries: the
first ``L mod N`` chunks are one element longer).

* **Reduce-scatter**, steps ``s = 0 … N−2``: rank ``r`` sends chunk ``(r − s) mod N``; the receiver adds it
  to its own copy of that chunk. After ``N−1`` steps rank ``r`` holds the complete sum of chunk
  ``(r + 1) mod N``.
* **All-gather**, steps ``s = 0 … N−2``: rank ``r`` sends chunk ``(r + 1 − s) mod N``; the receiver
  overwrites its copy. After ``N−1`` more steps every rank holds every reduced chunk.

``2(N−1)`` steps in all; each rank sends ``2(N−1)`` chunks, i.e. ``2·S·(N−1)/N`` bytes when ``N`` divides
the length. Chunk ``c`` is summed in the order ``x_c + x_{c+1} + … + x_{c−1}`` (ranks along the ring),
in the input dtype (integers wrap around exactly as ``np.sum(..., dtype=dtype)``).

The trace stores the inputs once plus the schedule; every rank's buffer after any step is rebuilt on
demand (:meth:`RingTrace.buffers_after`), so N = 64 ranks of 2**20 float32 keep two copies of the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..validate import int_in_range, non_negative, positive
from .buffers import as_buffers, chunk_bounds, count_bytes

__all__ = [
    "PipelineSchedule",
    "RingSend",
    "RingStep",
    "RingTrace",
    "chunk_bounds",
    "count_bytes",
    "pipeline_slots",
    "pipelined_time",
    "simulate_all_reduce",
    "simulate_pipelined",
]

Phase = Literal["reduce_scatter", "all_gather"]


@dataclass(frozen=True)
class RingSend:
    """One message: ``src`` sends chunk ``chunk`` (``nbytes`` bytes) to ``dst``."""

    src: int
    dst: int
    chunk: int
    nbytes: int


@dataclass(frozen=True)
class RingStep:
    """One synchronous step: ``index`` counts from 0 over both phases; ``phase_step`` within the phase."""

    index: int
    phase: Phase
    phase_step: int
    sends: tuple[RingSend, ...]

    @property
    def max_bytes(self) -> int:
        """The largest message of the step: it sets the step's time in the α-β model."""
        return max(s.nbytes for s in self.sends)


def _schedule(ranks: int, bounds: npt.NDArray[np.int64], itemsize: int) -> tuple[RingStep, ...]:
    n = ranks
    lengths = np.diff(bounds)
    out: list[RingStep] = []
    for phase, offset in (("reduce_scatter", 0), ("all_gather", 1)):
        for s in range(n - 1):
            sends = tuple(
                RingSend(r, (r + 1) % n, c, int(lengths[c]) * itemsize)
                for r in range(n)
                for c in [(r + offset - s) % n]
            )
            out.append(RingStep(len(out), phase, s, sends))  # type: ignore[arg-type]
    return tuple(out)


@dataclass(frozen=True)
class RingTrace:
    """Result of :func:`simulate_all_reduce`.

    Attributes: ``ranks`` N, ``length`` L elements per buffer, ``dtype``, ``steps`` (``2(N−1)``
    :class:`RingStep`), ``final`` (N × L array: every rank's buffer at the end), ``bytes_sent`` (per rank,
    total), ``bounds`` (chunk boundaries). ``inputs`` is a private copy of the inputs used to rebuild
    intermediate states.
    """

    ranks: int
    length: int
    dtype: np.dtype[Any]
    steps: tuple[RingStep, ...]
    final: npt.NDArray[Any]
    bounds: npt.NDArray[np.int64]
    inputs: npt.NDArray[Any] = field(repr=False)

    @property
    def num_steps(self) -> int:
        return len(self.steps)

    @property
    def buffer_bytes(self) -> int:
        """S: one rank's buffer in bytes."""
        return self.length * self.dtype.itemsize

    @property
    def chunk_bytes(self) -> npt.NDArray[np.int64]:
        return np.diff(self.bounds) * self.dtype.itemsize

    def bytes_sent_after(self, step: int) -> npt.NDArray[np.int64]:
        """Bytes each rank has sent after ``step`` steps (0 … 2(N−1))."""
        self._check_step(step)
        return count_bytes(self.steps[:step], self.ranks, "src")

    @property
    def bytes_sent(self) -> npt.NDArray[np.int64]:
        return self.bytes_sent_after(self.num_steps)

    @property
    def bytes_received(self) -> npt.NDArray[np.int64]:
        return count_bytes(self.steps, self.ranks, "dst")

    def time_after(self, step: int, latency: float, bandwidth: float) -> float:
        """α-β time of the first ``step`` steps: each step costs ``α + (largest message)/β``."""
        self._check_step(step)
        alpha = non_negative("latency", latency)
        beta = positive("bandwidth", bandwidth)
        return sum(alpha + st.max_bytes / beta for st in self.steps[:step])

    def _check_step(self, step: int) -> None:
        if not 0 <= step <= self.num_steps:
            raise ValueError(f"step must be in 0 … {self.num_steps}, got {step!r}")

    def buffers_after(self, step: int) -> npt.NDArray[Any]:
        """Every rank's buffer (N × L) after ``step`` steps; ``0`` gives the inputs."""
        self._check_step(step)
        if step == self.num_steps:
            return self.final.copy()
        padded = _pad(self.inputs, self.ranks, self.bounds)
        _run(padded, self.ranks, step)
        return _unpad(padded, self.bounds)

    def contributions_after(self, step: int) -> npt.NDArray[np.bool_]:
        """``C[r, c, k]`` is True when rank ``r``'s copy of chunk ``c`` contains rank ``k``'s input.

        Shape N × N × N; at step 0 ``C[r, c, k] = (r == k)``; at the end every entry is True.
        """
        self._check_step(step)
        n = self.ranks
        contrib = np.zeros((n, n, n), dtype=bool)
        idx = np.arange(n)
        contrib[idx, :, idx] = True
        for st in self.steps[:step]:
            src = np.array([x.src for x in st.sends])
            dst = np.array([x.dst for x in st.sends])
            chk = np.array([x.chunk for x in st.sends])
            msg = contrib[src, chk].copy()
            if st.phase == "reduce_scatter":
                contrib[dst, chk] |= msg
            else:
                contrib[dst, chk] = msg
        return contrib


def _pad(data: npt.NDArray[Any], n: int, bounds: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
    """N × L inputs → the working layout ``Q`` (N × N × m, zero padded, *rotated*).

    ``Q[r, j]`` is rank ``r``'s copy of chunk ``(r − j) mod N``. In this layout a ring step is a pair of
    slice operations on one column ``j`` (see :func:`_run`), with no fancy indexing in the hot loop.
    """
    lengths = np.diff(bounds)
    m = int(lengths.max()) if lengths.size else 0
    full = int(np.count_nonzero(lengths == m))  # chunks 0 … full-1 have length m, the rest m - 1
    q = np.empty((n, n, m), dtype=data.dtype)
    tmp = np.zeros((n, m), dtype=data.dtype)
    for r in range(n):
        if full == n:
            chunks = data[r].reshape(n, m)
        else:
            tmp[:full] = data[r, : full * m].reshape(full, m)
            if m > 1:
                tmp[full:, : m - 1] = data[r, full * m :].reshape(n - full, m - 1)
            chunks = tmp
        # Q[r, j] = chunk (r - j) mod n: chunks r, r-1, …, 0, then n-1, …, r+1
        q[r, : r + 1] = chunks[r::-1]
        q[r, r + 1 :] = chunks[: r : -1]
    return q


def _unpad(q: npt.NDArray[Any], bounds: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
    """Inverse of :func:`_pad`: the working layout back to N × L buffers."""
    n, _, m = q.shape
    lengths = np.diff(bounds)
    full = int(np.count_nonzero(lengths == m))
    length = int(bounds[-1])
    out = np.empty((n, length), dtype=q.dtype)
    tmp = np.empty((n, m), dtype=q.dtype)
    for r in range(n):
        # chunk c of rank r sits at column (r - c) mod n: columns r, r-1, …, 0, n-1, …, r+1
        chunks = out[r].reshape(n, m) if full == n else tmp
        chunks[: r + 1] = q[r, r::-1]
        chunks[r + 1 :] = q[r, : r : -1]
        if full < n:
            out[r, : full * m] = tmp[:full].reshape(-1)
            if m > 1:
                out[r, full * m :] = tmp[full:, : m - 1].reshape(-1)
    return out


def _run(q: npt.NDArray[Any], n: int, upto: int) -> None:
    """Apply the first ``upto`` ring steps in place on the working layout.

    Reduce-scatter step k: rank r sends its chunk (r − k) = ``Q[r, k]``; rank r+1 holds that chunk at
    column k+1, so ``Q[r+1, k+1] += Q[r, k]``. All-gather step s: rank r sends chunk (r + 1 − s) =
    ``Q[r, s−1]``; rank r+1 overwrites its column s: ``Q[r+1, s] = Q[r, s−1]``.
    """
    for k in range(upto):
        if k < n - 1:
            q[1:, k + 1] += q[:-1, k]
            q[0, k + 1] += q[-1, k]
        else:
            s = k - (n - 1)
            prev = (s - 1) % n
            q[1:, s] = q[:-1, prev]
            q[0, s] = q[-1, prev]


def simulate_all_reduce(buffers: Sequence[npt.ArrayLike] | npt.NDArray[Any]) -> RingTrace:
    """Run ring all-reduce on one 1-D buffer per rank and return the :class:`RingTrace`.

    ``buffers``: a list of N ≥ 2 one-dimensional arrays of equal length and dtype, or an N × L array.
    ``trace.final[r]`` equals the elementwise sum of all inputs, in the input dtype, on every rank.
    """
    data = as_buffers(buffers)
    n, length = data.shape
    bounds = chunk_bounds(length, n)
    padded = _pad(data, n, bounds)
    _run(padded, n, 2 * (n - 1))
    final = _unpad(padded, bounds)
    final.setflags(write=False)
    data.setflags(write=False)
    return RingTrace(
        ranks=n,
        length=length,
        dtype=data.dtype,
        steps=_schedule(n, bounds, data.dtype.itemsize),
        final=final,
        bounds=bounds,
        inputs=data,
    )


# --------------------------------------------------------------------------------------------------------
# chunked (pipelined) ring all-reduce: closed form, optimum, discrete-event simulation
# --------------------------------------------------------------------------------------------------------
#
# Model. N ranks on a ring; the buffer of S bytes is cut into N blocks (the ring's 2(N−1) steps, as above)
# and every block into c chunks of b = S/(N·c) bytes. The path from rank r to rank r+1 is not one wire but
# h store-and-forward stages (for a GPU across nodes, e.g. GPU → NIC, NIC → switch → NIC, NIC → GPU: h = 3).
# Each stage handles one chunk at a time and takes τ = α + b/β per chunk (α: fixed cost per chunk per stage,
# β: the stage's per-direction bandwidth, equal for all stages). A chunk can enter the next stage as soon as it
# left the previous one; rank r may send chunk k of step s once chunk k of step s−1 has arrived from rank r−1.
#
# Every path carries 2(N−1)·c chunks in order. If c ≥ h the paths never stall and the last chunk leaves the
# last stage after (2(N−1)c + h − 1)·τ; if c < h each step waits for its first chunk to cross all h stages and
# the time is (2(N−1)h + c − 1)·τ. Together:
#
#     T(c) = (2(N−1)·max(c, h) + min(c, h) − 1) · (α + S/(N c β)).
#
# For c ≥ h, dT/dc = 0 gives c* = sqrt((h − 1)·S / (2N(N−1)·α·β)); with h = 1 (a single stage) T grows with c
# and c = 1 is best: on a plain link, chunking a ring all-reduce only adds latency. The exact integer optimum over
# all c ≥ 1 is :func:`clusterlab.communication.chunking.best_chunks`.


def _check_chunked(
    size: float, ranks: int, chunks: int, latency: float, bandwidth: float, stages: int
) -> tuple[float, int, int, float, float, int]:
    s = non_negative("size", size)
    n = int_in_range("ranks", ranks, 2)
    c = int_in_range("chunks", chunks, 1)
    a = non_negative("latency", latency)
    b = positive("bandwidth", bandwidth)
    h = int_in_range("stages", stages, 1)
    return s, n, c, a, b, h


def pipelined_time(
    size: float, ranks: int, chunks: int, latency: float, bandwidth: float, *, stages: int = 3
) -> float:
    """Closed-form time (s) of the chunked ring all-reduce model (see the comment above this function).

    ``T(c) = (2(N−1)·max(c, h) + min(c, h) − 1) · (α + S/(N c β))`` with ``c = chunks`` per block and
    ``h = stages`` store-and-forward stages between neighbours. ``chunks = 1, stages = 1`` is the plain ring
    ``2(N−1)(α + S/(Nβ))``. Confirmed chunk by chunk by :func:`simulate_pipelined`.
    """
    s, n, c, a, b, h = _check_chunked(size, ranks, chunks, latency, bandwidth, stages)
    tau = a + s / (n * c * b)
    return pipeline_slots(n, c, h) * tau


def pipeline_slots(ranks: int, chunks: int, stages: int) -> int:
    """Chunk-times on the critical path of the chunked ring: ``2(N−1)·max(c, h) + min(c, h) − 1`` (the one place
    this count is written; :func:`pipelined_time` and :func:`clusterlab.communication.chunking.pipelined_terms`
    use it)."""
    return 2 * (ranks - 1) * max(chunks, stages) + min(chunks, stages) - 1


@dataclass(frozen=True)
class PipelineSchedule:
    """Result of :func:`simulate_pipelined`: ``makespan`` (s) and, for every path (rank r → r+1), job
    ``(step, chunk)`` in sending order, and stage ``j``, the finish time ``finish[r, job, j]``."""

    ranks: int
    chunks: int
    stages: int
    chunk_time: float
    finish: npt.NDArray[np.float64] = field(repr=False)

    @property
    def makespan(self) -> float:
        return float(self.finish[:, -1, -1].max()) if self.finish.size else 0.0

    def link_busy_fraction(self) -> float:
        """Share of the makespan during which a stage is busy (the same for every stage and path)."""
        jobs = self.finish.shape[1]
        return jobs * self.chunk_time / self.makespan if self.makespan else 0.0


def simulate_pipelined(
    size: float, ranks: int, chunks: int, latency: float, bandwidth: float, *, stages: int = 3
) -> PipelineSchedule:
    """Discrete-event simulation of the chunked ring all-reduce model, every chunk on every stage.

    All ``N`` paths are simulated (vectorised over ranks); job ``(s, k)`` on path ``r`` may start its first stage
    when (i) that stage finished the previous job of path ``r`` and (ii) chunk ``k`` of step ``s−1`` has left
    the last stage of path ``r−1`` (i.e. arrived at rank ``r``). Stage ``j`` starts when the job left stage
    ``j−1`` and stage ``j`` is free. The makespan equals :func:`pipelined_time` (tested).
    """
    s, n, c, a, b, h = _check_chunked(size, ranks, chunks, latency, bandwidth, stages)
    tau = a + s / (n * c * b)
    steps_total = 2 * (n - 1)
    jobs = steps_total * c
    finish = np.zeros((n, jobs, h))
    prev_from = (np.arange(n) - 1) % n  # rank r receives from r−1
    free = np.zeros((n, h))  # when each stage of each path is free again
    for i in range(jobs):
        step, k = divmod(i, c)
        if step == 0:
            ready = np.zeros(n)
        else:
            ready = finish[prev_from, (step - 1) * c + k, h - 1]
        t = ready
        for j in range(h):
            start = np.maximum(t, free[:, j])
            t = start + tau
            free[:, j] = t
            finish[:, i, j] = t
    return PipelineSchedule(n, c, h, tau, finish)
