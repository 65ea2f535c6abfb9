"""A class folder: which files are whose, the roster, duplicates, and the files written for the teacher.

Nothing is lost: every entry under the submissions folder ends up either graded (a CSV row) or in the list of
files not graded, with a reason. File names are read as bytes, so a name in any encoding is accounted for (UTF-8,
else GB18030 — what ``unzip`` leaves of a zip made on Chinese Windows —, else shown with its raw bytes escaped).
Only regular files are opened (never a FIFO, socket or device; links are not followed), and a file's size is
checked before a byte of it is read. Submissions are copied into a private folder and checksummed before any
grading; grading reads only the copies. Every output is written atomically (temporary file, then rename), and text
cells that a spreadsheet would read as a formula are neutralised; control characters and lone surrogates never
reach a file or the terminal.

Identities: a 学号 is normalised (NFKC, control characters removed, at most :data:`MAX_ID` characters) and
matched to the roster case-insensitively. Besides ``<学号>-<姓名>.ipynb`` and ``<学号>-<姓名>/…``, the layouts
of the two LMS bulk downloads are recognised: Canvas ``<name>_[LATE_]<user id>_<submission id>_<file>`` and
Moodle ``<Full name>_<participant id>_assignsubmission_file_/<file>`` (or the same prefix on the file); the LMS
user id is mapped to a 学号 through the roster's ``LMS ID`` column (or a Canvas gradebook export used as the
roster).
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import shutil
import stat
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

MAX_NOTEBOOK_BYTES = 20 * 1024**2
MAX_ID = 32
MAX_NAME = 40
MAX_NOTE = 600
ID_RE = re.compile(r"^([A-Za-z0-9]+)(?:[-_ .．·—]+(.*))?$")
CANVAS_RE = re.compile(r"^(?P<name>[^_/]+)_(?:(?P<late>LATE)_)?(?P<uid>\d+)_(?P<sub>\d+)_(?P<orig>.+)$")
MOODLE_RE = re.compile(r"^(?P<name>.+?)_(?P<uid>\d+)_assignsubmission_(?P<plugin>file|onlinetext)_(?P<orig>.*)$")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
H_ID, H_NAME, H_TOTAL, H_POSSIBLE, H_NOTE, H_FILE, H_SUM = "学号", "姓名", "总分", "满分", "备注", "文件", "SHA256"
LMS_COLUMNS = ("LMS ID", "Canvas ID", "Moodle ID", "lms_id")
STAGE_PREFIX = "gradebook-stage-"


# ----------------------------------------------------------------------------------------------------------
# text that is safe to write and to print
# ----------------------------------------------------------------------------------------------------------
def printable(value: object, limit: int | None = None) -> str:
    """``value`` as text with control characters, format characters and lone surrogates escaped (``\\x1b``),
    optionally cut to ``limit`` characters (marked with …)."""
    text = str(value)
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Cs" or (cat[0] == "C" and ch not in "\t"):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    text = "".join(out).replace("\t", " ")
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 1, 0)] + "…"
    return text


def cell_text(value: object, limit: int | None = None) -> str:
    """A text cell that Excel/LibreOffice will show as text, never evaluate."""
    text = printable(value, limit)
    return "'" + text if text.startswith(FORMULA_START) else text


def normalise_id(value: object) -> str:
    """A 学号 as compared and stored: NFKC (full-width digits become ASCII), no control or format characters,
    no surrounding spaces, at most :data:`MAX_ID` characters."""
    text = unicodedata.normalize("NFKC", str(value))
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
    return text.strip()[:MAX_ID]


def id_key(value: object) -> str:
    """The roster key of a 学号: normalised and case-folded."""
    return normalise_id(value).casefold()


def atomic_write(path: Path, text: str, encoding: str = "utf-8-sig") -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and an atomic rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="", errors="backslashreplace") as f:
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


def read_csv_rows(path: Path) -> list[list[str]]:
    """A CSV written by anyone (UTF-8 with or without BOM, UTF-16, or GB18030), however long its fields."""
    csv.field_size_limit(2**31 - 1)
    text = decode_text(Path(path).read_bytes(), str(path))
    return list(csv.reader(io.StringIO(text)))


def decode_text(raw: bytes, where: str) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    for enc in ("utf-8-sig", "gb18030"):
        try:
            return raw.decode(enc)
        except UnicodeDecodeError:
            continue
    raise ValueError(f"{where}：无法识别编码（请存为 UTF-8）")


# ----------------------------------------------------------------------------------------------------------
# file names in any encoding
# ----------------------------------------------------------------------------------------------------------
def decode_name(raw: bytes) -> tuple[str, str]:
    """A file name as text, and "" or a remark on how it was read (names that are not UTF-8)."""
    try:
        return raw.decode("utf-8"), ""
    except UnicodeDecodeError:
        pass
    escaped = raw.decode("ascii", "backslashreplace")
    try:
        text = raw.decode("gb18030")
    except UnicodeDecodeError:
        return escaped, f"文件名不是 UTF-8 也不是 GB18030，按原始字节显示：{escaped}"
    return text, f"文件名不是 UTF-8，按 GB18030 读作“{printable(text)}”（原始字节 {escaped}）"


def display_path(parts: Sequence[bytes]) -> tuple[str, str]:
    """A relative path as shown to the teacher (every part decoded and escaped) and the remarks on it."""
    texts, remarks = [], []
    for p in parts:
        text, remark = decode_name(p)
        texts.append(printable(text))
        if remark:
            remarks.append(remark)
    return "/".join(texts), "；".join(remarks)


@dataclass
class Submission:
    """One notebook file of the folder, as copied for grading."""

    relpath: str  # as found, relative to the submissions folder (decoded, escaped)
    copy: Path | None  # the private copy that is graded; None when ``problem`` says why it cannot be
    sha256: str
    mtime: float
    student_id: str
    name: str  # from the file or folder name, or the roster
    remark: str = ""  # how the name was read, the LMS layout, …
    problem: str = ""  # a reason to give a zero row without grading (too large, …)
    lms: str = ""  # "canvas" / "moodle" when found in an LMS layout
    lms_id: str = ""
    late_flag: bool = False  # the LMS marked it late (Canvas ``LATE``)


@dataclass
class Scan:
    submissions: list[Submission] = field(default_factory=list)
    not_graded: list[tuple[str, str]] = field(default_factory=list)  # (relpath, reason)


def split_name(stem: str) -> tuple[str, str] | None:
    """``2024001-张三`` → ("2024001", "张三"); None when the name does not start with an ID (of at most
    :data:`MAX_ID` characters)."""
    m = ID_RE.match(unicodedata.normalize("NFKC", stem).strip())  # control characters never match an ID
    if not m or len(m.group(1)) > MAX_ID:
        return None
    return m.group(1), (m.group(2) or "").strip()[:MAX_NAME]


@dataclass
class Owner:
    student_id: str
    name: str
    lms: str = ""
    lms_id: str = ""
    late: bool = False
    remark: str = ""


def owner_of(top: str, fname: str, depth: int) -> Owner | None:
    """Whose file this is, from the layout of its path; None when no layout fits."""
    stem = fname[: -len(".ipynb")] if fname.lower().endswith(".ipynb") else fname
    if depth == 1:
        m = MOODLE_RE.match(top)
        if m:
            return Owner("", m.group("name").strip()[:MAX_NAME], "moodle", m.group("uid"))
        parsed = split_name(top)
        return Owner(*parsed) if parsed else None
    m = MOODLE_RE.match(stem)
    if m:
        return Owner("", m.group("name").strip()[:MAX_NAME], "moodle", m.group("uid"))
    m = CANVAS_RE.match(stem)
    if m:
        return Owner("", m.group("name")[:MAX_NAME], "canvas", m.group("uid"), late=bool(m.group("late")))
    parsed = split_name(stem)
    return Owner(*parsed) if parsed else None


_KIND = {stat.S_IFIFO: "命名管道（FIFO）", stat.S_IFSOCK: "套接字", stat.S_IFCHR: "字符设备", stat.S_IFBLK: "块设备"}


def read_regular(path: bytes, limit: int) -> tuple[bytes | None, str, os.stat_result | None]:
    """The bytes of a regular file of at most ``limit`` bytes, or None and the reason. Never follows a link,
    never opens anything but a regular file, never reads more than ``limit`` + 1 bytes."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return None, f"无法读取（{exc.strerror}）", None
    if stat.S_ISLNK(st.st_mode):
        return None, "符号链接，未跟随", st
    if not stat.S_ISREG(st.st_mode):
        return None, f"不是普通文件（{_KIND.get(stat.S_IFMT(st.st_mode), '特殊文件')}），未打开", st
    if st.st_size > limit:
        return None, f"文件有 {st.st_size / 2**20:.0f} MB，超过 {limit // 2**20} MB 的上限，未评分", st
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        return None, f"无法读取（{exc.strerror}）", st
    try:
        fst = os.fstat(fd)
        if not stat.S_ISREG(fst.st_mode) or (fst.st_dev, fst.st_ino) != (st.st_dev, st.st_ino):
            return None, "文件在读取时被替换，未评分", st
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            return None, f"文件超过 {limit // 2**20} MB 的上限，未评分", st
        return b"".join(chunks), "", fst
    except OSError as exc:
        return None, f"无法读取（{exc.strerror}）", st
    finally:
        os.close(fd)


