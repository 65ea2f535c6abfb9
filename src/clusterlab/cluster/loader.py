"""The loader side of the data plane: a prefetching loader feeding the GPU, the tokens a training job consumes,
pre-tokenised shards vs tokenising on the fly, and the storage load of data vs checkpoints (集群篇 §6).

Loader model (``torch.utils.data.DataLoader`` with ``num_workers = W ≥ 1`` and ``prefetch_factor = p``): batch
``k`` is loaded by worker ``k mod W`` in ``L_k`` seconds; at most ``P = W·p`` batches are outstanding, so batch
``k ≥ P`` is dispatched only when the training loop has taken batch ``k − P``; the loop takes batches in order and
then computes for ``G`` seconds. With ``a_k`` the dispatch, ``s_k`` the load start, ``r_k`` the ready time and
``c_k`` the time the loop takes batch ``k``::

    s_k = max(r_{k−W}, c_{k−P})          (the worker is free and a slot is free; terms with negative index are 0)
    r_k = s_k + L_k
    c_k = max(r_k, c_{k−1} + G)          (the GPU waits c_k − (c_{k−1} + G) for data)

``W = 0`` is loading in the training process: ``c_k = c_{k−1} + G + L_k``. Every time is a max-plus expression
that is non-decreasing in each constraint, so a deeper prefetch (``p``) never lengthens the run (more workers
usually help, but round-robin assignment can hand a slow batch to a busy worker, so that is not guaranteed).
Steady state: the step takes at least ``max(G, L̄/W)`` (prefetch hides jitter in ``L_k``, never a mean deficit).
Source for the DataLoader semantics: PyTorch docs, ``torch.utils.data`` (``num_workers``, ``prefetch_factor`` —
"number of batches loaded in advance by each worker", default 2 —, ``pin_memory``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..validate import finite, int_in_range, non_negative, positive

__all__ = [
    "LoaderRun",
    "StorageLoad",
    "TokenThroughput",
    "simulate_loader",
    "steady_step_time",
    "storage_load",
    "token_rate",
    "tokenisation_throughput",
]


@dataclass(frozen=True)
class LoaderRun:
    """Result of :func:`simulate_loader`; times in s from the start, one entry per batch.

    ``load_start`` when a worker starts loading batch ``k``, ``ready`` when it is loaded, ``taken`` when the
    training loop takes it (and starts computing), ``wait`` how long the GPU idled for it before ``taken``.
    """

    step_time: float
    workers: int
    prefetch_factor: int
    load_times: npt.NDArray[np.float64]
    load_start: npt.NDArray[np.float64]
    ready: npt.NDArray[np.float64]
    taken: npt.NDArray[np.float64]
    wait: npt.NDArray[np.float64]

    @property
    def depth(self) -> int:
        """Batches in flight at most, ``W·p`` (0 when loading in the training process)."""
        return self.workers * self.prefetch_factor

    @property
    def batches(self) -> int:
        return int(self.load_times.size)

    @property
    def total_time(self) -> float:
        """Wall time until the last step has computed (s)."""
        return float(self.taken[-1] + self.step_time)

    @property
    def total_wait(self) -> float:
        """Time the GPU waited for data (s), including the first batch."""
        return float(self.wait.sum())

    @property
    def throughput(self) -> float:
        """Steps per second over the run."""
        return self.batches / self.total_time

    @property
    def gpu_busy(self) -> float:
        """Fraction of the wall time the GPU computed."""
        return self.batches * self.step_time / self.total_time


def simulate_loader(
    load_times: npt.ArrayLike, step_time: float, *, workers: int = 2, prefetch_factor: int = 2
) -> LoaderRun:
    """Simulate the loader model of the module docstring.

    ``load_times`` (s, one per batch, each ≥ 0, at least one), ``step_time`` G > 0 (s), ``workers`` W ≥ 0,
    ``prefetch_factor`` p ≥ 1 (ignored when W = 0). O(batches); returns a :class:`LoaderRun`.
    """
    lt = np.asarray(load_times, dtype=float)
    if lt.ndim != 1 or lt.size == 0:
        raise ValueError(f"load_times must be a non-empty 1-D sequence of seconds, got shape {lt.shape}")
    if not np.all(np.isfinite(lt)) or np.any(lt < 0):
        raise ValueError("load_times must be finite numbers >= 0 (s)")
    g = positive("step_time", step_time)
    w = int_in_range("workers", workers, 0)
    p = int_in_range("prefetch_factor", prefetch_factor, 1)
    n = lt.size
    start = np.zeros(n)
    ready = np.zeros(n)
    taken = np.zeros(n)
    wait = np.zeros(n)
    gpu_free = 0.0
    depth = w * p
    for k, lk in enumerate(lt.tolist()):
        if w == 0:
            start[k] = gpu_free
        else:
            worker_free = ready[k - w] if k >= w else 0.0
            slot_free = taken[k - depth] if k >= depth else 0.0
            start[k] = max(worker_free, slot_free)
        ready[k] = start[k] + lk
        taken[k] = max(ready[k], gpu_free)
        wait[k] = taken[k] - gpu_free
        gpu_free = taken[k] + g
    for a in (lt, start, ready, taken, wait):
        a.flags.writeable = False
    return LoaderRun(g, w, p if w > 0 else 0, lt, start, ready, taken, wait)


def steady_step_time(mean_load_time: float, step_time: float, workers: int) -> float:
    """Lower bound of the mean step (s): ``max(G, L̄/W)`` for W ≥ 1 workers, ``G + L̄`` for W = 0."""
    lbar = non_negative("mean_load_time", mean_load_time)
    g = positive("step_time", step_time)
    w = int_in_range("workers", workers, 0)
    return g + lbar if w == 0 else max(g, lbar / w)


def token_rate(params: float, gpus: int, peak_flops: float, mfu: float) -> float:
    """Tokens per second a dense model trains on: ``gpus · peak · MFU / (6·params)``.

    The 6N rule (forward 2N + backward 4N FLOP per token, attention ignored; Kaplan et al. 2020, §2.1), inverted
    with the MFU definition of PaLM (Chowdhery et al. 2022, §4.1). ``peak_flops`` per GPU (FLOP/s), ``mfu`` in (0, 1].
    """
    n = positive("params", params)
    k = int_in_range("gpus", gpus, 1)
    peak = positive("peak_flops", peak_flops)
    u = positive("mfu", mfu)
    if u > 1:
        raise ValueError(f"mfu must be in (0, 1], got {mfu!r}")
    return k * peak * u / (6.0 * n)


@dataclass(frozen=True)
class TokenThroughput:
    """Tokens per second one node can supply, pre-tokenised vs tokenised on the fly (:func:`tokenisation_throughput`).

    ``demand`` tokens/s the node's GPUs consume; ``pretokenised`` = read bandwidth ÷ bytes per stored token;
    ``read_limited`` and ``cpu_limited`` are the two limits of the on-the-fly path, ``on_the_fly`` the smaller;
    ``cores_needed`` CPU cores the on-the-fly path keeps busy at ``demand``; ``stored_ratio`` bytes of a
    pre-tokenised shard per byte of raw text.
    """

    demand: float
    pretokenised: float
    read_limited: float
    cpu_limited: float
    cores_needed: float
    stored_ratio: float

    @property
    def on_the_fly(self) -> float:
        return min(self.read_limited, self.cpu_limited)

    @property
    def pretokenised_headroom(self) -> float:
        return self.pretokenised / self.demand

    @property
    def on_the_fly_headroom(self) -> float:
        return self.on_the_fly / self.demand


def tokenisation_throughput(
    demand: float,
    read_bandwidth: float,
    *,
    token_bytes: float,
    raw_bytes_per_token: float,
    tokenizer_rate: float,
    cores: int,
) -> TokenThroughput:
    """Compare the two ways one node feeds ``demand`` tokens/s.

    Pre-tokenised binary shards: the loader reads ``token_bytes`` B per token (2 for uint16 ids, 4 for uint32) at
    ``read_bandwidth`` B/s. On the fly: it reads ``raw_bytes_per_token`` B of text per token at the same bandwidth
    and tokenises it at ``tokenizer_rate`` B/s of text per core on ``cores`` cores. Every rate is an assumption the
    caller states; the function only divides. Returns a :class:`TokenThroughput`.
    """
    d = positive("demand", demand)
    bw = positive("read_bandwidth", read_bandwidth)
    tb = positive("token_bytes", token_bytes)
    rb = positive("raw_bytes_per_token", raw_bytes_per_token)
    tr = positive("tokenizer_rate", tokenizer_rate)
    c = int_in_range("cores", cores, 1)
    return TokenThroughput(
        demand=d,
        pretokenised=bw / tb,
        read_limited=bw / rb,
        cpu_limited=c * tr / rb,
        cores_needed=d * rb / tr,
        stored_ratio=tb / rb,
    )


@dataclass(frozen=True)
class StorageLoad:
    """Storage traffic of one training job (:func:`storage_load`), bandwidths in B/s, volumes in B per hour.

    ``data_bandwidth`` the steady read stream of training data; ``checkpoint_burst`` the write bandwidth a
    checkpoint needs to finish in the save time; ``checkpoint_mean`` its average over one period; ``period`` the
    wall-clock time from the start of one save to the start of the next (training time plus save time; 0 when
    not recorded).
    """

    data_bandwidth: float
    checkpoint_burst: float
    checkpoint_mean: float
    period: float = 0.0

    @property
    def data_per_hour(self) -> float:
        return self.data_bandwidth * 3600.0

    @property
    def checkpoint_per_hour(self) -> float:
        return self.checkpoint_mean * 3600.0

    @property
    def burst_over_data(self) -> float:
        """How many times the checkpoint burst exceeds the data stream."""
        return self.checkpoint_burst / self.data_bandwidth


def storage_load(
    tokens_per_s: float, token_bytes: float, checkpoint_bytes: float, interval: float, save_time: float,
    *, wall_clock: bool = False,
) -> StorageLoad:
    """Reads of pre-tokenised data (``tokens_per_s`` × ``token_bytes``) vs checkpoint writes of ``checkpoint_bytes``
    every ``interval`` seconds of training, each written in ``save_time`` s (training waits): burst
    ``bytes/save_time``, mean ``bytes/(interval + save_time)`` over the period ``interval + save_time``. With
    ``wall_clock=True``, ``interval`` is that whole period instead (a save every ``interval`` seconds of wall
    time, e.g. every hour; it must exceed ``save_time``) and the mean is ``bytes/interval``. All SI (B, s, B/s)."""
    t = positive("tokens_per_s", tokens_per_s)
    tb = positive("token_bytes", token_bytes)
    cb = positive("checkpoint_bytes", checkpoint_bytes)
    iv = positive("interval", interval)
    st = positive("save_time", save_time)
    finite("interval", iv)
    if wall_clock and iv <= st:
        raise ValueError(f"interval (the wall-clock period) must exceed save_time = {st:g} s, got {interval!r}")
    period = iv if wall_clock else iv + st
    return StorageLoad(data_bandwidth=t * tb, checkpoint_burst=cb / st, checkpoint_mean=cb / period, period=period)
