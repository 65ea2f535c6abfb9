"""Offline gradebook: ``python tools/gradebook.py AUTOGRADER_ZIP SUBMISSIONS_DIR OUT.csv``.

Grades every ``*.ipynb`` directly inside ``SUBMISSIONS_DIR`` with Otter (``otter.api.grade_submission``, no
Docker, no network) against the autograder zip built by ``tools/build_exercises.py``, and writes a CSV in
UTF-8 with BOM (opens in Excel) with the columns 学生, q1 … qN, 总分, 满分, 备注. The student is the file
stem (``张三.ipynb`` → 张三); rows are sorted by it.

Robustness: a file that is not valid JSON / not a notebook, or that belongs to another exercise set, gets 0
and a note; a notebook whose code raises is still graded (cells run on past errors, every question that
cannot be answered scores 0) and the error is noted; a cell running longer than ``--cell-timeout`` seconds is
interrupted and grading goes on; a submission that still exceeds ``--timeout`` seconds is stopped and gets 0.
Each submission is graded in its own child process running this interpreter, so the grading environment
must have otter-grader and clusterlab installed (the hidden tests import clusterlab).

SECURITY: student code runs unsandboxed with the rights of the user who runs this command. Run it as an
unprivileged account (or in a throwaway VM / container) that can read nothing of value.

The command exits 0 when it wrote the CSV (individual failures are reported in 备注), 1 on usage errors.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

HEADER_STUDENT, HEADER_TOTAL, HEADER_POSSIBLE, HEADER_NOTE = "学生", "总分", "满分", "备注"
DEFAULT_CELL_TIMEOUT = 60.0
DEFAULT_TIMEOUT = 600.0
PYTHON_KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}
INIT_CELL_RE = re.compile(r"""otter\.Notebook\(\s*["']([^"'/\\]+\.ipynb)["']""")


@dataclass(frozen=True)
class Question:
    """One autograded question of the set and its maximum points."""

    name: str
    points: float


@dataclass(frozen=True)
class SubmissionResult:
    """One CSV row: points per question (0 where nothing could be graded), totals and a note (备注)."""

    student: str
    scores: dict[str, float]
    total: float
    possible: float
    note: str


@dataclass(frozen=True)
class Gradebook:
    """All rows of one grading run, sorted by student."""

    questions: tuple[Question, ...]
    rows: tuple[SubmissionResult, ...]

    @property
    def possible(self) -> float:
        return sum(q.points for q in self.questions)


class GradebookError(RuntimeError):
    """Bad input for the whole run (missing zip or folder, no submissions)."""


def _natural_key(name: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def read_questions(autograder_zip: Path) -> tuple[tuple[Question, ...], str | None]:
    """Questions (with maximum points) and the assignment name stored in an Otter autograder zip."""
    from otter.test_files import create_test_file

    questions: list[Question] = []
    with zipfile.ZipFile(autograder_zip) as zf, tempfile.TemporaryDirectory() as tmp:
        names = [n for n in zf.namelist() if re.fullmatch(r"tests/[^/]+\.py", n)]
        config = json.loads(zf.read("otter_config.json")) if "otter_config.json" in zf.namelist() else {}
        for n in names:
            path = Path(tmp) / Path(n).name
            path.write_bytes(zf.read(n))
            tf = create_test_file(str(path), None)
            questions.append(Question(tf.name, float(tf.possible)))
    if not questions:
        raise GradebookError(f"{autograder_zip} 中没有测试文件 tests/*.py，不是 Otter 评分包？")
    questions.sort(key=lambda q: _natural_key(q.name))
    return tuple(questions), config.get("assignment_name")


def _zero(student: str, questions: Sequence[Question], note: str) -> SubmissionResult:
    possible = sum(q.points for q in questions)
    return SubmissionResult(student, {q.name: 0.0 for q in questions}, 0.0, possible, note)


def _load_submission(path: Path) -> tuple[nbformat.NotebookNode | None, str]:
    """Parse a submission; return (notebook, "") or (None, reason in Chinese)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        return None, "文件不是 UTF-8 编码的 .ipynb，未评分"
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"文件不是有效的 JSON（第 {exc.lineno} 行第 {exc.colno} 列），笔记本已损坏，未评分"
    try:
        nb = nbformat.reads(text, as_version=4)
        if not isinstance(nb.get("cells"), list):
            raise ValueError("no cells")
    except Exception:
        return None, "文件是 JSON 但不是有效的 Jupyter 笔记本，未评分"
    return nb, ""


def _grading_filename(nb: nbformat.NotebookNode, default: str) -> str:
    """The file name the notebook's Otter init cell expects (``otter.Notebook("<set>.ipynb")``).

    Otter's init cell reads the notebook's own file by that name, so a submission renamed to ``张三.ipynb``
    is graded under the original name (in a private temporary folder).
    """
    for cell in nb.cells:
        if cell.get("cell_type") == "code":
            m = INIT_CELL_RE.search(cell.get("source", ""))
            if m:
                return Path(m.group(1)).name
    return default


def _error_note(errors: Sequence[dict[str, str]], cell_timeout: float) -> str:
    if not errors:
        return ""
    seen: list[str] = []
    for e in errors:
        if e.get("ename") == "KeyboardInterrupt":
            text = f"单元格运行超过 {cell_timeout:g} s 被中断（死循环？）"
        else:
            text = f"{e.get('ename', '')}: {e.get('evalue', '')}".strip(": ")
        text = text if len(text) <= 120 else text[:117] + "…"
        if text not in seen:
            seen.append(text)
    more = f" 等 {len(seen)} 处" if len(seen) > 2 else ""
    return "代码运行出错（已按能运行的部分评分）：" + "；".join(seen[:2]) + more


def grade_one(
    submission: Path,
    autograder_zip: Path,
    questions: Sequence[Question],
    assignment_name: str | None = None,
    *,
    cell_timeout: float = DEFAULT_CELL_TIMEOUT,
    timeout: float = DEFAULT_TIMEOUT,
) -> SubmissionResult:
    """Grade one submission notebook in a child process and turn the outcome into a row."""
    student = submission.stem
    nb, problem = _load_submission(submission)
    if nb is None:
        return _zero(student, questions, problem)
    got = nb.metadata.get("otter", {}).get("assignment_name")
    if assignment_name and got != assignment_name:
        note = f"不是本套习题的笔记本（assignment_name 为 {got!r}，应为 {assignment_name!r}），未评分"
        return _zero(student, questions, note)
    nb.metadata["kernelspec"] = dict(PYTHON_KERNELSPEC)  # always the grader's own Python
    with tempfile.TemporaryDirectory(prefix="gradebook-") as tmp:
        work = Path(tmp)
        copy = work / _grading_filename(nb, submission.name)
        copy.write_text(nbformat.writes(nb), encoding="utf-8")
        out = work / "result.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(autograder_zip.resolve()),
               str(copy), str(out), "--cell-timeout", str(cell_timeout)]
        proc = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, encoding="utf-8", errors="replace", start_new_session=True)
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            return _zero(student, questions, f"评分超时（超过 {timeout:g} s），已终止，未评分")
        if not out.is_file():
            last = [ln for ln in stderr.splitlines() if ln.strip() and "without encryption" not in ln]
            tail = last[-1] if last else f"退出码 {proc.returncode}"
            return _zero(student, questions, f"评分程序出错，未评分：{tail[:200]}")
        data = json.loads(out.read_text(encoding="utf-8"))
    if data.get("failure"):
        return _zero(student, questions, f"评分失败，未评分：{data['failure'][:200]}")
    scores = {q.name: float(data["scores"].get(q.name, 0.0)) for q in questions}
    notes = [_error_note(data.get("errors", []), cell_timeout)]
    if data.get("catastrophic"):
        notes.append(f"评分过程中断：{data['catastrophic'][:200]}")
    return SubmissionResult(student, scores, sum(scores.values()), sum(q.points for q in questions),
                            "；".join(n for n in notes if n))


