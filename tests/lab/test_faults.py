"""Checkpoint/restart against real faults on the emulated cluster (:mod:`clusterlab.lab.faultlab`): a short run
of 4 faults (about 30 s), skipped with one line where neither root nor user namespaces are available."""

from __future__ import annotations

from pathlib import Path

import pytest

from clusterlab.lab import faultlab
from clusterlab.lab.emulated import availability
from clusterlab.lab.faultlab import FaultConfig, FaultReport


def _files() -> set[str]:
    """The lab's and Hydra's files in /tmp (a killed proxy would leave its topology file there)."""
    return {p.name for p in Path("/tmp").iterdir() if p.name.startswith(("hydra_hwloc_xmlfile_", "clusterlab-"))}


BEFORE = _files()
AVAILABLE = availability()
pytestmark = pytest.mark.skipif(not AVAILABLE, reason=AVAILABLE.reason)


@pytest.fixture(scope="module")
def short_run() -> FaultReport:
    # 4 faults, MTBF 2 s (seed 7: up times summing to 7.7 s, the expectation being 8 s); about 25 s
    return faultlab.run_faults(FaultConfig(nodes=2, ranks_per_node=1, mtbf=2.0, faults=4, seed=7))


def test_every_fault_is_detected(short_run: FaultReport) -> None:
    rep = short_run
    assert len(rep.records) == 4
    for r in rep.records:
        assert r.injected < r.detected < r.restarted
        # a killed rank ends mpiexec (or, first, its heartbeat goes stale); a cut link hangs the all-reduce and
        # only the heartbeat tells, after the timeout
        assert r.how in (("exit", "heartbeat") if r.kind == "kill" else ("heartbeat",))
        assert r.detection < rep.config.timeout + 1.0


def test_resumed_run_is_bit_identical(short_run: FaultReport) -> None:
    assert short_run.ranks_agree
    assert short_run.final_hash == short_run.reference_hash


def test_lost_work_is_bounded(short_run: FaultReport) -> None:
    rep = short_run
    for r in rep.records:
        assert 0 <= r.lost < rep.interval_measured + rep.save_cost_measured + rep.config.timeout + r.restart


def test_useful_share_matches_the_prediction(short_run: FaultReport) -> None:
    rep = short_run
    # 3 standard errors of the ratio over 4 fault cycles (useful_share_stderr, checked against the cycle model
    # above): about ±0.35 here, most of it the spread of 4 exponential up times
    assert abs(rep.useful_share - rep.prediction.useful) <= 3 * rep.stderr


def test_nothing_left_in_tmp(short_run: FaultReport) -> None:
    assert short_run.records  # the run happened before this look
    assert _files() - BEFORE == set()
