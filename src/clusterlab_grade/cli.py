"""Offline gradebook: ``clusterlab-grade GRADING_PACKAGE SUBMISSIONS_DIR OUT.csv`` (also ``python -m
clusterlab_grade`` and, for one release, ``python tools/gradebook.py``).

Grades every notebook of a class folder against a grading package built by ``tools/build_exercises.py`` and writes

* ``OUT.csv`` — UTF-8 with BOM (opens in Excel): 学号, 姓名, q1 … qN, 总分, 满分, 备注, 文件, SHA256, 自动评分,
  人工评阅, 迟交扣分, 提交时间;
* ``OUT-未评分.csv`` — every file that got no row, with the reason (also printed);
* ``OUT-各题统计.csv`` — per question: mean, share with full marks, the most common kind of wrong answer;
* ``OUT-反馈/<学号>.md`` — a report in Chinese for each student (passed and failed checks, never a key);
* ``OUT-人工评阅.csv`` — the free-text answers with the master's rubric, for the teacher to score (``--merge``);
* ``OUT-相似度.csv`` — pairs of submissions whose code is alike, with the passages (flagged, never penalised);
* ``OUT-明细.json`` — what the statistics, regrades and merges are computed from.

Each notebook's code runs in a bubblewrap sandbox (:mod:`clusterlab_grade.sandbox`) and only data comes back; the
checks and keys stay in this process (:mod:`clusterlab_grade.judge`). Without ``bwrap`` the command refuses to grade
unless ``--unsafe`` is given. Options: ``--roster`` (CSV 学号, 姓名[, LMS ID], or a Canvas gradebook export:
missing students get 0 and 未提交), ``--duplicates flag|latest``, ``-j`` parallel submissions,
``--timeout``/``--cell-timeout``/``--call-timeout``, ``--regrade 学号`` (grade one student again into an existing
OUT.csv, leaving the other rows as they are, statistics updated), ``--merge SHEET`` (the teacher's scores and
comments of the manual sheet into OUT.csv and the feedback), ``--deadline``/``--late-penalty``/
``--submitted-times`` (late policy), ``--export canvas|moodle`` (gradebook import files), ``--hint-steps N`` (how
many steps of a check's hint in steps the feedback gives; default 1, the formula-free first step).

Exit status: 0 when the gradebook was written, 1 on usage errors, 2 when the sandbox is unavailable, 130/143 when
interrupted (every sandbox is killed and the private copies are removed first).
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from types import FrameType

from . import classroom as cr
from .book import (
    Gradebook,
    GradebookError,
    Row,
    choose,
    feedback,
    grade_folder,
    grade_submission,
    header,
    regrade,
    row_cells,
    side_paths,
    summary,
    summary_rows,
    write_outputs,
)
from .judge import Outcome, Package, PackageError
from .lms import LatePolicy, export_lms, merge_manual, parse_deadline, read_times
from .sandbox import Limits, bwrap_works

MAX_NOTEBOOK_BYTES = cr.MAX_NOTEBOOK_BYTES
NO_SANDBOX = (
    "错误：找不到可用的 bubblewrap（bwrap），无法把学生代码关进沙箱。\n"
    "请安装：sudo apt-get install bubblewrap（Debian/Ubuntu）。\n"
    "如果确实要在没有沙箱的情况下批改（学生代码将以你的身份运行，能读写你能访问的一切），请加上 --unsafe。"
)

__all__ = ["Gradebook", "GradebookError", "Limits", "Outcome", "Package", "PackageError", "Row", "bwrap_works",
           "choose", "feedback", "grade_folder", "grade_submission", "header", "main", "regrade", "row_cells",
           "side_paths", "summary", "summary_rows", "write_outputs"]


class Interrupted(BaseException):
    """SIGTERM or SIGHUP: unwind like Ctrl-C, so that every ``finally`` runs."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_signal(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="clusterlab-grade",
        description="离线批改：在 bubblewrap 沙箱中运行每份笔记本，按评分包打分，写出 Excel 可直接打开的 CSV 成绩表。")
    p.add_argument("package", type=Path, help="评分包，例如 exercises/_build/<套>/autograder/<套>-autograder.zip")
    p.add_argument("submissions_dir", type=Path,
                   help="提交目录：<学号>-<姓名>.ipynb、每人一个 <学号>-<姓名>/ 子文件夹，或 Canvas、Moodle 的批量下载")
    p.add_argument("out_csv", type=Path, help="输出的成绩表 CSV")
    p.add_argument("-j", "--jobs", type=int, default=1, help="同时批改的份数（默认 1）")
    p.add_argument("--roster", type=Path,
                   help="名单 CSV（列：学号, 姓名，可选 LMS ID；也可以是 Canvas 成绩册导出）；未提交的学生记 0 分")
    p.add_argument("--duplicates", choices=("flag", "latest"), default="flag",
                   help="同一学号多份提交：flag 都批改、都列出、在备注中标出（默认），latest 只批改最新的一份")
    p.add_argument("--regrade", metavar="学号", help="只重新批改这个学号，写回已有的成绩表，其他行不动，统计随之更新")
    p.add_argument("--merge", type=Path, metavar="人工评阅.csv",
                   help="把教师填好的人工评阅表（得分、评语）合并进已有的成绩表与反馈，不重新批改")
    p.add_argument("--deadline", help="截止时间，例如 2025-03-01T23:59+08:00（不写时区按本机时区）")
    p.add_argument("--late-penalty", type=float, default=0.1,
                   help="迟交每（不满）一天扣去所得分的比例（默认 0.1，即 10%%；扣满为止）")
    p.add_argument("--submitted-times", type=Path,
                   help="提交时间表 CSV（学号或 LMS ID 一列、提交时间一列，如 Moodle 评分表）；默认用文件修改时间")
    p.add_argument("--export", choices=("canvas", "moodle"), action="append", default=[],
                   help="另写一份可导入 Canvas 或 Moodle 成绩册的 CSV（可重复）")
    p.add_argument("--similarity", type=float, default=0.8,
                   help="相似度报告的阈值（0–1，默认 0.8）；只标出，不扣分")
    p.add_argument("--timeout", type=float, default=Limits.timeout, help="每份提交的总时限，秒（默认 %(default)g）")
    p.add_argument("--cell-timeout", type=float, default=Limits.cell_timeout, help="单个单元格的时限，秒")
    p.add_argument("--call-timeout", type=float, default=Limits.call_timeout, help="检查调用一次学生函数的时限，秒")
    p.add_argument("--hint-steps", type=int, default=1, metavar="N",
                   help="分步提示（提示(…)）在反馈里给出前几步（默认 1：只给第一步，不给公式）")
    p.add_argument("--unsafe", action="store_true", help="没有 bubblewrap 时仍然批改（学生代码不受隔离！）")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        for s in old:
            signal.signal(s, _on_signal)
    except ValueError:  # not the main thread: the caller owns the signals
        old = {}
    try:
        return _main(args)
    except KeyboardInterrupt:
        print("已中断：所有沙箱已结束，临时副本已删除，没有写出成绩表。", file=sys.stderr)
        return 130
    except Interrupted as exc:
        print("已终止：所有沙箱已结束，临时副本已删除，没有写出成绩表。", file=sys.stderr)
        return 128 + exc.signum
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _main(args: argparse.Namespace) -> int:
    try:
        if not 0 <= args.late_penalty <= 1:
            raise GradebookError(f"--late-penalty 应在 0 到 1 之间（得到 {args.late_penalty}）")
        if not 0 < args.similarity <= 1:
            raise GradebookError(f"--similarity 应在 0 到 1 之间（得到 {args.similarity}）")
        if args.jobs < 1 or args.jobs > 64:
            raise GradebookError(f"-j 应在 1 到 64 之间（得到 {args.jobs}）")
        if not 1 <= args.hint_steps <= 9:
            raise GradebookError(f"--hint-steps 应在 1 到 9 之间（得到 {args.hint_steps}）")
        roster = cr.read_roster(args.roster) if args.roster else None
        if args.merge:
            book = merge_manual(args.package, args.out_csv, args.merge)
            for kind in args.export:
                export_lms(book, args.out_csv, kind, roster)
            print(summary(book))
            print(f"已合并人工评阅：{args.out_csv}")
            return 0
        if args.unsafe:
            print("警告：--unsafe：学生代码不在沙箱中运行，能以你的身份读写文件、联网。", file=sys.stderr)
        elif not bwrap_works():
            print(NO_SANDBOX, file=sys.stderr)
            return 2
        limits = Limits(timeout=args.timeout, cell_timeout=args.cell_timeout, call_timeout=args.call_timeout)
        late = None
        if args.deadline:
            times = read_times(args.submitted_times, roster) if args.submitted_times else None
            late = LatePolicy(parse_deadline(args.deadline), args.late_penalty, times)
        elif args.submitted_times:
            raise GradebookError("--submitted-times 需要同时给出 --deadline")
        if args.regrade and not args.out_csv.is_file():
            raise GradebookError(f"--regrade 需要已有的成绩表：{args.out_csv} 不存在")
        book = grade_folder(args.package, args.submissions_dir, jobs=args.jobs, limits=limits, roster=roster,
                            duplicates=args.duplicates, unsafe=args.unsafe, only=args.regrade, late=late,
                            similarity=args.similarity, hint_steps=args.hint_steps)
        if args.regrade:
            book = regrade(book, args.out_csv, args.regrade)
        else:
            if not book.rows and not book.not_graded:
                raise GradebookError(f"{args.submissions_dir} 中没有任何文件")
            write_outputs(book, args.out_csv)
        for kind in args.export:
            export_lms(book, args.out_csv, kind, roster)
    except (GradebookError, ValueError, OSError) as exc:
        print(f"错误：{cr.printable(exc, 2000)}", file=sys.stderr)
        return 1
    print(summary(book))
    print(f"成绩表：{cr.printable(args.out_csv)}")
    if not args.regrade:
        paths = side_paths(args.out_csv)
        print(f"未评分文件清单：{cr.printable(paths['not_graded'])}；各题统计：{cr.printable(paths['summary'])}；"
              f"学生反馈：{cr.printable(paths['feedback'])}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
