"""The storage tier of the data plane: a node's local-SSD cache in front of object storage (集群篇 §6).

Model. The dataset lives in object storage as ``n`` equal shards (``dataset_bytes / shard_bytes``, rounded up).
Each node keeps a local-SSD cache of ``C = floor(cache_bytes / shard_bytes)`` shards. In every epoch a node opens
its shards one after another (a shard is read whole, as with webdataset-style tar shards); opening a shard that
is in the cache is a **hit** (read from SSD), otherwise a **miss** (the shard is fetched from object storage and
inserted into the cache, evicting one if the cache is full). Access orders:

``"sequential"``
    the same order every epoch (a cyclic scan);
``"shuffled"``
    a fresh random permutation every epoch (seeded).

With ``nodes > 1`` the shards are divided among the nodes and the simulated node is node 0: ``split="fixed"``
gives it the same subset every epoch (shards ``0, nodes, 2·nodes, …``), ``split="per_epoch"`` deals a new subset
every epoch from the epoch's permutation, as ``torch.utils.data.DistributedSampler(shuffle=True)`` does
(``indices[rank::num_replicas]`` of a permutation seeded by ``seed + epoch``) — but with **whole shards** as the
items dealt. The real sampler deals samples; when every shard holds many samples, a node then draws some samples
from almost every shard in every epoch, and a cache of whole shards helps even less than modelled here.

Eviction policies: ``"lru"`` (least recently used) and ``"static"`` (the first ``C`` distinct shards stay, nothing
is evicted; later misses are read from object storage without being cached).

Closed forms (large ``n``, one node, cache fraction ``c = C/n``): sequential LRU has hit rate **0** from epoch 2 on
whenever ``c < 1`` — every shard is evicted ``C`` openings after its use and is needed again only ``n > C``
openings later (the looping pattern on which LRU fails; Jiang & Zhang 2002, §1); shuffled LRU has
``h(c) = c + (1 − c)·ln(1 − c)`` (:func:`shuffled_lru_hit_rate`); a static cache has ``c`` in any order; any policy
has 1 once ``c ≥ 1``.

Speed: event-based — one event per shard opening, not per sample; 10⁶ openings take about half a second
(``benchmarks/test_dataplane_bench.py``).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from ..validate import choice, int_in_range, non_negative, positive

__all__ = [
    "ORDERS",
    "POLICIES",
    "SPLITS",
    "SWEEP_CASES",
    "CacheRun",
    "HitRateSweep",
    "SeedHitRates",
    "cache_capacity",
    "hit_counts",
    "hit_rate_sweep",
    "hit_rates_over_seeds",
    "shard_count",
    "shuffled_lru_hit_rate",
    "simulate_cache",
    "simulate_shard_cache",
]

ORDERS: Final = ("sequential", "shuffled")
SPLITS: Final = ("fixed", "per_epoch")
POLICIES: Final = ("lru", "static")


@dataclass(frozen=True)
class CacheRun:
    """Per-epoch result of :func:`simulate_shard_cache` for the simulated node.

    ``opens[e]`` shards opened in epoch ``e`` (0-based: index 0 is the cold first epoch), ``hits[e]`` of them found
    in the cache; ``shard_bytes`` (B) converts counts into bytes; ``capacity`` (shards) and ``shards`` (in the
    whole dataset) are the sizes the run used.
    """

    shards: int
    capacity: int
    shard_bytes: float
    samples_per_shard: int
    order: str
    policy: str
    nodes: int
    split: str
    opens: npt.NDArray[np.int64]
    hits: npt.NDArray[np.int64]

    @property
    def epochs(self) -> int:
        return int(self.opens.size)

    @property
    def sample_reads(self) -> int:
        """Samples read over the whole run (every opened shard is read whole)."""
        return int(self.opens.sum()) * self.samples_per_shard

    @property
    def misses(self) -> npt.NDArray[np.int64]:
        return self.opens - self.hits

    @property
    def hit_rate(self) -> npt.NDArray[np.float64]:
        """Hits ÷ shards opened, per epoch (the byte hit rate too: all shards have the same size)."""
        return self.hits / np.maximum(self.opens, 1)

    @property
    def fetched_bytes(self) -> npt.NDArray[np.float64]:
        """Bytes fetched from object storage per epoch (B): misses × shard size."""
        return np.asarray(self.misses * self.shard_bytes, dtype=np.float64)

    @property
    def read_bytes(self) -> npt.NDArray[np.float64]:
        """Bytes the node's loader reads per epoch (B), from SSD or object storage."""
        return np.asarray(self.opens * self.shard_bytes, dtype=np.float64)

    @property
    def cache_fraction(self) -> float:
        """Cache capacity ÷ the shards this node opens per epoch."""
        return self.capacity / max(int(self.opens[0]), 1)


def shard_count(dataset_bytes: float, shard_bytes: float) -> int:
    """Number of shards, ``ceil(dataset_bytes / shard_bytes)`` (both in B; the last shard may be partial)."""
    d = positive("dataset_bytes", dataset_bytes)
    s = positive("shard_bytes", shard_bytes)
    return max(1, math.ceil(d / s - 1e-9))


