"""The teacher's loop after the automatic marks: manual review of free-text answers, the late policy, and the
gradebook files that Canvas and Moodle import.

* **Manual review.** ``OUT-人工评阅.csv`` has one row per student and free-text answer (``q3_why`` …): the answer,
  the rubric from the master, the points (when the master fixes them), and empty 得分 / 评语 columns. An answer
  left as handed out (``...``, empty) is marked 未作答 with 得分 0; it never earns the manual marks. ``--merge``
  reads the filled sheet back: scores must be numbers between 0 and the points, and the totals, the feedback
  (with the comments) and the statistics are written again.
* **Late policy.** ``--deadline`` and ``--late-penalty`` (share of the earned score per started day, capped at
  everything): the submission time is the file's modification time (what the LMS download keeps), or the time
  in a CSV (``--submitted-times``: a 学号 or LMS-ID column and a time column, e.g. Moodle's grading worksheet
  "Last modified (submission)").
* **LMS export.** ``canvas``: the gradebook import layout (Student, ID, SIS User ID, SIS Login ID, Section, then
  the assignment column, and a "Points Possible" row); ``moodle``: the assignment's offline grading worksheet
  (Identifier "Participant N", Full name, …, Grade, Maximum Grade, …, Feedback comments). Both need the LMS user
  ids, which come from the roster (its ``LMS ID`` column, or a Canvas gradebook export used as the roster).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import classroom as cr
from .judge import Package, PackageError

if TYPE_CHECKING:
    from .book import Gradebook, Row

SHEET_HEADER = ["学号", "姓名", "题", "答案名", "回答", "评分要点", "满分", "得分", "评语", "状态"]
BLANK, TO_REVIEW = "未作答", "待评阅"
TIME_COLUMNS = ("提交时间", "Last modified (submission)", "Submitted", "submitted_at", "Submission date")
ID_COLUMNS = ("学号", "SIS User ID", "ID number", "LMS ID", "Identifier", "ID")


# ----------------------------------------------------------------------------------------------------------
# late policy
# ----------------------------------------------------------------------------------------------------------
def parse_deadline(text: str) -> dt.datetime:
    """An ISO date-time (``2025-03-01T23:59`` or with ``+08:00``); without a zone, this machine's zone."""
    try:
        when = dt.datetime.fromisoformat(text.strip().replace(" ", "T", 1))
    except ValueError:
        raise ValueError(f"--deadline 应为 ISO 时间，例如 2025-03-01T23:59+08:00（得到 {text!r}）") from None
    return when if when.tzinfo is not None else when.astimezone()


def _parse_time(text: str) -> dt.datetime | None:
    text = text.strip()
    if not text or text in ("-", "--"):
        return None
    try:
        return parse_deadline(text)
    except ValueError:
        pass
    for fmt in ("%A, %d %B %Y, %I:%M %p", "%d %B %Y, %I:%M %p", "%Y/%m/%d %H:%M", "%Y/%m/%d %H:%M:%S"):
        try:
            return dt.datetime.strptime(text, fmt).astimezone()
        except ValueError:
            continue
    return None


def read_times(path: Path, roster: cr.Roster | None) -> dict[str, dt.datetime]:
    """id_key(学号) → submission time, from a CSV with an ID column and a time column."""
    rows = cr.read_csv_rows(Path(path))
    if not rows:
        raise ValueError(f"{path}：提交时间表是空的")
    head = [h.strip() for h in rows[0]]
    tcol = next((head.index(c) for c in TIME_COLUMNS if c in head), None)
    icol = next((head.index(c) for c in ID_COLUMNS if c in head), None)
    if tcol is None or icol is None:
        raise ValueError(f"{path}：需要学号（或 LMS ID、Identifier）一列和提交时间一列（{'、'.join(TIME_COLUMNS)}）")
    out: dict[str, dt.datetime] = {}
    for r in rows[1:]:
        if max(tcol, icol) >= len(r):
            continue
        ident = re.sub(r"^Participant\s*", "", r[icol].strip())
        if roster is not None and ident in roster.lms:
            ident = roster.lms[ident]
        when = _parse_time(r[tcol])
        if ident and when is not None:
            out[cr.id_key(ident)] = when
    return out


