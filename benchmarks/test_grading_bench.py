"""Benchmark: grade a class of 40 ordinary submissions of ring-allreduce with ``-j 2`` in the sandbox.

Target (issue: classroom grading): ≤ 3 s per ordinary submission on a 2-core machine. Prints the wall time of the
whole class and the seconds per submission; run with ``make bench``. Not part of ``make test``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.grading.helpers import HAS_BWRAP, SOURCE, build_exercises, for_student, gradebook, read, write  # noqa: E402

CLASS_SIZE = 40
TARGET = 3.0


@pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap (bwrap) 不可用")
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
          f"单份评分时间中位数 {sorted(per)[len(per) // 2]:.2f} s，最长 {max(per):.2f} s")
    assert len(book.rows) == CLASS_SIZE
    assert wall / CLASS_SIZE <= TARGET
