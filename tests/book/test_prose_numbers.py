"""Every number in the prose is glued or given data (see prose_numbers.py for the rule)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .prose_numbers import unexplained_numbers

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(
    p for p in (ROOT / "book").rglob("*.ipynb") if not any(part.startswith("_") for part in p.relative_to(ROOT).parts)
)


def _nb(tmp_path: Path, markdown: str, code: str) -> Path:
    cells = [
        {"cell_type": "code", "source": code, "metadata": {}, "outputs": [], "execution_count": None},
        {"cell_type": "markdown", "source": markdown, "metadata": {}},
    ]
    p = tmp_path / "t.ipynb"
    p.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return p


def test_checker_flags_a_typed_result(tmp_path):
    p = _nb(tmp_path, "所以每卡发送 24.5 GB。", "S = 14e9\nN = 8")
    assert [n for _, n, _ in unexplained_numbers(p)] == ["24.5"]


def test_checker_accepts_glue_data_and_structure(tmp_path):
    md = "梯度 14 GB，{glue:text}`c02-vol:.2f` GB，见 §2.1 与图 2.1，2(N−1) 步，Patarasuk 2009，第 3 步。"
    assert unexplained_numbers(_nb(tmp_path, md, "S = 14e9")) == []


def test_checker_skips_equation_labels_but_not_the_equation(tmp_path):
    md = "$$t = 3.5\\,\\mathrm{s}$$ (eq-962-step)"
    assert [n for _, n, _ in unexplained_numbers(_nb(tmp_path, md, "x = 1"))] == ["3.5"]


def test_notebooks_exist():
    assert NOTEBOOKS, "no notebooks found under book/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_prose_numbers_are_glued_or_given(path):
    problems = unexplained_numbers(path)
    assert not problems, "numbers in prose that are neither glued nor given as code literals:\n" + "\n".join(
        f"  cell {i}: {n!r} in …{ctx}…" for i, n, ctx in problems
    )
