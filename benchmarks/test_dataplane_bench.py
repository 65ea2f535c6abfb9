"""Benchmark: the data-plane cache simulator on 10⁶ sample reads (target: under 1 s on one core).

Run with ``make bench``. The simulator is event-based: the cache changes only when a shard is opened, so the cost
is one event per shard opening. Two cases: a realistic one (1 000 shards of 1 000 samples, shuffled every epoch,
one epoch = 10⁶ sample reads) and the worst case (every sample its own shard: 10⁶ events).
"""

from __future__ import annotations

import time

from clusterlab.cluster.dataplane import simulate_shard_cache


def _best(f, rounds: int = 3) -> float:
    ts = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def test_million_sample_reads_in_shards():
    def run():
        return simulate_shard_cache(1000, 500, 1, order="shuffled", samples_per_shard=1000, seed=1)

    assert run().sample_reads == 10**6
    t = _best(run)
    print(f"\n10⁶ sample reads in 1 000-sample shards: {1e3 * t:.2f} ms")
    assert t < 1.0


def test_million_events_worst_case():
    def run():
        return simulate_shard_cache(1000, 500, 1000, order="shuffled", seed=1)

    assert run().sample_reads == 10**6
    t = _best(run)
    print(f"\n10⁶ shard openings (one sample per shard), LRU: {t:.3f} s")
    assert t < 1.0
