"""The judge: grade one submission's code against a grading package, outside the sandbox.

A grading package (built by ``tools/build_exercises.py``) is a zip holding ``exercise.json`` (the set's name, its
questions with their points, every check — public and hidden — as source code) and ``variant.py`` (the generator
of each student's data). The checks are the teacher's code; they run here, in the grader's process, and import
``clusterlab`` for the keys. The student's code runs in the sandbox (``sandbox.py``); a check reaches it only
through :class:`Remote` objects: reading a name of the notebook gives its value as data, calling a student
function sends the arguments as data and returns the result as data (or another handle). Nothing the sandbox
sends back is ever executed or unpickled here, so the student's code cannot see a key, change a check or set a
score; each question's score is the sum of its passed checks, capped at the question's points.

A check's parameter named ``data`` receives the student's variant data computed here from the student ID (not
the notebook's copy), so value questions are checked against that student's own numbers.

A check may declare (``reference:`` in its TEST CONFIG) functions of earlier questions that it grades with the
reference implementation instead of the student's: while that check runs, those names of the notebook are the
reference implementations (sent into the sandbox with the check and run there in a namespace of their own, so
the student's functions that call them call the reference), and a check parameter of that name is the reference
run here. A mistake in question A then costs A's marks only, not those of B's checks that call A's function.
The reference source is the master's own solution code (only the definitions these names need); it is in the
grading package, never in the student notebook.

A check's assertion message may come in steps, ``assert ok, 提示("哪里不对、看哪里", "点名公式")`` (see
:mod:`.hints`; the checks run here in a namespace that defines ``提示``). The student's self-check shows one step
more at each failure; a graded report must not hand out the later steps, so a failed check's message here is its
first step only — unless ``Package.hint_steps`` (``clusterlab-grade --hint-steps N``) asks for the first ``N``.
A plain string message is reported as it is.
"""

from __future__ import annotations

import builtins
import copy
import hashlib
import inspect
import json
import pickle
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import protocol
from .hints import HINT_NAME, hint_text, 提示
from .sandbox import Limits, Sandbox, SandboxError, Spares

FORMAT = 1
HIDDEN_MARKER = "【隐藏测试】"


class PackageError(Exception):
    """The grading package is missing or malformed."""


class StudentError(Exception):
    """Raised in a check when the student's code raised inside the sandbox."""


_MAPPED = ("ValueError", "TypeError", "KeyError", "IndexError", "ZeroDivisionError", "ArithmeticError",
           "OverflowError", "AttributeError", "NameError", "RuntimeError", "NotImplementedError", "LookupError",
           "TimeoutError", "RecursionError", "MemoryError", "AssertionError", "OSError", "FloatingPointError",
           "PermissionError", "UnboundLocalError")
_EXC_CACHE: dict[str, type[Exception]] = {}


def student_exception(err: dict[str, Any]) -> Exception:
    """An exception for the check to see: same builtin class as in the sandbox (so ``except ValueError`` works),
    always also a :class:`StudentError`; never a BaseException that could stop the grader."""
    name = str(err.get("type", "Exception"))[:80]
    msg = str(err.get("msg", ""))[:300]
    raw_bases = err.get("bases")
    bases: list[Any] = raw_bases if isinstance(raw_bases, list) else []
    mapped = next((str(b) for b in [name, *bases] if str(b) in _MAPPED), None)  # a subclass of ValueError stays one
    base = getattr(builtins, mapped) if mapped is not None else Exception
    key = mapped or "Error"
    cls = _EXC_CACHE.get(key)
    if cls is None:
        cls = type(f"Student{key}", (base, StudentError), {})
        _EXC_CACHE[key] = cls
    exc = cls(msg)
    exc.student_type = name  # type: ignore[attr-defined]
    return exc


PROPERTY_PREFIX = "性质："
_GENERIC_HINTS = (
    ("随机输入", "用评分程序自选的随机输入调用你的函数，结果与参考实现不一致"),
    ("你的", "用你的数据核对，结果不对"),
    ("同一个 seed", "重复运行或换随机数种子时的行为不对"),
)


def hidden_hint(description: str) -> str:
    """What a failed hidden check may tell the student: the property it tests, when the master states one as
    the first line of its docstring (``【隐藏测试】q1：性质：…``); otherwise a fixed sentence chosen from the kind
    of check (never the description itself, which may name the reference or the key)."""
    first = description.strip().splitlines()[0].strip() if description.strip() else ""
    if first.startswith(PROPERTY_PREFIX):
        return "未通过：" + first[len(PROPERTY_PREFIX):].strip()[:200]
    for marker, sentence in _GENERIC_HINTS:
        if marker in first:
            return f"未通过（{sentence}）"
    return "未通过"


