"""Build the classroom exercise sets (``make exercises``).

Usage: ``python tools/build_exercises.py SRC_DIR OUT_DIR``. Every set is a folder ``SRC_DIR/<set>/`` holding
one Otter master notebook ``<set>.ipynb`` (Otter assign format v1: raw cells ``# ASSIGNMENT CONFIG``,
``# BEGIN QUESTION``, ``# BEGIN SOLUTION``, ``# BEGIN TESTS`` …).
For each set this runs ``otter assign --no-pdfs`` and writes

* ``OUT_DIR/<set>/student/<set>.ipynb``      — the notebook handed to students (public tests only);
* ``OUT_DIR/<set>/autograder/<set>.ipynb``   — the solved notebook (kept by the instructor);
* ``OUT_DIR/<set>/autograder/<set>-autograder.zip`` — tests incl. hidden ones, for ``tools/gradebook.py``.

``otter assign`` grades the solutions with their own tests and fails when they do not score full marks; the
build then exits with status 1. The output is made reproducible: the zip loses Otter's timestamp in its name,
its entries are sorted and dated ``SOURCE_DATE_EPOCH`` (default 1980-01-01), notebook cell ids are derived
from the position, execution timing metadata is dropped, and the English text Otter inserts into the
notebooks (init comment, check-all preamble, point labels) is replaced by Chinese. A student notebook that
still holds untranslated Otter text or imports ``clusterlab`` (the package that answers the questions) fails
the build.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

# Otter 7.0.0 text (otter/assign/cell_factory.py, notebook_transformer.py) → Chinese.
INIT_COMMENT = ("# Initialize Otter\n", "# 初始化 Otter 自测工具：请先运行本单元格\n")
CHECK_ALL_MD = (
    "To double-check your work, the cell below will rerun all of the autograder tests.",
    "全部做完后，运行下面的单元格，把所有公开测试再跑一遍。",
)
POINTS_RE = re.compile(r"_Points:_ (\d+(?:\.\d+)?)")
# Any of these left in a student notebook means Otter inserted English text this script does not translate.
ENGLISH_MARKERS = (
    "Initialize Otter",
    "To double-check your work",
    "_Points:_",
    "Type your answer here",
    "## Submission",
    "Save your notebook first",
)
ANSWER_IMPORT_RE = re.compile(r"^\s*(?:from|import)\s+clusterlab\b", re.MULTILINE)
KERNEL_NOISE = "Kernel is running over TCP without encryption"


class BuildError(RuntimeError):
    """A set could not be built; the message is meant for the instructor."""


@dataclass(frozen=True)
class BuiltSet:
    """Paths of one built set and the seconds ``otter assign`` plus post-processing took."""

    name: str
    student_notebook: Path
    autograder_notebook: Path
    autograder_zip: Path
    seconds: float


def find_sets(src_dir: Path) -> list[Path]:
    """Set folders under ``src_dir`` (sorted; names starting with ``.`` or ``_`` are skipped)."""
    return sorted(p for p in src_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def zip_epoch() -> tuple[int, int, int, int, int, int]:
    """Timestamp for zip entries: ``SOURCE_DATE_EPOCH`` (UTC) if set, else 1980-01-01 (the zip minimum)."""
    raw = os.environ.get("SOURCE_DATE_EPOCH")
    if raw:
        t = time.gmtime(max(int(raw), 315532800))
        return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec)
    return (1980, 1, 1, 0, 0, 0)


def normalise_zip(src: Path, dst: Path) -> None:
    """Rewrite ``src`` as ``dst`` with sorted entries, fixed dates and deflate compression."""
    stamp = zip_epoch()
    with zipfile.ZipFile(src) as zin:
        entries = sorted(zin.infolist(), key=lambda i: i.filename)
        with zipfile.ZipFile(dst, "w") as zout:
            for info in entries:
                if info.is_dir():
                    continue
                new = zipfile.ZipInfo(info.filename, date_time=stamp)
                new.compress_type = zipfile.ZIP_DEFLATED
                new.create_system = 3  # unix, so external_attr carries the mode
                mode = (info.external_attr >> 16) & 0o777 or 0o644
                new.external_attr = (0o100000 | mode) << 16
                zout.writestr(new, zin.read(info.filename))
    src.unlink()


def localise_cell(cell: nbformat.NotebookNode) -> None:
    """Replace the English text Otter puts into generated cells by Chinese, in place."""
    src = cell.get("source", "")
    if cell.cell_type == "code" and src.startswith(INIT_COMMENT[0]):
        src = INIT_COMMENT[1] + src[len(INIT_COMMENT[0]) :]
    if cell.cell_type == "markdown":
        src = src.replace(*CHECK_ALL_MD)
        src = POINTS_RE.sub(lambda m: f"**本题 {m.group(1)} 分**", src)
    cell["source"] = src


def normalise_notebook(path: Path, set_name: str, *, student: bool) -> None:
    """Localise Otter's text, give cells positional ids, drop timing metadata; check the student version."""
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        localise_cell(cell)
        cell["id"] = f"{set_name}-{i:02d}"[-64:]
        cell.get("metadata", {}).pop("execution", None)
    nbformat.validate(nb)
    text = nbformat.writes(nb, version=4)
    if not text.endswith("\n"):
        text += "\n"
    if student:
        left = [m for m in ENGLISH_MARKERS if m in text]
        if left:
            raise BuildError(
                f"{path}: 学生版仍含未翻译的 Otter 英文文本 {left}；请在 build_exercises.py 中补充译文"
            )
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        tests = "\n".join(str(t) for t in nb.metadata.get("otter", {}).get("tests", {}).values())
        if ANSWER_IMPORT_RE.search(code) or ANSWER_IMPORT_RE.search(tests):
            raise BuildError(
                f"{path}: 学生版（代码或公开测试）导入了 clusterlab——它会直接给出答案，只能在隐藏测试中使用"
            )
    path.write_text(text, encoding="utf-8")


