"""Hints in steps (``提示``): the student's self-check gives one step more each time the same check fails, the judge
and the feedback give the first step only (unless ``--hint-steps`` asks for more), a plain string message is
unchanged, and the built notebooks carry the hint class where their checks run.

The self-check is the student notebook's first cell run here (trusted code); the judge runs a small package written
here with ``unsafe=True`` (its notebook is ours), as ``tools/mistakes.py`` does, so no sandbox is needed."""

from __future__ import annotations

import ast
import copy
import json
import pickle
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from clusterlab_grade import hints, judge, master

from .helpers import SOURCE, build_exercises, gradebook

STEP1 = "发送的字节数不对：先数一数每个 rank 一共发几次，见正文 §2"
STEP2 = "关键关系：两个阶段各 N − 1 步，每步发一块 S/N"
STEP3 = "第三步：把两个阶段的步数相加"
HINTED = f'''def test_q1_bytes(x):
    assert x == 1, 提示("{STEP1}", "{STEP2}")
'''
THREE = f'''def test_q1_three(x):
    assert x == 1, 提示("{STEP1}", "{STEP2}", "{STEP3}")
'''
PLAIN = '''def test_q1_plain(x):
    assert x == 1, f"x 应为 1，得到 {x}"
'''
NOTE = "还有 1 步提示"


def _kernel(x: Any) -> dict[str, Any]:
    """A student's kernel session: the setup cell of the student notebook, the checks, an answer."""
    ns: dict[str, Any] = {"__name__": "__main__"}
    for src in (master.SETUP_CELL, HINTED, THREE, PLAIN, f"x = {x!r}"):
        exec(compile(src, "<cell>", "exec"), ns)
    return ns


def _self_check(ns: dict[str, Any], capsys: pytest.CaptureFixture[str], *checks: str) -> str:
    capsys.readouterr()
    ns["自测"]("q1", *(ns[c] for c in checks))
    return capsys.readouterr().out


# ------------------------------------------------------------------------------------------------------------
# the hint class itself
# ------------------------------------------------------------------------------------------------------------
def test_a_hint_is_its_first_step_wherever_it_is_shown_as_text() -> None:
    h = hints.提示(STEP1, STEP2)
    assert h == STEP1 and str(h) == STEP1 and type(str(h)) is str
    assert str(AssertionError(h)) == STEP1 and f"{AssertionError(h)}" == STEP1
    assert h.步骤 == (STEP1, STEP2) and hints.steps_of(h) == (STEP1, STEP2)
    back = pickle.loads(pickle.dumps(h))
    assert back == STEP1 and back.步骤 == (STEP1, STEP2) and copy.deepcopy(h).步骤 == (STEP1, STEP2)
    assert hints.hint_text(h) == (STEP1, 1)
    assert hints.hint_text(h, 2) == (f"{STEP1}；提示 2/2：{STEP2}", 0)
    assert hints.hint_text("普通信息", 3) == ("普通信息", 0) and hints.steps_of("普通信息") == ("普通信息",)
    with pytest.raises(ValueError):
        hints.提示()


def test_the_setup_cell_defines_the_same_hint_class() -> None:
    assert hints.HINT_SOURCE in master.SETUP_CELL
    ns: dict[str, Any] = {}
    exec(compile(master.SETUP_CELL, "<setup>", "exec"), ns)
    h = ns["提示"]("一", "二")
    assert h == "一" and h.步骤 == ("一", "二") and isinstance(h, str)


# ------------------------------------------------------------------------------------------------------------
# the self-check
# ------------------------------------------------------------------------------------------------------------
def test_self_check_gives_step_one_then_step_two(capsys: pytest.CaptureFixture[str]) -> None:
    ns = _kernel(2)
    first = _self_check(ns, capsys, "test_q1_bytes")
    assert f"✗ q1 未通过：{STEP1}" in first and NOTE in first
    assert STEP2 not in first  # the formula is not handed out at the first failure
    second = _self_check(ns, capsys, "test_q1_bytes")
    assert STEP1 in second and f"提示 2/2：{STEP2}" in second and "还有" not in second
    assert second.index(STEP1) < second.index(STEP2)
    assert _self_check(ns, capsys, "test_q1_bytes") == second  # nothing more to give


