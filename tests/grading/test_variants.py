"""Every value question whose answer is a number takes its givens from the student's data: neighbours' keys differ.

For each set the master notebook is parsed as the build parses it; the answer names of a question are the
top-level assignments marked ``# SOLUTION`` in its solution cells, and the question counts as numeric when the
reference solution gives a number (or numbers) for one of them. The reference solution is run in this process
(teacher code, no sandbox) for a handful of student IDs; then for every numeric question

* the answers differ between at least two of the IDs, and
* at least one of its checks takes ``data``, passes for the ID's own data and fails for another ID's data: an
  answer copied from a neighbour loses the points.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import numbers
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from clusterlab_grade import judge, master

from .helpers import SOURCE, build_exercises

SETS = sorted(p.name for p in SOURCE.iterdir() if p.is_dir() and (p / f"{p.name}.ipynb").is_file())
IDS = ("2024001", "2024002", "2023117", "A19", "2025042")
TOP_LEVEL = re.compile(r"^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=(?!=)")

# Questions whose numeric answer does not depend on the data by design (the point of the question).
INVARIANT = {
    ("collectives-961", "q3"): "ZeRO-2、ZeRO-3 与 DDP 每步发送量之比与 Ψ、N 无关，这正是本题要学生发现的",
    ("dataplane", "q1"): "顺序读、缓存小于数据集时 LRU 每轮命中都是 0，这正是本题要验证的结论",
}


def answer_names(master_path: Path) -> dict[str, list[str]]:
    """Question name → the names its solution cells assign on ``# SOLUTION`` lines (top level only)."""
    import nbformat

    nb = nbformat.read(master_path, as_version=4)
    names: dict[str, list[str]] = {}
    question = None
    solution = False
    for cell in nb.cells:
        kind = master._raw_kind(cell)
        if kind == "# BEGIN QUESTION":
            question = str(master._yaml(cell)["name"])
            names[question] = []
        elif kind == "# END QUESTION":
            question = None
        elif kind in ("# BEGIN SOLUTION", "# END SOLUTION"):
            solution = kind == "# BEGIN SOLUTION"
        elif solution and question and cell.cell_type == "code":
            for line in cell.source.splitlines():
                m = master.SOLUTION_LINE.match(line)
                a = TOP_LEVEL.match(line) if m and not m.group(1) else None
                if a:
                    names[question] += [n.strip() for n in a.group(1).split(",")
                                        if n.strip() not in (*names[question], "_")]
    return names


def is_numeric(value: Any) -> bool:
    if isinstance(value, bool | str) or value is None:
        return False
    if isinstance(value, numbers.Number):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "iuf" and value.size > 0
    if isinstance(value, list | tuple):
        return bool(value) and all(is_numeric(v) for v in value)
    if isinstance(value, dict):
        return bool(value) and all(is_numeric(v) for v in value.values())
    return False


def normal(value: Any) -> Any:
    """A hashable form of a numeric answer (12 significant digits)."""
    if isinstance(value, dict):
        return tuple(sorted((repr(k), normal(v)) for k, v in value.items()))
    if isinstance(value, np.ndarray | list | tuple):
        return tuple(normal(v) for v in value)
    return float(f"{float(value):.12g}")


def run_solution(parsed: master.Parsed, student_id: str) -> dict[str, Any]:
    """The namespace of the reference solution run for ``student_id``."""
    nb = build_exercises.with_student_id(parsed.solution, student_id)
    ns: dict[str, Any] = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for k, src in enumerate(build_exercises.code_cells(nb)):
            exec(compile(src, f"<{parsed.set_name} cell {k}>", "exec"), ns)
    return ns


def passes(check: master.TestCell, ns: dict[str, Any], data: dict[str, Any]) -> bool:
    env = judge.check_namespace(check.name)  # as the judge runs it: with the hint class 提示
    exec(compile(check.source, f"<{check.name}>", "exec"), env)
    fn = env[check.name]
    args = [copy.deepcopy(data) if p == "data" else ns[p] for p in inspect.signature(fn).parameters]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            fn(*args)
    except AssertionError:
        return False
    return True


@pytest.mark.parametrize("name", SETS)
def test_numeric_answers_follow_the_student_data(name: str) -> None:
    set_dir = SOURCE / name
    master_path = set_dir / f"{name}.ipynb"
    parsed = master.parse(master_path, (set_dir / "variant.py").read_text(encoding="utf-8"))
    names = answer_names(master_path)
    runs = {sid: run_solution(parsed, sid) for sid in IDS}
    first = runs[IDS[0]]
    numeric = [q for q in parsed.questions if any(is_numeric(first.get(n)) for n in names.get(q.name, []))]
    assert numeric, f"{name}：没有找到数值题"
    for q in numeric:
        answers = [n for n in names[q.name] if is_numeric(first.get(n))]
        keys = {sid: tuple(normal(runs[sid][n]) for n in answers) for sid in IDS}
        if (name, q.name) in INVARIANT:
            assert len(set(keys.values())) == 1, f"{name} {q.name} 列为与数据无关，答案却随学号变化"
            continue
        data_checks = [c for c in q.tests if "data" in re.search(r"def \w+\((.*?)\)", c.source, re.S).group(1)]
        assert data_checks, f"{name} {q.name}：数值题 {answers} 没有用 data 的检查"
        for sid in IDS:
            for c in data_checks:
                assert passes(c, runs[sid], runs[sid]["data"]), f"{name} {q.name}：学号 {sid} 的参考解答没通过 {c.name}"
        assert len(set(keys.values())) > 1, f"{name} {q.name}：{answers} 对学号 {IDS} 都相同"
        copied = any(not passes(c, runs[a], runs[b]["data"])
                     for a in IDS for b in IDS if keys[a] != keys[b] for c in data_checks)
        assert copied, f"{name} {q.name}：抄邻座的答案也能通过检查"
