"""Benchmarks of classroom grading in the sandbox, ``-j 2`` on a 2-core machine. Run with ``make bench``.

* a class of 40 ordinary submissions (ring-allreduce, fault-tolerance): wall time and seconds per submission
  (target ≤ 3 s of wall time per submission);
* one class folder mixing 40 honest notebooks, every hostile file of the attack suite and both LMS download
  layouts, graded in one run: every entry accounted for, median seconds per ordinary submission
  (target ≤ 0.5 s);
* a CPU hog (60 threads spinning in numpy and Python for its whole cell timeout) next to classmates: the
  classmates' median grading time beside the hog over the same beside an ordinary classmate, in alternating
  blocks so that the machine's other work falls on both (target ≤ 2×; ``tests/grading`` allows 3× in a shorter
  run, so that a loaded machine does not make the test flaky).

The median per submission counts from the moment a submission's grading starts; the folder's sandboxes are
started one submission ahead (``sandbox.Spares``), so it does not include starting Python and numpy in the
sandbox. The wall time of the whole run divided by the number of submissions is printed next to it.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.grading.helpers import (  # noqa: E402
    HAS_BWRAP,
    SOURCE,
    build_exercises,
    for_student,
    gradebook,
    hog_delay,
    hostile_files,
    read,
    write,
)

CLASS_SIZE = 40
TARGET = 0.5  # median seconds per ordinary submission of the mixed folder (ring-allreduce)
CLASS_TARGET = 3.0  # wall seconds per submission of a plain class, any set
pytestmark = pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap (bwrap) 不可用")


@pytest.mark.parametrize("name", ["ring-allreduce", "fault-tolerance"])
def test_class_of_40(tmp_path: Path, name: str) -> None:
    built = build_exercises.build_set(SOURCE / name, tmp_path / "build", check=False)
    solution, blank = read(built.autograder_notebook), read(built.student_notebook)
    subs = tmp_path / "subs"
    for i in range(CLASS_SIZE):
        sid = f"2024{i:03d}"
        write(for_student(solution if i % 4 else blank, sid), subs / f"{sid}-学生{i}.ipynb")
    start = time.perf_counter()
    book = gradebook.grade_folder(built.autograder_zip, subs, jobs=2)
    gradebook.write_outputs(book, tmp_path / "成绩.csv")
    wall = time.perf_counter() - start
    per = [r.outcome.seconds for r in book.rows if r.outcome is not None]
    print(f"\n{name}: 全班 {CLASS_SIZE} 份，-j 2：{wall:.1f} s；每份（墙钟 ÷ 份数）{wall / CLASS_SIZE:.2f} s，"
          f"单份评分时间中位数 {statistics.median(per):.2f} s，最长 {max(per):.2f} s")
    assert len(book.rows) == CLASS_SIZE
    assert wall / CLASS_SIZE <= CLASS_TARGET


def test_mixed_class_folder(tmp_path: Path) -> None:
    built = build_exercises.build_set(SOURCE / "ring-allreduce", tmp_path / "build", check=False)
    solution = read(built.autograder_notebook)
    subs = tmp_path / "subs"
    honest = {f"2025{i:03d}" for i in range(CLASS_SIZE)}
    for sid in honest:
        write(for_student(solution, sid), subs / f"{sid}-学生.ipynb")
    roster_text = hostile_files(subs, solution)
    roster = tmp_path / "名单.csv"
    roster.write_text(roster_text + "".join(f"{sid},学生\n" for sid in sorted(honest)), encoding="utf-8-sig")
    start = time.perf_counter()
    book = gradebook.grade_folder(built.autograder_zip, subs, jobs=2, roster=gradebook.cr.read_roster(roster),
                                  limits=gradebook.Limits(timeout=60))
    gradebook.write_outputs(book, tmp_path / "成绩.csv")
    wall = time.perf_counter() - start
    entries = sum(len(files) + sum(os.path.islink(os.path.join(r, d)) for d in dirs)
                  for r, dirs, files in os.walk(os.fsencode(subs)))
    rows_with_files = {r.file for r in book.rows if r.file}
    accounted = len(rows_with_files) + len(book.not_graded)
    per = [r.outcome.seconds for r in book.rows if r.outcome is not None and r.student_id in honest]
    print(f"\n混合班级：{entries} 个文件（{CLASS_SIZE} 份正常）、{len(book.rows)} 行成绩、"
          f"{len(book.not_graded)} 个未评分；"
          f"全部 {wall:.1f} s；正常提交的单份评分时间中位数 {statistics.median(per):.2f} s"
          f"（墙钟 ÷ 评分份数 {wall / max(len(book.rows), 1):.2f} s；负载 {os.getloadavg()[0]:.1f}）")
    assert accounted == entries
    assert all(r.total == r.possible for r in book.rows if r.student_id in honest)
    assert statistics.median(per) <= TARGET


def test_cpu_hog_delays_classmates_at_most_twice(tmp_path: Path) -> None:
    built = build_exercises.build_set(SOURCE / "ring-allreduce", tmp_path / "build", check=False)
    calm, hog = hog_delay(built.autograder_zip, read(built.autograder_notebook), rounds=6, block=4)
    ratio = statistics.median(hog) / statistics.median(calm)
    print(f"\nCPU 占满者：同学的单份评分时间中位数 {statistics.median(calm):.2f} s → {statistics.median(hog):.2f} s"
          f"（{ratio:.2f} 倍；各 {len(calm)} / {len(hog)} 份，负载 {os.getloadavg()[0]:.1f}）")
    assert ratio <= 2.0
