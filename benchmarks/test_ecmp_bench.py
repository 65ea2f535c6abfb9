"""Benchmark: exact ECMP collision statistics (集群篇 §3; target: 64 flows on 64 uplinks under 1 s on one core).

Run with ``make bench``. The expected busiest-link load is computed exactly by a recursion over uplinks for every
threshold ``c``; the cost grows roughly as ``m·n·c_max``. Two cases: 64 × 64 (a 128-port leaf's uplinks) and the
validation limit 256 × 256.
"""

from __future__ import annotations

import time

from clusterlab.cluster.ecmp import ecmp_collisions


def _best(f, rounds: int = 3) -> float:
    ts = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def test_ecmp_64_flows_64_uplinks():
    def run():
        return ecmp_collisions(64, 64)

    assert 3.0 < run().expected_max_load < 5.0
    t = _best(run)
    print(f"\nECMP exact statistics, 64 flows × 64 uplinks: {1e3 * t:.1f} ms")
    assert t < 1.0


def test_ecmp_256_flows_256_uplinks():
    def run():
        return ecmp_collisions(256, 256)

    t = _best(run, rounds=1)
    print(f"\nECMP exact statistics, 256 flows × 256 uplinks: {t:.2f} s")
    assert t < 10.0