# ------------------------------------------------------------------------------------------------------------
# the grading package
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Check:
    name: str
    points: float
    hidden: bool
    source: str
    description: str
    reference: tuple[str, ...] = ()  # earlier questions' functions graded with the reference implementation


@dataclass(frozen=True)
class Question:
    name: str
    points: float
    checks: tuple[Check, ...]
    manual: tuple[dict[str, Any], ...] = ()  # free-text answers for the teacher: name, rubric, points (or None)


@dataclass
class Package:
    """A loaded grading package."""

    set_name: str
    questions: tuple[Question, ...]
    variant_source: str
    sample_id: str
    digest: str
    starter_cells: list[str] = field(default_factory=list)  # the student notebook's code cells as handed out
    reference_source: str = ""  # the definitions that the checks' ``reference`` names need (from the master)
    hint_steps: int = 1  # how many steps of a check's hint (``提示(…)``) a failed check reports
    _variant: dict[str, Any] | None = None
    _functions: dict[str, Callable[..., Any]] = field(default_factory=dict)
    _reference: dict[str, Any] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def possible(self) -> float:
        """Points of the automatic checks."""
        return sum(q.points for q in self.questions)

    @property
    def manual(self) -> list[dict[str, Any]]:
        """Every free-text answer reviewed by the teacher: question, name, rubric, points (None: not fixed)."""
        return [{"question": q.name, **m} for q in self.questions for m in q.manual]

    @property
    def possible_all(self) -> float:
        """Points of the automatic checks and of the manual answers whose points the master fixes."""
        return self.possible + sum(float(m["points"]) for m in self.manual if m.get("points") is not None)

    @classmethod
    def load(cls, path: Path) -> Package:
        path = Path(path)
        try:
            if path.is_dir():
                raw = (path / "exercise.json").read_bytes()
                variant = (path / "variant.py").read_text(encoding="utf-8")
            else:
                with zipfile.ZipFile(path) as zf:
                    raw = zf.read("exercise.json")
                    variant = zf.read("variant.py").decode("utf-8")
            spec = json.loads(raw)
        except (OSError, KeyError, zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise PackageError(f"{path} 不是评分包（应含 exercise.json 与 variant.py）：{exc}") from None
        if spec.get("format") != FORMAT:
            raise PackageError(f"{path}：评分包格式 {spec.get('format')!r} 不受支持（应为 {FORMAT}）")
        questions = tuple(
            Question(q["name"], float(q["points"]),
                     tuple(Check(c["name"], float(c["points"]), bool(c["hidden"]), c["source"], c["description"],
                                 tuple(str(n) for n in c.get("reference", [])))
                           for c in q["checks"]),
                     tuple({"name": str(m["name"]), "rubric": str(m.get("rubric", "")),
                            "points": None if m.get("points") is None else float(m["points"])}
                           for m in q.get("manual", [])))
            for q in spec["questions"]
        )
        digest = hashlib.sha256(raw + variant.encode("utf-8")).hexdigest()[:12]
        starter = [str(c) for c in spec.get("starter", [])]
        reference = str(spec.get("reference_source", ""))
        if any(c.reference for q in questions for c in q.checks) and not reference:
            raise PackageError(f"{path}：有检查声明了参考实现（reference），但评分包里没有参考实现的代码")
        return cls(spec["set"], questions, variant, spec.get("sample_id", ""), digest, starter, reference)

    def variant(self) -> dict[str, Any]:
        if self._variant is None:
            ns: dict[str, Any] = {"__name__": "variant"}
            exec(compile(self.variant_source, "variant.py", "exec"), ns)
            self._variant = ns
        return self._variant

    def data_for(self, student_id: str) -> dict[str, Any]:
        """The student's data (same generator as in the student notebook)."""
        return dict(self.variant()["student_data"](student_id))

    def function(self, check: Check) -> Callable[..., Any]:
        fn = self._functions.get(check.name)
        if fn is None:
            ns = check_namespace(check.name)
            exec(compile(check.source, f"<{check.name}>", "exec"), ns)
            fn = ns[check.name]
            self._functions[check.name] = fn
        return fn

    def reference(self, name: str) -> Any:
        """The reference implementation ``name``, run here (for a check that calls it itself)."""
        with self._lock:
            if self._reference is None:
                ns: dict[str, Any] = {"__name__": "reference"}
                exec(compile(self.reference_source, "<参考实现>", "exec"), ns)
                self._reference = ns
        return self._reference[name]


# ------------------------------------------------------------------------------------------------------------
# talking to the sandbox
# ------------------------------------------------------------------------------------------------------------
class Remote:
    """An object that lives in the sandbox. Calls, attributes and items are requests; results are data."""

    __slots__ = ("_conn", "_h", "_kind")

    def __init__(self, conn: Connection, h: int, kind: str) -> None:
        object.__setattr__(self, "_conn", conn)
        object.__setattr__(self, "_h", h)
        object.__setattr__(self, "_kind", kind)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._conn.call(self, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._conn.ask({"op": "attr", "h": self._h, "name": name})

    def __setattr__(self, name: str, value: Any) -> None:
        self._conn.ask({"op": "setattr", "h": self._h, "name": name, "value": self._conn.encode(value)})

    def __getitem__(self, key: Any) -> Any:
        return self._conn.ask({"op": "item", "h": self._h, "key": self._conn.encode(key)})

    def __len__(self) -> int:
        n = self._conn.ask({"op": "len", "h": self._h})
        if type(n) is not int or n < 0:
            raise TypeError("len() 的结果不是非负整数")
        return n

    def __iter__(self) -> Any:
        items = self._conn.ask({"op": "list", "h": self._h})
        if not isinstance(items, list):
            raise TypeError("无法逐个取出")
        return iter(items)

    def __bool__(self) -> bool:
        raise TypeError(f"学生代码中的 {self._kind} 对象不能当作真假值")

    def __repr__(self) -> str:
        try:
            text = self._conn.ask({"op": "repr", "h": self._h})
        except (StudentError, SandboxError):
            text = None
        if isinstance(text, str) and text:
            return text[:200]
        return f"<学生代码中的 {self._kind} 对象>"


class Connection:
    """The judge's side of the channel: encodes arguments, decodes answers, reflects mutated arguments."""

    def __init__(self, sandbox: Sandbox, call_timeout: float) -> None:
        self.sandbox = sandbox
        self.call_timeout = call_timeout
        self.handles: dict[int, tuple[Any, int]] = {}  # id(value) → (value, handle) for containers from the sandbox
        self.reference_sent = False  # the sandbox has the reference implementations' source

    def _pre(self, o: Any) -> Any:
        if isinstance(o, Remote):
            return {"__t": "ref", "h": o._h}
        known = self.handles.get(id(o))
        if known is not None and known[0] is o:
            return {"__t": "ref", "h": known[1]}
        return None

    def encode(self, value: Any) -> Any:
        return protocol.encode(value, None, self._pre)

    def decode(self, data: Any) -> Any:
        return protocol.decode(data, lambda h, kind: Remote(self, h, kind))

    def ask(self, request: dict[str, Any], seconds: float | None = None) -> Any:
        answer = self.sandbox.request(request, (seconds or self.call_timeout) + 2.0)
        return self._value(answer)

    def _value(self, answer: dict[str, Any]) -> Any:
        if "error" in answer:
            err = answer["error"]
            raise student_exception(err if isinstance(err, dict) else {})
        try:
            value = self.decode(answer.get("v"))
        except (ValueError, TypeError, KeyError, RecursionError, OverflowError) as exc:
            raise StudentError(f"无法识别的数据：{exc}") from None
        h = answer.get("h")
        if (type(h) is int and isinstance(value, list | dict)) or type(value).__name__ == "ndarray":
            if type(h) is int:
                self.handles[id(value)] = (value, h)
        return value

    def get(self, name: str) -> Any:
        return self.ask({"op": "get", "name": name})

    def get_many(self, names: list[str]) -> list[Any]:
        """The values of several names in one exchange; a name that failed gives its exception (in place)."""
        if len(names) <= 1:
            out: list[Any] = []
            for name in names:
                try:
                    out.append(self.get(name))
                except StudentError as exc:
                    out.append(exc)
            return out
        answer = self.sandbox.request({"op": "many", "names": names}, self.call_timeout + 2.0)
        items = answer.get("many")
        if not isinstance(items, list) or len(items) != len(names):
            if "error" in answer:
                self._value(answer)
            raise StudentError("无法识别的数据")
        out = []
        for item in items:
            try:
                out.append(self._value(item if isinstance(item, dict) else {}))
            except StudentError as exc:
                out.append(exc)
        return out

    def substitute(self, names: tuple[str, ...], source: str) -> None:
        """The reference implementations in place of the notebook's ``names`` until :meth:`restore`."""
        request: dict[str, Any] = {"op": "subst", "names": list(names), "t": self.call_timeout}
        if not self.reference_sent:
            request["source"] = source
        self.ask(request)
        self.reference_sent = True

    def restore(self) -> None:
        self.ask({"op": "restore"})

    def call(self, fn: Remote, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        request = {"op": "call", "h": fn._h, "a": [self.encode(a) for a in args],
                   "k": {str(k): self.encode(v) for k, v in kwargs.items()}, "t": self.call_timeout}
        answer = self.sandbox.request(request, self.call_timeout + 2.0)
        mutated = answer.get("mut")
        if isinstance(mutated, dict):
            for key, enc in mutated.items():
                try:
                    _write_back(args[int(key)], self.decode(enc))
                except (ValueError, TypeError, IndexError, KeyError, RecursionError):
                    continue
        return self._value(answer)


def _write_back(original: Any, new: Any) -> None:
    """Make the judge's argument look like the sandbox's argument after the call (in place)."""
    if type(original).__name__ == "ndarray":
        if getattr(new, "shape", None) == original.shape:
            original[...] = new
        else:  # changed shape: make the difference visible anyway
            original.fill(0)
    elif isinstance(original, list) and isinstance(new, list):
        original[:] = new
    elif isinstance(original, dict) and isinstance(new, dict):
        original.clear()
        original.update(new)


# ------------------------------------------------------------------------------------------------------------
# grading one submission
# ------------------------------------------------------------------------------------------------------------
@dataclass
class CheckResult:
    question: str
    name: str
    points: float
    earned: float
    hidden: bool
    message: str  # why it failed ("" when passed); may contain keys for hidden checks: teacher only
    description: str


@dataclass
class Outcome:
    """Everything the judge learned about one submission."""

    scores: dict[str, float]
    checks: list[CheckResult]
    recorded_id: str | None
    cell_errors: list[dict[str, Any]]
    skipped: list[dict[str, Any]]
    fatal: str  # the sandbox died or timed out ("" when not)
    values: dict[str, dict[str, str]]  # question → answer name → short text of the value
    seconds: float
    texts: dict[str, str | None] = field(default_factory=dict)  # free-text answer → text (None: left blank)

    @property
    def total(self) -> float:
        return sum(self.scores.values())


def short(value: Any) -> str:
    """A short text of an answer value for the teacher's statistics (4 significant digits)."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int | float) or (type(value).__module__ == "numpy" and hasattr(value, "item")):
        try:
            v = value.item() if hasattr(value, "item") else value
            if isinstance(v, int | float):
                return f"{v:.4g}"
        except (TypeError, ValueError):
            pass
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


class Unanswered(Exception):
    """A name the check reads is still ``...`` as handed out."""


def check_namespace(name: str) -> dict[str, Any]:
    """The globals a check's source runs in: its own module name and the hint class ``提示``."""
    return {"__name__": f"check_{name}", HINT_NAME: 提示}


def _failure(exc: BaseException, hint_steps: int = 1) -> str:
    if isinstance(exc, Unanswered):
        return f"没有作答：{exc} 仍是 ...（请在答案单元格里填写并运行）"
    if isinstance(exc, AssertionError):
        if len(exc.args) == 1:  # a hint in steps reports its first ``hint_steps`` steps; a plain one as it is
            return hint_text(exc.args[0], hint_steps)[0].strip() or "结果不对"
        return str(exc).strip() or "结果不对"
    if isinstance(exc, SandboxError):
        return f"无法继续检查：{exc}"
    if isinstance(exc, StudentError):
        name = getattr(exc, "student_type", type(exc).__name__)
        if name == "NameError":
            return f"没有找到答案：{exc}"
        return f"你的代码出错：{name}: {exc}"
    return f"结果的形式不对（{type(exc).__name__}: {str(exc)[:150]}）"


def _fresh(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of the student's variant data for one check (computed here from the student ID, never from the
    sandbox; a pickle round trip is several times faster than ``copy.deepcopy``)."""
    try:
        fresh: dict[str, Any] = pickle.loads(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
        return fresh
    except (pickle.PicklingError, TypeError, AttributeError):
        return copy.deepcopy(data)


def run_checks(package: Package, conn: Connection, data: dict[str, Any],
               select: Callable[[str, Check], bool] | None = None) -> tuple[list[CheckResult],
                                                                            dict[str, dict[str, str]]]:
    results: list[CheckResult] = []
    values: dict[str, dict[str, str]] = {}
    for q in package.questions:
        seen = values.setdefault(q.name, {})
        for check in q.checks:
            if select is not None and not select(q.name, check):
                continue
            fn = package.function(check)
            message = ""
            substituted = False
            try:
                params = list(inspect.signature(fn).parameters)
                if check.reference:
                    conn.substitute(check.reference, package.reference_source)
                    substituted = True
                names = [p for p in params if p != "data" and p not in check.reference]
                got = dict(zip(names, conn.get_many(names), strict=True))
                args = []
                for param in params:
                    if param == "data":
                        args.append(_fresh(data))
                        continue
                    if param in check.reference:
                        args.append(package.reference(param))
                        continue
                    value = got[param]
                    if isinstance(value, BaseException):
                        raise value
                    if isinstance(value, Remote) and value._kind == "ellipsis":
                        raise Unanswered(param)
                    if not isinstance(value, Remote) and param not in seen:
                        seen[param] = short(value)
                    args.append(value)
                fn(*args)
            except Exception as exc:  # a failed check, whatever the reason
                message = _failure(exc, package.hint_steps)
            if substituted:
                try:
                    conn.restore()
                except (StudentError, SandboxError):
                    pass
            earned = check.points if not message else 0.0
            results.append(CheckResult(q.name, check.name, check.points, earned, check.hidden, message,
                                       check.description))
    return results, values


def grade_cells(
    package: Package,
    cells: list[str],
    student_id: str,
    limits: Limits | None = None,
    *,
    unsafe: bool = False,
    select: Callable[[str, Check], bool] | None = None,
    spares: Spares | None = None,
) -> Outcome:
    """Run ``cells`` in a sandbox and grade them for ``student_id``'s variant.

    ``select(question, check)`` limits grading to the checks it accepts (a question's score then counts only
    those); a gradebook never passes it. With ``spares``, the sandbox is one started ahead, and the next one is
    started while this notebook's cells run."""
    limits = limits or Limits()
    start = time.monotonic()
    data = package.data_for(student_id)
    sandbox: Sandbox | None = None
    fatal = ""
    recorded: str | None = None
    cell_errors: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    results: list[CheckResult] = []
    values: dict[str, dict[str, str]] = {}
    texts: dict[str, str | None] = {}
    try:
        if spares is not None:
            sandbox = spares.take(limits, unsafe)
        else:
            sandbox = Sandbox(limits, unsafe=unsafe)
            sandbox.start()
        ready = sandbox.run_notebook(cells, spares.refill if spares is not None else None)
        cell_errors = [e for e in ready.get("errors", []) if isinstance(e, dict)][:50]
        skipped = [s for s in ready.get("skipped", []) if isinstance(s, dict)][:50]
        conn = Connection(sandbox, limits.call_timeout)
        try:
            got = conn.get("学号")
            recorded = got.strip() if isinstance(got, str) else None
        except (StudentError, SandboxError):
            recorded = None
        results, values = run_checks(package, conn, data, select)
        if select is None:
            texts = read_texts(package, conn)
        fatal = sandbox.dead
    except SandboxError as exc:
        fatal = str(exc)
    finally:
        if sandbox is not None:
            sandbox.close()
    if not results:  # the notebook never got as far as the checks
        results = [CheckResult(q.name, c.name, c.points, 0.0, c.hidden, f"未评分：{fatal}", c.description)
                   for q in package.questions for c in q.checks if select is None or select(q.name, c)]
    scores = {}
    for q in package.questions:
        earned = sum(r.earned for r in results if r.question == q.name)
        scores[q.name] = round(min(max(earned, 0.0), q.points), 6)
    if select is None:
        for m in package.manual:
            texts.setdefault(m["name"], None)
    return Outcome(scores, results, recorded, cell_errors, skipped, fatal, values, time.monotonic() - start, texts)


BLANK_TEXTS = ("", "...", "…", "……", "todo", "TODO", "在这里作答", "（在这里作答）")
MAX_TEXT = 4000


def is_blank_text(value: Any) -> bool:
    """Whether a free-text answer was left as handed out: not a string (``...``), empty, or a placeholder."""
    return not isinstance(value, str) or value.strip() in BLANK_TEXTS


def read_texts(package: Package, conn: Connection) -> dict[str, str | None]:
    """The free-text answers of the notebook (at most :data:`MAX_TEXT` characters each; None when blank)."""
    out: dict[str, str | None] = {}
    for m in package.manual:
        try:
            value = conn.get(m["name"])
        except (StudentError, SandboxError):
            value = None
        out[m["name"]] = None if is_blank_text(value) else str(value)[:MAX_TEXT]
    return out