def _kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, 9)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def grade_folder(
    autograder_zip: Path,
    submissions_dir: Path,
    *,
    jobs: int = 1,
    cell_timeout: float = DEFAULT_CELL_TIMEOUT,
    timeout: float = DEFAULT_TIMEOUT,
) -> Gradebook:
    """Grade every ``*.ipynb`` directly in ``submissions_dir`` (``jobs`` at a time); return the gradebook."""
    autograder_zip, submissions_dir = Path(autograder_zip), Path(submissions_dir)
    if not autograder_zip.is_file():
        raise GradebookError(f"评分包不存在：{autograder_zip}")
    if not submissions_dir.is_dir():
        raise GradebookError(f"提交目录不存在：{submissions_dir}")
    subs = sorted(submissions_dir.glob("*.ipynb"), key=lambda p: p.stem)
    if not subs:
        raise GradebookError(f"{submissions_dir} 中没有 .ipynb 提交")
    questions, name = read_questions(autograder_zip)

    def one(p: Path) -> SubmissionResult:
        return grade_one(p, autograder_zip, questions, name, cell_timeout=cell_timeout, timeout=timeout)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        rows = list(pool.map(one, subs))
    return Gradebook(questions, tuple(sorted(rows, key=lambda r: r.student)))


def _fmt(x: float) -> str:
    return f"{round(x, 4):g}"


