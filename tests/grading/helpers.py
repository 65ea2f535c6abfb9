"""Shared helpers of the grading tests: the tools as modules, the sandbox skip, notebook edits."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "exercises" / "source"
sys.path.insert(0, str(ROOT / "tools"))
sys.dont_write_bytecode = True

import build_exercises  # noqa: E402
import gradebook  # noqa: E402

from clusterlab_grade import sandbox  # noqa: E402

__all__ = ["ROOT", "SOURCE", "build_exercises", "gradebook", "hostile_files", "needs_bwrap", "sandbox"]

HAS_BWRAP = sandbox.bwrap_works()
needs_bwrap = pytest.mark.skipif(
    not HAS_BWRAP, reason="bubblewrap (bwrap) 不可用：沙箱测试跳过（apt-get install bubblewrap）"
)


def read(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write(nb: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    return path


def for_student(nb: dict[str, Any], student_id: str) -> dict[str, Any]:
    return build_exercises.with_student_id(nb, student_id)


def add_cell(nb: dict[str, Any], source: str, *, at: int | None = None) -> dict[str, Any]:
    out = json.loads(json.dumps(nb))
    cell = {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
    out["cells"].insert(len(out["cells"]) if at is None else at, cell)
    return out


GBK_NAME = "2024099-张三.ipynb".encode("gbk")
BAD_NAME = b"2024098-\xff\xfe\x80.ipynb"
ANSI = "\x1b[31m\x1b]0;owned\x07"


def set_id_raw(nb: dict[str, Any], value_source: str) -> dict[str, Any]:
    """The notebook with its 学号 cell assigning ``value_source`` (Python source of the value)."""
    out = json.loads(json.dumps(nb))
    for cell in out["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and src.startswith("学号 = "):
            _, _, rest = src.partition("\n")
            cell["source"] = f"学号 = {value_source}\n{rest}"
    return out


def hostile_files(subs: Path, solution: dict[str, Any]) -> str:
    """Every kind of file that used to stop a grading run or be graded under the wrong 学号, each holding a correct
    notebook where it holds one; returns the roster CSV (with LMS IDs) that goes with them."""
    subs.mkdir(parents=True, exist_ok=True)
    raw = os.fsencode(subs)
    # names in other encodings
    with open(os.path.join(raw, GBK_NAME), "wb") as f:
        f.write(json.dumps(for_student(solution, "2024099"), ensure_ascii=False).encode("utf-8"))
    with open(os.path.join(raw, BAD_NAME), "wb") as f:
        f.write(json.dumps(for_student(solution, "2024098")).encode("utf-8"))
    with open(os.path.join(raw, "说明-".encode("gbk") + b".txt"), "wb") as f:
        f.write(b"readme")
    # a lone surrogate in a code cell and in the reply's 学号 (escaped in the JSON, as json.dumps writes it)
    nb = for_student(solution, "2024097")
    nb["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                        "source": "note = '\ud800'\n"})
    (subs / "2024097-代理.ipynb").write_text(json.dumps(nb), encoding="ascii")
    write(set_id_raw(for_student(solution, "2024096"), '"2024096\\ud800"'), subs / "2024096-学号代理.ipynb")
    # a FIFO, a sparse 2 GB file, links
    os.mkfifo(subs / "2024095-管道.ipynb")
    with open(subs / "2024094-巨大.ipynb", "wb") as f:
        f.truncate(2 * 1024**3)
    (subs / "2024093-链接.ipynb").symlink_to(subs / "2024097-代理.ipynb")
    (subs / "2024092-文件夹链接").symlink_to(subs.parent)
    # hostile 学号: 10 MB in the notebook, ANSI escapes in the notebook and in the file name, too long a file name
    write(set_id_raw(for_student(solution, "2024091"), '"9" * 10_000_000'), subs / "2024091-长学号.ipynb")
    write(set_id_raw(for_student(solution, "2024090"), repr("2024090" + ANSI)), subs / "2024090-转义.ipynb")
    write(for_student(solution, "2024089"), subs / f"2024089{ANSI}-终端.ipynb")
    write(for_student(solution, "A" * 40), subs / f"{'A' * 40}-长.ipynb")
    # case-insensitive roster match, full-width digits
    write(for_student(solution, "A19"), subs / "a19-小写.ipynb")
    write(for_student(solution, "2024088"), subs / "２０２４０８８-全角.ipynb")
    # LMS bulk downloads: Canvas (one marked LATE) and Moodle (folder per participant, and flat)
    write(for_student(solution, "2024087"), subs / "lisi_12345_6789012_ring-allreduce.ipynb")
    write(for_student(solution, "2024086"), subs / "wangwu_LATE_12346_6789013_作业-1.ipynb")
    write(for_student(solution, "2024085"), subs / "Zhao Liu_4242_assignsubmission_file_" / "作业.ipynb")
    (subs / "Zhao Liu_4242_assignsubmission_onlinetext_").mkdir()
    (subs / "Zhao Liu_4242_assignsubmission_onlinetext_" / "onlinetext.html").write_text("<p>hi</p>")
    write(for_student(solution, "2024084"), subs / "Qian Qi_4243_assignsubmission_file_作业.ipynb")
    write(for_student(solution, "2024083"), subs / "Nobody_999_assignsubmission_file_作业.ipynb")
    # UTF-16 notebooks, with and without BOM
    text = json.dumps(for_student(solution, "2024082"), ensure_ascii=False)
    (subs / "2024082-utf16.ipynb").write_bytes(text.encode("utf-16"))
    (subs / "2024081-utf16le.ipynb").write_bytes(json.dumps(for_student(solution, "2024081")).encode("utf-16-le"))
    return ("学号,姓名,LMS ID\nA19,小明,\n2024087,李四,12345\n2024086,王五,12346\n2024085,赵六,4242\n"
            "2024084,钱七,4243\n2024099,张三,\n")


# ----------------------------------------------------------------------------------------------------------
# a CPU hog next to classmates
# ----------------------------------------------------------------------------------------------------------
HOG = """
import threading, numpy as np
def spin():
    a = np.random.default_rng(0).random((300, 300))
    while True:
        a = a @ a
        a /= np.abs(a).max() or 1.0