def test_steps_come_one_at_a_time_never_all_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    ns = _kernel(2)
    outs = [_self_check(ns, capsys, "test_q1_three") for _ in range(4)]
    shown = [[s in out for s in (STEP1, STEP2, STEP3)] for out in outs]
    assert shown == [[True, False, False], [True, True, False], [True, True, True], [True, True, True]]
    assert "还有 2 步提示" in outs[0] and NOTE in outs[1] and "还有" not in outs[2]


def test_each_check_counts_its_own_failures_and_a_pass_takes_no_step_back(
        capsys: pytest.CaptureFixture[str]) -> None:
    ns = _kernel(2)
    _self_check(ns, capsys, "test_q1_bytes")
    both = _self_check(ns, capsys, "test_q1_bytes", "test_q1_three")
    assert f"提示 2/2：{STEP2}" in both  # test_q1_bytes: its second failure
    assert f"提示 2/3：{STEP2}" not in both and "还有 2 步提示" in both  # test_q1_three: its first
    ns["x"] = 1
    assert "✓ q1" in _self_check(ns, capsys, "test_q1_bytes")
    ns["x"] = 2
    again = _self_check(ns, capsys, "test_q1_bytes")
    assert STEP1 in again and STEP2 in again  # a step once shown stays shown (a new kernel starts over)


TWO = f'''def test_q1_two(x, y):
    assert x == 1, 提示("{STEP1}", "{STEP2}")
    assert y == 1, 提示("y 不对：先看第二小题", "y 的关键关系")
'''


def test_each_assertion_of_a_check_counts_its_own_failures(capsys: pytest.CaptureFixture[str]) -> None:
    """Two hinted assertions in one check: fixing the first and failing the second starts the second at step 1."""
    ns = _kernel(2)
    exec(compile(TWO + "y = 2", "<cell>", "exec"), ns)
    assert STEP2 not in _self_check(ns, capsys, "test_q1_two")
    assert f"提示 2/2：{STEP2}" in _self_check(ns, capsys, "test_q1_two")  # the same assertion fails again
    ns["x"] = 1
    out = _self_check(ns, capsys, "test_q1_two")
    assert "y 不对：先看第二小题" in out and "y 的关键关系" not in out and NOTE in out  # its own first failure
    assert "y 的关键关系" in _self_check(ns, capsys, "test_q1_two")
    ns["x"] = 2  # back to the first assertion: its count was kept
    assert f"提示 2/2：{STEP2}" in _self_check(ns, capsys, "test_q1_two")


def test_self_check_all_shows_the_steps_given_so_far_without_a_new_one(capsys: pytest.CaptureFixture[str]) -> None:
    ns = _kernel(2)
    _self_check(ns, capsys, "test_q1_bytes")
    for _ in range(3):
        ns["自测全部"]()
        out = capsys.readouterr().out
        assert STEP1 in out and STEP2 not in out and NOTE in out
    assert STEP2 in _self_check(ns, capsys, "test_q1_bytes")


def test_plain_messages_are_unchanged_in_the_self_check(capsys: pytest.CaptureFixture[str]) -> None:
    ns = _kernel(2)
    for _ in range(3):
        assert _self_check(ns, capsys, "test_q1_plain") == "✗ q1 未通过：x 应为 1，得到 2\n"
    ns["x"] = 1
    assert _self_check(ns, capsys, "test_q1_plain", "test_q1_bytes") == "✓ q1：公开检查全部通过（2 项）\n"


# ------------------------------------------------------------------------------------------------------------
# the judge and the feedback
# ------------------------------------------------------------------------------------------------------------
def _package(root: Path) -> Path:
    checks = [("test_q1_bytes", HINTED), ("test_q1_three", THREE), ("test_q1_plain", PLAIN)]
    spec = {"format": judge.FORMAT, "set": "demo", "sample_id": "2024001",
            "questions": [{"name": "q1", "points": 3.0, "manual": [],
                           "checks": [{"name": n, "points": 1.0, "hidden": False, "source": src, "description": ""}
                                      for n, src in checks]}],
            "starter": ["x = ...\n"]}
    pkg = root / "demo-package"
    pkg.mkdir()
    (pkg / "exercise.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    (pkg / "variant.py").write_text("def student_data(sid):\n    return {}\n\n\ndef show_data(d):\n    pass\n",
                                    encoding="utf-8")
    return pkg


def _notebook(path: Path, sid: str, answer: str) -> Path:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"exercise": {"set": "demo", "format": 1}},
          "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c}
                    for c in (f'学号 = "{sid}"\n', answer)]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    return path


