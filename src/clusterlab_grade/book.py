"""The gradebook of one class: grade a folder, write the CSVs, the feedback and the details, regrade one student.

Every file of the folder ends up in a row or in the list of files not graded; the gradebook is written whatever
a file contains. The rows and what the statistics need are also kept in ``OUT-明细.json``, so that a regrade or
a merge of the teacher's manual scores recomputes the statistics of the whole class.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import classroom as cr
from . import sandbox as sb
from .judge import CheckResult, Outcome, Package, PackageError, grade_cells, hidden_hint
from .sandbox import Limits

if TYPE_CHECKING:
    from .lms import LatePolicy

DETAILS_FORMAT = 1
H_AUTO, H_MANUAL, H_LATE, H_TIME = "自动评分", "人工评阅", "迟交扣分", "提交时间"
MAX_TEXT = 4000


class GradebookError(RuntimeError):
    """Bad input for the whole run."""


@dataclass
class Row:
    student_id: str
    name: str
    scores: dict[str, float]
    total: float
    possible: float
    note: str
    file: str
    sha256: str
    outcome: Outcome | None = None
    auto: float = 0.0
    manual: float | None = None
    late_days: int = 0
    late_deduction: float = 0.0
    late_rate: float = 0.0
    submitted: str = ""
    checks: list[CheckResult] | None = None  # None: not graded (no notebook, broken file …)
    texts: dict[str, str | None] = field(default_factory=dict)  # manual answer name → text (None: left blank)
    manual_items: dict[str, dict[str, Any]] = field(default_factory=dict)  # name → {"score", "comment"}
    notes: list[str] = field(default_factory=list)  # the parts of ``note``
    feedback_name: str = ""
    code: list[str] = field(default_factory=list, repr=False)  # the code cells (similarity only; not kept)

    def finalise(self) -> None:
        """``total`` from the automatic score, the manual score and the late deduction; ``note`` from ``notes``."""
        earned = self.auto + (self.manual or 0.0)
        self.late_deduction = round(earned * min(1.0, self.late_days * self.late_rate), 4) if self.late_days else 0.0
        self.total = round(earned - self.late_deduction, 6)
        self.note = cr.printable("；".join(n for n in self.notes if n), cr.MAX_NOTE)


@dataclass
class Gradebook:
    package: Package
    rows: list[Row]
    not_graded: list[tuple[str, str]]
    similar: list[dict[str, Any]] = field(default_factory=list)

    @property
    def question_names(self) -> list[str]:
        return [q.name for q in self.package.questions]


def _zero(pkg: Package, sid: str, name: str, note: str, file: str = "", digest: str = "") -> Row:
    row = Row(sid, name, {q.name: 0.0 for q in pkg.questions}, 0.0, pkg.possible_all, "", file, digest,
              notes=[note] if note else [])
    row.finalise()
    return row


# ----------------------------------------------------------------------------------------------------------
# reading a notebook
# ----------------------------------------------------------------------------------------------------------
def _decode_notebook(data: bytes) -> str | None:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        codec = "utf-16"
    elif len(data) >= 4 and data[0] == 0 and data[1] != 0:
        codec = "utf-16-be"
    elif len(data) >= 4 and data[1] == 0 and data[0] != 0:
        codec = "utf-16-le"
    else:
        codec = "utf-8-sig"
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        return None


def _clean(text: str) -> str:
    """Source text without lone surrogates (a notebook may carry ``\\ud800`` escapes)."""
    return text.encode("utf-8", "replace").decode("utf-8") if any(0xD800 <= ord(c) <= 0xDFFF for c in text) \
        else text


def load_notebook(data: bytes) -> tuple[list[str] | None, str, dict[str, Any]]:
    """Code cells of a notebook, or None and the reason."""
    text = _decode_notebook(data)
    if text is None:
        return None, "文件不是 UTF-8（或 UTF-16）编码的笔记本，未评分", {}
    try:
        nb = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f"（第 {exc.lineno} 行第 {exc.colno} 列）" if isinstance(exc, json.JSONDecodeError) else ""
        return None, f"文件不是有效的 JSON{where}，笔记本已损坏，未评分", {}
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return None, "文件是 JSON 但不是 Jupyter 笔记本，未评分", {}
    cells = []
    for c in nb["cells"]:
        if isinstance(c, dict) and c.get("cell_type") == "code":
            src = c.get("source", "")
            cells.append(_clean("".join(str(s) for s in src) if isinstance(src, list) else str(src)))
    raw_meta = nb.get("metadata")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    return cells, "", meta


def _notes(out: Outcome, sub: cr.Submission) -> list[str]:
    notes = []
    if out.fatal:
        notes.append(f"评分中止（{out.fatal}），之后的检查记 0 分")
    recorded = cr.normalise_id(out.recorded_id) if isinstance(out.recorded_id, str) else ""
    if not recorded:
        notes.append("笔记本里没有填写学号，已按文件名的学号评分")
    elif cr.id_key(recorded) != cr.id_key(sub.student_id):
        notes.append(f"笔记本里的学号 {cr.printable(recorded, cr.MAX_ID)} 与文件名的学号 {sub.student_id} 不符，"
                     "已按文件名评分，请核对")
    if out.cell_errors:
        texts = []
        for e in out.cell_errors:
            t = cr.printable(f"{e.get('type', '')}: {e.get('msg', '')}".strip(": "), 100)
            if t not in texts:
                texts.append(t)
        more = f" 等 {len(texts)} 处" if len(texts) > 2 else ""
        notes.append("代码运行出错（已按能运行的部分评分）：" + "；".join(texts[:2]) + more)
    if out.skipped:
        notes.append(f"跳过了 {len(out.skipped)} 行 % 或 ! 开头的命令（评分时不执行）")
    blank = [k for k, v in out.texts.items() if v is None]
    if blank:
        notes.append(f"简答未作答：{'、'.join(blank)}（人工评阅分记 0）")
    return notes


def grade_submission(pkg: Package, sub: cr.Submission, limits: Limits, unsafe: bool,
                     spares: sb.Spares | None = None) -> Row:
    base = [sub.remark] if sub.remark else []
    if sub.copy is None:
        return _zero(pkg, sub.student_id, sub.name, "；".join([sub.problem, *base]), sub.relpath, sub.sha256[:12])
    cells, problem, meta = load_notebook(sub.copy.read_bytes())
    if cells is None:
        return _zero(pkg, sub.student_id, sub.name, "；".join([problem, *base]), sub.relpath, sub.sha256[:12])
    raw_exercise = meta.get("exercise")
    exercise: dict[str, Any] = raw_exercise if isinstance(raw_exercise, dict) else {}
    other = exercise.get("set")
    if other is not None and other != pkg.set_name:
        note = f"不是本套习题的笔记本（{cr.printable(other, 40)!r}，应为 {pkg.set_name!r}），未评分"
        return _zero(pkg, sub.student_id, sub.name, "；".join([note, *base]), sub.relpath, sub.sha256[:12])
    out = grade_cells(pkg, cells, sub.student_id, limits, unsafe=unsafe, spares=spares)
    notes = _notes(out, sub)
    if other is None:
        notes.append("笔记本缺少习题元数据（可能被其他工具改写过），已照常评分")
    row = Row(sub.student_id, sub.name, out.scores, out.total, pkg.possible_all, "", sub.relpath, sub.sha256[:12],
              out, auto=out.total, checks=out.checks, texts=dict(out.texts), notes=[*notes, *base], code=cells)
    row.finalise()
    return row


# ----------------------------------------------------------------------------------------------------------
# whose file is it
# ----------------------------------------------------------------------------------------------------------
def resolve(subs: list[cr.Submission], roster: cr.Roster | None) -> list[cr.Submission]:
    """Give every submission its 学号: LMS user ids through the roster, the roster's spelling of a 学号."""
    for s in subs:
        if s.lms:
            label = "Canvas" if s.lms == "canvas" else "Moodle"
            sid = roster.lms.get(s.lms_id) if roster is not None else None
            if sid is not None:
                s.student_id = sid
                s.remark = "；".join(x for x in (s.remark, f"{label} 批量下载，用户 {s.lms_id}") if x)
            else:
                s.student_id = f"{s.lms}{s.lms_id}"[: cr.MAX_ID]
                s.remark = "；".join(x for x in (s.remark, f"{label} 批量下载：用户 {s.lms_id} 不在名单的 LMS ID 列中，"
                                                 "按 LMS 用户号记录，请在名单中补上") if x)
            if s.late_flag:
                s.remark += "；Canvas 标记为迟交"
        s.student_id = cr.normalise_id(s.student_id)
        if roster is not None:
            canonical = roster.canonical(s.student_id)
            if canonical is not None:
                s.student_id = canonical
    return subs


