"""Offline gradebook: ``python tools/gradebook.py GRADING_PACKAGE SUBMISSIONS_DIR OUT.csv``.

Grades every notebook of a class folder against a grading package built by ``tools/build_exercises.py`` and writes

* ``OUT.csv`` — UTF-8 with BOM (opens in Excel): 学号, 姓名, q1 … qN, 总分, 满分, 备注, 文件, SHA256;
* ``OUT-未评分.csv`` — every file that got no row, with the reason (also printed);
* ``OUT-各题统计.csv`` — per question: mean, share with full marks, most common wrong value;
* ``OUT-反馈/<学号>.md`` — a report in Chinese for each student (passed and failed checks, never a key).

Each notebook's code runs in a bubblewrap sandbox (``tools/grading/sandbox.py``) and only data comes back; the
checks and keys stay in this process (``tools/grading/judge.py``). Without ``bwrap`` the command refuses to grade
unless ``--unsafe`` is given. Options: ``--roster`` (CSV 学号, 姓名: missing students get 0 and 未提交),
``--duplicates latest|flag``, ``-j`` parallel submissions, ``--timeout``/``--cell-timeout``/``--call-timeout``,
``--regrade 学号`` (grade one student again into an existing OUT.csv, leaving the other rows as they are).

Exit status: 0 when the gradebook was written, 1 on usage errors, 2 when the sandbox is unavailable.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grading import classroom as cr
from grading.judge import Outcome, Package, PackageError, grade_cells
from grading.sandbox import Limits, bwrap_works

MAX_NOTEBOOK_BYTES = 20 * 1024**2
NO_SANDBOX = (
    "错误：找不到可用的 bubblewrap（bwrap），无法把学生代码关进沙箱。\n"
    "请安装：sudo apt-get install bubblewrap（Debian/Ubuntu）。\n"
    "如果确实要在没有沙箱的情况下批改（学生代码将以你的身份运行，能读写你能访问的一切），请加上 --unsafe。"
)


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


@dataclass
class Gradebook:
    package: Package
    rows: list[Row]
    not_graded: list[tuple[str, str]]

    @property
    def question_names(self) -> list[str]:
        return [q.name for q in self.package.questions]


class GradebookError(RuntimeError):
    """Bad input for the whole run."""


def _zero(pkg: Package, sid: str, name: str, note: str, file: str = "", digest: str = "") -> Row:
    return Row(sid, name, {q.name: 0.0 for q in pkg.questions}, 0.0, pkg.possible, note, file, digest)


def _load(sub: cr.Submission) -> tuple[list[str] | None, str, dict]:
    """Code cells of a submission, or None and the reason."""
    data = sub.copy.read_bytes()
    if len(data) > MAX_NOTEBOOK_BYTES:
        return None, f"文件超过 {MAX_NOTEBOOK_BYTES // 2**20} MB，未评分", {}
    try:
        nb = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return None, "文件不是 UTF-8 编码的笔记本，未评分", {}
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f"（第 {exc.lineno} 行第 {exc.colno} 列）" if isinstance(exc, json.JSONDecodeError) else ""
        return None, f"文件不是有效的 JSON{where}，笔记本已损坏，未评分", {}
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return None, "文件是 JSON 但不是 Jupyter 笔记本，未评分", {}
    cells = []
    for c in nb["cells"]:
        if isinstance(c, dict) and c.get("cell_type") == "code":
            src = c.get("source", "")
            cells.append("".join(str(s) for s in src) if isinstance(src, list) else str(src))
    meta = nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {}
    return cells, "", meta


def _notes(out: Outcome, sub: cr.Submission) -> list[str]:
    notes = []
    if out.fatal:
        notes.append(f"评分中止（{out.fatal}），之后的检查记 0 分")
    if out.recorded_id is None or out.recorded_id == "":
        notes.append("笔记本里没有填写学号，已按文件名的学号评分")
    elif out.recorded_id != sub.student_id:
        notes.append(f"笔记本里的学号 {out.recorded_id} 与文件名的学号 {sub.student_id} 不符，已按文件名评分，请核对")
    if out.cell_errors:
        texts = []
        for e in out.cell_errors:
            t = f"{e.get('type', '')}: {e.get('msg', '')}".strip(": ")[:100]
            if t not in texts:
                texts.append(t)
        more = f" 等 {len(texts)} 处" if len(texts) > 2 else ""
        notes.append("代码运行出错（已按能运行的部分评分）：" + "；".join(texts[:2]) + more)
    if out.skipped:
        notes.append(f"跳过了 {len(out.skipped)} 行 % 或 ! 开头的命令（评分时不执行）")
    return notes


def grade_submission(pkg: Package, sub: cr.Submission, limits: Limits, unsafe: bool) -> Row:
    cells, problem, meta = _load(sub)
    if cells is None:
        return _zero(pkg, sub.student_id, sub.name, problem, sub.relpath, sub.sha256[:12])
    exercise = meta.get("exercise") if isinstance(meta.get("exercise"), dict) else {}
    other = exercise.get("set")
    if other is not None and other != pkg.set_name:
        note = f"不是本套习题的笔记本（{str(other)[:40]!r}，应为 {pkg.set_name!r}），未评分"
        return _zero(pkg, sub.student_id, sub.name, note, sub.relpath, sub.sha256[:12])
    out = grade_cells(pkg, cells, sub.student_id, limits, unsafe=unsafe)
    notes = _notes(out, sub)
    if other is None:
        notes.append("笔记本缺少习题元数据（可能被其他工具改写过），已照常评分")
    return Row(sub.student_id, sub.name, out.scores, out.total, pkg.possible, "；".join(notes), sub.relpath,
               sub.sha256[:12], out)


def choose(subs: list[cr.Submission], duplicates: str) -> tuple[list[cr.Submission], list[tuple[str, str]],
                                                               dict[str, list[cr.Submission]]]:
    """One submission per student: the latest (``latest``) or none, flagged (``flag``)."""
    by_id: dict[str, list[cr.Submission]] = {}
    for s in subs:
        by_id.setdefault(s.student_id, []).append(s)
    chosen, dropped, flagged = [], [], {}
    for sid, group in by_id.items():
        group.sort(key=lambda s: (s.mtime, s.relpath))
        if len(group) == 1:
            chosen.append(group[0])
        elif duplicates == "latest":
            chosen.append(group[-1])
            dropped += [(s.relpath, f"学号 {sid} 有更新的提交 {group[-1].relpath}") for s in group[:-1]]
        else:
            flagged[sid] = group
            dropped += [(s.relpath, f"学号 {sid} 有 {len(group)} 份提交，按 --duplicates flag 未评分") for s in group]
    return chosen, dropped, flagged


def grade_folder(
    package_path: Path,
    submissions_dir: Path,
    *,
    jobs: int = 1,
    limits: Limits | None = None,
    roster: dict[str, str] | None = None,
    duplicates: str = "latest",
    unsafe: bool = False,
    only: str | None = None,
) -> Gradebook:
    """Grade a class folder (or only student ``only``); return the gradebook (nothing written yet)."""
    try:
        pkg = Package.load(Path(package_path))
    except PackageError as exc:
        raise GradebookError(str(exc)) from None
    if not Path(submissions_dir).is_dir():
        raise GradebookError(f"提交目录不存在：{submissions_dir}")
    limits = limits or Limits()
    stage = cr.copy_tree_private()
    try:
        found = cr.scan(Path(submissions_dir), stage)
        subs = [s for s in found.submissions if only is None or s.student_id == only]
        not_graded = list(found.not_graded) if only is None else []
        chosen, dropped, flagged = choose(subs, duplicates)
        not_graded += dropped
        names = dict(roster or {})
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            rows = list(pool.map(lambda s: grade_submission(pkg, s, limits, unsafe), chosen))
        for sid, group in flagged.items():
            files = "、".join(s.relpath for s in group)
            note = f"同一学号有 {len(group)} 份提交（{files}），未评分，请核对后重评"
            rows.append(_zero(pkg, sid, group[-1].name, note,
                              group[-1].relpath, group[-1].sha256[:12]))
        for row in rows:
            if roster is not None:
                if row.student_id in names:
                    row.name = names[row.student_id] or row.name
                else:
                    row.note = "；".join(n for n in ("学号不在名单中", row.note) if n)
        if roster is not None:
            present = {r.student_id for r in rows}
            for sid, name in names.items():
                if sid not in present and (only is None or sid == only):
                    rows.append(_zero(pkg, sid, name, "未提交"))
    finally:
        cr.remove(stage)
    rows.sort(key=lambda r: r.student_id)
    return Gradebook(pkg, rows, sorted(not_graded))


# ----------------------------------------------------------------------------------------------------------
# output
# ----------------------------------------------------------------------------------------------------------
def _fmt(x: float) -> str:
    return f"{round(x, 4):g}"


def header(book: Gradebook) -> list[str]:
    return [cr.H_ID, cr.H_NAME, *book.question_names, cr.H_TOTAL, cr.H_POSSIBLE, cr.H_NOTE, cr.H_FILE, cr.H_SUM]


def row_cells(book: Gradebook, r: Row) -> list[str]:
    return [cr.cell_text(r.student_id), cr.cell_text(r.name), *(_fmt(r.scores[q]) for q in book.question_names),
            _fmt(r.total), _fmt(r.possible), cr.cell_text(r.note), cr.cell_text(r.file), r.sha256]


def side_paths(out_csv: Path) -> dict[str, Path]:
    stem = out_csv.with_suffix("")
    return {"not_graded": Path(f"{stem}-未评分.csv"), "summary": Path(f"{stem}-各题统计.csv"),
            "feedback": Path(f"{stem}-反馈")}


def feedback(book: Gradebook, r: Row) -> str:
    """The report for one student, in Chinese: scores, failed public checks with their messages, and which
    hidden checks failed (their descriptions and messages may contain keys, so neither is shown)."""
    lines = [f"# {book.package.set_name} 评分反馈：{r.student_id} {r.name}".rstrip(), "",
             f"总分 **{_fmt(r.total)} / {_fmt(r.possible)}**", ""]
    if r.note:
        lines += [f"备注：{r.note}", ""]
    lines += ["| 题 | 得分 | 满分 |", "|---|---|---|"]
    for q in book.package.questions:
        lines.append(f"| {q.name} | {_fmt(r.scores[q.name])} | {_fmt(q.points)} |")
    if r.outcome is not None:
        failed = [c for c in r.outcome.checks if c.message]
        if failed:
            lines += ["", "## 没有通过的检查", ""]
            for c in failed:
                if c.hidden:  # its description and message may state the answer: only the fact is shown
                    lines.append(f"- {c.question}（隐藏检查，{_fmt(c.points)} 分）：未通过")
                else:
                    lines.append(f"- {c.question}（公开检查，{_fmt(c.points)} 分）：{c.message}")
        else:
            lines += ["", "全部检查都通过了。"]
    return "\n".join(lines) + "\n"


def summary_rows(book: Gradebook) -> list[list[str]]:
    graded = [r for r in book.rows if r.outcome is not None]
    out = [["题", "满分", "平均分", "满分比例", "最常见的错误值"]]
    for q in book.package.questions:
        scores = [r.scores[q.name] for r in graded]
        mean = sum(scores) / len(scores) if scores else 0.0
        full = sum(1 for s in scores if s >= q.points) / len(scores) if scores else 0.0
        wrong = []
        for r in graded:
            if r.scores[q.name] < q.points and r.outcome is not None:
                vals = r.outcome.values.get(q.name, {})
                if vals:
                    wrong.append("；".join(f"{k} = {v}" for k, v in sorted(vals.items())))
        out.append([q.name, _fmt(q.points), f"{mean:.2f}", f"{full:.0%}", cr.cell_text(cr.most_common(wrong))])
    return out


def write_outputs(book: Gradebook, out_csv: Path) -> None:
    """Write the gradebook and its companions, each atomically."""
    out_csv = Path(out_csv)
    cr.atomic_write(out_csv, cr.csv_text([header(book), *(row_cells(book, r) for r in book.rows)]))
    paths = side_paths(out_csv)
    cr.atomic_write(paths["not_graded"], cr.csv_text(
        [["文件", "原因"], *([cr.cell_text(f), cr.cell_text(why)] for f, why in book.not_graded)]))
    cr.atomic_write(paths["summary"], cr.csv_text(summary_rows(book)))
    for r in book.rows:
        cr.atomic_write(paths["feedback"] / f"{_safe_name(r.student_id)}.md", feedback(book, r), encoding="utf-8")


def _safe_name(sid: str) -> str:
    return "".join(ch for ch in sid if ch.isalnum())[:64] or "unknown"


def regrade(book: Gradebook, out_csv: Path, student_id: str) -> None:
    """Replace the rows of ``student_id`` in an existing gradebook; every other row stays as it was."""
    text = Path(out_csv).read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or rows[0] != header(book):
        raise GradebookError(f"{out_csv} 不是本评分包生成的成绩表（表头不同）")
    new = [row_cells(book, r) for r in book.rows if r.student_id == student_id]
    if not new:
        raise GradebookError(f"提交目录里没有学号 {student_id} 的笔记本")
    kept = [r for r in rows[1:] if r and r[0] != cr.cell_text(student_id)]
    merged = sorted([*kept, *new], key=lambda r: r[0])
    cr.atomic_write(Path(out_csv), cr.csv_text([rows[0], *merged]))
    for r in book.rows:
        if r.student_id == student_id:
            cr.atomic_write(side_paths(Path(out_csv))["feedback"] / f"{_safe_name(r.student_id)}.md",
                            feedback(book, r), encoding="utf-8")


def summary(book: Gradebook) -> str:
    graded = [r for r in book.rows if r.outcome is not None]
    n = len(graded)
    mean = sum(r.total for r in graded) / n if n else 0.0
    full = sum(1 for r in graded if r.total == r.possible)
    lines = [f"已评分 {n} 份：平均 {mean:.2f} / {_fmt(book.package.possible)} 分，满分 {full} 份；"
             f"成绩表共 {len(book.rows)} 行。"]
    noted = [r for r in book.rows if r.note]
    if noted:
        lines.append(f"{len(noted)} 行有备注：")
        lines += [f"  {r.student_id} {r.name}：{r.note}" for r in noted]
    if book.not_graded:
        lines.append(f"{len(book.not_graded)} 个文件没有评分：")
        lines += [f"  {f}：{why}" for f, why in book.not_graded]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="离线批改：在 bubblewrap 沙箱中运行每份笔记本，按评分包打分，写出 Excel 可直接打开的 CSV 成绩表。")
    parser.add_argument("package", type=Path, help="评分包，例如 exercises/_build/<套>/autograder/<套>-autograder.zip")
    parser.add_argument("submissions_dir", type=Path,
                        help="提交目录：<学号>-<姓名>.ipynb，或每人一个 <学号>-<姓名>/ 子文件夹")
    parser.add_argument("out_csv", type=Path, help="输出的成绩表 CSV")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="同时批改的份数（默认 1）")
    parser.add_argument("--roster", type=Path, help="名单 CSV（列：学号, 姓名）；未提交的学生记 0 分")
    parser.add_argument("--duplicates", choices=("latest", "flag"), default="latest",
                        help="同一学号多份提交：latest 批改最新的一份（默认），flag 都不批改并标出")
    parser.add_argument("--regrade", metavar="学号", help="只重新批改这个学号，写回已有的成绩表，其他行不动")
    parser.add_argument("--timeout", type=float, default=Limits.timeout,
                        help="每份提交的总时限，秒（默认 %(default)g）")
    parser.add_argument("--cell-timeout", type=float, default=Limits.cell_timeout, help="单个单元格的时限，秒")
    parser.add_argument("--call-timeout", type=float, default=Limits.call_timeout,
                        help="检查调用一次学生函数的时限，秒")
    parser.add_argument("--unsafe", action="store_true", help="没有 bubblewrap 时仍然批改（学生代码不受隔离！）")
    args = parser.parse_args(argv)
    if args.unsafe:
        print("警告：--unsafe：学生代码不在沙箱中运行，能以你的身份读写文件、联网。", file=sys.stderr)
    elif not bwrap_works():
        print(NO_SANDBOX, file=sys.stderr)
        return 2
    limits = Limits(timeout=args.timeout, cell_timeout=args.cell_timeout, call_timeout=args.call_timeout)
    try:
        roster = cr.read_roster(args.roster) if args.roster else None
        if args.regrade and not args.out_csv.is_file():
            raise GradebookError(f"--regrade 需要已有的成绩表：{args.out_csv} 不存在")
        book = grade_folder(args.package, args.submissions_dir, jobs=args.jobs, limits=limits, roster=roster,
                            duplicates=args.duplicates, unsafe=args.unsafe, only=args.regrade)
        if args.regrade:
            regrade(book, args.out_csv, args.regrade)
        else:
            if not book.rows and not book.not_graded:
                raise GradebookError(f"{args.submissions_dir} 中没有任何文件")
            write_outputs(book, args.out_csv)
    except (GradebookError, ValueError, OSError) as exc:
        print(f"错误：{exc}", file=sys.stderr)
        return 1
    print(summary(book))
    print(f"成绩表：{args.out_csv}")
    if not args.regrade:
        paths = side_paths(args.out_csv)
        print(f"未评分文件清单：{paths['not_graded']}；各题统计：{paths['summary']}；学生反馈：{paths['feedback']}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
