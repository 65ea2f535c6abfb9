"""The judge sees the student's objects as the checks expect: a checkpoint that shares arrays with the trainer
stays shared (handles, not copies), and an argument changed in place is seen changed outside."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import SOURCE, build_exercises, for_student, needs_bwrap, read

pytestmark = [needs_bwrap, pytest.mark.slow]


def _replace(nb: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    hits = 0
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if old in src:
            cell["source"] = src.replace(old, new)
            hits += 1
    assert hits == 1, old
    return nb


def test_shallow_checkpoint_and_in_place_update_are_caught(tmp_path: Any) -> None:
    from clusterlab_grade.judge import Package, grade_cells

    built = build_exercises.build_set(SOURCE / "fault-tolerance", tmp_path, check=False)
    pkg = Package.load(built.autograder_zip)
    nb = for_student(read(built.autograder_notebook), "2024001")
    nb = _replace(nb, '"w": trainer.w.copy(),', '"w": trainer.w,')
    nb = _replace(nb, "    m = beta1 * m + (1 - beta1) * grad\n", "    m *= beta1\n    m += (1 - beta1) * grad\n")
    out = grade_cells(pkg, build_exercises.code_cells(nb), "2024001")
    failed = {c.name for c in out.checks if c.message}
    assert {"test_q5_snapshot_is_a_copy", "test_q4_random"} <= failed, failed
    assert all(name.startswith(("test_q4_", "test_q5_")) for name in failed), failed  # nothing else is touched
