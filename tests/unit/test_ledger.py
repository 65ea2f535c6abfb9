"""集群篇 §7: the whole-cluster ledger — closed forms of the original §7, the corrected ledger, properties."""

import math

import matplotlib.pyplot as plt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterlab import viz
from clusterlab.cluster import ledger, parallel, pipeline

SEED = dict(params=7e9, tokens_per_step=512 * 4096, gpus=512)


def _seed(peak=400e12, send=28e9, **kw):
    return ledger.ledger(**SEED, peak_flops=peak, efficiency=0.45,
                         comm=[ledger.comm_line("ZeRO-3", send, 25e9)], overlap=0.8, **kw)


def test_original_ledger_lines():
    led = _seed()
    assert led.flops_per_step == pytest.approx(6 * 7e9 * 512 * 4096)  # 8.8e16
    assert led.flops_per_gpu == pytest.approx(1.72032e14)
    assert led.ideal == pytest.approx(0.43008)
    assert led.compute == pytest.approx(0.43008 / 0.45)  # 0.956 s
    assert led.comm == pytest.approx(1.12)
    assert led.exposed == pytest.approx(0.224)
    # erratum 20: "45 %" used as η, exposed comm added on top → MFU 36.4 %, not 45 %
    assert led.mfu == pytest.approx(0.43008 / (0.43008 / 0.45 + 0.224))
    assert led.mfu < 0.45


def test_corrected_ledger_with_zero3_and_a100_peak():
    z3 = parallel.dp_volume("zero3", 7e9, 512, layers=32)
    assert z3.send == pytest.approx(3 * 14e9 * 511 / 512)  # 41.9 GB, erratum 15
    led = _seed(peak=312e12, send=z3.send)
    assert led.ideal == pytest.approx(6 * 7e9 * 4096 / 312e12)  # 0.551 s, erratum 16
    assert led.comm == pytest.approx(z3.send / 25e9)  # 1.68 s
    assert led.uncapped_exposed == pytest.approx(0.2 * z3.send / 25e9)  # 0.34 s
    # 80 % of 1.68 s is more than the 1.225 s of compute: only the compute time can hide communication
    assert led.hidden == pytest.approx(led.compute)
    assert led.step == pytest.approx(led.comm)
    assert led.exposed == pytest.approx(led.comm - led.compute)
    assert led.bottleneck == "efficiency"  # 0.67 s lost in the kernels, 0.45 s exposed communication


def test_linkload_line_and_bubble_and_stall():
    v = parallel.dp_volume("ddp", 7e9, 64)
    load = parallel.on_link(v, "RoCE", 25e9, latency=1e-5)
    b = pipeline.bubble(4, 16)
    led = ledger.ledger(7e9, 1e6, 64, 312e12, efficiency=0.5, comm=[load], bubble=b, stall=0.1)
    assert led.lines[0].time == pytest.approx(load.time)
    assert led.bubble == pytest.approx(led.compute * 3 / 16)
    assert led.step == pytest.approx(led.compute + led.exposed + led.bubble + 0.1)
    assert led.ideal + sum(led.losses.values()) == pytest.approx(led.step)
    assert led.achieved_flops == pytest.approx(led.mfu * 312e12)


def test_per_line_overlap_and_sweep():
    lines = [ledger.comm_line("TP", 50e9, 300e9, overlap=0.0), ledger.comm_line("DP", 25e9, 25e9)]
    led = ledger.ledger(7e9, 1e6, 64, 312e12, efficiency=0.5, comm=lines, overlap=1.0)
    assert led.exposed == pytest.approx(50e9 / 300e9)  # TP never hidden, DP (1 s) fully hidden (compute ≈ 4.2 s)
    sweep = ledger.overlap_sweep(led, [0.0, 0.5, 1.0])
    assert [s.overlap for s in sweep] == [0.0, 0.5, 1.0]
    assert sweep[0].step > sweep[1].step > sweep[2].step