def choose(subs: list[cr.Submission], duplicates: str) -> tuple[list[cr.Submission], list[tuple[str, str]],
                                                               dict[str, list[cr.Submission]]]:
    """Which submissions are graded. ``flag`` (the default): all of them, and the 学号 with more than one are
    returned so that each row says so; ``latest``: only the newest file of each 学号."""
    by_id: dict[str, list[cr.Submission]] = {}
    for s in subs:
        by_id.setdefault(cr.id_key(s.student_id), []).append(s)
    chosen, dropped, flagged = [], [], {}
    for group in by_id.values():
        group.sort(key=lambda s: (s.mtime, s.relpath))
        sid = group[-1].student_id
        if len(group) == 1:
            chosen.append(group[0])
        elif duplicates == "latest":
            chosen.append(group[-1])
            dropped += [(s.relpath, f"学号 {sid} 有更新的提交 {group[-1].relpath}") for s in group[:-1]]
        else:
            chosen += group
            flagged[sid] = group
    return chosen, dropped, flagged


def grade_folder(
    package_path: Path,
    submissions_dir: Path,
    *,
    jobs: int = 1,
    limits: Limits | None = None,
    roster: cr.Roster | dict[str, str] | None = None,
    duplicates: str = "flag",
    unsafe: bool = False,
    only: str | None = None,
    late: LatePolicy | None = None,
    similarity: float | None = 0.8,
    hint_steps: int = 1,
) -> Gradebook:
    """Grade a class folder (or only student ``only``); return the gradebook (nothing written yet). A failed check
    whose message is a hint in steps reports its first ``hint_steps`` steps (see :mod:`.hints`)."""
    if duplicates not in ("flag", "latest"):
        raise GradebookError(f"duplicates 应为 flag 或 latest（得到 {duplicates!r}）")
    try:
        pkg = Package.load(Path(package_path))
    except PackageError as exc:
        raise GradebookError(str(exc)) from None
    pkg.hint_steps = max(1, int(hint_steps))
    if not Path(submissions_dir).is_dir():
        raise GradebookError(f"提交目录不存在：{submissions_dir}")
    if isinstance(roster, dict):
        plain = cr.Roster()
        for sid, name in roster.items():
            plain.add(sid, name)
        roster = plain
    limits = limits or Limits()
    sb.resume()
    stage = cr.copy_tree_private()
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    futures: list[Future[Row]] = []
    spares: sb.Spares | None = None
    try:
        found = cr.scan(Path(submissions_dir), stage)
        subs = resolve(found.submissions, roster)
        if only is not None:
            subs = [s for s in subs if cr.id_key(s.student_id) == cr.id_key(only)]
        not_graded = list(found.not_graded) if only is None else []
        chosen, dropped, flagged = choose(subs, duplicates)
        not_graded += dropped
        graded = sum(1 for s in chosen if s.copy is not None)
        spares = sb.Spares(limits, unsafe=unsafe, keep=max(1, jobs), total=graded)
        futures = [pool.submit(grade_submission, pkg, s, limits, unsafe, spares) for s in chosen]
        rows = [f.result() for f in futures]
    except BaseException:
        for f in futures:
            f.cancel()
        sb.kill_all()  # running sandboxes end now; the workers then return at once
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        if spares is not None:
            spares.close()
        sb.flush_cgroups()
        cr.remove(stage)
    for sid, group in flagged.items():
        files = "、".join(s.relpath for s in group)
        for row in rows:
            if row.student_id == sid:
                row.notes.insert(0, f"同一学号有 {len(group)} 份提交（{files}），都已评分，请核对后保留一份")
    for row in rows:
        if roster is not None:
            canonical = roster.canonical(row.student_id)
            if canonical is not None:
                row.name = roster.names.get(canonical) or row.name
            else:
                row.notes.insert(0, "学号不在名单中")
    if roster is not None:
        present = {cr.id_key(r.student_id) for r in rows}
        for sid, name in roster.items():
            if cr.id_key(sid) not in present and (only is None or cr.id_key(sid) == cr.id_key(only)):
                rows.append(_zero(pkg, sid, name, "未提交"))
    by_file = {s.relpath: s for s in chosen}
    for row in rows:
        sub = by_file.get(row.file)
        if late is not None and sub is not None:
            late.apply(row, sub)
        row.name = cr.printable(row.name, cr.MAX_NAME)
        row.finalise()
    rows.sort(key=lambda r: (r.student_id, r.file))
    book = Gradebook(pkg, rows, sorted(not_graded))
    if similarity is not None and only is None:
        from .similarity import similar_pairs

        codes = {f"{r.student_id}|{r.file}": r.code for r in rows if r.code}
        book.similar = similar_pairs(codes, book.package.starter_cells, similarity)
    return book


