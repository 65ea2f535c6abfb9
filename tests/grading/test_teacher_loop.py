"""Fair feedback and the teacher's loop, on a small package written here: a student's own ValueError subclass,
sets and other containers shown as data, hidden checks that name their property without the key, blank free-text
answers, the manual-review round trip, the late policy, the Canvas and Moodle exports, regrades that update the
statistics, and the similarity report."""

from __future__ import annotations

import csv
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from .helpers import gradebook, needs_bwrap

pytestmark = [needs_bwrap, pytest.mark.slow]

PROPERTY = "性质：对任意正数都返回它的平方"
REFERENCE = "随机输入，与 clusterlab.secret.square 核对（7 → 49）"
CHECKS = {
    "q1": [("test_q1_rejects", 2, False, "", '''def test_q1_rejects(check_rate):
    try:
        check_rate(-1)
    except ValueError:
        return
    raise AssertionError("负的速率应抛出 ValueError")
''')],
    "q2": [("test_q2_set", 1, False, "", '''def test_q2_set(unique):
    got = unique([3, 1, 3])
    assert got == {1, 3}, f"unique([3, 1, 3]) 应为 {{1, 3}}，得到 {got!r}"
''')],
    "q3": [("test_q3_window", 1, False, "", '''def test_q3_window(window):
    got = window()
    assert list(got) == [1, 2, 3], f"window() 应依次给出 1, 2, 3，得到 {got!r}"
''')],
    "q4": [("test_q4_property", 1, True, PROPERTY, '''def test_q4_property(square):
    """【隐藏测试】q4：性质：对任意正数都返回它的平方"""
    assert square(7) == 49, "square(7) 应为 49"
'''), ("test_q4_reference", 1, True, REFERENCE, '''def test_q4_reference(square):
    """【隐藏测试】q4：随机输入，与 clusterlab.secret.square 核对（7 → 49）"""
    assert square(7) == 49, "square(7) 应为 49"
''')],
    "q5": [("test_q5_typed", 1, False, "", '''def test_q5_typed(q5_value):
    assert q5_value == 5, "q5_value 应为 5"
''')],
}
RUBRIC = "评分要点（人工评阅，2 分）：说出平方为什么单调；\n只写结论得 1 分。"

GOOD = [
    "class RateError(ValueError):\n    pass\n\ndef check_rate(r):\n    if r < 0:\n        raise RateError('负的速率')\n"
    "    return r\n",
    "def unique(xs):\n    return set(xs)\n",
    "from collections import deque\ndef window():\n    return deque([1, 2, 3])\n",
    "def square(x):\n    total = 0\n    steps = []\n    for k in range(x):\n        total = total + x\n"
    "        steps.append((k, total))\n    if steps and steps[-1][1] != total:\n"
    "        raise RuntimeError('lost a step')\n    while len(steps) > 3:\n"
    "        steps.pop(0)\n    return total\n",
    "q5_value = 5\n",
    'q6_why = "平方在正数上随自变量增大而增大，因为两个正数相乘单调。"\n',
]


def _package(root: Path) -> Path:
    pkg = root / "demo-package"
    pkg.mkdir()
    questions = []
    for q, checks in CHECKS.items():
        questions.append({"name": q, "points": float(sum(c[1] for c in checks)),
                          "checks": [{"name": n, "points": float(p), "hidden": h, "source": src, "description": d}
                                     for n, p, h, d, src in checks],
                          "manual": [{"name": "q6_why", "rubric": RUBRIC, "points": 2.0}] if q == "q5" else []})
    spec = {"format": 1, "set": "demo", "sample_id": "2024001", "questions": questions,
            "starter": ["def check_rate(r):\n    ...\n", "q6_why = ...\n"]}
    (pkg / "exercise.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    (pkg / "variant.py").write_text("def student_data(sid):\n    return {}\n\ndef show_data(d):\n    pass\n",
                                    encoding="utf-8")
    return pkg


def _notebook(path: Path, sid: str, cells: list[str]) -> Path:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"exercise": {"set": "demo", "format": 1}},
          "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c}
                    for c in [f'学号 = "{sid}"\n', *cells]]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    return path


def _rows(path: Path) -> list[list[str]]:
    return list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))


