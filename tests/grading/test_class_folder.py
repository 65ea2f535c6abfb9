"""No file stops the run: a class folder with names in other encodings, lone surrogates, a FIFO, a sparse 2 GB file,
links, huge and hostile 学号, long IDs, LMS download layouts and UTF-16 notebooks is graded in one run; every entry
is accounted for, the gradebook is written, and nothing hostile reaches a file or the terminal."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from clusterlab_grade import classroom as cr

from .helpers import ROOT, SOURCE, build_exercises, for_student, gradebook, hostile_files, needs_bwrap, read, write

pytestmark = [needs_bwrap, pytest.mark.slow]
SET = "ring-allreduce"
FULL = 19.0
def _rows(path: Path) -> list[list[str]]:
    csv.field_size_limit(2**31 - 1)
    return list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build_exercises.build_set(SOURCE / SET, tmp_path_factory.mktemp("build"), check=False)


@pytest.fixture(scope="module")
def klass(built: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("hostile")
    subs = root / "subs"
    subs.mkdir()
    solution = read(built.autograder_notebook)
    (root / "名单.csv").write_text(hostile_files(subs, solution), encoding="utf-8-sig")
    roster = root / "名单.csv"
    out = root / "成绩.csv"
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gradebook.py"), str(built.autograder_zip), str(subs), str(out),
         "-j", "2", "--roster", str(roster), "--timeout", "60"],
        capture_output=True, timeout=300, check=False, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    elapsed = time.monotonic() - start
    return {"proc": proc, "out": out, "subs": subs, "elapsed": elapsed, "root": root}


def test_the_gradebook_is_written(klass: dict[str, Any]) -> None:
    proc = klass["proc"]
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert klass["out"].is_file() and klass["out"].stat().st_size < 100_000
    assert klass["elapsed"] < 120  # the FIFO did not hang the run


def test_every_entry_accounted_for(klass: dict[str, Any]) -> None:
    subs = os.fsencode(klass["subs"])
    every = set()
    for root, dirs, files in os.walk(subs):
        rel = [p for p in os.path.relpath(root, subs).split(b"/") if p not in (b".", b"")]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            every.add(cr.display_path([*rel, name])[0])
    graded = {r[13] for r in _rows(klass["out"])[1:] if r[13]}
    listed = {r[0] for r in _rows(klass["out"].with_name("成绩-未评分.csv"))[1:]}
    assert every == graded | listed, every ^ (graded | listed)


def test_names_in_any_encoding(klass: dict[str, Any]) -> None:
    rows = {r[0]: r for r in _rows(klass["out"])[1:]}
    assert rows["2024099"][10] == "19" and "GB18030" in rows["2024099"][12] and "张三" in rows["2024099"][13]
    assert "\\xd5\\xc5" in rows["2024099"][12]  # the raw bytes, escaped
    assert rows["2024098"][10] == "19" and "\\xff\\xfe\\x80" in rows["2024098"][13]
    listed = dict((r[0], r[1]) for r in _rows(klass["out"].with_name("成绩-未评分.csv"))[1:])
    assert any("说明" in f and "GB18030" in why for f, why in listed.items())


def test_lone_surrogates_do_not_stop_the_run(klass: dict[str, Any]) -> None:
    rows = {r[0]: r for r in _rows(klass["out"])[1:]}
    assert rows["2024097"][10] == "19"
    # its own cells fail (the generator cannot hash the surrogate), but the row is there and the note escaped
    assert float(rows["2024096"][10]) > 0 and "\\ud800" in rows["2024096"][12]


def test_special_files_never_opened(klass: dict[str, Any]) -> None:
    listed = dict((r[0], r[1]) for r in _rows(klass["out"].with_name("成绩-未评分.csv"))[1:])
    assert "命名管道" in listed["2024095-管道.ipynb"]
    assert "符号链接" in listed["2024093-链接.ipynb"] and "符号链接" in listed["2024092-文件夹链接"]
    rows = {r[0]: r for r in _rows(klass["out"])[1:]}
    assert rows["2024094"][10] == "0" and "20 MB" in rows["2024094"][12] and rows["2024094"][14] == ""
    assert rows["2024094"][13] == "2024094-巨大.ipynb"


def test_hostile_ids_are_bounded_and_escaped(klass: dict[str, Any]) -> None:
    text = klass["out"].read_text(encoding="utf-8-sig")
    listed_text = klass["out"].with_name("成绩-未评分.csv").read_text(encoding="utf-8-sig")
    for t in (text, listed_text, klass["proc"].stdout.decode("utf-8", "replace")):
        assert "\x1b" not in t and "\x07" not in t
    rows = {r[0]: r for r in _rows(klass["out"])[1:]}
    assert float(rows["2024091"][10]) > 0 and len(rows["2024091"][12]) <= cr.MAX_NOTE and "不符" in rows["2024091"][12]
    assert "\x1b" not in rows["2024090"][12] and "2024090[31m]0;owned" in rows["2024090"][12]  # ESC removed
    listed = dict((r[0], r[1]) for r in _rows(klass["out"].with_name("成绩-未评分.csv"))[1:])
    assert "学号" in listed["2024089\\x1b[31m\\x1b]0;owned\\x07-终端.ipynb"]  # shown escaped, never emitted
    assert "学号至多" in listed[f"{'A' * 40}-长.ipynb"]


def test_regrade_after_a_huge_id(klass: dict[str, Any], built: Any) -> None:
    out = klass["out"]
    code = gradebook.main([str(built.autograder_zip), str(klass["subs"]), str(out), "--regrade", "2024091",
                           "--roster", str(klass["root"] / "名单.csv")])
    assert code == 0
    assert {r[0] for r in _rows(out)[1:]} >= {"2024091", "2024099", "A19"}


def test_roster_match_ignores_case_and_width(klass: dict[str, Any]) -> None:
    rows = {r[0]: r for r in _rows(klass["out"])[1:]}
    assert rows["A19"][1] == "小明" and "不在名单" not in rows["A19"][12] and rows["A19"][10] == "19"
    assert rows["2024088"][10] == "19"


def test_lms_layouts(klass: dict[str, Any]) -> None:
    rows = {r[0]: r for r in _rows(klass["out"])[1:]}
    for sid in ("2024087", "2024086", "2024085", "2024084"):
        assert rows[sid][10] == "19", (sid, rows[sid][12])
        assert "不符" not in rows[sid][12]
    assert "Canvas" in rows["2024087"][12] and "迟交" in rows["2024086"][12]
    assert "Moodle" in rows["2024085"][12] and "Moodle" in rows["2024084"][12]
    unknown = rows["moodle999"]
    assert "不在名单" in unknown[12] and "不符" in unknown[12]  # graded, flagged: its 学号 cannot be trusted
    listed = dict((r[0], r[1]) for r in _rows(klass["out"].with_name("成绩-未评分.csv"))[1:])
    assert "不是 .ipynb" in listed["Zhao Liu_4242_assignsubmission_onlinetext_/onlinetext.html"]


def test_utf16_notebooks(klass: dict[str, Any]) -> None:
    rows = {r[0]: r for r in _rows(klass["out"])[1:]}
    assert rows["2024082"][10] == "19" and rows["2024081"][10] == "19"


def test_feedback_names_never_collide() -> None:
    from clusterlab_grade.book import Row, feedback_names

    rows = [Row(sid, "", {}, 0, 0, "", f"{i}.ipynb", "") for i, sid in
            enumerate(["abc.1", "abc1", "A19", "a19", "x" * 32, "x" * 31 + "y", "2024001", "2024001"])]
    feedback_names(rows)
    names = [r.feedback_name.casefold() for r in rows]
    assert len(set(names)) == len(names), names
    assert rows[1].feedback_name == "abc1"


def test_stale_stage_is_removed(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"{cr.STAGE_PREFIX}{dead.pid}-abc"
    stale.mkdir()
    (stale / "0000.ipynb").write_text("{}")
    mine = tmp_path / f"{cr.STAGE_PREFIX}{os.getpid()}-abc"
    mine.mkdir()
    assert cr.remove_stale_stages(tmp_path) == [stale]
    assert not stale.exists() and mine.exists()


def test_sigterm_kills_sandboxes_and_removes_the_stage(built: Any, tmp_path: Path) -> None:
    solution = read(built.autograder_notebook)
    subs = tmp_path / "subs"
    for i in range(4):
        nb = for_student(solution, f"20243{i:02d}")
        nb["cells"].insert(3, {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                               "source": "while True:\n    pass\n"})
        write(nb, subs / f"20243{i:02d}-慢.ipynb")
    out = tmp_path / "g.csv"
    proc = subprocess.Popen([sys.executable, str(ROOT / "tools" / "gradebook.py"), str(built.autograder_zip),
                             str(subs), str(out), "-j", "2", "--cell-timeout", "60", "--timeout", "100"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        now = {p.name for p in Path(tempfile.gettempdir()).glob(f"{cr.STAGE_PREFIX}{proc.pid}-*")}
        if now and _children(proc.pid):
            break
        time.sleep(0.1)
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM, err.decode("utf-8", "replace")
    assert not list(Path(tempfile.gettempdir()).glob(f"{cr.STAGE_PREFIX}{proc.pid}-*"))
    assert not out.exists()
    time.sleep(0.5)
    assert _children(proc.pid) == []


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (the sandboxes' bwrap)."""
    found = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            fields = (p / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(p.name))
    return found
