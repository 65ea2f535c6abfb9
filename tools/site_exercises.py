"""Put every exercise set's student notebook into the book (run by ``make exercises``).

For each set ``exercises/source/<set>/`` the student notebook is built with ``tools/build_exercises.py``
(no solutions, no hidden checks; the build grades its own solution and blank first) into
``exercises/_build/<set>/student/<set>.ipynb`` — only when
it is missing or older than the set's sources or the build script — and copied to ``book/_exercises/<set>.ipynb``,
which is committed: ``make book`` only publishes it, and ``tests/pipeline/test_all_sets.py`` fails when a committed
copy differs from a fresh build (run ``make exercises``).
Each section's 练习 block links its set with the ``{download}`` role, e.g. from ``part1/`` or ``part2/``::

    {download}`下载学生版笔记本 <../_exercises/collectives-961.ipynb>`

A set whose solution does not earn full marks (or whose blank earns points) stops the build, as ``make exercises`` does.

Usage: ``python tools/site_exercises.py [SRC_DIR] [BUILD_DIR] [DEST_DIR]``.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import build_exercises  # noqa: E402


def newest_mtime(paths: list[Path]) -> float:
    return max(p.stat().st_mtime for p in paths)


def stale(set_dir: Path, student: Path) -> bool:
    if not student.is_file():
        return True
    sources = [p for p in set_dir.rglob("*") if p.is_file() and ".ipynb_checkpoints" not in p.parts]
    sources.append(Path(build_exercises.__file__))
    sources += sorted((ROOT / "src" / "clusterlab_grade").glob("*.py"))
    return newest_mtime(sources) > student.stat().st_mtime


def main(src: Path, build: Path, dest: Path) -> int:
    sets = build_exercises.find_sets(src)
    dest.mkdir(parents=True, exist_ok=True)
    for set_dir in sets:
        student = build / set_dir.name / "student" / f"{set_dir.name}.ipynb"
        if stale(set_dir, student):
            try:
                built = build_exercises.build_set(set_dir, build)
            except build_exercises.BuildError as exc:
                print(f"错误：习题集 {set_dir.name} 生成失败：{exc}", file=sys.stderr)
                return 1
            print(f"习题 {set_dir.name}: {built.seconds:.1f} s")
        target = dest / f"{set_dir.name}.ipynb"
        if not target.is_file() or target.read_bytes() != student.read_bytes():
            shutil.copyfile(student, target)
    names = {f"{s.name}.ipynb" for s in sets}
    for old in dest.glob("*.ipynb"):
        if old.name not in names:
            old.unlink()
    return 0


if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]]
    defaults = [ROOT / "exercises" / "source", ROOT / "exercises" / "_build", ROOT / "book" / "_exercises"]
    raise SystemExit(main(*(args + defaults[len(args) :])))