def cache_capacity(cache_bytes: float, shard_bytes: float) -> int:
    """Whole shards a cache of ``cache_bytes`` (B) holds: ``floor(cache_bytes / shard_bytes)``."""
    c = non_negative("cache_bytes", cache_bytes)
    s = positive("shard_bytes", shard_bytes)
    return math.floor(c / s + 1e-9)


def shuffled_lru_hit_rate(cache_fraction: float) -> float:
    """Warm-epoch hit rate of an LRU cache under a fresh random permutation every epoch (large ``n``).

    An item at relative position ``u`` of the previous epoch and ``v`` of this one has seen
    ``n·(1 − u·(1 − v))`` distinct other items since its last use (the items after it last epoch and before it
    this epoch, minus those in both, which independent permutations make a fraction ``(1 − u)·v``); LRU hits iff
    this is below ``C = c·n``. With ``u, 1 − v`` independent and uniform, ``P(u·w > 1 − c) = c + (1 − c) ln(1 − c)``.
    Returns 1 for ``c ≥ 1``. Dimensionless; exact in the limit ``n → ∞`` (the simulation agrees to ~1/√n).
    """
    c = non_negative("cache_fraction", cache_fraction)
    if c >= 1.0:
        return 1.0
    if c == 0.0:
        return 0.0
    return c + (1.0 - c) * math.log1p(-c)


def _epoch_streams(
    shards: int, epochs: int, order: str, nodes: int, split: str, seed: int
) -> list[npt.NDArray[np.int64]]:
    rng = np.random.default_rng(seed)
    fixed = np.arange(0, shards, nodes, dtype=np.int64)
    out: list[npt.NDArray[np.int64]] = []
    for _ in range(epochs):
        if order == "sequential":
            stream = fixed
        elif split == "fixed":
            stream = rng.permutation(fixed)
        else:
            stream = rng.permutation(shards).astype(np.int64)[::nodes]
        out.append(stream)
    return out


def hit_counts(streams: Sequence[Sequence[int]], capacity: int, *, policy: str = "lru") -> list[int]:
    """Hits per epoch of a cache of ``capacity`` items (empty at the start) over ``streams`` — one list of item ids
    per epoch, in the order they are opened. ``policy`` ``"lru"`` or ``"static"`` (module docstring). Event-based:
    one dictionary operation per opening."""
    cap = int_in_range("capacity", capacity, 0)
    p = choice("policy", policy, POLICIES)
    cache: OrderedDict[int, None] = OrderedDict()
    move, evict = cache.move_to_end, cache.popitem
    out: list[int] = []
    for stream in streams:
        h = 0
        if p == "lru":
            for s in stream:
                if s in cache:
                    move(s)
                    h += 1
                elif cap > 0:
                    cache[s] = None
                    if len(cache) > cap:
                        evict(last=False)
        else:
            for s in stream:
                if s in cache:
                    h += 1
                elif len(cache) < cap:
                    cache[s] = None
        out.append(h)
    return out


def simulate_shard_cache(
    shards: int,
    capacity: int,
    epochs: int,
    *,
    order: str = "shuffled",
    policy: str = "lru",
    nodes: int = 1,
    split: str = "fixed",
    shard_bytes: float = 1.0,
    samples_per_shard: int = 1,
    seed: int = 0,
) -> CacheRun:
    """Simulate node 0's shard cache over ``epochs`` epochs; sizes in shards (see the module docstring).

    ``shards`` ≥ 1 in the dataset, ``capacity`` ≥ 0 shards in the cache (empty at the start: epoch 1 is cold),
    ``epochs`` ≥ 1, ``nodes`` in 1 … ``shards``, ``samples_per_shard`` ≥ 1 (only counted: the cache sees one event
    per shard opening), ``seed`` for the permutations. Returns a :class:`CacheRun`.
    """
    n = int_in_range("shards", shards, 1)
    cap = int_in_range("capacity", capacity, 0)
    e = int_in_range("epochs", epochs, 1)
    o = choice("order", order, ORDERS)
    p = choice("policy", policy, POLICIES)
    k = int_in_range("nodes", nodes, 1, n)
    sp = choice("split", split, SPLITS)
    sb = positive("shard_bytes", shard_bytes)
    sps = int_in_range("samples_per_shard", samples_per_shard, 1)
    sd = int_in_range("seed", seed, 0)

    streams = _epoch_streams(n, e, o, k, sp, sd)
    opens = np.array([st.size for st in streams], dtype=np.int64)
    hits = np.array(hit_counts([st.tolist() for st in streams], cap, policy=p), dtype=np.int64)
    opens.flags.writeable = False
    hits.flags.writeable = False
    return CacheRun(n, cap, sb, sps, o, p, k, sp, opens, hits)