# ----------------------------------------------------------------------------------------------------------
# output
# ----------------------------------------------------------------------------------------------------------
def _fmt(x: float) -> str:
    return f"{round(x, 4):g}"


def header(book: Gradebook) -> list[str]:
    return [cr.H_ID, cr.H_NAME, *book.question_names, cr.H_TOTAL, cr.H_POSSIBLE, cr.H_NOTE, cr.H_FILE, cr.H_SUM,
            H_AUTO, H_MANUAL, H_LATE, H_TIME]


def row_cells(book: Gradebook, r: Row) -> list[str]:
    manual = "" if r.manual is None else _fmt(r.manual)
    return [cr.cell_text(r.student_id, cr.MAX_ID), cr.cell_text(r.name, cr.MAX_NAME),
            *(_fmt(r.scores[q]) for q in book.question_names), _fmt(r.total), _fmt(r.possible),
            cr.cell_text(r.note, cr.MAX_NOTE), cr.cell_text(r.file, 300), r.sha256, _fmt(r.auto), manual,
            _fmt(r.late_deduction) if r.late_days else "", r.submitted]


def side_paths(out_csv: Path) -> dict[str, Path]:
    stem = Path(out_csv).with_suffix("")
    return {"not_graded": Path(f"{stem}-未评分.csv"), "summary": Path(f"{stem}-各题统计.csv"),
            "feedback": Path(f"{stem}-反馈"), "manual": Path(f"{stem}-人工评阅.csv"),
            "similarity": Path(f"{stem}-相似度.csv"), "details": Path(f"{stem}-明细.json")}


