"""Benchmark: the 5D planner of §9.6.5.1 (target: the original text's 4,096-GPU table — four models, every
factorisation — in under 2 s on one core, caches cleared first); the time for 16,384 GPUs is reported.

Run with ``make bench``.
"""

from __future__ import annotations

import time

from clusterlab.cluster import planner, planner_cases


def _seed_table() -> list[planner.Plan]:
    cl = planner_cases.h100_cluster(planner_cases.SEED_GPUS)
    return [planner.plan(r.model, cl, planner_cases.SEED_BATCH_TOKENS, options=planner_cases.SEED_OPTIONS)[0]
            for r in planner_cases.SEED_TABLE]


def test_seed_table_under_two_seconds():
    planner.clear_caches()
    t0 = time.perf_counter()
    best = _seed_table()
    t = time.perf_counter() - t0
    print(f"\nseed 4,096-GPU table (4 models): {t:.2f} s")
    assert all(p.feasible for p in best)
    assert t < 2.0


def test_sixteen_thousand_gpus_reported():
    case = planner_cases.LLAMA3[1]
    planner.clear_caches()
    t0 = time.perf_counter()
    plans = planner.plan(case.model, case.cluster, case.global_batch_tokens, options=case.options)
    t = time.perf_counter() - t0
    print(f"\nLlama 3 405B on 16,384 GPUs: {len(plans)} plans in {t:.2f} s")
    assert plans[0].feasible and t < 10.0
