"""The fault lab: its pure parts (schedule, checks, prediction, error bar, report) and one short real run on the
emulated cluster (skipped with one line where network namespaces are unavailable)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterlab.faults.checkpoint import expected_wasted_fraction
from clusterlab.lab import faultlab, faultplan
from clusterlab.lab.faultplan import FaultConfig, FaultRecord, FaultReport, fault_schedule, predict, useful_share_stderr


# -- the schedule ---------------------------------------------------------------------------------------------
@given(st.integers(0, 40), st.floats(0.01, 1e4), st.integers(0, 2**32), st.integers(2, 16), st.integers(1, 8))
def test_schedule_is_seeded_and_in_range(count: int, mtbf: float, seed: int, nodes: int, rpn: int) -> None:
    s = fault_schedule(count, mtbf, seed, nodes=nodes, ranks_per_node=rpn)
    assert s == fault_schedule(count, mtbf, seed, nodes=nodes, ranks_per_node=rpn)
    assert len(s) == count
    for f in s:
        assert f.gap > 0
        assert f.kind in faultplan.KINDS
        assert 0 <= f.target < (nodes * rpn if f.kind == "kill" else nodes)


def test_schedule_gaps_are_exponential_with_the_mtbf() -> None:
    gaps = np.array([f.gap for f in fault_schedule(4000, 3.0, 5)])
    # mean of 4000 exponential gaps: standard error 3/sqrt(4000) = 0.047 s; 4 % is 2.5 σ
    assert gaps.mean() == pytest.approx(3.0, rel=0.04)
    # the exponential's median is M·ln 2
    assert float(np.median(gaps)) == pytest.approx(3.0 * math.log(2), rel=0.06)


def test_schedule_differs_between_seeds_and_respects_kinds() -> None:
    assert fault_schedule(5, 3.0, 0) != fault_schedule(5, 3.0, 1)
    assert {f.kind for f in fault_schedule(50, 3.0, 0, kinds=("kill",))} == {"kill"}
    assert {f.kind for f in fault_schedule(50, 3.0, 0)} == {"kill", "link"}


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"count": -1}, "count"), ({"mtbf": 0.0}, "mtbf"), ({"seed": -1}, "seed"), ({"nodes": 0}, "nodes"),
    ({"kinds": ()}, "kinds"), ({"kinds": ("crash",)}, "kinds"), ({"nodes": 1, "kinds": ("link",)}, "link"),
])
def test_schedule_rejects(kwargs: dict[str, object], name: str) -> None:
    args: dict[str, object] = {"count": 3, "mtbf": 3.0, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=name):
        fault_schedule(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"mtbf": -1.0}, "mtbf"), ({"faults": 0}, "faults"), ({"nodes": 1, "ranks_per_node": 1}, "nodes"),
    ({"nodes": 1, "ranks_per_node": 2}, "link"), ({"interval": 0.0}, "interval"), ({"timeout": 0.0}, "timeout"),
    ({"kinds": ("reboot",)}, "kinds"), ({"batch": 0}, "batch"), ({"rate": math.inf}, "rate"),
])
def test_config_rejects(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        FaultConfig(**kwargs)  # type: ignore[arg-type]


def test_config_one_node_kill_only() -> None:
    assert FaultConfig(nodes=1, ranks_per_node=2, kinds=("kill",)).ranks == 2


# -- the prediction and its error bar -------------------------------------------------------------------------
@given(st.floats(0.01, 10), st.floats(0, 1), st.floats(0.5, 100), st.floats(0, 10))
def test_prediction_is_a_share_and_composes_the_book(t: float, d: float, m: float, r: float) -> None:
    p = predict(t, d, m, r)
    assert 0 < p.useful <= 1
    assert p.useful == pytest.approx((1 - expected_wasted_fraction(t, d, m)) * m / (m + r))
    # restarts that faults cannot strike waste less than the book's exposed ones: M + R <= M·e^{R/M}
    assert p.useful >= p.useful_book_exact * (1 - 1e-9)  # rounding where both are ~1e-6
    assert p.lost_per_fault == pytest.approx(t / 2)


def test_prediction_without_restart_is_the_book_exact() -> None:
    p = predict(0.2, 0.01, 3.0, 0.0)
    assert p.useful == pytest.approx(p.useful_book_exact)


def _cycles(n: int, reps: int, t: float, d: float, m: float, r: float) -> np.ndarray:
    """The renewal model behind the prediction, sampled: ``reps`` runs of ``n`` fault cycles."""
    rng = np.random.default_rng(0)
    up = rng.exponential(m, size=(reps, n))
    useful = t * np.floor(up / (t + d))
    return useful.sum(axis=1) / (up + r).sum(axis=1)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("n", "t", "d", "m", "r", "bias", "spread"), [(20, 0.21, 0.009, 3.0, 0.6, 0.25, 0.15),
                                                                       (4, 0.2, 0.01, 2.0, 0.5, 0.6, 0.3),
                                                                       (50, 1.0, 0.1, 5.0, 2.0, 0.25, 0.15)])
def test_prediction_and_stderr_match_the_cycle_model(n: int, t: float, d: float, m: float, r: float,
                                                     bias: float, spread: float) -> None:
    shares = _cycles(n, 40_000, t, d, m, r)
    p = predict(t, d, m, r)
    se = useful_share_stderr(n, t, d, m, r)
    # the ratio estimator's bias is O(1/n) against an O(1/sqrt n) standard error: a quarter of one standard
    # error at 20 and 50 cycles, about 0.4 of one at 4 (so a 4-fault run is a smoke test, 20 faults a measurement)
    assert float(shares.mean()) == pytest.approx(p.useful, abs=bias * se)
    # the delta method is first order too: within 15 % at 20 and 50 cycles; at 4 it is about 20 % low
    assert float(shares.std()) == pytest.approx(se, rel=spread)


@given(st.integers(1, 500))
def test_stderr_falls_as_one_over_sqrt_n(n: int) -> None:
    one = useful_share_stderr(n, 0.2, 0.01, 3.0, 0.5)
    assert useful_share_stderr(4 * n, 0.2, 0.01, 3.0, 0.5) == pytest.approx(one / 2)


@pytest.mark.parametrize(("args", "name"), [((0, 0.2, 0.01, 3, 0.5), "faults"), ((3, 0, 0.01, 3, 0.5), "interval"),
                                            ((3, 0.2, -1, 3, 0.5), "save_cost"), ((3, 0.2, 0.01, 3, -1), "restart")])
def test_stderr_rejects(args: tuple[float, ...], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        useful_share_stderr(*args)  # type: ignore[arg-type]


# -- the report and the driver's bookkeeping ------------------------------------------------------------------
def _report() -> FaultReport:
    recs = (FaultRecord("kill", 1, 2.0, 2.01, 2.3, 0.1, "exit", 80),
            FaultRecord("link", 0, 5.0, 5.5, 6.4, 0.15, "heartbeat", 190))
    return FaultReport(FaultConfig(faults=2), 0.008, 0.17, 0.2, 0.009, 0.025, 210, recs, 6.4, 190 * 0.025,
                       predict(0.2, 0.009, 3.0, 0.9), 0.1, "ab", "ab", True)


def test_report_round_trips_through_json() -> None:
    rep = _report()
    d = json.loads(json.dumps(rep.as_dict()))
    assert FaultReport.from_dict(d) == rep
    assert d["identical"] is True
    assert d["useful_share"] == pytest.approx(190 * 0.025 / 6.4)
    assert d["mean_detection"] == pytest.approx((0.01 + 0.5) / 2)
    assert d["records"][1]["restart"] == pytest.approx(0.9)
    assert "useful" in faultplan.summary(rep)


def test_events_skip_a_line_cut_short(tmp_path: Path) -> None:
    p = tmp_path / "events.jsonl"
    p.write_text('{"ev": "ready", "step": 0, "t": 1.0}\n{"ev": "save", "st\n{"ev": "ready", "step": 5, "t": 9}\n')
    assert [e["step"] for e in faultlab._events(p)] == [0, 5]


def test_save_stats_count_from_each_start() -> None:
    ev = [{"ev": "ready", "t": 0.0, "step": 0}, {"ev": "save", "t0": 0.2, "t1": 0.21, "step": 10},
          {"ev": "save", "t0": 0.41, "t1": 0.43, "step": 20},
          {"ev": "ready", "t": 5.0, "step": 20}, {"ev": "save", "t0": 5.2, "t1": 5.21, "step": 30}]
    gap, cost, step = faultlab._save_stats(ev)
    assert gap == pytest.approx(0.2)
    assert cost == pytest.approx((0.01 + 0.02 + 0.01) / 3)
    assert step == pytest.approx(0.6 / 30)
    assert all(math.isnan(x) for x in faultlab._save_stats(ev[:1]))


# -- the timeline and its figure ----------------------------------------------------------------------------
def test_timeline_covers_the_wall_without_gaps() -> None:
    rep = _report()
    segs = faultplan.timeline(rep)
    assert segs[0].start == 0 and segs[-1].end == pytest.approx(rep.wall)
    for a, b in itertools.pairwise(segs):
        assert a.end == pytest.approx(b.start) and a.end > a.start
    assert [s.kind for s in segs][:4] == ["work", "lost", "detect", "restart"]
    shares = faultplan.wall_shares(rep)
    assert sum(shares.values()) == pytest.approx(1)
    assert shares["lost"] * rep.wall == pytest.approx(0.1 + 0.15)
    assert shares["restart"] * rep.wall == pytest.approx(sum(r.restart for r in rep.records))


def test_lost_work_never_reaches_before_the_restart() -> None:
    rep = _report()
    long_lost = dataclasses.replace(rep.records[1], lost=10.0)  # more than the up time since the last restart
    segs = faultplan.timeline(dataclasses.replace(rep, records=(rep.records[0], long_lost)))
    lost = [s for s in segs if s.kind == "lost"][1]
    assert lost.start == pytest.approx(rep.records[0].restarted)


def test_fault_run_figure_and_its_checks() -> None:
    from clusterlab import viz

    fig = viz.fault_run(_report(), row_seconds=5)
    assert len(fig.axes) == 2 and len(fig.axes[0].get_yticks()) == 2  # 6.4 s of wall in rows of 5 s
    with pytest.raises(ValueError, match="row_seconds"):
        viz.fault_run(_report(), row_seconds=0)
    with pytest.raises(ValueError, match="rep"):
        viz.fault_run(dataclasses.replace(_report(), records=()))


def test_load_reads_what_as_dict_writes(tmp_path: Path) -> None:
    p = tmp_path / "r.json"
    p.write_text(json.dumps(_report().as_dict()))
    assert faultplan.load(p) == _report()