def feedback_names(rows: list[Row]) -> None:
    """A file name for each row's feedback, unique even on a case-insensitive file system: the 学号 when it is
    plain letters and digits, else its letters and digits and a hash; a hash of the file for duplicate 学号."""
    count = Counter(cr.id_key(r.student_id) for r in rows)
    for r in rows:
        plain = "".join(ch for ch in r.student_id if ch.isascii() and ch.isalnum())[:40]
        name = plain or "unknown"
        if plain != r.student_id:
            name += "-" + hashlib.sha256(r.student_id.encode("utf-8", "replace")).hexdigest()[:8]
        if count[cr.id_key(r.student_id)] > 1:
            name += "-" + hashlib.sha256(r.file.encode("utf-8", "replace")).hexdigest()[:8]
        r.feedback_name = name
    seen: Counter[str] = Counter()
    for r in rows:
        seen[r.feedback_name.casefold()] += 1
        if seen[r.feedback_name.casefold()] > 1:
            r.feedback_name += f"-{seen[r.feedback_name.casefold()]}"


def feedback(book: Gradebook, r: Row) -> str:
    """The report for one student, in Chinese: scores, failed public checks with their messages, and for hidden
    checks the property they test (never their messages, which may contain keys)."""
    title = f"# {book.package.set_name} 评分反馈：{cr.printable(r.student_id, cr.MAX_ID)} {r.name}".rstrip()
    lines = [title, "", f"总分 **{_fmt(r.total)} / {_fmt(r.possible)}**", ""]
    if r.note:
        lines += [f"备注：{r.note}", ""]
    lines += ["| 题 | 得分 | 满分 |", "|---|---|---|"]
    for q in book.package.questions:
        lines.append(f"| {q.name} | {_fmt(r.scores[q.name])} | {_fmt(q.points)} |")
    if r.late_days:
        lines += ["", f"迟交 {r.late_days} 天，扣 {_fmt(r.late_deduction)} 分。"]
    if r.checks is not None:
        failed = [c for c in r.checks if c.message]
        if failed:
            lines += ["", "## 没有通过的检查", ""]
            for c in failed:
                if c.hidden:  # its message may state the answer: only the property it tests is shown
                    lines.append(f"- {c.question}（隐藏检查，{_fmt(c.points)} 分）：{hidden_hint(c.description)}")
                else:
                    lines.append(f"- {c.question}（公开检查，{_fmt(c.points)} 分）：{cr.printable(c.message, 400)}")
        else:
            lines += ["", "全部检查都通过了。"]
    if r.texts or r.manual_items:
        lines += ["", "## 人工评阅", ""]
        for item in book.package.manual:
            name = item["name"]
            got = r.manual_items.get(name, {})
            if name in r.texts and r.texts[name] is None:
                state = "未作答，记 0 分"
            elif got.get("score") is not None:
                state = f"{_fmt(float(got['score']))} 分"
            else:
                state = "待教师评阅"
            comment = f"；评语：{cr.printable(got['comment'], 500)}" if got.get("comment") else ""
            lines.append(f"- {item['question']} `{name}`：{state}{comment}")
    return "\n".join(lines) + "\n"


