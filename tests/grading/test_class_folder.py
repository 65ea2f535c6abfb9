"""No file stops the run: a class folder with names in other encodings, lone surrogates, a FIFO, a sparse 2 GB file,
links, huge and hostile 学号, long IDs, LMS download layouts and UTF-16 notebooks is graded in one run; every entry
is accounted for, the gradebook is written, and nothing hostile reaches a file or the terminal."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from grading import classroom as cr

from .helpers import ROOT, SOURCE, build_exercises, for_student, gradebook, needs_bwrap, read, write

pytestmark = [needs_bwrap, pytest.mark.slow]
SET = "ring-allreduce"
FULL = 19.0
GBK_NAME = "2024099-张三.ipynb".encode("gbk")
BAD_NAME = b"2024098-\xff\xfe\x80.ipynb"
ANSI = "\x1b[31m\x1b]0;owned\x07"


def _set_id_raw(nb: dict[str, Any], value_source: str) -> dict[str, Any]:
    """The notebook with its 学号 cell assigning ``value_source`` (Python source of the value)."""
    out = json.loads(json.dumps(nb))
    for cell in out["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and src.startswith("学号 = "):
            _, _, rest = src.partition("\n")
            cell["source"] = f"学号 = {value_source}\n{rest}"
    return out


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
    raw = os.fsencode(subs)
    # names in other encodings
    with open(os.path.join(raw, GBK_NAME), "wb") as f:
        f.write(json.dumps(for_student(solution, "2024099"), ensure_ascii=False).encode("utf-8"))
    with open(os.path.join(raw, BAD_NAME), "wb") as f:
        f.write(json.dumps(for_student(solution, "2024098")).encode("utf-8"))
    with open(os.path.join(raw, "说明-".encode("gbk") + b".txt"), "wb") as f:
        f.write(b"readme")
    # a lone surrogate in a code cell and in the reply's 学号 (escaped in the JSON, as json.dumps writes it)
    nb = for_student(solution, "2024097")
    nb["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                        "source": "note = '\ud800'\n"})
    (subs / "2024097-代理.ipynb").write_text(json.dumps(nb), encoding="ascii")
    write(_set_id_raw(for_student(solution, "2024096"), '"2024096\\ud800"'), subs / "2024096-学号代理.ipynb")
    # a FIFO, a sparse 2 GB file, links
    os.mkfifo(subs / "2024095-管道.ipynb")
    with open(subs / "2024094-巨大.ipynb", "wb") as f:
        f.truncate(2 * 1024**3)
    (subs / "2024093-链接.ipynb").symlink_to(subs / "2024097-代理.ipynb")
    (subs / "2024092-文件夹链接").symlink_to(root)
    # hostile 学号: 10 MB in the notebook, ANSI escapes in the notebook and in the file name, too long a file name
    write(_set_id_raw(for_student(solution, "2024091"), '"9" * 10_000_000'), subs / "2024091-长学号.ipynb")
    write(_set_id_raw(for_student(solution, "2024090"), repr("2024090" + ANSI)), subs / "2024090-转义.ipynb")
    write(for_student(solution, "2024089"), subs / f"2024089{ANSI}-终端.ipynb")
    write(for_student(solution, "A" * 40), subs / f"{'A' * 40}-长.ipynb")
    # case-insensitive roster match, full-width digits
    write(for_student(solution, "A19"), subs / "a19-小写.ipynb")
    write(for_student(solution, "2024088"), subs / "２０２４０８８-全角.ipynb")
    # LMS bulk downloads: Canvas (one marked LATE) and Moodle (folder per participant, and flat)
    write(for_student(solution, "2024087"), subs / "lisi_12345_6789012_ring-allreduce.ipynb")
    write(for_student(solution, "2024086"), subs / "wangwu_LATE_12346_6789013_作业-1.ipynb")
    write(for_student(solution, "2024085"), subs / "Zhao Liu_4242_assignsubmission_file_" / "作业.ipynb")
    (subs / "Zhao Liu_4242_assignsubmission_onlinetext_").mkdir()
    (subs / "Zhao Liu_4242_assignsubmission_onlinetext_" / "onlinetext.html").write_text("<p>hi</p>")
    write(for_student(solution, "2024084"), subs / "Qian Qi_4243_assignsubmission_file_作业.ipynb")
    write(for_student(solution, "2024083"), subs / "Nobody_999_assignsubmission_file_作业.ipynb")
    # UTF-16 notebooks, with and without BOM
    text = json.dumps(for_student(solution, "2024082"), ensure_ascii=False)
    (subs / "2024082-utf16.ipynb").write_bytes(text.encode("utf-16"))
    (subs / "2024081-utf16le.ipynb").write_bytes(json.dumps(for_student(solution, "2024081")).encode("utf-16-le"))
    roster = root / "名单.csv"
    roster.write_text("学号,姓名,LMS ID\nA19,小明,\n2024087,李四,12345\n2024086,王五,12346\n2024085,赵六,4242\n"
                      "2024084,钱七,4243\n2024099,张三,\n", encoding="utf-8-sig")
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
    from grading.book import Row, feedback_names

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