def _csv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("loop")
    pkg = _package(root)
    subs = root / "subs"
    _notebook(subs / "2024001-好.ipynb", "2024001", GOOD)
    wrong = [*GOOD]
    wrong[1] = "def unique(xs):\n    return {xs[0]}\n"
    wrong[2] = "from collections import deque\ndef window():\n    return deque([3, 2, 1])\n"
    wrong[3] = "def square(x):\n    return x + x\n"
    wrong[5] = "q6_why = ...\n"
    _notebook(subs / "2024002-错.ipynb", "2024002", wrong)
    # a copy with renamed names and other constants: found by the similarity report, never penalised
    copied = [*GOOD]
    copied[3] = GOOD[3].replace("total", "acc").replace("steps", "trail").replace("3", "4")
    _notebook(subs / "2024003-抄.ipynb", "2024003", copied)
    own = ["def check_rate(rate):\n    if rate >= 0:\n        return rate\n    raise ValueError('negative')\n",
           "def unique(items):\n    return {i for i in items}\n", "def window():\n    return [1, 2, 3]\n",
           "def square(v):\n    return v ** 2\n", "q5_value = 2 + 3\n",
           'q6_why = "正数越大，平方越大：乘积随两个因子一起变大。"\n']
    late = _notebook(subs / "2024004-迟.ipynb", "2024004", own)
    deadline = time.time() - 10 * 86400
    os.utime(late, (deadline + 1.5 * 86400, deadline + 1.5 * 86400))
    for p in (subs / "2024001-好.ipynb", subs / "2024002-错.ipynb", subs / "2024003-抄.ipynb"):
        os.utime(p, (deadline - 3600, deadline - 3600))
    roster = root / "名单.csv"
    roster.write_text("学号,姓名,LMS ID\n2024001,甲,501\n2024002,乙,502\n2024003,丙,503\n2024004,丁,504\n",
                      encoding="utf-8-sig")
    out = root / "成绩.csv"
    when = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(deadline))
    when = when[:-2] + ":" + when[-2:]
    code = gradebook.main([str(pkg), str(subs), str(out), "-j", "2", "--roster", str(roster), "--deadline", when,
                           "--late-penalty", "0.1", "--export", "canvas", "--export", "moodle"])
    assert code == 0
    return {"root": root, "pkg": pkg, "subs": subs, "out": out, "roster": roster, "deadline": when}


def _row(loop: dict[str, Any], sid: str) -> dict[str, str]:
    rows = _rows(loop["out"])
    return next(dict(zip(rows[0], r, strict=True)) for r in rows[1:] if r[0] == sid)


def test_own_value_error_subclass_is_a_value_error(loop: dict[str, Any]) -> None:
    assert _row(loop, "2024001")["q1"] == "2"


def test_returned_containers_shown_as_data(loop: dict[str, Any]) -> None:
    good, bad = _row(loop, "2024001"), _row(loop, "2024002")
    assert good["q2"] == "1" and good["q3"] == "1"
    text = (loop["out"].with_name("成绩-反馈") / "2024002.md").read_text(encoding="utf-8")
    assert "得到 {3}" in text and "deque([3, 2, 1])" in text and "学生代码中的" not in text
    assert bad["q2"] == "0"


def test_hidden_checks_name_their_property_not_the_key(loop: dict[str, Any]) -> None:
    text = (loop["out"].with_name("成绩-反馈") / "2024002.md").read_text(encoding="utf-8")
    assert "未通过：对任意正数都返回它的平方" in text
    assert "用评分程序自选的随机输入调用你的函数" in text
    assert "clusterlab" not in text and "49" not in text


def test_blank_free_text_flagged_and_earns_nothing(loop: dict[str, Any]) -> None:
    bad = _row(loop, "2024002")
    assert "简答未作答：q6_why" in bad["备注"]
    sheet = {(r[0], r[3]): r for r in _csv(loop["out"].with_name("成绩-人工评阅.csv"))[1:]}
    assert sheet[("2024002", "q6_why")][9] == "未作答" and sheet[("2024002", "q6_why")][7] == "0"
    good = sheet[("2024001", "q6_why")]
    assert good[9] == "待评阅" and good[7] == "" and "单调" in good[4]
    assert good[5].startswith("评分要点") and good[6] == "2"


def test_manual_round_trip(loop: dict[str, Any]) -> None:
    sheet_path = loop["out"].with_name("成绩-人工评阅.csv")
    table = _csv(sheet_path)
    for r in table[1:]:
        if r[0] == "2024001":
            r[7], r[8] = "1.5", "理由对，没有说单调的原因"
        if r[0] == "2024002":
            r[7] = "2"  # a blank answer stays at 0 whatever the sheet says
    filled = loop["root"] / "评阅-已填.csv"
    with filled.open("w", encoding="utf-8-sig", newline="") as f:
        csv.writer(f).writerows(table)
    before = _row(loop, "2024001")
    assert gradebook.main([str(loop["pkg"]), str(loop["subs"]), str(loop["out"]), "--merge", str(filled)]) == 0
    after = _row(loop, "2024001")
    assert after["人工评阅"] == "1.5" and float(after["总分"]) == float(before["总分"]) + 1.5
    assert after["满分"] == "9"  # 7 automatic + 2 manual
    assert _row(loop, "2024002")["人工评阅"] == "0"
    text = (loop["out"].with_name("成绩-反馈") / "2024001.md").read_text(encoding="utf-8")
    assert "1.5 分" in text and "没有说单调的原因" in text
    sheet = {(r[0], r[3]): r for r in _csv(sheet_path)[1:]}
    assert sheet[("2024001", "q6_why")][9] == "已评阅"
    # a score above the points is refused, and nothing changes
    table[1][7] = "3" if table[1][0] == "2024001" else table[1][7]
    for r in table[1:]:
        if r[0] == "2024001":
            r[7] = "3"
    with filled.open("w", encoding="utf-8-sig", newline="") as f:
        csv.writer(f).writerows(table)
    assert gradebook.main([str(loop["pkg"]), str(loop["subs"]), str(loop["out"]), "--merge", str(filled)]) == 1
    assert _row(loop, "2024001")["人工评阅"] == "1.5"