@dataclass
class LatePolicy:
    deadline: dt.datetime
    rate: float  # share of the earned score per started day late
    times: dict[str, dt.datetime] | None = None  # from an LMS column; None: the files' modification times

    def __post_init__(self) -> None:
        if not 0 <= self.rate <= 1:
            raise ValueError(f"late_penalty 应在 0 到 1 之间（得到 {self.rate}）")

    def when(self, row: Row, sub: cr.Submission) -> dt.datetime | None:
        if self.times is not None:
            return self.times.get(cr.id_key(row.student_id))
        return dt.datetime.fromtimestamp(sub.mtime, dt.UTC) if sub.mtime else None

    def apply(self, row: Row, sub: cr.Submission) -> None:
        when = self.when(row, sub)
        if when is None:
            if self.times is not None:
                row.notes.append("提交时间表里没有这个学号，未按迟交处理")
            return
        row.submitted = when.astimezone(self.deadline.tzinfo).isoformat(timespec="minutes")
        late = (when - self.deadline).total_seconds()
        if late > 0:
            row.late_days = math.ceil(late / 86400)
            row.late_rate = self.rate
            row.notes.append(f"迟交 {row.late_days} 天（每天扣 {self.rate:.0%}）")


# ----------------------------------------------------------------------------------------------------------
# manual review
# ----------------------------------------------------------------------------------------------------------
def _fmt(x: float | None) -> str:
    return "" if x is None else f"{round(x, 4):g}"


def manual_sheet(book: Gradebook) -> list[list[str]]:
    """The sheet the teacher fills in: one row per graded student and free-text answer."""
    out = [list(SHEET_HEADER)]
    for r in book.rows:
        if r.checks is None:
            continue
        for m in book.package.manual:
            text = r.texts.get(m["name"])
            got = r.manual_items.get(m["name"], {})
            blank = text is None
            score = "0" if blank else _fmt(got.get("score"))
            state = BLANK if blank else ("已评阅" if got.get("score") is not None else TO_REVIEW)
            out.append([cr.cell_text(r.student_id, cr.MAX_ID), cr.cell_text(r.name, cr.MAX_NAME), m["question"],
                        m["name"], cr.cell_text("" if text is None else text, 4000), cr.cell_text(m["rubric"], 2000),
                        _fmt(m.get("points")), score, cr.cell_text(got.get("comment", ""), 1000), state])
    return out


def apply_manual(pkg: Package, row: Row, items: dict[str, dict[str, Any]]) -> None:
    """Set a row's manual scores; a blank answer stays at 0 whatever the sheet says."""
    row.manual_items = {}
    total = 0.0
    any_score = False
    for m in pkg.manual:
        got = dict(items.get(m["name"], {}))
        if row.texts.get(m["name"], "") is None:
            got["score"] = 0.0
        if got.get("score") is not None:
            any_score = True
            total += float(got["score"])
        if got:
            row.manual_items[m["name"]] = got
    row.manual = round(total, 6) if any_score else None
    row.finalise()


def _number(text: str, where: str, limit: float | None) -> float | None:
    text = text.strip().lstrip("'")
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}：得分应是一个数（得到 {cr.printable(text, 40)!r}）") from None
    if not math.isfinite(value) or value < 0 or (limit is not None and value > limit):
        bound = f"0 到 {_fmt(limit)}" if limit is not None else "不小于 0"
        raise ValueError(f"{where}：得分应在 {bound} 之间（得到 {_fmt(value)}）")
    return value


