"""Self-check questions: the specs (:class:`Numeric`, :class:`Choice`), the checking rule and the typed-number
parser, all mirrored exactly by ``static/quiz.js``.

Checking rule: a number ``x`` is accepted when ``|x − answer| ≤ max(abs_tol, rel_tol·|answer|)``. Only a rejected
``x`` is compared with the anticipated wrong values, each with the same rule centred on the wrong value; the first
match gives its targeted feedback. Typed answers are read by :func:`parse_number` (decimal comma, ``7/4``,
``2.45e10``, ``2.45×10^10``, full-width digits, a trailing unit, converted when it is another unit of the same
quantity). Rendering lives in :mod:`clusterlab.book.quiz`.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ..units import fmt_num

__all__ = [
    "CORRECT",
    "GENERIC_WRONG",
    "Choice",
    "Judgement",
    "Numeric",
    "Option",
    "Question",
    "format_number",
    "parse_number",
]

#: Feedback for a wrong number that matches no anticipated wrong answer (and for a wrong option without
#: its own feedback).
GENERIC_WRONG = "不对，再想想。"
CORRECT = "正确！"


# --------------------------------------------------------------------------------------------------------
# parsing typed numbers (mirrored by clq.parse in static/quiz.js)
# --------------------------------------------------------------------------------------------------------
_WS = re.compile("[ \t\n\r\u00a0\u2009\u202f\u3000]")
_FULLWIDTH = re.compile("[\uff01-\uff5e]")
_NUM = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_TIMES_TEN = re.compile(r"(.+?)[x×*·]10(?:\^|\*\*)([+-]?[0-9]+)")
_THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]*)?")
_TYPED_UNIT = re.compile("(.*[0-9.])([A-Za-z\u00b5\u03bc][A-Za-z\u00b5\u03bc/]*)")


def _unit_table() -> dict[str, tuple[str, float]]:
    """Units a reader may type in place of the question's own: spelling → (quantity, size in the quantity's base
    unit); the quantity is named by its base unit (``B``, ``b``, ``B/s``, ``b/s``, ``s``)."""
    table: dict[str, tuple[str, float]] = {}
    prefixes = (("", 1.0), ("k", 1e3), ("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12), ("P", 1e15),
                ("Ki", 2.0**10), ("Mi", 2.0**20), ("Gi", 2.0**30), ("Ti", 2.0**40))
    for prefix, size in prefixes:
        for base in ("B", "b", "B/s", "b/s"):
            table[prefix + base] = (base, size)
    for symbol, size in (("s", 1.0), ("ms", 1e-3), ("\u00b5s", 1e-6), ("\u03bcs", 1e-6), ("us", 1e-6),
                         ("ns", 1e-9), ("min", 60.0), ("h", 3600.0)):
        table[symbol] = ("s", size)
    return table


_UNITS = _unit_table()


def _unit_factor(typed: str, unit: str) -> float | None:
    """What one ``typed`` unit is in the question's ``unit``, or ``None`` if it is another quantity, unknown or
    ambiguous. A spelling with capitals is read as spelled (``Gb`` is gigabits, never ``GB``); an all-lowercase
    one is read without regard to case (``gb``, ``gib``, ``kb`` for a question in bytes)."""
    if typed == unit:
        return 1.0
    low = typed.lower()
    if unit not in _UNITS:
        return 1.0 if typed == low == unit.lower() else None
    quantity, size = _UNITS[unit]
    names = list(_UNITS) if typed == low else [typed]
    sizes = {_UNITS[k][1] for k in names if k in _UNITS and _UNITS[k][0] == quantity and k.lower() == low}
    return sizes.pop() / size if len(sizes) == 1 else None


def _normalize(text: str) -> str:
    s = _FULLWIDTH.sub(lambda m: chr(ord(m.group(0)) - 0xFEE0), text)
    return _WS.sub("", s.replace("\u2212", "-"))


def _parse_decimal(part: str) -> float | None:
    m = _TIMES_TEN.fullmatch(part)
    if m:
        part = m.group(1) + "e" + m.group(2)
    if _THOUSANDS.fullmatch(part):
        part = part.replace(",", "")
    elif part.count(",") == 1 and "." not in part:
        part = part.replace(",", ".")
    if not _NUM.fullmatch(part):
        return None
    return float(part)


def parse_number(text: str, unit: str = "") -> float | None:
    """The number a reader typed, or ``None`` if it cannot be read.

    Accepted: ``1.75``, ``1,75`` (decimal comma), ``1,750`` / ``12,345.6`` (thousands groups), ``7/4``,
    ``2.45e10``, ``2.45×10^10`` (also ``x``, ``*``, ``·``, ``**``), full-width digits, ``−`` (U+2212), spaces
    anywhere and a trailing unit: the question's ``unit``, the same in lowercase (``23.25 gb``), or another unit
    of the same quantity, converted (``GiB`` or ``MB`` for ``GB``, ``ms`` for ``s``, ``min`` for ``h``). A unit
    written with capitals is read as spelled, so ``Gb`` (gigabits) is not taken for ``GB``; a unit of another
    quantity or one the table does not know makes the answer unreadable. The JavaScript checker implements the
    same rules.
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    s = _normalize(text)
    u = _normalize(unit)
    factor = 1.0
    if m := _TYPED_UNIT.fullmatch(s):  # the whole trailing run of letters, so "90ms" is not "90m" + "s"
        f = _unit_factor(m.group(2), u)
        if f is None:
            return None
        s, factor = m.group(1), f
    elif u and s.endswith(u):
        s = s[: -len(u)]
    parts = s.split("/")
    if len(parts) > 2:
        return None
    values = [_parse_decimal(p) for p in parts]
    num = values[0]
    if num is None:
        return None
    if len(values) == 2:
        den = values[1]
        if den is None or den == 0:
            return None
        num = num / den
    num = num * factor
    return num if math.isfinite(num) else None