def test_late_policy_from_file_times(loop: dict[str, Any]) -> None:
    late, on_time = _row(loop, "2024004"), _row(loop, "2024001")
    assert "迟交 2 天" in late["备注"] and late["迟交扣分"] == "1.4"  # 20 % of 7
    assert float(late["总分"]) == pytest.approx(float(late["自动评分"]) - 1.4)
    assert on_time["迟交扣分"] == "" and on_time["提交时间"]


def test_late_policy_from_an_lms_column(loop: dict[str, Any], tmp_path: Path) -> None:
    times = tmp_path / "worksheet.csv"
    times.write_text("Identifier,Full name,Last modified (submission)\n"
                     f"Participant 501,甲,{loop['deadline'].replace('T', ' ')}\n", encoding="utf-8")
    from clusterlab_grade import classroom as cr
    from clusterlab_grade.lms import read_times

    got = read_times(times, cr.read_roster(loop["roster"]))
    assert list(got) == ["2024001"]


def test_lms_exports(loop: dict[str, Any]) -> None:
    canvas = _csv(loop["out"].with_name("成绩-canvas.csv"))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "demo"]
    assert canvas[1][0] == "Points Possible"
    by_sis = {r[2]: r for r in canvas[2:]}
    assert by_sis["2024001"][1] == "501" and by_sis["2024001"][0] == "甲"
    moodle = _csv(loop["out"].with_name("成绩-moodle.csv"))
    assert moodle[0][:6] == ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade"]
    assert any(r[0] == "Participant 502" for r in moodle[1:])


def test_regrade_updates_the_statistics(loop: dict[str, Any]) -> None:
    summary = loop["out"].with_name("成绩-各题统计.csv")
    q2 = next(r for r in _rows(summary) if r[0] == "q2")
    assert q2[3] == "75%"
    fixed = [*GOOD]
    fixed[5] = "q6_why = ...\n"
    _notebook(loop["subs"] / "2024002-错.ipynb", "2024002", fixed)
    assert gradebook.main([str(loop["pkg"]), str(loop["subs"]), str(loop["out"]), "--regrade", "2024002",
                           "--roster", str(loop["roster"])]) == 0
    q2 = next(r for r in _rows(summary) if r[0] == "q2")
    assert q2[3] == "100%"
    assert _row(loop, "2024001")["人工评阅"] == "1.5"  # the other rows and their manual scores stay


def test_similarity_report_flags_never_penalises(loop: dict[str, Any]) -> None:
    report = _csv(loop["out"].with_name("成绩-相似度.csv"))
    pairs = {(r[0], r[2]) for r in report[1:]}
    assert ("2024001", "2024003") in pairs
    row = next(r for r in report[1:] if (r[0], r[2]) == ("2024001", "2024003"))
    assert "单元格" in row[6] and "def" in row[6]
    assert _row(loop, "2024003")["自动评分"] == "7"


def test_student_self_check_flags_blank_free_text(tmp_path: Path) -> None:
    """The student notebook's 自测 says which free-text answers are still blank (trusted code, run here)."""
    import contextlib
    import io

    from .helpers import SOURCE, build_exercises, for_student, read

    built = build_exercises.build_set(SOURCE / "chunking", tmp_path, check=False)
    outputs = {}
    for kind, path in (("blank", built.student_notebook), ("solution", built.autograder_notebook)):
        nb = for_student(read(path), "2024001")
        ns: dict[str, Any] = {"__name__": "__main__"}
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            for src in build_exercises.code_cells(nb):
                try:
                    exec(compile(src, "<cell>", "exec"), ns)
                except Exception:
                    pass
        outputs[kind] = buf.getvalue()
    assert "简答 q3_why 还没有作答" in outputs["blank"] and "简答 bug_explain 还没有作答" in outputs["blank"]
    assert "还没有作答" not in outputs["solution"]
