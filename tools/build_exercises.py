"""Build the classroom exercise sets (``make exercises``).

Usage: ``python tools/build_exercises.py SRC_DIR OUT_DIR``. Every set is a folder ``SRC_DIR/<set>/`` holding the
master notebook ``<set>.ipynb`` (format: ``tools/grading/master.py``) and ``variant.py`` (each student's data from
the student ID; pure Python, shipped inside the student notebook). For each set this writes

* ``OUT_DIR/<set>/student/<set>.ipynb``            — handed to students: no solutions, public checks only;
* ``OUT_DIR/<set>/autograder/<set>.ipynb``         — the solution notebook (teacher only);
* ``OUT_DIR/<set>/autograder/<set>-autograder.zip`` — the grading package for ``tools/gradebook.py``
  (``exercise.json`` with every check, hidden ones included, and ``variant.py``).

The build then grades its own solution notebook (for the sample student ID and two more) and the blank student
notebook with the real judge; a solution below full marks or a blank above zero fails the build (exit status 1).
The output is reproducible: cell ids follow the position, zip entries are sorted and dated ``SOURCE_DATE_EPOCH``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from clusterlab_grade import master
from clusterlab_grade.judge import Package, grade_cells
from clusterlab_grade.sandbox import Limits

VERIFY_IDS = ("2024001", "2024002")


class BuildError(RuntimeError):
    """A set could not be built; the message is meant for the instructor."""


@dataclass(frozen=True)
class BuiltSet:
    """Paths of one built set and the seconds the build took."""

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


def write_zip(path: Path, files: dict[str, bytes]) -> None:
    stamp = zip_epoch()
    with zipfile.ZipFile(path, "w") as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = (0o100644) << 16
            zf.writestr(info, files[name])


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def code_cells(nb: dict) -> list[str]:
    """The code cells' sources of a notebook read as plain JSON, in order."""
    return [_source(c) for c in nb.get("cells", []) if isinstance(c, dict) and c.get("cell_type") == "code"]


def with_student_id(nb: dict, student_id: str) -> dict:
    """A copy of a generated notebook with ``学号`` set to ``student_id``."""
    out = json.loads(json.dumps(nb))
    for cell in out["cells"]:
        if cell["cell_type"] == "code" and _source(cell).startswith("学号 = "):
            _, _, rest = _source(cell).partition("\n")
            cell["source"] = f'学号 = "{student_id}"  # 学号\n{rest}'
    return out


def verify(package_path: Path, solution: dict, student: dict) -> None:
    """Grade the solution (three IDs) and the blank; raise BuildError unless full marks and zero."""
    package = Package.load(package_path)
    limits = Limits(timeout=300, cell_timeout=120, call_timeout=120)
    problems = []
    for sid in (package.sample_id, *VERIFY_IDS):
        out = grade_cells(package, code_cells(with_student_id(solution, sid)), sid, limits, unsafe=True)
        if out.total != package.possible:
            failed = [f"{r.name}: {r.message}" for r in out.checks if r.message]
            problems.append(f"参考解答（学号 {sid}）得 {out.total:g}/{package.possible:g}：" + "；".join(failed[:5]))
    blank = grade_cells(package, code_cells(with_student_id(student, VERIFY_IDS[0])), VERIFY_IDS[0], limits,
                        unsafe=True)
    if blank.total != 0:
        passed = [r.name for r in blank.checks if not r.message and r.points]
        problems.append(f"空白学生版得 {blank.total:g} 分（应为 0）：{passed}")
    if problems:
        raise BuildError("\n".join(problems))


def build_set(set_dir: Path, out_dir: Path, *, check: bool = True) -> BuiltSet:
    """Build one set into ``out_dir/<set>/`` (replacing what was there) and return its paths."""
    start = time.perf_counter()
    name = set_dir.name
    source = set_dir / f"{name}.ipynb"
    variant = set_dir / "variant.py"
    if not source.is_file():
        raise BuildError(f"{set_dir}: 缺少主笔记本 {source.name}（文件名须与文件夹同名）")
    if not variant.is_file():
        raise BuildError(f"{set_dir}: 缺少 variant.py（由学号生成每人数据的程序）")
    variant_source = variant.read_text(encoding="utf-8")
    try:
        parsed = master.parse(source, variant_source)
    except (master.MasterError, KeyError, ValueError) as exc:
        raise BuildError(f"{source}: {exc}") from None
    if parsed.set_name != name:
        raise BuildError(f"{source}: ASSIGNMENT CONFIG 的 name 是 {parsed.set_name!r}，应与文件夹同名 {name!r}")
    problems = master.student_problems(parsed.student)
    if problems:
        raise BuildError(f"{name}: 学生版不能发出：{'、'.join(problems)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{name}-", dir=out_dir) as tmp:
        stage = Path(tmp) / name
        (stage / "student").mkdir(parents=True)
        (stage / "autograder").mkdir()
        student_text = master.notebook_text(parsed.student)
        solution_text = master.notebook_text(parsed.solution)
        (stage / "student" / f"{name}.ipynb").write_text(student_text, encoding="utf-8")
        (stage / "autograder" / f"{name}.ipynb").write_text(solution_text, encoding="utf-8")
        spec = json.dumps(master.package_spec(parsed), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        package = stage / "autograder" / f"{name}-autograder.zip"
        write_zip(package, {"exercise.json": spec.encode("utf-8"), "variant.py": variant_source.encode("utf-8")})
        if check:
            try:
                verify(package, json.loads(solution_text), json.loads(student_text))
            except BuildError as exc:
                raise BuildError(f"{name}: 自检失败\n{exc}") from None
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


def build_all(src_dir: Path, out_dir: Path, *, check: bool = True) -> list[BuiltSet]:
    """Build every set under ``src_dir``; raise :class:`BuildError` at the first failure."""
    if not src_dir.is_dir():
        raise BuildError(f"习题源目录不存在：{src_dir}")
    sets = find_sets(src_dir)
    if not sets:
        raise BuildError(f"{src_dir} 下没有习题集（每套习题是一个含同名 .ipynb 的文件夹）")
    return [build_set(s, out_dir, check=check) for s in sets]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="生成学生版习题、参考解答与评分包，并用评分程序自检。")
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