def write_csv(book: Gradebook, out_csv: Path) -> None:
    """Write the gradebook as UTF-8 with BOM: 学生, q1 … qN, 总分, 满分, 备注."""
    out_csv = Path(out_csv)
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    with out_csv.open("w", encoding="utf-8-sig", newline="") as f:
        w = csv.writer(f)
        names = [q.name for q in book.questions]
        w.writerow([HEADER_STUDENT, *names, HEADER_TOTAL, HEADER_POSSIBLE, HEADER_NOTE])
        for r in book.rows:
            w.writerow([r.student, *(_fmt(r.scores[q.name]) for q in book.questions), _fmt(r.total),
                        _fmt(r.possible), r.note])


def summary(book: Gradebook) -> str:
    """A short Chinese summary for the terminal."""
    n = len(book.rows)
    mean = sum(r.total for r in book.rows) / n if n else 0.0
    full = sum(1 for r in book.rows if r.total == r.possible)
    lines = [f"已评分 {n} 份：平均 {mean:.2f} / {_fmt(book.possible)} 分，满分 {full} 份。"]
    noted = [r for r in book.rows if r.note]
    if noted:
        lines.append(f"{len(noted)} 份有备注：")
        lines += [f"  {r.student}：{r.note}" for r in noted]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------------------
# child process: grade one notebook with Otter and write a small JSON result
# ----------------------------------------------------------------------------------------------------------
def _use_cell_timeout(seconds: float) -> None:
    """Make Otter's executor interrupt a cell after ``seconds`` and go on with the next one.

    ``otter.execute.grade_notebook`` imports ``nbconvert.preprocessors.ExecutePreprocessor`` at call time and
    passes no timeout (nbclient's default is to wait forever), so this child process swaps in a subclass.
    """
    import nbconvert.preprocessors as pp
    from traitlets import Bool, default

    limit = max(1, round(seconds))

    def cell_limit(cell: Any) -> int | None:
        # Otter's own first cell imports otter in the kernel (slow on a busy machine): no limit there
        return None if "init_grading_mode(" in str(cell.get("source", "")) else limit

    class GraderExecutePreprocessor(pp.ExecutePreprocessor):
        interrupt_on_timeout = Bool(True).tag(config=True)

        @default("timeout_func")
        def _default_timeout_func(self) -> Any:
            return cell_limit

    pp.ExecutePreprocessor = GraderExecutePreprocessor


