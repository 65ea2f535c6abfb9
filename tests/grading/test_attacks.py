"""The attack suite: a class folder of ordinary, broken and hostile submissions, graded once as a teacher would
(``-j 2``), then inspected. No attack may raise a score above what its correct answers earn, touch anything
outside its sandbox, delay the run past its timeout by more than a few seconds, or lose a row."""

from __future__ import annotations

import csv
import hashlib
import time
from pathlib import Path
from typing import Any

import pytest

from .helpers import SOURCE, add_cell, build_exercises, for_student, gradebook, needs_bwrap, read, write

pytestmark = [needs_bwrap, pytest.mark.slow]
SET = "ring-allreduce"
FULL = 19.0  # points of the ring-allreduce set (8 questions)
TIMEOUT = 12.0

BLANK_ATTACKS = {
    "2024201-偷看": """
import glob, os
found = [p for pat in ("/work/**/*.zip", "/tmp/**/*", "/**/exercise.json") for p in glob.glob(pat, recursive=True)]
q6_answer = "B" if found else "X"
""",
    "2024202-改检查": """
import builtins, math
import numpy as np
math.isclose = lambda *a, **k: True
np.array_equal = lambda *a, **k: True
builtins.isinstance = lambda *a: True
class Anything(float):
    def __eq__(self, other): return True
grad_fp16_bytes = grad_fp32_bytes = naive_root_total_8 = Anything(1.0)
q6_answer = Anything(0.0)
""",
    "2024203-伪造结果": """
import os, sys
for fd in range(3, 64):
    try:
        os.write(fd, b'{"scores": {"q1": 600, "q6": 600}, "total": 600}\\n' * 50)
    except OSError:
        pass
os.kill(os.getppid(), 9)
os._exit(0)
""",
    "2024204-退出": "import sys\nsys.exit(0)\n",
    "2024205-硬退出": "import os\nos._exit(0)\n",
    "2024206-写外面": """
import os, shutil
for target in TARGETS:
    try:
        if os.path.isdir(target):
            shutil.rmtree(target)
        else:
            open(target, "w").write("hacked")
    except OSError:
        pass
""",
    "2024207-后台进程": """
import os, subprocess, threading, time
try:
    subprocess.Popen(["sh", "-c", "sleep 1000"], start_new_session=True)
except OSError:
    pass
threading.Thread(target=time.sleep, args=(1000,)).start()
""",
    "2024208-死循环": "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass\n",
    "2024209-fork炸弹": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        break\n",
    "2024210-内存炸弹": "blocks = []\nwhile True:\n    blocks.append(bytearray(10**8))\n",
    "2024211-输出炸弹": """
import os, sys
print("x" * (100 * 1024**2))
for fd in (3, 4, 5, 6, 7):
    try:
        os.write(fd, b"y" * (100 * 1024**2))
    except OSError:
        pass
""",
    "2024212-导入答案": """
try:
    from clusterlab.communication import collectives
    q6_answer = "B"
except ImportError:
    q6_answer = "X"
""",
}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    built = build_exercises.build_set(SOURCE / SET, tmp_path_factory.mktemp("build"), check=False)
    root = tmp_path_factory.mktemp("class")
    subs = root / "submissions"
    canary = root / "请勿删除.txt"
    canary.write_text("canary", encoding="utf-8")
    out = root / "成绩.csv"
    solution, blank = read(built.autograder_notebook), read(built.student_notebook)
    targets = [str(subs / "2024101-张三.ipynb"), str(canary), str(out), str(subs)]

    write(for_student(solution, "2024101"), subs / "2024101-张三.ipynb")
    write(for_student(blank, "2024102"), subs / "2024102-李四.ipynb")
    for name, code in BLANK_ATTACKS.items():
        sid = name.split("-")[0]
        code = code.replace("TARGETS", repr(targets))
        write(add_cell(for_student(blank, sid), code), subs / f"{name}.ipynb")
    # attacks inside an otherwise correct notebook: the correct answers still count, nothing more
    background, bomb = BLANK_ATTACKS["2024207-后台进程"], BLANK_ATTACKS["2024209-fork炸弹"]
    write(add_cell(for_student(solution, "2024220"), background), subs / "2024220-后台正确.ipynb")
    loop = "while True:\n    pass\n"
    write(add_cell(for_student(solution, "2024221"), loop, at=3), subs / "2024221-循环正确.ipynb")
    write(add_cell(for_student(solution, "2024222"), bomb), subs / "2024222-炸弹正确.ipynb")
    stripped = for_student(solution, "2024223")
    stripped["metadata"] = {}
    write(stripped, subs / "2024223-无元数据.ipynb")
    # broken files
    (subs / "2024230-截断.ipynb").write_text(str(blank)[:200], encoding="utf-8")
    (subs / "2024231-非笔记本.ipynb").write_text('{"a": 1}', encoding="utf-8")
    (subs / "2024232-二进制.ipynb").write_bytes(bytes(range(256)) * 10)
    (subs / "2024233-空.ipynb").write_bytes(b"")
    # files that used to vanish
    write(for_student(solution, "2024240"), subs / "2024240-大写.IPYNB")
    write(for_student(solution, "2024241"), subs / "2024241-王五" / "作业.ipynb")
    write(for_student(solution, "2024242"), subs / "2024242-赵六" / "更深" / "作业.ipynb")
    write(for_student(solution, "2024243"), subs / '=HYPERLINK("evil")-x.ipynb')
    write(for_student(solution, "2024244"), subs / "2024244-=1+2.ipynb")
    (subs / "说明.txt").write_text("not a notebook", encoding="utf-8")
    write(for_student(blank, "2024250"), subs / "2024250-重复.ipynb")
    time.sleep(0.05)
    write(for_student(solution, "2024250"), subs / "2024250-重复-新.ipynb")
    # copying a classmate: their ID in the notebook, the copier's ID on the file
    write(for_student(solution, "2024101"), subs / "2024260-抄袭.ipynb")
    before = {p: _digest(p) for p in subs.rglob("*") if p.is_file()}
    limits = gradebook.Limits(timeout=TIMEOUT, cell_timeout=3, call_timeout=5)
    start = time.monotonic()
    book = gradebook.grade_folder(built.autograder_zip, subs, jobs=2, limits=limits)
    gradebook.write_outputs(book, out)
    elapsed = time.monotonic() - start
    time.sleep(1.0)  # anything left behind would act now
    return {"book": book, "rows": {r.student_id: r for r in book.rows}, "out": out, "subs": subs,
            "before": before, "canary": canary, "elapsed": elapsed, "csv_digest": _digest(out)}


