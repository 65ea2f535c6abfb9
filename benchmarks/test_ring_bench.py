"""Benchmark: the ring all-reduce simulator against ``np.sum`` of the same buffers (N = 64, 2**20 float32).

Run with ``make bench``. The simulator does 2(N−1) steps, each touching one chunk per rank — about twice the
data ``np.sum`` reads — plus a copy of the inputs (kept to rebuild intermediate states) and the final buffers.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from clusterlab.communication.ring import simulate_all_reduce

N, L = 64, 2**20


@pytest.fixture(scope="module")
def buffers() -> np.ndarray:
    return np.random.default_rng(0).random((N, L), dtype=np.float32)


def test_bench_simulator(benchmark, buffers):
    trace = benchmark.pedantic(simulate_all_reduce, args=(buffers,), rounds=5, warmup_rounds=1)
    assert trace.num_steps == 2 * (N - 1)


def test_bench_np_sum(benchmark, buffers):
    benchmark.pedantic(np.sum, args=(buffers,), kwargs={"axis": 0}, rounds=5, warmup_rounds=1)


def test_ratio_report(buffers):
    def best(f, *a, **k):
        ts = []
        for _ in range(5):
            t0 = time.perf_counter()
            f(*a, **k)
            ts.append(time.perf_counter() - t0)
        return min(ts)

    sim = best(simulate_all_reduce, buffers)
    ref = best(np.sum, buffers, axis=0)
    print(f"\nsimulate_all_reduce {sim * 1e3:.1f} ms, np.sum {ref * 1e3:.1f} ms, ratio {sim / ref:.1f}×")