def _keep_grading_after_interrupt() -> None:
    """Let Otter's final results cell survive a test that had to be interrupted.

    Otter appends a cell that runs every test not run yet and pickles the results. If one test hangs and
    is interrupted, the ``KeyboardInterrupt`` would abort that cell and lose every score; wrapped, the
    interrupted question is simply missing from the results (and scores 0) while the others keep theirs.
    """
    from otter.execute import preprocessor

    line = "    Checker.check_if_not_already_checked({tests_loop_var})\n"
    guarded = (
        "    try:\n"
        "        Checker.check_if_not_already_checked({tests_loop_var})\n"
        "    except BaseException:\n"
        "        pass\n"
    )
    if line in preprocessor.EXPORT_CELL_SOURCE:
        preprocessor.EXPORT_CELL_SOURCE = preprocessor.EXPORT_CELL_SOURCE.replace(line, guarded)


def _worker(autograder_zip: str, notebook: str, out: str, cell_timeout: float) -> int:
    result: dict[str, Any]
    try:
        _use_cell_timeout(cell_timeout)
        _keep_grading_after_interrupt()
        from otter.api import grade_submission

        res = grade_submission(notebook, autograder_zip, quiet=True)
        errors = []
        if res.notebook is not None:
            for cell in res.notebook.cells:
                for o in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
                    if o.get("output_type") == "error":
                        errors.append({"ename": str(o.get("ename", "")), "evalue": str(o.get("evalue", ""))})
        cat = res.catastrophic_error
        result = {
            "scores": {name: float(tf.score) for name, tf in res.results.items()},
            "errors": errors,
            "catastrophic": f"{type(cat).__name__}: {cat}" if cat else None,
        }
    except Exception as exc:  # reported in 备注 by the parent
        result = {"failure": f"{type(exc).__name__}: {exc}"}
    Path(out).write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        wp = argparse.ArgumentParser()
        wp.add_argument("zip")
        wp.add_argument("notebook")
        wp.add_argument("out")
        wp.add_argument("--cell-timeout", type=float, default=DEFAULT_CELL_TIMEOUT)
        wa = wp.parse_args(argv[1:])
        return _worker(wa.zip, wa.notebook, wa.out, wa.cell_timeout)

    parser = argparse.ArgumentParser(
        description="离线批改：用 Otter 评分包给文件夹里的每份 .ipynb 打分，"
        "写出 UTF-8（带 BOM）的 CSV 成绩表。注意：学生代码不在沙箱中运行，请用无特权的账户执行。")
    parser.add_argument("autograder_zip", type=Path,
                        help="评分包，例如 exercises/_build/<套>/autograder/<套>-autograder.zip")
    parser.add_argument("submissions_dir", type=Path, help="存放学生提交（<学生>.ipynb）的文件夹")
    parser.add_argument("out_csv", type=Path, help="输出的成绩表 CSV")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="同时批改的份数（默认 1）")
    parser.add_argument("--cell-timeout", type=float, default=DEFAULT_CELL_TIMEOUT,
                        help=f"单个单元格的运行时限，秒（默认 {DEFAULT_CELL_TIMEOUT:g}），超时中断后继续")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"每份提交的总时限，秒（默认 {DEFAULT_TIMEOUT:g}），超时记 0 分")
    args = parser.parse_args(argv)
    try:
        book = grade_folder(args.autograder_zip, args.submissions_dir, jobs=args.jobs,
                            cell_timeout=args.cell_timeout, timeout=args.timeout)
    except GradebookError as exc:
        print(f"错误：{exc}", file=sys.stderr)
        return 1
    write_csv(book, args.out_csv)
    print(summary(book))
    print(f"成绩表：{args.out_csv}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
