"""Self-check quizzes for the book: question specs, the checking rule, and a static HTML/JS renderer.

A quiz is a list of :class:`Numeric` and :class:`Choice` questions shown in the output of a notebook cell::

    from clusterlab.book import quiz
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

Checking rule (:mod:`clusterlab.book.questions`, mirrored exactly by ``static/quiz.js``): a number ``x`` is accepted
when
``|x − answer| ≤ max(abs_tol, rel_tol·|answer|)``. Only a rejected ``x`` is compared with the anticipated
wrong values, each with the same rule centred on the wrong value; the first match gives its targeted feedback.
Typed answers are read by :func:`parse_number` (decimal comma, ``7/4``, ``2.45e10``, ``2.45×10^10``,
full-width digits, a trailing unit: the question's own, in lowercase, or another unit of the same quantity).

Prompts, feedback and explanations are plain text with a little markup: ``$…$`` (inline math), ``$$…$$``
(display math), ```code```, ``**bold**``; ``\\$`` is a literal dollar. Math is handed to MathJax as
``\\(…\\)`` / ``\\[…\\]`` when the page already has MathJax; MathJax itself is never loaded.
"""


from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

from .questions import (
    CORRECT,
    GENERIC_WRONG,
    Choice,
    Judgement,
    Numeric,
    Option,
    Question,
    format_number,
    parse_number,
)

__all__ = [
    "CORRECT",
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

_KEY = re.compile(r"[a-z0-9][a-z0-9-]*")


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
    transfer: bool = False,
) -> Numeric:
    """Build a :class:`Numeric`; ``wrong`` may be a list of ``(value, feedback)`` pairs or a dict.

    ``transfer=True`` marks a question that asks for numbers or a situation the chapter does not print."""
    pairs = tuple(wrong.items()) if isinstance(wrong, Mapping) else tuple(tuple(p) for p in wrong)
    return Numeric(prompt, answer, rel_tol, abs_tol, unit, pairs, explanation, digits,  # type: ignore[arg-type]
                   transfer)


def choice(
    prompt: str,
    options: Iterable[Option | tuple[str, bool] | tuple[str, bool, str]],
    multiple: bool = False,
    explanation: str = "",
    transfer: bool = False,
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
    return Choice(prompt, tuple(opts), multiple, explanation, transfer)


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
