"""clusterlab.lab.variants and the two training backends: BLAS bits depend on the machine, fixed-order bits do not."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from clusterlab.faults import divergence as dv
from clusterlab.lab import variants

RECORD = Path(__file__).resolve().parents[2] / "book" / "_data" / "determinism_machines.json"


def test_backends_compute_the_same_training_up_to_rounding() -> None:
    fixed = dv.training_divergence(4, 20, orders=("ring", "tree"), seed=1)
    blas = dv.training_divergence(4, 20, orders=("ring", "tree"), seed=1, backend="blas")
    assert fixed.backend == "fixed" and blas.backend == "blas"
    assert np.allclose(fixed.loss, blas.loss, rtol=1e-5)
    assert np.allclose(fixed.final_parameters, blas.final_parameters, atol=1e-5)
    assert fixed.final_parameters.shape == (2, fixed.parameters)


def test_same_order_gives_identical_runs_with_either_backend() -> None:
    for be in dv.BACKENDS:
        same = dv.training_divergence(4, 15, orders=("ring", "ring"), seed=2, backend=be)
        assert same.first_divergent_step is None
        assert same.final_parameters[0].tobytes() == same.final_parameters[1].tobytes()


def test_unknown_backend_and_setting_are_rejected() -> None:
    with pytest.raises(ValueError, match="backend"):
        dv.training_divergence(4, 2, backend="gpu")
    with pytest.raises(ValueError, match="setting"):
        variants.run("turbo", "fixed")


def test_child_process_reproduces_the_in_process_run() -> None:
    """A fresh process with the caller's environment gives the same bits as this process (either backend)."""
    for be in dv.BACKENDS:
        child = variants.run("as-is", be)
        here = dv.training_divergence(8, 60, orders=("ring", "ring"), seed=0, backend=be)
        assert child.params.tobytes() == here.final_parameters[0].tobytes()
        assert child.machine["arch"] and "numpy" in child.machine
        assert variants.compare(child, child) == (0, 0)


@pytest.mark.skipif(not variants.applicable("numpy-baseline"), reason="numpy's x86-64 baseline only")
def test_fixed_backend_is_identical_under_numpy_baseline() -> None:
    a, b = variants.run("as-is", "fixed"), variants.run("numpy-baseline", "fixed")
    assert b.machine["NPY_DISABLE_CPU_FEATURES"] == variants.NPY_ABOVE_BASELINE
    assert variants.compare(a, b) == (0, 0)


def test_the_books_record() -> None:
    """The committed record holds both backends for every recorded setting; on that machine the BLAS runs differ
    between settings and the fixed-order runs never do."""
    runs = variants.load(RECORD)
    summary = variants.summarise(runs)
    assert [s.setting for s in summary] == list(variants.RECORD_SETTINGS)
    assert all(s.fixed_differing == 0 for s in summary)
    assert summary[0].blas_differing == 0 and all(s.blas_differing > 0 for s in summary[1:])
    cores = {s.setting: s.openblas_core for s in summary}
    assert cores["openblas-haswell"] == "Haswell"
    data = json.loads(RECORD.read_text(encoding="utf-8"))
    assert data["machine"]["OPENBLAS_CORETYPE"] == ""  # recorded with the variable unset


def test_summarise_needs_both_backends() -> None:
    run = variants.Run("as-is", "blas", {}, np.zeros(3, np.float32).tobytes().hex(), 0.0)
    with pytest.raises(ValueError, match="both backends"):
        variants.summarise([run])


def test_record_training_matches_the_package_and_table_rows() -> None:
    from clusterlab.book import tables

    assert variants.load_training(RECORD) == variants.TRAINING
    summary = variants.summarise(variants.load(RECORD))
    rows = tables.machine_settings_rows(summary, 161)
    assert len(rows) == len(summary) + 1 and rows[1][3] == "0/161"
    assert rows[1 + list(variants.RECORD_SETTINGS).index("openblas-haswell")][1] == "Haswell"
    with pytest.raises(ValueError, match="parameters"):
        tables.machine_settings_rows(summary, 0)
