"""Self-check quizzes for the book: question specs, the checking rule, and a static HTML/JS renderer.

A quiz is a list of :class:`Numeric` and :class:`Choice` questions shown in the output of a notebook cell::

    from clusterlab import quiz
    quiz.show([
        quiz.numeric("8 卡环形 all-reduce 中每张卡发送多少 GB？", v_gb, unit="GB",
                     wrong=[(2 * m_gb, "这是 2M，忘了因子 (N−1)/N。")]),
        quiz.choice("哪一项决定大消息的耗时？",
                    [("带宽项", True, ""), ("延迟项", False, "延迟项只在小消息时重要。")]),
    ], key="ch03-ring")

:func:`render` returns one ``<div id="quiz-{key}" class="clq …">`` holding a scoped ``<style>``, the
questions as JSON (``<script type="application/json">``) and a small checker script that is the same for every
quiz. Nothing is loaded from the network, so the quiz works in the static Jupyter Book page without a kernel,
and in Jupyter (trusted notebooks). The output is byte-for-byte deterministic: no random ids, no timestamps,
JSON with sorted keys. Answers are visible in the page source; these are self-checks, not exams.

Checking rule (mirrored exactly by ``static/quiz.js``): a number ``x`` is accepted when
``|x − answer| ≤ max(abs_tol, rel_tol·|answer|)``. Only a rejected ``x`` is compared with the anticipated
wrong values, each with the same rule centred on the wrong value; the first match gives its targeted feedback.
Typed answers are read by :func:`parse_number` (decimal comma, ``7/4``, ``2.45e10``, ``2.45×10^10``,
full-width digits, a trailing unit).

Prompts, feedback and explanations are plain text with a little markup: ``$…$`` (inline math), ``$$…$$``
(display math), ```code```, ``**bold**``; ``\\$`` is a literal dollar. Math is handed to MathJax as
``\\(…\\)`` / ``\\[…\\]`` when the page already has MathJax; MathJax itself is never loaded.
"""

from __future__ import annotations

import functools
import html
import json
import math
import numbers
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from .units import fmt_num

__all__ = [
    "GENERIC_WRONG",
    "Choice",
    "Judgement",
    "Numeric",
    "Option",
    "choice",
    "format_number",
    "numeric",
    "parse_number",
    "render",
    "show",
    "to_dict",
]

#: Feedback for a wrong number that matches no anticipated wrong answer (and for a wrong option without
#: its own feedback).
GENERIC_WRONG = "不对，再想想。"
CORRECT = "正确！"

_KEY = re.compile(r"[a-z0-9][a-z0-9-]*")


# --------------------------------------------------------------------------------------------------------
# parsing typed numbers (mirrored by clq.parse in static/quiz.js)
# --------------------------------------------------------------------------------------------------------
_WS = re.compile("[ \t\n\r\u00a0\u2009\u202f\u3000]")
_FULLWIDTH = re.compile("[\uff01-\uff5e]")
_NUM = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_TIMES_TEN = re.compile(r"(.+?)[x×*·]10(?:\^|\*\*)([+-]?[0-9]+)")
_THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]*)?")


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
    anywhere and a trailing ``unit`` (exact spelling, so ``Gb`` is not taken for ``GB``). The JavaScript
    checker implements the same rules.
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    s = _normalize(text)
    u = _normalize(unit)
    if u and s.endswith(u):
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
    return num if math.isfinite(num) else None


# --------------------------------------------------------------------------------------------------------
# formatting and markup
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


_MATH = re.compile(r"(\$\$.+?\$\$|\$[^$\n]+?\$)", re.DOTALL)
_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_DOLLAR = "\x00"


def _markup(text: str) -> str:
    """Plain text with ``$math$``, ``$$math$$``, ```code```, ``**bold**`` → HTML (everything else escaped)."""
    out = []
    for i, seg in enumerate(_MATH.split(text.replace("\\$", _DOLLAR))):
        if i % 2:
            body = html.escape(seg.strip("$"), quote=False)
            out.append(f"\\[{body}\\]" if seg.startswith("$$") else f"\\({body}\\)")
        else:
            s = html.escape(seg, quote=False)
            s = _CODE.sub(r"<code>\1</code>", s)
            s = _BOLD.sub(r"<strong>\1</strong>", s)
            out.append(s.replace("\n", "<br>"))
    return "".join(out).replace(_DOLLAR, "$")


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

    def __post_init__(self) -> None:
        _text("prompt", self.prompt, required=True)
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

    def __post_init__(self) -> None:
        _text("prompt", self.prompt, required=True)
        _text("explanation", self.explanation)
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


# --------------------------------------------------------------------------------------------------------
# convenience constructors
# --------------------------------------------------------------------------------------------------------
def numeric(
    prompt: str,
    answer: float,
    *,
    rel_tol: float = 0.02,
    abs_tol: float = 0.0,
    unit: str = "",
    wrong: Iterable[tuple[float, str]] | Mapping[float, str] = (),
    explanation: str = "",
    digits: int = 3,
) -> Numeric:
    """Build a :class:`Numeric`; ``wrong`` may be a list of ``(value, feedback)`` pairs or a dict."""
    pairs = tuple(wrong.items()) if isinstance(wrong, Mapping) else tuple(tuple(p) for p in wrong)
    return Numeric(prompt, answer, rel_tol, abs_tol, unit, pairs, explanation, digits)  # type: ignore[arg-type]


