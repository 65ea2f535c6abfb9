"""The planner's model (clusterlab.cluster.planning): stage splits, shapes, kernels, hierarchical communication,
memory and the option search."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.cluster.planning import (
    Device,
    Layout,
    Level,
    Options,
    Reason,
    Shape,
    System,
    best,
    comm,
    estimate,
    plan,
    split_layers,
)
from clusterlab.cluster.planning.kernels import gemm_time

H100 = Device("H100", 80e9, 989e12, 3.35e12, 132, 0.70, 0.50)
LLAMA3_405B = Shape(126, 16384, 53248, 128, 8, 128256, 8192)


def llama3_cluster(gpus: int) -> System:
    return System(gpus, H100, (Level("NVLink", 8, 450e9, 3.4e-6), Level("pod", 3072, 50e9, 14e-6),
                               Level("cluster", 24576, 50e9 / 7, 14e-6)))


# --- stages ------------------------------------------------------------------------------------------------------
def test_llama3_split_gives_the_end_stages_one_layer_less() -> None:
    s = split_layers(126, 16, head=0.66)
    assert s == (7,) + (8,) * 14 + (7,)
    assert s.bottleneck == 8


def test_uneven_layers_split_by_the_busiest_stage() -> None:
    s = split_layers(61, 16, head=1.5)
    assert sum(s) == 61 and len(s) == 16 and max(s) == 4


def _best_bottleneck(costs: list[float], pp: int, head: float) -> float:
    n, best_ = len(costs), float("inf")
    for cuts in itertools.combinations(range(1, n), pp - 1):
        bounds = (0, *cuts, n)
        loads = [sum(costs[a:b]) for a, b in itertools.pairwise(bounds)]
        loads[-1] += head
        best_ = min(best_, max(loads))
    return best_


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([1.0, 1.5, 2.0, 3.0]), min_size=2, max_size=9), st.integers(1, 9),
       st.sampled_from([0.0, 0.4, 1.2]))
def test_split_is_optimal_against_brute_force(costs: list[float], pp: int, head: float) -> None:
    pp = min(pp, len(costs))
    s = split_layers(costs, pp, head=head)
    assert sum(s) == len(costs) and len(s) == pp and min(s) >= 1
    assert s.bottleneck == pytest.approx(_best_bottleneck(costs, pp, head))


def test_split_refuses_more_stages_than_layers() -> None:
    with pytest.raises(ValueError, match="pp"):
        split_layers(4, 5)


# --- shapes ------------------------------------------------------------------------------------------------------
def test_llama3_405b_has_405_billion_parameters() -> None:
    assert LLAMA3_405B.params == pytest.approx(405e9, rel=0.01)


def test_moe_counts_active_and_total_parameters() -> None:
    # DeepSeek-V3 (arXiv:2412.19437 §4.2): 671B total, 37B activated per token
    ds = Shape(61, 7168, 18432, 128, 128, 129280, 4096, experts=256, top_k=8, shared_experts=1, moe_ffn_hidden=2048,
               dense_layers=3)
    assert ds.params == pytest.approx(671e9, rel=0.05)
    assert ds.active_params == pytest.approx(37e9, rel=0.1)


def test_shape_rejects_bad_heads() -> None:
    with pytest.raises(ValueError, match="kv_heads"):
        Shape(2, 64, 128, 8, 3, 100, 16)


# --- kernels -----------------------------------------------------------------------------------------------------
@settings(max_examples=50, deadline=None)
@given(st.integers(1, 20000), st.integers(1, 20000), st.integers(1, 20000))
def test_gemm_never_beats_the_large_shape_efficiency(m: int, n: int, k: int) -> None:
    ideal = 2 * m * n * k / (H100.peak * H100.gemm_efficiency)
    assert gemm_time(m, n, k, H100) >= ideal * (1 - 1e-12)


def test_wave_quantisation_penalises_a_shape_just_over_a_full_wave() -> None:
    full = 132 * 128  # one wave of 128 × 256 tiles
    assert gemm_time(full + 128, 256, 4096, H100) / gemm_time(full, 256, 4096, H100) > 1.9


# --- communication -----------------------------------------------------------------------------------------------
def test_a_group_inside_a_node_touches_only_nvlink() -> None:
    sys_ = llama3_cluster(16384)
    c = comm.reduce_scatter(1e9, 8, 1, sys_)
    assert [n for n, _ in c.bytes_by_link] == ["NVLink"]
    assert c.bandwidth == pytest.approx(1e9 * 7 / 8 / 450e9)


def test_a_group_within_a_pod_never_pays_the_oversubscribed_tier() -> None:
    sys_ = llama3_cluster(16384)
    inside = comm.reduce_scatter(1e9, 128, 8, sys_)  # 128 nodes × 8 = 1,024 GPUs: one pod
    across = comm.reduce_scatter(1e9, 128, 128, sys_)  # stride 128: 16,384 GPUs, six pods
    assert "cluster" not in dict(inside.bytes_by_link)
    assert dict(across.bytes_by_link)["cluster"] > 0
    assert across.time > inside.time


def test_hierarchical_reduce_scatter_sends_the_flat_ring_volume() -> None:
    sys_ = System(64, H100, (Level("NVLink", 8, 450e9, 0), Level("net", 64, 50e9, 0)))
    c = comm.reduce_scatter(64e6, 64, 1, sys_)
    assert c.bytes == pytest.approx(64e6 * 63 / 64)
    assert comm.ring_all_reduce(64e6, 64, 1, sys_).time == pytest.approx(2 * c.time)


def test_level_costs_carry_the_base_latency_once_per_call() -> None:
    sys_ = System.simple(32, H100, 8, 450e9, 50e9)
    c = comm.reduce_scatter(64e6, 32, 1, sys_)
    assert c.overhead == comm.BASE_LATENCY
    assert c.latency == pytest.approx(comm.BASE_LATENCY + sum(t.steps * t.latency for t in c.terms))
    assert (c * 3).overhead == pytest.approx(3 * comm.BASE_LATENCY)


# --- the step ----------------------------------------------------------------------------------------------------
def test_default_search_finds_llama3_table4_layouts_feasible() -> None:
    for gpus, dp in ((8192, 64), (16384, 128)):
        est = best(LLAMA3_405B, llama3_cluster(gpus), 2048, Layout(8, 16, dp), Options(order="llama3"))
        assert est.feasible, est.reasons
        assert est.split == (7,) + (8,) * 14 + (7,)


def test_kv_heads_are_replicated_when_tp_exceeds_them() -> None:
    # PaLM-like multi-query attention under TP 4 on 4-GPU hosts: accepted, K/V replicated
    mqa = Shape(8, 2048, 8192, 16, 1, 32000, 2048)
    sys_ = System(16, H100, (Level("host", 4, 100e9, 1e-6), Level("net", 16, 25e9, 5e-6)))
    est = estimate(mqa, sys_, 64, Layout(4, 1, 4), Options())
    assert not [r for r in est.reasons if r.code.startswith("tp")]
    gqa3 = Shape(8, 2304, 8192, 24, 6, 32000, 2048)
    assert "tp-kv" in {r.code for r in estimate(gqa3, sys_, 64, Layout(4, 1, 4)).reasons}


def test_memory_falls_with_every_zero_stage_and_with_recomputation() -> None:
    sys_ = llama3_cluster(8192)
    lay = Layout(8, 16, 64)
    mems = [estimate(LLAMA3_405B, sys_, 2048, lay, Options(zero_stage=z)).memory.total for z in (0, 1, 2, 3)]
    assert mems == sorted(mems, reverse=True) and len(set(mems)) == 4
    none = estimate(LLAMA3_405B, sys_, 2048, lay, Options(recompute="none")).memory.activations
    full = estimate(LLAMA3_405B, sys_, 2048, lay, Options(recompute="full")).memory.activations
    assert full < none / 10


def test_zero3_regathering_every_micro_batch_costs_m_times_the_traffic() -> None:
    sys_ = llama3_cluster(8192)
    lay = Layout(8, 16, 64)
    res = estimate(LLAMA3_405B, sys_, 2048, lay, Options(zero_stage=3, zero3_resident=True))
    per_mb = estimate(LLAMA3_405B, sys_, 2048, lay, Options(zero_stage=3))
    dp = lambda e: dict(e.costs)["dp"]  # noqa: E731
    sent = lambda c: c.bytes  # noqa: E731
    # resident: one gather of the parameters per step, gradients reduce-scattered every micro-batch (sharded
    # gradients cannot accumulate); re-gathering: two gathers and a reduce-scatter every micro-batch
    m, pb, gb = per_mb.micro_batches, Options().param_bytes, Options().grad_bytes
    assert m > 1
    assert sent(dp(per_mb)) / sent(dp(res)) == pytest.approx((2 * pb + gb) * m / (pb + gb * m), rel=1e-9)


def test_the_pipeline_cost_reported_is_the_one_charged_under_interleaving() -> None:
    sys_ = llama3_cluster(16384)
    for v in (1, 2, 4):
        est = estimate(LLAMA3_405B, sys_, 2048, Layout(8, 16, 128), Options(virtual_stages=v))
        assert dict(est.costs)["pp"].time == pytest.approx(est.pp)


def test_interleaving_shrinks_the_bubble_by_v() -> None:
    sys_ = llama3_cluster(16384)
    b = [estimate(LLAMA3_405B, sys_, 2048, Layout(8, 16, 128), Options(virtual_stages=v)).bubble for v in (1, 2)]
    assert b[1] == pytest.approx(b[0] / 2, rel=0.02)


def test_reasons_are_codes_with_data() -> None:
    sys_ = llama3_cluster(8192)
    est = estimate(LLAMA3_405B, sys_, 2048, Layout(8, 16, 64), Options(recompute="none", zero_stage=0))
    mem = next(r for r in est.reasons if r.code == "memory")
    assert mem.get("need") > mem.get("have") == pytest.approx(0.9 * 80e9)
    with pytest.raises(ValueError, match="code"):
        Reason("显存不够")


def test_pinned_options_are_kept() -> None:
    sys_ = llama3_cluster(16384)
    lay = Layout(8, 16, 128)
    pinned = best(LLAMA3_405B, sys_, 2048, lay, Options(recompute="full", zero_stage=1, virtual_stages=2),
                  search=("micro_batch",))
    assert (pinned.options.recompute, pinned.options.zero_stage, pinned.options.virtual_stages) == ("full", 1, 2)


def test_plan_lists_feasible_first_by_step_time() -> None:
    small = Shape(32, 4096, 11008, 32, 32, 32000, 4096)
    sys_ = System(64, H100, (Level("NVLink", 8, 450e9, 3.4e-6), Level("net", 64, 50e9, 14e-6)))
    plans = plan(small, sys_, 256)
    feas = [p for p in plans if p.feasible]
    assert feas and all(p.feasible for p in plans[:len(feas)])
    assert [p.step_time for p in feas] == sorted(p.step_time for p in feas)
    assert 0 < feas[0].mfu < 1 and feas[0].hfu >= feas[0].mfu


@pytest.mark.parametrize(("field", "value"), [("zero_stage", 4), ("recompute", "some"), ("order", "xyz"),
                                               ("memory_fraction", 0.0), ("micro_batch", 0)])
def test_bad_options_are_refused_by_name(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field):
        replace(Options(), **{field: value})


def test_link_costs_are_per_step_of_the_busiest_stage() -> None:
    sys_ = llama3_cluster(8192)
    est = estimate(LLAMA3_405B, sys_, 2048, Layout(8, 16, 32, 2), Options())
    costs = dict(est.costs)
    assert costs["tp"].time >= est.tp > 0  # exposed TP is the link time (nothing overlapped by default)
    assert costs["tp"].time == pytest.approx(est.tp)
    assert costs["cp"].time >= est.cp  # ring attention hides part of it
    assert costs["pp"].time == pytest.approx(est.pp)


def test_every_reason_has_chinese_wording_filled_from_its_data() -> None:
    from clusterlab.book import labels
    from clusterlab.cluster.planning import REASONS

    assert set(labels.PLAN_REASONS) == set(REASONS)
    sys_ = llama3_cluster(8192)
    bad = estimate(LLAMA3_405B, sys_, 2000, Layout(8, 16, 64), Options(zero_stage=0))
    texts = [labels.reason_text(r) for r in bad.reasons]
    assert any("显存" in t for t in texts) and any("全局批" in t for t in texts)
    assert labels.plan_options(Options(zero_stage=3, zero3_resident=True, virtual_stages=2)) == \
        "ZeRO-3（参数常驻）、不重算、micro-batch 1、交错 v = 2"


def test_the_ledger_of_an_estimate_is_the_same_model() -> None:
    from clusterlab.cluster import ledger

    small = Shape(24, 2048, 5632, 16, 4, 32000, 4096)
    sys_ = System(128, H100, (Level("NVLink", 8, 450e9, 3.4e-6), Level("net", 128, 50e9, 14e-6)))
    plans = [p for p in plan(small, sys_, 512) if p.feasible]
    assert len(plans) > 5
    for est in plans:
        led = ledger.from_estimate(est, small, sys_, 512, stall=0.25)
        assert led.step == pytest.approx(est.step_time + 0.25, rel=1e-9)
        assert led.ideal / (led.step - 0.25) == pytest.approx(est.mfu, rel=1e-9)
        assert led.bubble == pytest.approx(est.bubble, rel=1e-9)
        assert led.exposed == pytest.approx(est.exposed, rel=1e-9)
    with pytest.raises(ValueError, match="estimate"):
        ledger.from_estimate("plan", small, sys_, 512)  # type: ignore[arg-type]


def test_short_option_labels_for_narrow_columns() -> None:
    from clusterlab.book import labels

    assert labels.plan_options(Options(zero_stage=3, zero3_resident=True, recompute="full", micro_batch=2,
                                       virtual_stages=4), short=True) == "ZeRO-3常驻 · 全部重算 · b 2 · v 4"


# --- overlap ----------------------------------------------------------------------------------------------------
def _moe_case() -> tuple[Shape, System, Layout]:
    moe = Shape(8, 4096, 14336, 32, 8, 32000, 4096, experts=64, top_k=8, moe_ffn_hidden=1024)
    sys_ = System(64, H100, (Level("NVLink", 8, 450e9, 3.4e-6), Level("net", 64, 5e9, 14e-6)))  # a slow network
    return moe, sys_, Layout(1, 1, 64, ep=64)


def test_overlapped_traffic_hides_under_compute_only() -> None:
    moe, sys_, lay = _moe_case()
    base = Options(micro_batch=1, recompute="none")
    none = estimate(moe, sys_, 256, lay, base)
    full = estimate(moe, sys_, 256, lay, replace(base, ep_overlap=1.0))
    ep_link = dict(full.costs)["ep"].time
    assert ep_link > full.compute  # this much traffic cannot all hide under the layer's compute
    assert none.ep == pytest.approx(ep_link, rel=1e-9)
    # what is left exposed is the traffic the layers' compute could not cover (the output layer hides none of it)
    assert ep_link - full.compute <= full.ep < ep_link - 0.9 * full.compute
    assert 0 < full.ep < none.ep


def test_communication_sms_slow_the_compute_they_overlap() -> None:
    moe, sys_, lay = _moe_case()
    o = Options(micro_batch=1, recompute="none", ep_overlap=1.0)
    plain = estimate(moe, sys_, 256, lay, o)
    kept = estimate(moe, sys_, 256, lay, replace(o, comm_sms=20))
    assert kept.compute > plain.compute
    assert estimate(moe, sys_, 256, lay, replace(o, ep_overlap=0.0, comm_sms=20)).compute == pytest.approx(
        estimate(moe, sys_, 256, lay, replace(o, ep_overlap=0.0)).compute)  # nothing overlaps: all SMs compute
    with pytest.raises(ValueError, match="comm_sms"):
        estimate(moe, sys_, 256, lay, replace(o, comm_sms=H100.sms))


def test_data_parallel_buckets_follow_the_code_bases() -> None:
    """Megatron-Core: max(40 M, 1 M × DP) parameters per bucket with overlap, one bucket without; ZeRO-3 a layer
    at a time; an explicit bucket size overrides both."""
    from clusterlab.cluster.planning.step import _buckets

    o = Options()
    assert _buckets(1e9, 8, o, 1e8) == 25  # 40 M
    assert _buckets(1e9, 512, o, 1e8) == 2  # 512 M
    assert _buckets(1e9, 512, replace(o, dp_overlap=False), 1e8) == 1
    assert _buckets(1e9, 512, replace(o, zero_stage=3), 1e8) == 10
    assert _buckets(1e9, 512, replace(o, zero_stage=3, bucket_params=5e8), 1e8) == 2