def test_days_and_tokens_per_second():
    led = _seed()
    assert led.tokens_per_second == pytest.approx(512 * 4096 / led.step)
    assert led.days(1e12) == pytest.approx(1e12 / led.tokens_per_second / 86400)


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        (dict(params=0), "params"),
        (dict(tokens_per_step=-1), "tokens_per_step"),
        (dict(gpus=0), "gpus"),
        (dict(gpus=2.5), "gpus"),
        (dict(peak_flops=math.inf), "peak_flops"),
        (dict(efficiency=0), "efficiency"),
        (dict(efficiency=1.2), "efficiency"),
        (dict(overlap=-0.1), "overlap"),
        (dict(stall=-1), "stall"),
        (dict(flops_per_token=0), "flops_per_token"),
        (dict(bubble=0.1), "bubble"),
        (dict(comm=[1.0]), "comm"),
    ],
)
def test_bad_input_names_the_parameter(kw, name):
    args = dict(params=7e9, tokens_per_step=1e6, gpus=8, peak_flops=312e12) | kw
    with pytest.raises(ValueError, match=name):
        ledger.ledger(**args)


def test_bad_line_and_budget():
    with pytest.raises(ValueError, match="bandwidth"):
        ledger.comm_line("x", 1e9, 0)
    with pytest.raises(ValueError, match="overlap"):
        ledger.comm_line("x", 1e9, 1e9, overlap=2)
    with pytest.raises(ValueError, match="token_budget"):
        _seed().days(0)
    with pytest.raises(ValueError, match="overlaps"):
        ledger.overlap_sweep(_seed(), [])


ledgers = st.builds(
    lambda n, tok, g, peak, eta, send, bw, rho, p, m, stall: ledger.ledger(
        n, tok, g, peak, efficiency=eta, comm=[ledger.comm_line("c", send, bw)], overlap=rho,
        bubble=pipeline.bubble(p, m), stall=stall),
    st.floats(1e8, 1e12), st.floats(1e4, 1e8), st.integers(1, 20000), st.floats(1e13, 2e15),
    st.floats(0.05, 1.0), st.floats(0, 1e12), st.floats(1e9, 1e12), st.floats(0, 1),
    st.integers(1, 32), st.integers(1, 256), st.floats(0, 5),
)


@given(ledgers)
def test_mfu_at_most_efficiency_and_step_at_least_compute(led):
    assert 0 < led.mfu <= led.efficiency * (1 + 1e-12) <= 1 + 1e-12
    assert led.step >= led.compute * (1 - 1e-12)
    assert led.step >= led.comm * (1 - 1e-12)  # at most the compute can hide it
    assert max(0.0, led.comm - led.compute) - 1e-9 <= led.exposed <= led.comm + 1e-12
    assert led.exposed >= led.uncapped_exposed - 1e-9 * (1 + led.comm)  # the cap only ever adds exposed time
    assert led.ideal + sum(led.losses.values()) == pytest.approx(led.step, rel=1e-9)


@given(ledgers, st.floats(0, 1), st.floats(0, 1))
def test_more_overlap_never_slower(led, a, b):
    lo, hi = sorted((a, b))
    assert led.with_overlap(hi).step <= led.with_overlap(lo).step * (1 + 1e-12)


@given(ledgers, st.floats(1e9, 1e14), st.floats(1.1, 100))
def test_days_scale_linearly_with_budget(led, budget, k):
    assert led.days(k * budget) == pytest.approx(k * led.days(budget), rel=1e-9)


def test_waterfall_and_overlap_figures(no_leak):
    led = _seed(peak=312e12, bubble=pipeline.bubble(4, 32), stall=0.05)
    fig = viz.ledger_waterfall([_seed(), led], ["原文", "更正"])
    assert len(fig.axes) == 2
    assert len(fig.axes[1].patches) == 2 + len(ledger.LOSSES)
    plt.close(fig)
    fig = viz.ledger_overlap(ledger.overlap_sweep(led, [0, 0.5, 1]), marks=(0.8,))
    assert len(fig.axes) == 2
    plt.close(fig)
    with pytest.raises(ValueError, match="titles"):
        viz.ledger_waterfall([led], [])


def test_a_line_is_one_cost_value() -> None:
    from clusterlab.communication.cost import Cost

    line = ledger.comm_line("DP", 25e9, 25e9, latency=3e-3)
    assert isinstance(line.cost, Cost) and line.cost.latency == 3e-3 and line.cost.bandwidth == 1.0
    assert line.time == line.cost.time == 3e-3 + 1.0 and line.send == 25e9 and line.bandwidth == 25e9
    two = ledger.CommLine("TP+DP", line.cost + ledger.comm_line("TP", 30e9, 300e9).cost)
    assert two.send == 55e9 and two.time == pytest.approx(1.103) and two.bandwidth == pytest.approx(55e9 / 1.1)
    assert ledger.CommLine("optimizer", Cost((), 0.2)).bandwidth == float("inf")