def test_ordinary_submissions(klass: dict[str, Any]) -> None:
    rows = klass["rows"]
    assert rows["2024101"].total == FULL and rows["2024101"].note == ""
    assert rows["2024102"].total == 0


@pytest.mark.parametrize("name", sorted(BLANK_ATTACKS))
def test_attack_on_a_blank_earns_nothing(klass: dict[str, Any], name: str) -> None:
    row = klass["rows"][name.split("-")[0]]
    assert row.total == 0, (name, row.scores, row.note)


def test_attacks_do_not_cost_correct_answers(klass: dict[str, Any]) -> None:
    rows = klass["rows"]
    assert rows["2024220"].total == FULL, rows["2024220"].note
    assert rows["2024221"].total == FULL and "TimeoutError" in rows["2024221"].note
    assert rows["2024222"].total == FULL
    assert rows["2024223"].total == FULL and "元数据" in rows["2024223"].note


def test_scores_never_exceed_the_points(klass: dict[str, Any]) -> None:
    pkg = klass["book"].package
    for row in klass["book"].rows:
        for q in pkg.questions:
            assert 0 <= row.scores[q.name] <= q.points
        assert row.total <= row.possible == FULL


def test_nothing_outside_the_sandbox_changed(klass: dict[str, Any]) -> None:
    after = {p: _digest(p) for p in klass["subs"].rglob("*") if p.is_file()}
    assert after == klass["before"]
    assert klass["canary"].read_text(encoding="utf-8") == "canary"
    assert _digest(klass["out"]) == klass["csv_digest"]  # nothing edited the CSV after the run


def test_run_time_is_bounded(klass: dict[str, Any]) -> None:
    for row in klass["book"].rows:
        if row.outcome is not None:
            assert row.outcome.seconds <= TIMEOUT + 4, (row.student_id, row.outcome.seconds)
    stubborn = klass["rows"]["2024208"]
    assert "超时" in stubborn.note
    assert klass["elapsed"] < 90


def test_broken_files_get_rows_with_reasons(klass: dict[str, Any]) -> None:
    rows = klass["rows"]
    assert "JSON" in rows["2024230"].note and rows["2024230"].total == 0
    assert "不是 Jupyter 笔记本" in rows["2024231"].note
    assert "UTF-8" in rows["2024232"].note or "JSON" in rows["2024232"].note
    assert "JSON" in rows["2024233"].note


def test_no_file_is_lost(klass: dict[str, Any]) -> None:
    book, subs = klass["book"], klass["subs"]
    graded = {r.file for r in book.rows if r.file}
    listed = {f for f, _ in book.not_graded}
    every = {str(p.relative_to(subs)) for p in subs.rglob("*") if p.is_file()}
    assert every == graded | listed
    rows = klass["rows"]
    assert rows["2024240"].total == FULL and rows["2024241"].total == FULL
    reasons = dict(book.not_graded)
    assert "层级过深" in reasons[str(Path("2024242-赵六") / "更深" / "作业.ipynb")]
    assert "学号" in reasons['=HYPERLINK("evil")-x.ipynb']
    assert "不是 .ipynb" in reasons["说明.txt"]
    twins = [r for r in book.rows if r.student_id == "2024250"]
    assert sorted(r.total for r in twins) == [0, FULL] and all("2 份提交" in r.note for r in twins)


def test_copied_notebook_is_flagged(klass: dict[str, Any]) -> None:
    row = klass["rows"]["2024260"]
    assert "不符" in row.note and row.total < FULL


def test_spreadsheet_formulas_are_neutralised(klass: dict[str, Any]) -> None:
    out = klass["out"]
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")
    for path in (out, out.with_name(out.stem + "-未评分.csv")):
        for row in csv.reader(path.read_text(encoding="utf-8-sig").splitlines()):
            for cell in row:
                assert not cell.startswith(("=", "+", "-", "@")), (path.name, cell)
    names = {r[0]: r[1] for r in csv.reader(out.read_text(encoding="utf-8-sig").splitlines())}
    assert names["2024244"] == "'=1+2"
