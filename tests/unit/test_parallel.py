"""集群篇 §4: per-axis volumes, memory, the pipeline bubble and schedule, FLOPs, step time and MFU."""

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.cluster import compute, parallel, pipeline, training

PSI = 7e9


def test_dp_volumes_follow_zero_section_7():
    n = 512
    ddp = parallel.dp_volume("ddp", PSI, n)
    z1 = parallel.dp_volume("zero1", PSI, n)
    z3 = parallel.dp_volume("zero3", PSI, n, layers=32)
    unit = PSI * 2 * (n - 1) / n
    assert ddp.send == pytest.approx(2 * unit)
    assert z1.send == pytest.approx(2 * unit)
    assert z3.send == pytest.approx(3 * unit)  # erratum 18: 3Ψ, not ~2V
    assert z3.calls == 3 * 32 and z3.size == pytest.approx(PSI * 2 / 32)
    assert z3.ops == ("all_gather", "all_gather", "reduce_scatter")
    assert ddp.latency_steps == 2 * (n - 1)


def test_tp_four_allreduces_per_layer_and_sp_same_bytes():
    h, s, b, layers, m, t = 4096, 4096, 1, 8, 32, 8
    tp = parallel.tp_volume(h, s, b, layers, m, t)
    act = b * s * h * 2
    assert tp.calls == 4 * layers * m  # erratum 19: 2 forward + 2 backward
    assert tp.send == pytest.approx(4 * layers * m * 2 * act * (t - 1) / t)
    sp = parallel.tp_volume(h, s, b, layers, m, t, sequence_parallel=True)
    assert sp.calls == 2 * tp.calls and sp.send == pytest.approx(tp.send)
    rc = parallel.tp_volume(h, s, b, layers, m, t, recompute=True)
    assert rc.send == pytest.approx(1.5 * tp.send)
    assert parallel.tp_volume(h, s, b, layers, m, 1).send == 0


def test_pp_ep_cp_closed_forms():
    act = 1 * 4096 * 4096 * 2
    pp = parallel.pp_volume(4096, 4096, 1, 32, 4, tp=8)
    assert pp.calls == 64 and pp.send == pytest.approx(64 * act / 8)
    assert parallel.pp_volume(4096, 4096, 1, 32, 4, tp=8, scatter_gather=False).send == pytest.approx(64 * act)
    ep = parallel.ep_volume(4096, 8192, 16, 2, 8, top_k=2)
    assert ep.send == pytest.approx(4 * 16 * 2 * 8192 * 2 * 4096 * 2 * 7 / 8)
    cp = parallel.cp_volume(1024, 131072, 1, 4, 1, 16)
    chunk = 2 * 131072 / 16 * 1024 * 2
    assert cp.calls == 3 * 15 * 4 and cp.send == pytest.approx(cp.calls * chunk)


def test_model_states_by_zero_stage():
    n = 8
    mem = [parallel.model_state_memory(PSI, zero_stage=k, dp=n).total for k in range(4)]
    assert mem[0] == pytest.approx(16 * PSI)
    assert mem[1] == pytest.approx(4 * PSI + 12 * PSI / n)
    assert mem[2] == pytest.approx(2 * PSI + 14 * PSI / n)  # 26.25 GB for 7e9 on 8 ranks
    assert mem[3] == pytest.approx(16 * PSI / n)
    assert mem[2] == pytest.approx(26.25e9)


def test_activation_memory_table_2():
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    sbh = s * b * h
    none1 = parallel.activation_memory(s, b, h, a, 1).per_layer
    assert none1 == pytest.approx(sbh * (34 + 5 * a * s / h))
    assert parallel.activation_memory(s, b, h, a, 1, tp=t).per_layer == pytest.approx(
        sbh * (10 + 24 / t + 5 * a * s / (h * t)))
    assert parallel.activation_memory(s, b, h, a, 1, tp=t, sequence_parallel=True).per_layer == pytest.approx(
        none1 / t)
    assert parallel.activation_memory(s, b, h, a, 1, tp=t, sequence_parallel=True,
                                      recompute="selective").per_layer == pytest.approx(34 * sbh / t)
    assert parallel.activation_memory(s, b, h, a, 3, recompute="full").total == pytest.approx(3 * 2 * sbh)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: parallel.dp_volume("zero4", PSI, 8), "scheme"),
        (lambda: parallel.dp_volume("ddp", PSI, 1), "ranks"),
        (lambda: parallel.tp_volume(4096, 4096, 1, 8, 32, 0), "tp"),
        (lambda: parallel.pp_volume(4096, 4096, 0, 8, 4), "micro_batch"),
        (lambda: parallel.ep_volume(4096, 10, 1, 1, 4, top_k=0), "top_k"),
        (lambda: parallel.cp_volume(1024, 4096, 1, 1, 1, 0), "cp"),
        (lambda: parallel.model_state_memory(PSI, zero_stage=4), "zero_stage"),
        (lambda: parallel.activation_memory(4096, 1, 4096, 32, 32, recompute="some"), "recompute"),
        (lambda: pipeline.bubble(4, 0), "micro_batches"),
        (lambda: pipeline.simulate(4, 8, kind="zb"), "kind"),
        (lambda: compute.step_time(1e12, 1e12, efficiency=0), "efficiency"),
        (lambda: compute.step_time(1e12, 1e12, overlap=1.5), "overlap"),
        (lambda: compute.flops_per_token(-1, 32, 4096, 4096), "params"),
        (lambda: compute.mfu(1e3, 1e9, 0, 1e12), "gpus"),
        (lambda: parallel.on_link(parallel.pp_volume(8, 8, 1, 1, 2), "RoCE", 0), "bandwidth"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 64), st.integers(1, 256), st.integers(1, 8))