def run_assign(master: Path, result: Path) -> None:
    """``otter assign --no-pdfs master result`` in a child process; raise :class:`BuildError` on failure."""
    cmd = [sys.executable, "-m", "otter", "assign", "--no-pdfs", str(master), str(result)]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, encoding="utf-8", errors="replace", check=False
    )
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if KERNEL_NOISE not in ln]
        tail = "\n".join(lines[-40:])
        raise BuildError(
            f"otter assign 失败（退出码 {proc.returncode}）：{master}\n"
            f"常见原因：参考解答没有通过自己的测试，或题目分隔单元格格式有误。otter 输出的末尾：\n{tail}"
        )


def build_set(set_dir: Path, out_dir: Path) -> BuiltSet:
    """Build one set into ``out_dir/<set>/`` (replacing what was there) and return its paths."""
    start = time.perf_counter()
    name = set_dir.name
    master = set_dir / f"{name}.ipynb"
    if not master.is_file():
        raise BuildError(f"{set_dir}: 缺少主笔记本 {master.name}（文件名须与文件夹同名）")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{name}-", dir=out_dir) as tmp:
        stage = Path(tmp) / name
        run_assign(master.resolve(), stage)
        zips = sorted((stage / "autograder").glob(f"{name}-autograder*.zip"))
        if len(zips) != 1:
            raise BuildError(f"{name}: otter assign 应生成一个评分包，实际 {len(zips)} 个")
        normalise_zip(zips[0], stage / "autograder" / f"{name}-autograder.zip")
        normalise_notebook(stage / "student" / f"{name}.ipynb", name, student=True)
        normalise_notebook(stage / "autograder" / f"{name}.ipynb", name, student=False)
        final = out_dir / name
        if final.exists():
            shutil.rmtree(final)
        shutil.move(str(stage), str(final))
    return BuiltSet(
        name=name,
        student_notebook=final / "student" / f"{name}.ipynb",
        autograder_notebook=final / "autograder" / f"{name}.ipynb",
        autograder_zip=final / "autograder" / f"{name}-autograder.zip",
        seconds=time.perf_counter() - start,
    )


def build_all(src_dir: Path, out_dir: Path) -> list[BuiltSet]:
    """Build every set under ``src_dir``; raise :class:`BuildError` at the first failure."""
    if not src_dir.is_dir():
        raise BuildError(f"习题源目录不存在：{src_dir}")
    sets = find_sets(src_dir)
    if not sets:
        raise BuildError(f"{src_dir} 下没有习题集（每套习题是一个含同名 .ipynb 的文件夹）")
    return [build_set(s, out_dir) for s in sets]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="用 otter assign 生成学生版习题与评分包。")
    parser.add_argument("src_dir", type=Path, help="习题源目录，例如 exercises/source")
    parser.add_argument("out_dir", type=Path, help="输出目录，例如 exercises/_build")
    args = parser.parse_args(argv)
    try:
        built = build_all(args.src_dir, args.out_dir)
    except BuildError as exc:
        print(f"错误：{exc}", file=sys.stderr)
        return 1
    for b in built:
        print(f"{b.name}: {b.seconds:.1f} s")
        print(f"  学生版   {b.student_notebook}")
        print(f"  评分包   {b.autograder_zip}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
