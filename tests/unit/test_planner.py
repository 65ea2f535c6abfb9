"""The 5D planner: published layouts come out feasible and near the top, the seed table's errata, properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterlab.cluster import parallel, planner, planner_cases

# how near the top a published layout must rank among the feasible plans, and how close to the best step time
MAX_RANK = 10
MAX_SLOWER = 0.10


def _rank(case: planner_cases.Case) -> tuple[int, float]:
    plans = planner.plan(case.model, case.cluster, case.global_batch_tokens, options=case.options)
    feasible = [p for p in plans if p.feasible]
    for i, p in enumerate(feasible):
        if (p.tp, p.pp, p.dp, p.cp) == (case.tp, case.pp, case.dp, case.cp):
            return i + 1, p.step_time / feasible[0].step_time - 1
    raise AssertionError(f"{case.name}: the published layout is not feasible")


@pytest.mark.parametrize("case", planner_cases.LLAMA3 + planner_cases.MEGATRON, ids=lambda c: c.name)
def test_published_layouts_are_feasible_and_near_the_top(case):
    assert case.tp * case.pp * case.dp * case.cp == case.cluster.gpus
    rank, slower = _rank(case)
    assert rank <= MAX_RANK, (case.name, rank)
    assert slower <= MAX_SLOWER, (case.name, slower)


def test_megatron_rows_rank_first_or_second():
    for case in planner_cases.MEGATRON:
        rank, slower = _rank(case)
        assert rank <= 2 and slower < 0.01, case.name


def test_parameter_counts_match_the_papers():
    assert planner_cases.LLAMA3_405B.params == pytest.approx(405e9, rel=0.01)
    sizes = [145.6e9, 310.1e9, 529.6e9, 1008e9]
    for case, size in zip(planner_cases.MEGATRON, sizes, strict=True):
        assert case.model.params == pytest.approx(size, rel=0.005), case.name
    moe = planner_cases.SEED_TABLE[3].model
    assert moe.params == pytest.approx(141e9, rel=0.01) and moe.active_params == pytest.approx(39e9, rel=0.01)


def test_llama3_batch_per_replica_matches_table_4():
    # Table 4: batch size per DP = 32 (8,192 GPUs) and 16 (16,384 GPUs), sequences of 8,192 tokens
    for case, per_dp in zip(planner_cases.LLAMA3[:2], (32, 16), strict=True):
        p = planner.evaluate(case.model, case.cluster, case.global_batch_tokens, case.tp, case.pp, case.dp,
                             options=case.options)
        assert p.micro_batches == per_dp


def test_seed_table_products_and_erratum_12():
    for row in planner_cases.SEED_TABLE:
        assert row.tp * row.pp * row.dp == planner_cases.SEED_GPUS
    moe = planner_cases.SEED_TABLE[3]
    p = planner.evaluate(moe.model, planner_cases.h100_cluster(4096), planner_cases.SEED_BATCH_TOKENS, moe.tp,
                         moe.pp, moe.dp, 1, moe.ep, options=planner_cases.SEED_OPTIONS)
    assert (p.dp, p.ep, p.expert_dp) == (64, 8, 8)  # dense DP 64 = EP 8 × expert-DP 8
    assert p.gpus == 4096


def test_erratum_11_zero2_memory():
    psi = 7e9
    assert parallel.model_state_memory(psi, zero_stage=2, dp=8).total == pytest.approx(26.25e9)
    assert parallel.model_state_memory(psi, zero_stage=2, dp=2048, model_parallel=2).total / 1e9 == pytest.approx(
        7.0239, abs=1e-3)
    assert parallel.model_state_memory(psi, zero_stage=0).total == pytest.approx(112e9)


def test_infeasible_reasons_are_specific():
    m = planner.Transformer(80, 8192, 28672, 64, 8, 32000, 4096)
    cl = planner_cases.h100_cluster(4096)
    p = planner.evaluate(m, cl, 4096 * 2048, 16, 1, 256, options=planner.PlanOptions())
    assert not p.feasible and any("TP 16" in r for r in p.reasons)
    p = planner.evaluate(m, cl, 4096 * 2048, 1, 1, 4096)
    assert any("显存" in r for r in p.reasons)
    p = planner.evaluate(m, cl, 3 * 2**20, 8, 1, 512)  # 768 sequences over 512 replicas
    assert any("全局批" in r for r in p.reasons)


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="layers"):
        planner.Transformer(0, 8192, 28672, 64, 8, 32000, 4096)
    with pytest.raises(ValueError, match="top_k"):
        planner.Transformer(8, 64, 128, 8, 8, 100, 64, experts=4, top_k=5)
    with pytest.raises(ValueError, match="memory"):
        planner.Accelerator(0, 1e15)
    with pytest.raises(ValueError, match="gpus_per_node"):
        planner.Cluster(64, 0, planner_cases.H100, 1e9, 1e9)
    with pytest.raises(ValueError, match="recompute"):
        planner.PlanOptions(recompute="sometimes")
    with pytest.raises(ValueError, match="global_batch_tokens"):
        planner.plan(planner_cases.SEED_TABLE[0].model, planner_cases.h100_cluster(64), 0)
    with pytest.raises(ValueError, match="GPU count"):
        planner.evaluate(planner_cases.SEED_TABLE[0].model, planner_cases.h100_cluster(64), 2**20, 8, 1, 4)


SMALL = planner.Transformer(8, 1024, 4096, 16, 4, 32000, 4096, experts=8, top_k=2)


@given(st.integers(0, 6), st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4, 8, 16]),
       st.sampled_from([1, 2, 4]), st.sampled_from([2**20, 2**22, 3 * 2**20]))
def test_plans_multiply_to_the_gpu_count(log_nodes, per_node, experts, top, batch):
    gpus = per_node * 2**log_nodes
    model = planner.Transformer(8, 1024, 4096, 16, 4, 32000, 4096, experts=experts, top_k=min(top, experts))
    cl = planner.Cluster(gpus, per_node, planner_cases.H100, 450e9, 50e9)
    plans = planner.plan(model, cl, batch)
    assert plans
    for p in plans:
        assert p.tp * p.cp * p.pp * p.dp == gpus
        assert p.dp % p.ep == 0 or not p.feasible
        assert 0 < p.mfu <= 1
        assert p.feasible == (len(p.reasons) == 0)
        assert p.step_time > 0 and p.memory_per_gpu > 0
    steps = [p.step_time for p in plans if p.feasible]
    assert steps == sorted(steps)


AXIS = st.sampled_from([1, 2, 4, 8])


@given(AXIS, AXIS, AXIS, AXIS, AXIS, st.sampled_from(["tp", "pp", "dp", "cp", "ep"]), st.integers(0, 3),
       st.sampled_from(parallel.RECOMPUTE), st.booleans())
def test_memory_never_grows_when_an_axis_grows(tp, pp, dp, cp, ep, axis, stage, recompute, sp):
    o = planner.PlanOptions(zero_stage=stage, recompute=recompute, sequence_parallel=sp)
    sizes = {"tp": tp, "pp": pp, "dp": dp * ep, "cp": cp, "ep": ep}
    seqs = 512

    def mem(s: dict[str, int]) -> float:
        m = math.ceil(seqs / s["dp"])
        return planner.memory_per_gpu(SMALL, s["tp"], s["pp"], s["dp"], s["cp"], s["ep"], micro_batches=m,
                                      options=o).total

    grown = dict(sizes)
    grown[axis] *= 2
    if axis == "ep":
        grown["dp"] *= 2  # EP lives inside DP: keep ep | dp
        base = dict(sizes, dp=grown["dp"])
        assert mem(grown) <= mem(base) * (1 + 1e-12)
    else:
        assert mem(grown) <= mem(sizes) * (1 + 1e-12)


@given(st.sampled_from(planner_cases.SEED_TABLE))
def test_every_infeasible_plan_has_a_reason(row):
    plans = planner.plan(row.model, planner_cases.h100_cluster(512), 2**22, options=planner_cases.SEED_OPTIONS)
    for p in plans:
        assert p.feasible or p.reasons
    assert any(not p.feasible for p in plans)


def test_divisors():
    assert planner.divisors(12) == (1, 2, 3, 4, 6, 12)
    assert planner.divisors(1) == (1,)
    with pytest.raises(ValueError, match="n"):
        planner.divisors(0)