def _messages(pkg: judge.Package, answer: str) -> dict[str, str]:
    out = judge.grade_cells(pkg, ['学号 = "2024001"\n', answer], "2024001", unsafe=True)
    return {c.name: c.message for c in out.checks}


def test_judge_reports_the_first_step_only_unless_more_are_asked_for(tmp_path: Path) -> None:
    pkg = judge.Package.load(_package(tmp_path))
    got = _messages(pkg, "x = 2\n")
    assert got == {"test_q1_bytes": STEP1, "test_q1_three": STEP1, "test_q1_plain": "x 应为 1，得到 2"}
    pkg.hint_steps = 2
    got = _messages(pkg, "x = 2\n")
    assert got["test_q1_bytes"] == f"{STEP1}；提示 2/2：{STEP2}"
    assert STEP2 in got["test_q1_three"] and STEP3 not in got["test_q1_three"]
    assert got["test_q1_plain"] == "x 应为 1，得到 2"
    assert all(m == "" for m in _messages(pkg, "x = 1\n").values())


def test_feedback_gives_step_one_and_hint_steps_gives_more(tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    subs = tmp_path / "subs"
    _notebook(subs / "2024002-乙.ipynb", "2024002", "x = 2\n")
    reports = {}
    for steps in ("1", "2"):
        out = tmp_path / steps / "成绩.csv"
        out.parent.mkdir()
        extra = [] if steps == "1" else ["--hint-steps", steps]
        assert gradebook.main([str(pkg), str(subs), str(out), "--unsafe", *extra]) == 0
        reports[steps] = next((tmp_path / steps / "成绩-反馈").glob("*.md")).read_text(encoding="utf-8")
    assert STEP1 in reports["1"] and STEP2 not in reports["1"] and "x 应为 1，得到 2" in reports["1"]
    assert STEP2 in reports["2"] and STEP3 not in reports["2"]
    summary = (tmp_path / "1" / "成绩-各题统计.csv").read_text(encoding="utf-8-sig")
    assert STEP2 not in summary
    bad = tmp_path / "bad" / "成绩.csv"
    assert gradebook.main([str(pkg), str(subs), str(bad), "--unsafe", "--hint-steps", "0"]) == 1


# ------------------------------------------------------------------------------------------------------------
# the build: the student notebook defines the hint class, the master imports it
# ------------------------------------------------------------------------------------------------------------
def _master_with(tmp_path: Path, *, hint_import: bool) -> Path:
    """A copy of the ring-allreduce set whose first public check of q1 gives its message in two steps."""
    src = tmp_path / "source" / "ring-allreduce"
    src.mkdir(parents=True)
    nb = nbformat.read(SOURCE / "ring-allreduce" / "ring-allreduce.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = "\n".join(ln for ln in cell.source.splitlines() if hints.HINT_IMPORT not in ln)
    imports = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("import math"))
    if hint_import:
        imports.source += f"\n{hints.HINT_IMPORT}  # 主笔记本用；学生版的第一个单元格自带\n"
    check = next(c for c in nb.cells if c.cell_type == "code" and "def test_q1_" in c.source)
    body = check.source.splitlines()
    at = next(i for i, ln in enumerate(body) if ln.lstrip().startswith("def test_q1_"))
    body.insert(at + 1, f'    assert True, 提示("{STEP1}", "{STEP2}")')
    check.source = "\n".join(body)
    nbformat.write(nb, src / "ring-allreduce.ipynb")
    (src / "variant.py").write_bytes((SOURCE / "ring-allreduce" / "variant.py").read_bytes())
    return src


def test_built_student_notebook_defines_the_hint_class_and_never_imports_the_grader(tmp_path: Path,
                                                                                capsys: pytest.CaptureFixture[str]
                                                                                ) -> None:
    built = build_exercises.build_set(_master_with(tmp_path, hint_import=True), tmp_path / "out", check=False)
    for path in (built.student_notebook, built.autograder_notebook):
        nb = nbformat.read(path, as_version=4)
        setup = nb.cells[0].source
        ast.parse(setup)
        assert setup == master.SETUP_CELL
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        assert "clusterlab_grade" not in code and "提示(" in code
        ns: dict[str, Any] = {}
        exec(compile(setup, "<setup>", "exec"), ns)
        assert isinstance(ns["提示"]("一", "二"), str) and callable(ns["自测"])
        for cell in nb.cells:
            if cell.cell_type == "code":
                ast.parse(cell.source)
        assert master.student_problems(nb) == []
        imports = next(c.source for c in nb.cells if c.cell_type == "code" and c.source.startswith("import math"))
        assert imports == "import math\n\nimport numpy as np"  # the master's cell without the import line
    pkg = judge.Package.load(built.autograder_zip)
    assert not any("clusterlab_grade" in c for c in pkg.starter_cells)
    assert "clusterlab_grade" not in pkg.reference_source


def test_a_master_whose_checks_use_the_hint_class_must_import_it(tmp_path: Path) -> None:
    src = _master_with(tmp_path, hint_import=False)
    with pytest.raises(master.MasterError, match=re.escape(hints.HINT_IMPORT)):
        master.parse(src / "ring-allreduce.ipynb", (src / "variant.py").read_text(encoding="utf-8"))


def test_a_student_notebook_that_imports_the_grader_is_refused() -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(hints.HINT_IMPORT)]
    assert master.student_problems(nb) == ["导入了 clusterlab_grade（学生没有这个包）"]


