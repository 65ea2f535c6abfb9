"""Benchmark of §9.6.2 (``make bench``): the two-stream simulator for a 126-layer model with PyTorch's 25 MiB
buckets (target well under 0.1 s) and the compression demo with all nine variants (target under 10 s on two
cores)."""

from __future__ import annotations

import time

from clusterlab.communication import compression, overlap

LAYERS = 126
PARAMS = 405e9 / LAYERS


def test_bench_timeline(benchmark):
    bt = [4 * PARAMS * 8192 / 400e12] * LAYERS
    gb = [2 * PARAMS] * LAYERS
    s = benchmark.pedantic(overlap.simulate_ddp, args=(bt, gb, 1024, 5e-6, 50e9), rounds=5, warmup_rounds=1)
    assert len(s.buckets) == LAYERS


def test_bench_compression_demo():
    t0 = time.perf_counter()
    compression.train("fp32")
    for kind in ("bf16", "int8", "sign", "topk"):
        for ef in (False, True):
            compression.train(kind, error_feedback=ef)
    elapsed = time.perf_counter() - t0
    print(f"\ncompression demo, 9 runs: {elapsed:.2f} s (target < 10 s)")


def test_bench_explorer_grid():
    """The static explorer's grid (432 settings, both simulators each): target under 5 s."""
    import math

    from clusterlab.communication import overlap_explore
    from clusterlab.units import MiB

    t0 = time.perf_counter()
    grid = overlap_explore.explore_grid([12, 48, 96], [0.5e9, 2e9, 8e9], [2e-6, 20e-6], [12.5e9, 50e9],
                                        [MiB, 25 * MiB, 100 * MiB, math.inf], [0, 1, 2])
    elapsed = time.perf_counter() - t0
    print(f"\nexplorer grid, {len(grid.summaries)} settings: {elapsed:.2f} s (target < 5 s)")
    assert len(grid.summaries) == 432 and elapsed < 5
