"""A class folder: which files are whose, the roster, duplicates, and the files written for the teacher.

Nothing is lost: every file under the submissions folder ends up either graded (one CSV row per student) or in
the list of files not graded, with a reason. Submissions are copied into a private folder and checksummed before
any grading; grading reads only the copies. Every output is written atomically (temporary file, then rename),
and text cells that a spreadsheet would read as a formula are neutralised.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ID_RE = re.compile(r"^([A-Za-z0-9]+)(?:[-_ .．·—]+(.*))?$")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
H_ID, H_NAME, H_TOTAL, H_POSSIBLE, H_NOTE, H_FILE, H_SUM = "学号", "姓名", "总分", "满分", "备注", "文件", "SHA256"


def cell_text(value: object) -> str:
    """A text cell that Excel/LibreOffice will show as text, never evaluate."""
    text = str(value).replace("\r", " ").replace("\n", " ")
    return "'" + text if text.startswith(FORMULA_START) else text


def atomic_write(path: Path, text: str, encoding: str = "utf-8-sig") -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and an atomic rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def csv_text(rows: Iterable[Sequence[object]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    for row in rows:
        w.writerow(row)
    return buf.getvalue()


@dataclass
class Submission:
    """One notebook file of the folder, as copied for grading."""

    relpath: str  # as found, relative to the submissions folder
    copy: Path  # the private copy that is graded
    sha256: str
    mtime: float
    student_id: str
    name: str  # from the file or folder name, or the roster


@dataclass
class Scan:
    submissions: list[Submission] = field(default_factory=list)
    not_graded: list[tuple[str, str]] = field(default_factory=list)  # (relpath, reason)


def split_name(stem: str) -> tuple[str, str] | None:
    """``2024001-张三`` → ("2024001", "张三"); None when the name does not start with an ID."""
    m = ID_RE.match(stem.strip())
    if not m:
        return None
    return m.group(1), (m.group(2) or "").strip()


def scan(folder: Path, stage: Path) -> Scan:
    """Every file under ``folder``: notebooks (any case of ``.ipynb``, at the top or one subfolder down — the
    subfolder then names the student) are copied into ``stage`` and checksummed; the rest is listed."""
    out = Scan()
    folder = Path(folder)
    for root, dirs, files in os.walk(folder, followlinks=False):
        rel_root = Path(root).relative_to(folder)
        depth = len(rel_root.parts)
        for d in list(dirs):
            if (Path(root) / d).is_symlink():
                out.not_graded.append((str(rel_root / d), "符号链接的文件夹，未跟随"))
                dirs.remove(d)
        for fname in sorted(files):
            rel = str(rel_root / fname)
            path = Path(root) / fname
            if path.is_symlink():
                out.not_graded.append((rel, "符号链接，未跟随"))
                continue
            if ".ipynb_checkpoints" in rel_root.parts:
                out.not_graded.append((rel, "Jupyter 自动保存的检查点副本"))
                continue
            if not fname.lower().endswith(".ipynb"):
                out.not_graded.append((rel, "不是 .ipynb 笔记本"))
                continue
            if depth > 1:
                out.not_graded.append((rel, "文件夹层级过深（只看提交目录和它下面一层的学生文件夹）"))
                continue
            owner = rel_root.parts[0] if depth == 1 else fname[: -len(".ipynb")]
            parsed = split_name(owner)
            if parsed is None:
                where = "文件夹名" if depth == 1 else "文件名"
                out.not_graded.append((rel, f"{where}不以学号开头（应为 <学号>-<姓名>.ipynb）"))
                continue
            data = path.read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            copy = stage / f"{len(out.submissions):04d}.ipynb"
            copy.write_bytes(data)
            out.submissions.append(Submission(rel, copy, digest, path.stat().st_mtime, parsed[0], parsed[1]))
    return out


def read_roster(path: Path) -> dict[str, str]:
    """学号 → 姓名 from a CSV with the columns 学号, 姓名 (UTF-8, with or without BOM, or GBK)."""
    raw = Path(path).read_bytes()
    for enc in ("utf-8-sig", "gbk"):
        try:
            text = raw.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise ValueError(f"{path}：无法识别编码（请存为 UTF-8）")
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows or H_ID not in rows[0]:
        raise ValueError(f"{path}：名单应有“{H_ID}”与“{H_NAME}”两列")
    return {str(r[H_ID]).strip(): str(r.get(H_NAME) or "").strip() for r in rows if str(r[H_ID]).strip()}


def most_common(values: Iterable[str]) -> str:
    counts = Counter(v for v in values if v)
    if not counts:
        return ""
    value, n = counts.most_common(1)[0]
    return f"{value}（{n} 人）"


def copy_tree_private() -> Path:
    """A private folder (mode 700) for the copies of the submissions."""
    return Path(tempfile.mkdtemp(prefix="gradebook-stage-"))


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