def test_bubble_conventions_convert(p, m, v):
    b = pipeline.bubble(p, m, chunks=v)
    assert b.of_total == pytest.approx(b.of_ideal / (1 + b.of_ideal))
    assert b.of_ideal == pytest.approx(b.of_total / (1 - b.of_total))
    assert 0 <= b.of_total < 1 and b.of_total <= b.of_ideal
    assert b.of_ideal == pytest.approx((p - 1) / (v * m))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8), st.integers(1, 16), st.floats(0.2, 3), st.floats(0.2, 3), st.sampled_from(["1f1b", "gpipe"]))
def test_schedule_makespan_and_in_flight(p, m, tf, tb, kind):
    s = pipeline.simulate(p, m, forward_time=tf, backward_time=tb, kind=kind)
    assert s.makespan == pytest.approx((m + p - 1) * (tf + tb))
    assert s.bubble_of_total == pytest.approx(pipeline.bubble(p, m).of_total)
    assert len(s.start) == 2 * p * m
    peak = s.in_flight()
    if kind == "1f1b":
        assert all(peak[i] == min(p - i, m) for i in range(p))
    else:
        assert all(peak == m)
    for i in range(p):  # no two ops of one stage overlap
        sel = s.stage == i
        order = sorted(zip(s.start[sel], s.end[sel], strict=True))
        assert all(a[1] <= b[0] + 1e-12 for a, b in itertools.pairwise(order))


def test_schedule_arrays_read_only():
    s = pipeline.simulate(2, 2)
    with pytest.raises(ValueError):
        s.start[0] = 1.0


def test_flops_per_token_palm_appendix_b():
    m = training.LLAMA2_7B
    f = compute.flops_per_token(m.params, m.layers, m.hidden, 4096)
    assert f.dense == 6 * m.params
    assert f.attention == 12 * 32 * 4096 * 4096
    assert 0.15 < f.attention_share < 0.17


@settings(max_examples=80, deadline=None)
@given(st.floats(1e12, 1e16), st.floats(0.05, 1), st.floats(0, 5), st.floats(0, 1))
def test_step_time_mfu_is_efficiency_times_compute_fraction(flops, eff, comm, overlap):
    s = compute.step_time(flops, 312e12, efficiency=eff, comm=comm, overlap=overlap)
    assert s.mfu == pytest.approx(eff * s.compute_fraction)
    assert s.mfu <= eff + 1e-12 and s.mfu <= 1
    assert s.total == pytest.approx(s.compute + s.exposed)
    assert 0 <= s.hidden <= min(s.comm, s.compute) + 1e-12
    # the PaLM definition through tokens/s gives the same number
    tokens = 1e6
    assert compute.mfu(tokens / s.total, flops / tokens, 1, 312e12) == pytest.approx(s.mfu)


def test_step_time_falls_with_overlap():
    sweep = compute.step_time_sweep(1e14, 312e12, [0, 0.25, 0.5, 1], efficiency=0.5, comm=0.5)
    totals = [s.total for s in sweep]
    assert totals == sorted(totals, reverse=True)
    with pytest.raises(ValueError, match="overlaps"):
        compute.step_time_sweep(1e14, 312e12, [])


def test_link_load_time():
    v = parallel.dp_volume("ddp", PSI, 512)
    ll = parallel.on_link(v, "RoCE", 25e9, latency=5e-6)
    assert ll.time == pytest.approx(2 * 511 * 5e-6 + v.send / 25e9)
    assert math.isclose(v.send_per_call, v.send)