def choice(
    prompt: str,
    options: Iterable[Option | tuple[str, bool] | tuple[str, bool, str]],
    multiple: bool = False,
    explanation: str = "",
) -> Choice:
    """Build a :class:`Choice`; an option is an :class:`Option` or a tuple ``(text, correct[, feedback])``."""
    opts = []
    for o in options:
        if isinstance(o, Option):
            opts.append(o)
        elif isinstance(o, tuple | list) and len(o) in (2, 3):
            opts.append(Option(*o))
        else:
            raise ValueError(f"options must be Option or (text, correct[, feedback]) tuples, got {o!r}")
    return Choice(prompt, tuple(opts), multiple, explanation)


# --------------------------------------------------------------------------------------------------------
# JSON and HTML
# --------------------------------------------------------------------------------------------------------
def to_dict(question: Question) -> dict[str, Any]:
    """The JSON object the checker script reads (``*_html`` fields are ready-to-insert HTML)."""
    if isinstance(question, Numeric):
        return {
            "type": "numeric",
            "prompt_html": _markup(question.prompt),
            "answer": question.answer,
            "rel_tol": question.rel_tol,
            "abs_tol": question.abs_tol,
            "unit": question.unit,
            "wrong": [{"value": v, "feedback_html": _markup(f)} for v, f in question.wrong],
            "explanation_html": _markup(question.explanation),
            "answer_text": question.answer_text,
            "tolerance_text": question.tolerance_text,
        }
    if isinstance(question, Choice):
        return {
            "type": "choice",
            "prompt_html": _markup(question.prompt),
            "multiple": question.multiple,
            "options": [
                {"html": _markup(o.text), "correct": o.correct, "feedback_html": _markup(o.feedback)}
                for o in question.options
            ],
            "explanation_html": _markup(question.explanation),
        }
    raise ValueError(f"question must be Numeric or Choice, got {type(question).__name__}")


def _check_key(key: str) -> str:
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ValueError(f"key must match ^[a-z0-9][a-z0-9-]*$ (e.g. 'ch03-ring'), got {key!r}")
    return key


def _questions(questions: Question | Sequence[Question]) -> list[Question]:
    qs = [questions] if isinstance(questions, Numeric | Choice) else list(questions)
    if not qs:
        raise ValueError("questions must hold at least 1 question")
    for q in qs:
        if not isinstance(q, Numeric | Choice):
            raise ValueError(f"questions must be Numeric or Choice, got {type(q).__name__}")
    return qs


_JS_PUNCT = frozenset("=+-*/<>!&|?:,;{}()[]")


def _minify_js(text: str) -> str:
    """Drop full-line ``//`` comments and indentation, then every space or line break next to punctuation
    outside double-quoted strings. Safe for ``static/quiz.js``, which follows the rules stated at its top."""
    lines = [ln.strip() for ln in text.splitlines()]
    src = "\n".join(ln for ln in lines if ln and not ln.startswith("//"))
    out: list[str] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == '"':
            j = i + 1
            while src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append(src[i : j + 1])
            i = j + 1
        elif c in " \n":
            j = i
            while j < n and src[j] in " \n":
                j += 1
            prev = out[-1][-1] if out else ";"
            nxt = src[j] if j < n else ";"
            if prev not in _JS_PUNCT and nxt not in _JS_PUNCT:
                out.append("\n" if "\n" in src[i:j] else " ")
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


@functools.cache
def _asset(name: str) -> str:
    """A static asset, minified: see :func:`_minify_js`; CSS loses comment lines and line breaks."""
    text = resources.files("clusterlab").joinpath("static", name).read_text(encoding="utf-8")
    if name.endswith(".js"):
        return _minify_js(text)
    return "".join(ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("/*"))


def _json_for_script(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # nothing inside may close the <script> element or open a comment
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def render(questions: Question | Sequence[Question], key: str) -> str:
    """The quiz as one self-contained HTML fragment (deterministic for given questions and key)."""
    _check_key(key)
    qs = _questions(questions)
    data = {"key": key, "questions": [to_dict(q) for q in qs]}
    return (
        f'<div id="quiz-{key}" class="clq mathjax_process" data-clq-key="{key}">\n'
        f"<style>{_asset('quiz.css')}</style>\n"
        f'<script type="application/json" class="clq-data">{_json_for_script(data)}</script>\n'
        f'<noscript><div class="clq-noscript">自测题需要浏览器启用 JavaScript。</div></noscript>\n'
        f"<script>\n{_asset('quiz.js')}\n</script>\n"
        f"</div>"
    )


def _plain_summary(qs: list[Question], key: str) -> str:
    lines = [f"自测 {key}（共 {len(qs)} 题，请在网页版或 Jupyter 中作答）"]
    lines += [f"第 {i} 题：{q.prompt}" for i, q in enumerate(qs, 1)]
    return "\n".join(lines)


def show(questions: Question | Sequence[Question], key: str) -> None:
    """Display the quiz in a notebook (``text/html`` plus a plain-text summary for non-HTML outputs)."""
    html_text = render(questions, key)
    from IPython.display import display

    data = {"text/html": html_text, "text/plain": _plain_summary(_questions(questions), key)}
    display(data, raw=True)  # type: ignore[no-untyped-call]
