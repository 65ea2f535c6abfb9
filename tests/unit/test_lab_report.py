"""Reading emulated-cluster reports (the committed reference runs) and drawing them."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from clusterlab import viz
from clusterlab.lab import faultplan, mpifit, report

DATA = Path(__file__).resolve().parents[2] / "book" / "_data" / "emulated"


@pytest.fixture(scope="module")
def ring100() -> dict[str, object]:
    return report.load(DATA / "ring_4x1_100mbit.json")


def test_reference_runs_were_quiet_and_describe_the_machine() -> None:
    for f in sorted(DATA.glob("*.json")):
        m = faultplan.load(f).machine if f.name.startswith("faults_") else report.load(f)["machine"]
        assert not m["busy"] and m["cores"] >= 1 and m["cpu"] and m["mpi"].startswith("MPICH"), f.name


def test_samples_and_model_round_trip(ring100: dict[str, object]) -> None:
    s2, s4 = report.samples(ring100, nodes=2), report.samples(ring100, nodes=4)
    assert len(s2) == len(s4) == 19 and {s.ranks for s in s4} == {4}
    m = report.model(ring100)
    fitted = ring100["fitted"]["inter"]  # type: ignore[index]
    # the model priced at the fitted sizes gives back the fit's own held-out errors
    held = [s for s in s2 if s.size in fitted["held_sizes"]]
    assert mpifit.relative_errors(m, held) == pytest.approx(fitted["held_errors"], rel=1e-9)
    with pytest.raises(ValueError, match="nodes must be one of"):
        report.samples(ring100, nodes=3)
    with pytest.raises(ValueError, match="level"):
        report.samples(ring100, level="pod")


def test_imposed_curve_is_the_alpha_beta_of_what_was_imposed(ring100: dict[str, object]) -> None:
    imp = ring100["imposed"]  # type: ignore[index]
    t = report.imposed_curve(ring100, [1e6], 4)[0]
    assert t == pytest.approx(6 * imp["alpha_s"] + 2 * 3 / 4 * 1e6 / imp["beta_by_nodes_Bps"]["4"])


def test_recovery_rows_and_figure(ring100: dict[str, object]) -> None:
    rows = report.recovery_rows({"a": ring100})
    assert [r.nodes for r in rows] == [2, 4]
    assert all(abs(r.beta_error) < 0.10 for r in rows)
    fig = viz.emulated_recovery(rows)
    assert len(fig.axes) == 2
    plt.close(fig)
    with pytest.raises(ValueError, match="rows"):
        viz.emulated_recovery([])


def test_load_rejects_other_json(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"fitted": {}}), encoding="utf-8")
    with pytest.raises(ValueError, match="not an emulated-cluster report"):
        report.load(p)