def scan(folder: Path, stage: Path, limit: int = MAX_NOTEBOOK_BYTES) -> Scan:
    """Every entry under ``folder``: notebooks (any case of ``.ipynb``, at the top or one subfolder down — the
    subfolder then names the student) are copied into ``stage`` and checksummed; the rest is listed."""
    out = Scan()
    base = os.fsencode(Path(folder))

    def walk_error(exc: OSError) -> None:
        where = os.fsencode(exc.filename) if exc.filename else base
        rel = os.path.relpath(where, base)
        shown, _ = display_path([p for p in rel.split(b"/") if p not in (b".", b"")])
        out.not_graded.append((shown or ".", f"无法读取文件夹（{exc.strerror}）"))

    for root, dirs, files in os.walk(base, followlinks=False, onerror=walk_error):
        rel_parts = [p for p in os.path.relpath(root, base).split(b"/") if p not in (b".", b"")]
        depth = len(rel_parts)
        for d in list(dirs):
            st = _lstat(os.path.join(root, d))
            if st is None or not stat.S_ISDIR(st.st_mode):
                dirs.remove(d)
                files.append(d)  # a link to a folder is listed like a file below
        for fname in sorted(files):
            parts = [*rel_parts, fname]
            rel, remark = display_path(parts)
            path = os.path.join(root, fname)

            def listed(reason: str, rel: str = rel, remark: str = remark) -> None:
                out.not_graded.append((rel, "；".join(x for x in (reason, remark) if x)))

            name_text = decode_name(fname)[0]
            if depth >= 1 and any(decode_name(p)[0] == ".ipynb_checkpoints" for p in rel_parts):
                listed("Jupyter 自动保存的检查点副本")
                continue
            st = _lstat(path)
            if st is not None and stat.S_ISLNK(st.st_mode):
                listed("符号链接，未跟随")
                continue
            if st is not None and not stat.S_ISREG(st.st_mode):
                kind = _KIND.get(stat.S_IFMT(st.st_mode), "特殊文件")
                listed(f"不是普通文件（{kind}），未打开")
                continue
            if not name_text.lower().endswith(".ipynb"):
                listed("不是 .ipynb 笔记本")
                continue
            if depth > 1:
                listed("文件夹层级过深（只看提交目录和它下面一层的学生文件夹）")
                continue
            top = decode_name(rel_parts[0])[0] if depth == 1 else ""
            owner = owner_of(top, name_text, depth)
            if owner is None:
                where = "文件夹名" if depth == 1 else "文件名"
                listed(f"{where}不以学号开头（应为 <学号>-<姓名>.ipynb，学号至多 {MAX_ID} 个字符）")
                continue
            data, problem, st2 = read_regular(path, limit)
            if data is None and st2 is not None and stat.S_ISREG(st2.st_mode) and "上限" in problem:
                sub = Submission(rel, None, "", st2.st_mtime, owner.student_id, owner.name, remark, problem,
                                 owner.lms, owner.lms_id, owner.late)
                out.submissions.append(sub)
                continue
            if data is None:
                listed(problem)
                continue
            digest = hashlib.sha256(data).hexdigest()
            copy = stage / f"{len(out.submissions):04d}.ipynb"
            copy.write_bytes(data)
            mtime = st2.st_mtime if st2 is not None else 0.0
            out.submissions.append(Submission(rel, copy, digest, mtime, owner.student_id, owner.name, remark, "",
                                              owner.lms, owner.lms_id, owner.late))
    return out