def merge_manual(package_path: Path, book_csv: Path, sheet: Path) -> Gradebook:
    """Merge the teacher's filled manual sheet into an existing gradebook; write everything again."""
    from .book import Gradebook, GradebookError, load_details, rows_from_details, write_outputs

    try:
        pkg = Package.load(Path(package_path))
    except PackageError as exc:
        raise GradebookError(str(exc)) from None
    if not Path(book_csv).is_file():
        raise GradebookError(f"--merge 需要已有的成绩表：{book_csv} 不存在")
    data = load_details(Path(book_csv), pkg)
    rows = rows_from_details(data)
    table = cr.read_csv_rows(Path(sheet))
    if not table or [h.strip() for h in table[0]][: len(SHEET_HEADER)] != SHEET_HEADER:
        raise GradebookError(f"{sheet} 不是人工评阅表（表头应为 {'、'.join(SHEET_HEADER)}）")
    limits = {m["name"]: m.get("points") for m in pkg.manual}
    by_id: dict[str, dict[str, dict[str, Any]]] = {}
    for i, r in enumerate(table[1:], start=2):
        if len(r) < len(SHEET_HEADER) or not r[0].strip():
            continue
        sid, name = cr.normalise_id(r[0].lstrip("'")), r[3].strip()
        if name not in limits:
            raise GradebookError(f"{sheet} 第 {i} 行：本套习题没有人工评阅的答案 {cr.printable(name, 40)!r}")
        score = _number(r[7], f"{sheet} 第 {i} 行（{sid} {name}）", limits[name])
        item: dict[str, Any] = {"score": score, "comment": r[8].strip()[:1000]}
        by_id.setdefault(cr.id_key(sid), {})[name] = item
    known = {cr.id_key(r.student_id) for r in rows}
    unknown = sorted(k for k in by_id if k not in known)
    if unknown:
        raise GradebookError(f"{sheet}：成绩表里没有这些学号：{'、'.join(unknown[:5])}")
    for row in rows:
        items = by_id.get(cr.id_key(row.student_id))
        if items is not None and row.checks is not None:
            apply_manual(pkg, row, items)
    listed = [(str(x[0]), str(x[1])) for x in data.get("not_graded", [])]
    book = Gradebook(pkg, rows, listed, list(data.get("similar", [])))
    write_outputs(book, Path(book_csv))
    return book


# ----------------------------------------------------------------------------------------------------------
# LMS gradebook import files
# ----------------------------------------------------------------------------------------------------------
def export_lms(book: Gradebook, book_csv: Path, kind: str, roster: cr.Roster | None) -> Path:
    """Write ``OUT-canvas.csv`` or ``OUT-moodle.csv`` for the LMS's gradebook import; return its path."""
    stem = Path(book_csv).with_suffix("")
    path = Path(f"{stem}-{kind}.csv")
    lms_of = roster.lms_of if roster is not None else {}
    title = book.package.set_name
    possible = f"{round(book.package.possible_all, 4):g}"
    if kind == "canvas":
        rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", title],
                ["Points Possible", "", "", "", "", possible]]
        for r in book.rows:
            rows.append([cr.cell_text(r.name or r.student_id), lms_of.get(r.student_id, ""),
                         cr.cell_text(r.student_id), "", "", f"{round(r.total, 4):g}"])
    elif kind == "moodle":
        rows = [["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                 "Grade can be changed", "Last modified (submission)", "Last modified (grade)", "Feedback comments"]]
        for r in book.rows:
            ident = lms_of.get(r.student_id, "")
            rows.append([f"Participant {ident}" if ident else "", cr.cell_text(r.name or r.student_id), "",
                         "", f"{round(r.total, 4):g}", possible, "Yes", r.submitted, "",
                         cr.cell_text(r.note, 500)])
    else:
        raise ValueError(f"export 应为 canvas 或 moodle（得到 {kind!r}）")
    missing = [r.student_id for r in book.rows if r.student_id not in lms_of]
    cr.atomic_write(path, cr.csv_text(rows))
    if missing:
        print(f"提示：{len(missing)} 个学号在名单里没有 LMS ID（{kind} 按 SIS/学号匹配或需要手工对应）："
              f"{'、'.join(cr.printable(m, cr.MAX_ID) for m in missing[:5])}")
    return path
