"""Benchmark: the pipeline schedule simulator of 集群篇 §4 (target: p = 16 stages, m = 256 micro-batches — 8 192
operations — in under 0.5 s on one core), and the per-axis volumes a planner calls many times (target: 10⁴ calls of
all five axis functions in under 1 s).

Run with ``make bench``.
"""

from __future__ import annotations

import time

from clusterlab.cluster import parallel, pipeline


def _best(f, rounds: int = 3) -> float:
    ts = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def test_1f1b_schedule_16_by_256():
    def run():
        return pipeline.simulate(16, 256)

    assert run().makespan == (256 + 16 - 1) * 3.0
    t = _best(run)
    print(f"\n1F1B schedule, p = 16, m = 256 (8 192 ops): {1e3 * t:.1f} ms")
    assert t < 0.5


def test_axis_volumes_ten_thousand_times():
    def run():
        for _ in range(2000):
            parallel.dp_volume("zero3", 1e9, 16, layers=8)
            parallel.tp_volume(4096, 4096, 1, 8, 32, 8)
            parallel.pp_volume(4096, 4096, 1, 32, 4, tp=8)
            parallel.ep_volume(4096, 4096, 8, 32, 8, top_k=2)
            parallel.cp_volume(1024, 131072, 1, 8, 1, 16)

    t = _best(run)
    print(f"\n10⁴ axis-volume calls: {1e3 * t:.1f} ms")
    assert t < 1.0