def _lstat(path: bytes) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


# ----------------------------------------------------------------------------------------------------------
# the roster
# ----------------------------------------------------------------------------------------------------------
@dataclass
class Roster:
    """学号 → 姓名, matched case-insensitively, and LMS user id → 学号."""

    names: dict[str, str] = field(default_factory=dict)  # canonical 学号 → 姓名
    keys: dict[str, str] = field(default_factory=dict)  # id_key → canonical 学号
    lms: dict[str, str] = field(default_factory=dict)  # LMS user id → canonical 学号
    lms_of: dict[str, str] = field(default_factory=dict)  # canonical 学号 → LMS user id
    source: str = "roster"  # "roster", "canvas" or "moodle"

    def add(self, sid: str, name: str, lms_id: str = "") -> None:
        sid = normalise_id(sid)
        if not sid:
            return
        self.names[sid] = printable(name.strip(), MAX_NAME)
        self.keys[id_key(sid)] = sid
        if lms_id.strip():
            self.lms[lms_id.strip()] = sid
            self.lms_of[sid] = lms_id.strip()

    def canonical(self, sid: str) -> str | None:
        return self.keys.get(id_key(sid))

    def __contains__(self, sid: object) -> bool:
        return isinstance(sid, str) and self.canonical(sid) is not None

    def items(self) -> Iterable[tuple[str, str]]:
        return self.names.items()


