"""Benchmark: the planner with its option search (clusterlab.cluster.planning) on Llama 3 405B and 16,384 H100s —
every layout, each with its micro-batch, interleaving, recomputation and ZeRO stage chosen; target under 2 s with
the caches cleared first. Run with ``make bench``."""

from __future__ import annotations

import time

from clusterlab import specs
from clusterlab.cluster.planning import kernels, plan, reality, stages, step


def _clear() -> None:
    for f in (kernels.layer_time, stages._split, step._split, step._kind_counts, step._layer_kinds):
        f.cache_clear()


def test_sixteen_thousand_gpus_under_two_seconds():
    run = specs.RUNS["Llama 3 405B, 16384 GPUs, sequence 8192"]
    shape, system, _, options, _, _ = reality.setup(run)
    _clear()
    t0 = time.perf_counter()
    plans = plan(shape, system, run.global_batch, options=options)
    t = time.perf_counter() - t0
    print(f"\nLlama 3 405B on 16,384 GPUs: {len(plans)} layouts, {sum(p.feasible for p in plans)} feasible, {t:.2f} s")
    assert plans[0].feasible
    assert t < 2.0


def test_validation_table_reported():
    t0 = time.perf_counter()
    checks = reality.compare()
    s = reality.summary(checks)
    print(f"\n{len(checks)} published runs in {time.perf_counter() - t0:.2f} s: median |error| "
          f"{s['median_abs']:.1%}, max {s['max_abs']:.1%}")
    assert checks