# --------------------------------------------------------------------------------------------------------
# formatting answers
# --------------------------------------------------------------------------------------------------------
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def format_number(value: float, digits: int = 3) -> str:
    """``digits`` significant digits for showing an answer: ``1.75``, ``12 345`` (thin space) between 1e-3 and
    1e6, else ``2.45 × 10¹⁰``."""
    v = float(value)
    if v == 0 or 1e-3 <= abs(v) < 1e6:
        return fmt_num(v, digits)
    mantissa, exponent = f"{v:.{digits - 1}e}".split("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def _unit_suffix(unit: str) -> str:
    return unit if unit in ("%", "°", "‰") or not unit else f" {unit}"


# --------------------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------------------
def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return v


def _text(name: str, value: Any, *, required: bool = False) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a str, got {type(value).__name__}")
    if required and not value.strip():
        raise ValueError(f"{name} must be a non-empty str")
    return value


def _near(centre: float, x: float, rel_tol: float, abs_tol: float) -> bool:
    return abs(x - centre) <= max(abs_tol, rel_tol * abs(centre))


# --------------------------------------------------------------------------------------------------------
# questions
# --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Judgement:
    """Verdict on a typed answer; ``status`` is one of ``empty``, ``invalid``, ``correct``, ``anticipated``
    (matches ``wrong[wrong_index]``) or ``wrong``. ``message`` is the plain-text feedback."""

    status: Literal["empty", "invalid", "correct", "anticipated", "wrong"]
    value: float | None
    wrong_index: int | None
    message: str


@dataclass(frozen=True)
class Numeric:
    """A question answered with a number.

    ``x`` is accepted iff ``|x − answer| ≤ max(abs_tol, rel_tol·|answer|)``. ``wrong`` lists anticipated wrong
    values with targeted feedback, e.g. ``((2 * m, "忘了因子 (N−1)/N。"), (8 * v, "这是比特，不是字节。"))``;
    each must be rejected by that rule (a distractor must be wrong). ``explanation`` is shown after a correct
    answer or on “显示答案”; ``digits`` are the significant digits of the displayed answer; ``unit`` is shown
    after the input box.
    """

    prompt: str
    answer: float
    rel_tol: float = 0.02
    abs_tol: float = 0.0
    unit: str = ""
    wrong: tuple[tuple[float, str], ...] = ()
    explanation: str = ""
    digits: int = 3
    transfer: bool = False  # asks for numbers or a situation the chapter does not print (not rendered)

    def __post_init__(self) -> None:
        _text("prompt", self.prompt, required=True)
        if not isinstance(self.transfer, bool):
            raise ValueError(f"transfer must be a bool, got {self.transfer!r}")
        object.__setattr__(self, "answer", _real("answer", self.answer))
        for name in ("rel_tol", "abs_tol"):
            tol = _real(name, getattr(self, name))
            if tol < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {tol!r}")
            object.__setattr__(self, name, tol)
        _text("unit", self.unit)
        _text("explanation", self.explanation)
        if isinstance(self.digits, bool) or not isinstance(self.digits, int) or not 1 <= self.digits <= 15:
            raise ValueError(f"digits must be an integer in 1..15, got {self.digits!r}")
        if isinstance(self.wrong, str | bytes) or not isinstance(self.wrong, Iterable):
            raise ValueError("wrong must be a sequence of (value, feedback) pairs")
        pairs = []
        for item in self.wrong:
            if not isinstance(item, tuple | list) or len(item) != 2:
                raise ValueError(f"wrong must hold (value, feedback) pairs, got {item!r}")
            value = _real("wrong value", item[0])
            feedback = _text("wrong feedback", item[1], required=True)
            if self.accepts(value):
                raise ValueError(
                    f"wrong value {value!r} is accepted as correct (answer {self.answer!r}, rel_tol "
                    f"{self.rel_tol!r}, abs_tol {self.abs_tol!r}); a distractor must lie outside the "
                    "tolerance"
                )
            pairs.append((value, feedback))
        object.__setattr__(self, "wrong", tuple(pairs))

    def accepts(self, x: float) -> bool:
        """``|x − answer| ≤ max(abs_tol, rel_tol·|answer|)``; NaN and ±inf are never accepted."""
        return _near(self.answer, float(x), self.rel_tol, self.abs_tol)

    def match_wrong(self, x: float) -> int | None:
        """Index of the first anticipated wrong value within tolerance of ``x`` (same rule, centred on that
        value), or ``None``; always ``None`` when ``x`` is accepted."""
        x = float(x)
        if self.accepts(x):
            return None
        for i, (value, _) in enumerate(self.wrong):
            if _near(value, x, self.rel_tol, self.abs_tol):
                return i
        return None

    def feedback_for(self, x: float) -> str:
        """``"正确！"`` if accepted, else the targeted feedback of a matching anticipated wrong value, else
        :data:`GENERIC_WRONG`."""
        if self.accepts(x):
            return CORRECT
        i = self.match_wrong(x)
        return GENERIC_WRONG if i is None else self.wrong[i][1]

    def judge(self, text: str) -> Judgement:
        """What the page answers when ``text`` is typed and “检查” is pressed."""
        if not _normalize(text):
            return Judgement("empty", None, None, "请先填写答案。")
        x = parse_number(text, self.unit)
        if x is None:
            return Judgement("invalid", None, None, "无法识别这个数。请填写数字，例如 1.75、7/4 或 2.45e10。")
        if self.accepts(x):
            return Judgement("correct", x, None, CORRECT)
        i = self.match_wrong(x)
        if i is None:
            return Judgement("wrong", x, None, GENERIC_WRONG)
        return Judgement("anticipated", x, i, self.wrong[i][1])

    @property
    def answer_text(self) -> str:
        """The answer as shown by “显示答案”, with its unit: ``1.75 GB``."""
        return format_number(self.answer, self.digits) + _unit_suffix(self.unit)

    @property
    def tolerance_text(self) -> str:
        """How close an answer must be, for the hint under the input box."""
        rel = f"±{fmt_num(self.rel_tol * 100, 3)}%"
        ab = f"±{format_number(self.abs_tol, 3)}{_unit_suffix(self.unit)}"
        if self.rel_tol > 0 and self.abs_tol > 0:
            return f"允许误差 {rel} 或 {ab}（取较大者）"
        if self.rel_tol > 0:
            return f"允许误差 {rel}"
        if self.abs_tol > 0:
            return f"允许误差 {ab}"
        return "须填写精确值"


@dataclass(frozen=True)
class Option:
    """One option of a :class:`Choice`; ``feedback`` is shown next to it once chosen and checked."""

    text: str
    correct: bool
    feedback: str = ""

    def __post_init__(self) -> None:
        _text("option text", self.text, required=True)
        if not isinstance(self.correct, bool):
            raise ValueError(f"option correct must be a bool, got {self.correct!r}")
        _text("option feedback", self.feedback)


@dataclass(frozen=True)
class Choice:
    """A multiple-choice question: radio buttons if ``multiple`` is False (exactly one option correct), else
    checkboxes (at least one correct; the answer is right only if exactly the correct set is chosen)."""

    prompt: str
    options: tuple[Option, ...]
    multiple: bool = False
    explanation: str = ""
    transfer: bool = False  # asks for numbers or a situation the chapter does not print (not rendered)

    def __post_init__(self) -> None:
        _text("prompt", self.prompt, required=True)
        _text("explanation", self.explanation)
        if not isinstance(self.transfer, bool):
            raise ValueError(f"transfer must be a bool, got {self.transfer!r}")
        if not isinstance(self.multiple, bool):
            raise ValueError(f"multiple must be a bool, got {self.multiple!r}")
        opts = tuple(self.options)
        if len(opts) < 2:
            raise ValueError(f"options must hold at least 2 options, got {len(opts)}")
        if not all(isinstance(o, Option) for o in opts):
            raise ValueError("options must be Option instances (use choice() to build them from tuples)")
        n_correct = sum(o.correct for o in opts)
        if not self.multiple and n_correct != 1:
            raise ValueError(f"a single-choice question needs exactly 1 correct option, got {n_correct}")
        if self.multiple and n_correct < 1:
            raise ValueError("a multiple-choice question needs at least 1 correct option, got 0")
        object.__setattr__(self, "options", opts)

    @property
    def correct_indices(self) -> frozenset[int]:
        return frozenset(i for i, o in enumerate(self.options) if o.correct)

    def accepts(self, selected: Iterable[int]) -> bool:
        """True iff the set of selected option indices (0-based) is exactly the set of correct options."""
        chosen: set[int] = set()
        for i in selected:
            if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < len(self.options):
                raise ValueError(
                    f"selected indices must be integers in 0..{len(self.options) - 1}, got {i!r}"
                )
            chosen.add(int(i))
        return chosen == self.correct_indices


Question = Numeric | Choice