def read_roster(path: Path) -> Roster:
    """The roster: a CSV with the columns 学号, 姓名 (and optionally ``LMS ID``); or a Canvas gradebook export
    (Student, ID, SIS User ID — the SIS User ID is the 学号); or a Moodle grading worksheet with an ``ID number``
    column. UTF-8 with or without BOM, UTF-16 or GBK."""
    rows = read_csv_rows(Path(path))
    if not rows:
        raise ValueError(f"{path}：名单是空的")
    head = [h.strip() for h in rows[0]]
    roster = Roster()

    def col(*names: str) -> int | None:
        for n in names:
            if n in head:
                return head.index(n)
        return None

    def cell(r: list[str], i: int | None) -> str:
        return r[i].strip() if i is not None and i < len(r) else ""

    sid_col, name_col, lms_col = col(H_ID), col(H_NAME), col(*LMS_COLUMNS)
    if sid_col is None and col("SIS User ID", "SIS Login ID") is not None and col("Student") is not None:
        roster.source = "canvas"
        sid_col, name_col, lms_col = col("SIS User ID", "SIS Login ID"), col("Student"), col("ID")
    elif sid_col is None and col("Identifier") is not None and col("ID number") is not None:
        roster.source = "moodle"
        sid_col, name_col, lms_col = col("ID number"), col("Full name"), col("Identifier")
    if sid_col is None:
        raise ValueError(f"{path}：名单应有“{H_ID}”与“{H_NAME}”两列"
                         "（或是 Canvas 成绩册导出、带 ID number 的 Moodle 评分表）")
    for r in rows[1:]:
        sid = cell(r, sid_col)
        if not sid or sid.startswith("Points Possible") or cell(r, name_col).startswith("Points Possible"):
            continue
        lms_id = re.sub(r"^Participant\s*", "", cell(r, lms_col))
        roster.add(sid, cell(r, name_col), lms_id)
    return roster


def most_common(values: Iterable[str]) -> str:
    counts = Counter(v for v in values if v)
    if not counts:
        return ""
    value, n = counts.most_common(1)[0]
    return f"{value}（{n} 人）"


# ----------------------------------------------------------------------------------------------------------
# the private stage
# ----------------------------------------------------------------------------------------------------------
def copy_tree_private() -> Path:
    """A private folder (mode 700) for the copies of the submissions; stages left by runs that were killed
    (their process is gone) are removed first."""
    remove_stale_stages()
    return Path(tempfile.mkdtemp(prefix=f"{STAGE_PREFIX}{os.getpid()}-"))


def remove_stale_stages(tmp: Path | None = None) -> list[Path]:
    """Remove the stage folders of grading runs whose process no longer exists; return them."""
    removed: list[Path] = []
    root = Path(tmp or tempfile.gettempdir())
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for p in entries:
        m = re.fullmatch(rf"{STAGE_PREFIX}(\d+)-\w+", p.name)
        if not m or not p.is_dir() or p.is_symlink():
            continue
        try:
            if p.stat().st_uid != os.getuid():
                continue
            os.kill(int(m.group(1)), 0)
        except ProcessLookupError:
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
        except (PermissionError, OSError):
            continue
    return removed


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