def wrong_kind(c: CheckResult) -> str:
    """What kind of wrong answer a failed check shows, without any student's numbers."""
    m = c.message
    if m.startswith("没有找到答案"):
        return "没有作答（答案名未定义）"
    if m.startswith("未评分") or m.startswith("无法继续检查"):
        return "评分中止（超时或沙箱结束）"
    if m.startswith("你的代码出错"):
        kind = m.split("：", 1)[-1].split(":", 1)[0].strip()
        return f"代码出错（{kind}）"
    if "仍是 ..." in m or "Ellipsis" in m or "ellipsis" in m:
        return "没有作答（仍是 ...）"
    if m.startswith("结果的形式不对"):
        return "结果的形式不对"
    if c.hidden:
        return f"{c.name}：{hidden_hint(c.description)}"
    return f"{c.name}：{re.sub(r'[-+]?[0-9][0-9.,eE+-]*', '#', m)[:80]}"


def summary_rows(book: Gradebook) -> list[list[str]]:
    graded = [r for r in book.rows if r.checks is not None]
    out = [["题", "满分", "平均分", "满分比例", "最常见的错误类型", "该类型人数 / 未满分人数"]]
    for q in book.package.questions:
        scores = [r.scores[q.name] for r in graded]
        mean = sum(scores) / len(scores) if scores else 0.0
        full = sum(1 for s in scores if s >= q.points) / len(scores) if scores else 0.0
        kinds: Counter[str] = Counter()
        wrong = 0
        for r in graded:
            if r.scores[q.name] >= q.points or r.checks is None:
                continue
            wrong += 1
            first = next((c for c in r.checks if c.question == q.name and c.message), None)
            if first is not None:
                kinds[wrong_kind(first)] += 1
        top, n = kinds.most_common(1)[0] if kinds else ("", 0)
        out.append([q.name, _fmt(q.points), f"{mean:.2f}", f"{full:.0%}", cr.cell_text(top, 200),
                    f"{n} / {wrong}" if wrong else "0 / 0"])
    return out


def manual_sheet_rows(book: Gradebook) -> list[list[str]]:
    from .lms import manual_sheet

    return manual_sheet(book)


def details(book: Gradebook) -> dict[str, Any]:
    def row(r: Row) -> dict[str, Any]:
        d = {k: v for k, v in asdict(r).items() if k not in ("outcome", "checks", "code")}
        d["checks"] = None if r.checks is None else [asdict(c) for c in r.checks]
        return d

    return {"format": DETAILS_FORMAT, "set": book.package.set_name, "package": book.package.digest,
            "rows": [row(r) for r in book.rows], "not_graded": book.not_graded, "similar": book.similar}


def rows_from_details(data: dict[str, Any]) -> list[Row]:
    rows = []
    for d in data.get("rows", []):
        checks = d.pop("checks", None)
        r = Row(**{k: v for k, v in d.items() if k in Row.__dataclass_fields__})
        r.checks = None if checks is None else [CheckResult(**c) for c in checks]
        rows.append(r)
    return rows