def simulate_cache(
    dataset_bytes: float,
    shard_bytes: float,
    cache_bytes: float,
    epochs: int,
    *,
    order: str = "shuffled",
    policy: str = "lru",
    nodes: int = 1,
    split: str = "fixed",
    seed: int = 0,
) -> CacheRun:
    """:func:`simulate_shard_cache` from sizes in bytes: dataset, shard and node-local cache (all B, SI)."""
    n = shard_count(dataset_bytes, shard_bytes)
    cap = cache_capacity(cache_bytes, shard_bytes)
    return simulate_shard_cache(
        n, cap, epochs, order=order, policy=policy, nodes=nodes, split=split, shard_bytes=shard_bytes, seed=seed
    )


@dataclass(frozen=True)
class HitRateSweep:
    """Warm-epoch hit rate over a range of cache fractions (:func:`hit_rate_sweep`).

    ``fractions[i]`` = capacity ÷ shards; ``simulated[policy_order][i]`` the mean hit rate of epochs 2 … E for
    each simulated ``(policy, order)`` key such as ``"lru/sequential"``; ``closed_form[key][i]`` the matching
    closed form (0, ``c + (1 − c) ln(1 − c)``, ``c``; 1 from ``c ≥ 1`` on).
    """

    shards: int
    epochs: int
    fractions: npt.NDArray[np.float64]
    simulated: dict[str, npt.NDArray[np.float64]]
    closed_form: dict[str, npt.NDArray[np.float64]]


SWEEP_CASES: Final = ("lru/sequential", "lru/shuffled", "static/shuffled")


def _closed(case: str, c: float) -> float:
    if c >= 1.0:
        return 1.0
    if case == "lru/sequential":
        return 0.0
    if case == "lru/shuffled":
        return shuffled_lru_hit_rate(c)
    return c


def hit_rate_sweep(shards: int, capacities: list[int], *, epochs: int = 4, seed: int = 0) -> HitRateSweep:
    """Simulate every case of :data:`SWEEP_CASES` for each capacity (shards) and pair it with its closed form."""
    n = int_in_range("shards", shards, 1)
    e = int_in_range("epochs", epochs, 2)
    caps = [int_in_range("capacities", c, 0) for c in capacities]
    if not caps:
        raise ValueError("capacities must list at least one capacity (shards)")
    fr = np.array([c / n for c in caps])
    sim: dict[str, npt.NDArray[np.float64]] = {}
    closed: dict[str, npt.NDArray[np.float64]] = {}
    for case in SWEEP_CASES:
        policy, order = case.split("/")
        vals = [
            float(simulate_shard_cache(n, c, e, order=order, policy=policy, seed=seed).hit_rate[1:].mean())
            for c in caps
        ]
        sim[case] = np.array(vals)
        closed[case] = np.array([_closed(case, float(c)) for c in fr])
    return HitRateSweep(n, e, fr, sim, closed)


@dataclass(frozen=True)
class SeedHitRates:
    """Node 0's warm-epoch hit rates of one cache setting simulated with ``seeds`` different seeds
    (:func:`hit_rates_over_seeds`). ``rates[k, j]``: seed ``k``, warm epoch ``j`` (epochs ``warm_from + 1`` … E)."""

    seeds: int
    warm_from: int
    rates: npt.NDArray[np.float64]

    @property
    def per_seed(self) -> npt.NDArray[np.float64]:
        """Each seed's mean over the warm epochs."""
        out: npt.NDArray[np.float64] = self.rates.mean(axis=1)
        return out

    @property
    def mean(self) -> float:
        """The expectation estimated over all seeds and warm epochs."""
        return float(self.rates.mean())

    @property
    def seed_std(self) -> float:
        """Sample standard deviation of :attr:`per_seed` across seeds (what one seed's average can be off by)."""
        return float(self.per_seed.std(ddof=1))

    @property
    def epoch_std(self) -> float:
        """Sample standard deviation of a single warm epoch's hit rate, pooled over seeds and epochs."""
        return float(self.rates.std(ddof=1))


def hit_rates_over_seeds(
    dataset_bytes: float,
    shard_bytes: float,
    cache_bytes: float,
    epochs: int,
    *,
    seeds: int = 20,
    warm_from: int = 1,
    order: str = "shuffled",
    policy: str = "lru",
    nodes: int = 1,
    split: str = "fixed",
) -> SeedHitRates:
    """:func:`simulate_cache` with seeds ``0 … seeds − 1`` (2 … 1000), keeping the hit rates of epochs
    ``warm_from + 1`` … ``epochs`` (``warm_from`` in 0 … epochs − 1 cold or filling epochs are dropped)."""
    k = int_in_range("seeds", seeds, 2, 1000)
    e = int_in_range("epochs", epochs, 1)
    w = int_in_range("warm_from", warm_from, 0, e - 1)
    rates = np.array([
        simulate_cache(dataset_bytes, shard_bytes, cache_bytes, e, order=order, policy=policy, nodes=nodes,
                       split=split, seed=sd).hit_rate[w:]
        for sd in range(k)
    ])
    rates.flags.writeable = False
    return SeedHitRates(k, w, rates)
