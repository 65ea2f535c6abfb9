"""The teacher's command: roster, missing and unknown students, per-student feedback, per-question summary,
regrading one student, duplicates flagged, and the refusal to run without a sandbox."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from .helpers import SOURCE, build_exercises, for_student, gradebook, needs_bwrap, read, write

pytestmark = [needs_bwrap, pytest.mark.slow]
SET = "ring-allreduce"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build_exercises.build_set(SOURCE / SET, tmp_path_factory.mktemp("build"), check=False)


def _wrong_q1(solution: dict[str, Any], sid: str) -> dict[str, Any]:
    nb = for_student(solution, sid)
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if "grad_fp16_bytes = P * 2" in src:
            cell["source"] = src.replace("grad_fp16_bytes = P * 2", "grad_fp16_bytes = P * 2 / 1e9")
    return nb


def _rows(path: Path) -> list[list[str]]:
    return list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))


@pytest.fixture(scope="module")
def graded(built: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("class")
    subs = root / "subs"
    solution, blank = read(built.autograder_notebook), read(built.student_notebook)
    write(for_student(solution, "2024101"), subs / "2024101-张三.ipynb")
    write(for_student(blank, "2024102"), subs / "2024102-李四.ipynb")
    write(_wrong_q1(solution, "2024103"), subs / "2024103.ipynb")
    write(_wrong_q1(solution, "2024105"), subs / "2024105.ipynb")
    write(for_student(solution, "2024199"), subs / "2024199-旁听.ipynb")
    roster = root / "名单.csv"
    roster.write_text("学号,姓名\n2024101,张三\n2024102,李四\n2024103,王五\n2024104,赵六\n2024105,钱七\n",
                      encoding="utf-8-sig")
    out = root / "成绩.csv"
    code = gradebook.main([str(built.autograder_zip), str(subs), str(out), "--roster", str(roster), "-j", "2"])
    assert code == 0
    return {"root": root, "subs": subs, "out": out, "roster": roster, "solution": solution}


def test_roster_rows(graded: dict[str, Any]) -> None:
    rows = _rows(graded["out"])
    questions = [f"q{i}" for i in range(1, 9)]
    assert rows[0] == ["学号", "姓名", *questions, "总分", "满分", "备注", "文件", "SHA256", "自动评分", "人工评阅",
                       "迟交扣分", "提交时间"]
    by_id = {r[0]: r for r in rows[1:]}
    assert sorted(by_id) == ["2024101", "2024102", "2024103", "2024104", "2024105", "2024199"]
    assert by_id["2024101"][1] == "张三" and by_id["2024101"][10:12] == ["19", "19"]
    assert by_id["2024103"][1] == "王五"  # the name comes from the roster
    assert by_id["2024104"][10] == "0" and by_id["2024104"][12] == "未提交"
    assert "不在名单" in by_id["2024199"][12]
    assert len(by_id["2024101"][14]) == 12


def test_feedback_in_chinese_without_keys(graded: dict[str, Any], built: Any) -> None:
    folder = graded["out"].with_name("成绩-反馈")
    text = (folder / "2024103.md").read_text(encoding="utf-8")
    assert "总分" in text and "隐藏检查" in text and "q1" in text and "clusterlab" not in text
    pkg = gradebook.Package.load(built.autograder_zip)
    key = 2 * pkg.data_for("2024103")["P"]
    assert f"{key:g}" not in text and repr(key) not in text and f"{key:.6g}" not in text
    assert "全部检查都通过了" in (folder / "2024101.md").read_text(encoding="utf-8")


def test_question_summary(graded: dict[str, Any]) -> None:
    """Share right and the most common kind of wrong answer, never a student's own numbers."""
    rows = _rows(graded["out"].with_name("成绩-各题统计.csv"))
    assert rows[0] == ["题", "满分", "平均分", "满分比例", "最常见的错误类型", "该类型人数 / 未满分人数"]
    q1 = rows[1]
    assert q1[0] == "q1" and q1[3] == "40%"  # 2 of the 5 graded notebooks have q1 right
    assert q1[4] and q1[5] == "2 / 3", q1  # the two wrong-unit notebooks share one kind; the blank is another
    assert not any(ch.isdigit() for ch in q1[4].split("：", 1)[-1]), q1[4]


def test_regrade_one_student(graded: dict[str, Any], built: Any) -> None:
    out = graded["out"]
    before = _rows(out)
    write(for_student(graded["solution"], "2024102"), graded["subs"] / "2024102-李四.ipynb")
    code = gradebook.main([str(built.autograder_zip), str(graded["subs"]), str(out), "--roster",
                           str(graded["roster"]), "--regrade", "2024102"])
    assert code == 0
    after = _rows(out)
    assert [r for r in after if r[0] != "2024102"] == [r for r in before if r[0] != "2024102"]
    assert next(r for r in after if r[0] == "2024102")[10] == "19"


def test_duplicates_flagged_by_default(built: Any, tmp_path: Path) -> None:
    """A newer file under a classmate's 学号 does not replace the classmate's row: both are graded and shown."""
    solution, blank = read(built.autograder_notebook), read(built.student_notebook)
    write(for_student(solution, "2024101"), tmp_path / "subs" / "2024101-张三.ipynb")
    write(for_student(blank, "2024101"), tmp_path / "subs" / "2024101-冒名.ipynb")
    book = gradebook.grade_folder(built.autograder_zip, tmp_path / "subs")
    assert sorted(r.total for r in book.rows) == [0, 19] and book.not_graded == []
    assert all("2 份提交" in r.note and "都已评分" in r.note for r in book.rows)
    gradebook.write_outputs(book, tmp_path / "g.csv")
    names = sorted(p.name for p in (tmp_path / "g-反馈").iterdir())
    assert len(names) == 2 and all(n.startswith("2024101-") for n in names)
    latest = gradebook.grade_folder(built.autograder_zip, tmp_path / "subs", duplicates="latest")
    assert len(latest.rows) == 1 and len(latest.not_graded) == 1


def test_refuses_without_sandbox(built: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    write(for_student(read(built.autograder_notebook), "2024101"), tmp_path / "subs" / "2024101.ipynb")
    monkeypatch.setattr(gradebook, "bwrap_works", lambda: False)
    out = tmp_path / "g.csv"
    assert gradebook.main([str(built.autograder_zip), str(tmp_path / "subs"), str(out)]) == 2
    assert "bubblewrap" in capsys.readouterr().err and not out.exists()
    assert gradebook.main([str(built.autograder_zip), str(tmp_path / "subs"), str(out), "--unsafe"]) == 0
    assert "--unsafe" in capsys.readouterr().err
    assert _rows(out)[1][10] == "19"


def test_usage_errors(built: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.csv"
    assert gradebook.main([str(tmp_path / "missing.zip"), str(tmp_path), str(out)]) == 1
    assert gradebook.main([str(built.autograder_zip), str(tmp_path / "nope"), str(out)]) == 1
    assert "错误" in capsys.readouterr().err and not out.exists()