def load_details(book_csv: Path, pkg: Package) -> dict[str, Any]:
    path = side_paths(book_csv)["details"]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise GradebookError(f"找不到或无法读取 {path}（由本程序写出成绩表时一并生成）：{exc}") from None
    if data.get("format") != DETAILS_FORMAT or data.get("set") != pkg.set_name:
        raise GradebookError(f"{path} 不是本评分包（{pkg.set_name}）的成绩明细")
    return dict(data)


def write_outputs(book: Gradebook, out_csv: Path) -> None:
    """Write the gradebook and its companions, each atomically."""
    out_csv = Path(out_csv)
    feedback_names(book.rows)
    paths = side_paths(out_csv)
    cr.atomic_write(out_csv, cr.csv_text([header(book), *(row_cells(book, r) for r in book.rows)]))
    cr.atomic_write(paths["not_graded"], cr.csv_text(
        [["文件", "原因"], *([cr.cell_text(f, 300), cr.cell_text(why, cr.MAX_NOTE)] for f, why in book.not_graded)]))
    cr.atomic_write(paths["summary"], cr.csv_text(summary_rows(book)))
    for r in book.rows:
        cr.atomic_write(paths["feedback"] / f"{r.feedback_name}.md", feedback(book, r), encoding="utf-8")
    if book.package.manual:
        cr.atomic_write(paths["manual"], cr.csv_text(manual_sheet_rows(book)))
    if True:  # always written, so that an older report never stays behind
        from .similarity import report_rows

        cr.atomic_write(paths["similarity"], cr.csv_text(report_rows(book.similar)))
    cr.atomic_write(paths["details"], json.dumps(details(book), ensure_ascii=False), encoding="utf-8")


def regrade(book: Gradebook, out_csv: Path, student_id: str) -> Gradebook:
    """Replace the rows of ``student_id`` in an existing gradebook; every other row stays as it was, and the
    statistics, the manual sheet and the feedback are written again from the whole class."""
    data = load_details(Path(out_csv), book.package)
    rows = cr.read_csv_rows(Path(out_csv))
    if not rows or rows[0] != header(book):
        raise GradebookError(f"{out_csv} 不是本评分包生成的成绩表（表头不同）")
    key = cr.id_key(student_id)
    new = [r for r in book.rows if cr.id_key(r.student_id) == key]
    if not new:
        raise GradebookError(f"提交目录里没有学号 {cr.printable(student_id, cr.MAX_ID)} 的笔记本")
    old = rows_from_details(data)
    kept = [r for r in old if cr.id_key(r.student_id) != key]
    for r in new:  # the teacher's manual scores of the same answers stay
        before = next((o for o in old if cr.id_key(o.student_id) == key and o.file == r.file), None)
        if before is not None and before.manual_items:
            from .lms import apply_manual

            apply_manual(book.package, r, before.manual_items)
    merged = sorted([*kept, *new], key=lambda r: (r.student_id, r.file))
    listed = [(str(x[0]), str(x[1])) for x in data.get("not_graded", [])]
    whole = Gradebook(book.package, merged, listed, list(data.get("similar", [])))
    write_outputs(whole, Path(out_csv))
    return whole


def summary(book: Gradebook) -> str:
    graded = [r for r in book.rows if r.checks is not None]
    n = len(graded)
    mean = sum(r.total for r in graded) / n if n else 0.0
    full = sum(1 for r in graded if r.total == r.possible)
    lines = [f"已评分 {n} 份：平均 {mean:.2f} / {_fmt(book.package.possible_all)} 分，满分 {full} 份；"
             f"成绩表共 {len(book.rows)} 行。"]
    noted = [r for r in book.rows if r.note]
    if noted:
        lines.append(f"{len(noted)} 行有备注：")
        lines += [f"  {cr.printable(r.student_id, cr.MAX_ID)} {r.name}：{r.note}" for r in noted]
    if book.not_graded:
        lines.append(f"{len(book.not_graded)} 个文件没有评分：")
        lines += [f"  {cr.printable(f, 300)}：{cr.printable(why, cr.MAX_NOTE)}" for f, why in book.not_graded]
    if book.similar:
        lines.append(f"{len(book.similar)} 对提交的代码高度相似（只作提示，未扣分），见相似度报告。")
    return "\n".join(lines)


__all__ = ["Gradebook", "GradebookError", "Row", "choose", "feedback", "grade_folder",
           "grade_submission", "header", "load_notebook", "regrade", "row_cells", "side_paths", "summary",
           "summary_rows", "write_outputs"]