# ------------------------------------------------------------------------------------------------------------
# the masters: every hint in steps has steps to give
# ------------------------------------------------------------------------------------------------------------
SETS = sorted(p.name for p in SOURCE.iterdir() if p.is_dir() and (p / f"{p.name}.ipynb").is_file())


@pytest.mark.parametrize("name", SETS)
def test_every_hint_in_the_masters_has_a_first_step_and_a_later_one(name: str) -> None:
    set_dir = SOURCE / name
    parsed = master.parse(set_dir / f"{name}.ipynb", (set_dir / "variant.py").read_text(encoding="utf-8"))
    for q in parsed.questions:
        for t in q.tests:
            for node in ast.walk(ast.parse(t.source)):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "提示":
                    where = f"{name} {t.name} 第 {node.lineno} 行"
                    assert len(node.args) >= 2 and not node.keywords, f"{where}：提示(…) 至少要两步"
                    texts = [ast.unparse(a) for a in node.args]
                    assert len(set(texts)) == len(texts), f"{where}：两步的文字相同"


# ------------------------------------------------------------------------------------------------------------
# a real set: a typical mistake of ring-allreduce q3 meets the hint of test_q3_anchor
# ------------------------------------------------------------------------------------------------------------
def test_a_real_check_gives_its_steps_one_at_a_time_and_the_judge_only_the_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from .helpers import for_student, read

    built = build_exercises.build_set(SOURCE / "ring-allreduce", tmp_path, check=False)
    nb = for_student(read(built.autograder_notebook), "2024001")
    hits = 0
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and "return 2 * size * (ranks - 1) / ranks" in src:
            cell["source"] = src.replace("return 2 * size * (ranks - 1) / ranks", "return 2 * size / ranks")
            hits += 1
    assert hits == 1
    cells = build_exercises.code_cells(nb)
    pkg = judge.Package.load(built.autograder_zip)
    check = next(c for q in pkg.questions for c in q.checks if c.name == "test_q3_anchor")
    _, second = next(s for s in ast.walk(ast.parse(check.source)) if isinstance(s, ast.Call)
                     and isinstance(s.func, ast.Name) and s.func.id == "提示").args
    assert isinstance(second, ast.Constant)
    step2 = str(second.value)

    ns: dict[str, Any] = {"__name__": "__main__"}
    for src in cells:  # the student runs the notebook top to bottom: q3's self-check fails for the first time
        try:
            exec(compile(src, "<cell>", "exec"), ns)
        except Exception:
            pass
    run = capsys.readouterr().out
    assert "✗ q3 未通过：S = 12 B、N = 4 时每卡应发送 18 B" in run and NOTE in run and step2 not in run
    ns["自测"]("q3", ns["test_q3_anchor"])  # runs it again, still wrong
    again = capsys.readouterr().out
    assert f"提示 2/2：{step2}" in again

    out = judge.grade_cells(pkg, cells, "2024001", unsafe=True, select=lambda q, c: q == "q3")
    message = next(r.message for r in out.checks if r.name == "test_q3_anchor")
    assert message.startswith("S = 12 B、N = 4 时每卡应发送 18 B") and "§2" in message and step2 not in message