def loop():
    while True:
        pass
for target in [spin] * 30 + [loop] * 30:
    try:
        threading.Thread(target=target, daemon=True).start()
    except RuntimeError:
        break
loop()
"""


def hog_delay(package_path: Path, solution: dict[str, Any], *, rounds: int = 4, block: int = 4,
              warmup: float = 0.5) -> tuple[list[float], list[float]]:
    """Grading times of classmates (full marks each) beside an ordinary classmate and beside a CPU hog, as ``-j 2``
    grades them: in a calm block two workers grade classmates side by side; in a hog block one worker holds a
    submission whose cell spins 60 threads in numpy and Python while the other grades classmates. Calm and hog
    blocks alternate (calm–hog, then hog–calm), so a change in the machine's other load falls on both sides.
    Returns (calm seconds, hog seconds), ``block`` classmates per worker and block."""
    import threading

    from clusterlab_grade.judge import Package, grade_cells

    pkg = Package.load(package_path)
    limits = sandbox.Limits(timeout=60, cell_timeout=30)
    hog_cells = build_exercises.code_cells(add_cell(for_student(solution, "2025999"), HOG, at=3))
    counter = iter(range(10**6))

    def classmates(n: int, out: list[float]) -> None:
        for _ in range(n):
            sid = f"2026{next(counter):03d}"
            got = grade_cells(pkg, build_exercises.code_cells(for_student(solution, sid)), sid, limits)
            assert got.total == pkg.possible, (sid, got.fatal, [c.message for c in got.checks if c.message])
            out.append(got.seconds)

    def calm(out: list[float]) -> None:
        other = threading.Thread(target=classmates, args=(block, out))
        other.start()
        classmates(block, out)
        other.join()

    def hogged(out: list[float]) -> None:
        box = sandbox.Sandbox(limits)
        box.start()

        def hold() -> None:
            try:
                box.run_notebook(hog_cells)
            except sandbox.SandboxError:
                pass

        holder = threading.Thread(target=hold)
        holder.start()
        time.sleep(warmup)  # the hog's threads are spinning by now
        try:
            classmates(block, out)
        finally:
            if box._proc is not None:  # the holder then reads the end of the channel and returns
                os.killpg(box._proc.pid, signal.SIGKILL)
            holder.join()
            box.kill()

    calm_times: list[float] = []
    hog_times: list[float] = []
    for r in range(rounds):
        if r % 2 == 0:
            calm(calm_times)
            hogged(hog_times)
        else:
            hogged(hog_times)
            calm(calm_times)
    return calm_times, hog_times
