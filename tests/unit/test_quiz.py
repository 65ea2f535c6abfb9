"""Tests for clusterlab.book.quiz: checking rule, validation, rendering, and agreement of the embedded JavaScript
checker with the Python rules (under node, when node is installed)."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from clusterlab.book import quiz
from clusterlab.book.quiz import GENERIC_WRONG, Choice, Numeric, Option

NODE = shutil.which("node")
CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser")) if p), None)


def _ring_question() -> Numeric:
    return quiz.numeric(
        "8 卡环形 all-reduce，$M = 2$ GB，每卡发送多少？",
        3.5,
        unit="GB",
        wrong=[(4.0, "这是 $2M$：忘了因子 $(N-1)/N$。"), (28.0, "这是比特数，不是字节数。")],
        explanation="$2 \\cdot \\frac{7}{8} \\cdot 2 = 3.5$ GB。",
    )


def _choice_question() -> Choice:
    return quiz.choice(
        "大消息时哪一项主导 all-reduce 的耗时？",
        [("带宽项", True, "对，$\\beta$ 项随消息大小增长。"), ("延迟项", False, "延迟项只在小消息时重要。")],
        explanation="时间 = $\\alpha$ 项 + $\\beta$ 项。",
    )


def _multi_question() -> Choice:
    return quiz.choice(
        "哪些是集合通信原语？",
        [
            ("all-reduce", True),
            ("all-gather", True),
            ("memcpy", False, "这是本地拷贝。"),
            ("broadcast", True),
        ],
        multiple=True,
    )


# ------------------------------------------------------------------------------------------------------
# Numeric: tolerance rule
# ------------------------------------------------------------------------------------------------------
def test_relative_tolerance_boundaries() -> None:
    q = quiz.numeric("x?", 100.0, rel_tol=0.02)
    assert q.accepts(100.0)
    assert q.accepts(102.0) and q.accepts(98.0)  # |x − a| == rel_tol·|a| is accepted
    assert not q.accepts(102.001) and not q.accepts(97.999)
    assert not q.accepts(-100.0)


def test_absolute_tolerance_and_the_larger_of_both() -> None:
    q0 = quiz.numeric("x?", 0.0, rel_tol=0.0, abs_tol=0.5)
    assert q0.accepts(0.5) and q0.accepts(-0.5)
    assert not q0.accepts(0.5000001)
    q = quiz.numeric("x?", 10.0, rel_tol=0.01, abs_tol=0.5)  # abs_tol (0.5) > rel (0.1)
    assert q.accepts(10.5) and not q.accepts(10.51)
    q = quiz.numeric("x?", 1000.0, rel_tol=0.01, abs_tol=0.5)  # rel (10) > abs_tol
    assert q.accepts(1010.0) and not q.accepts(1010.5)


def test_exact_answers_and_non_finite_inputs() -> None:
    q = quiz.numeric("步数？", 14, rel_tol=0, abs_tol=0)
    assert q.accepts(14) and not q.accepts(14.000001) and not q.accepts(13)
    assert q.tolerance_text == "须填写精确值"
    for bad in (math.nan, math.inf, -math.inf):
        assert not q.accepts(bad)


def test_default_tolerance_is_two_percent() -> None:
    q = quiz.numeric("x?", 50.0)
    assert q.rel_tol == 0.02 and q.abs_tol == 0.0
    assert q.accepts(51.0) and not q.accepts(51.01)
    assert q.tolerance_text == "允许误差 ±2%"


@given(
    answer=st.one_of(
        st.just(0.0), st.floats(min_value=1e-3, max_value=1e6), st.floats(min_value=-1e6, max_value=-1e-3)
    ),
    rel_tol=st.one_of(st.just(0.0), st.floats(min_value=1e-4, max_value=0.5)),
    abs_tol=st.one_of(st.just(0.0), st.floats(min_value=1e-3, max_value=10.0)),
    sign=st.sampled_from([-1.0, 1.0]),
)
def test_tolerance_property(answer: float, rel_tol: float, abs_tol: float, sign: float) -> None:
    q = Numeric("x?", answer, rel_tol=rel_tol, abs_tol=abs_tol)
    tol = max(abs_tol, rel_tol * abs(answer))
    assert q.accepts(answer)
    assume(tol > 1e-9 * max(1.0, abs(answer)))  # otherwise answer ± tol rounds back to answer
    assert q.accepts(answer + sign * 0.5 * tol)
    assert not q.accepts(answer + sign * 2 * tol)
    assert not q.accepts(answer * (1 + sign * 2 * rel_tol) + sign * 2 * abs_tol * math.copysign(1, answer))
    assert q.feedback_for(answer + sign * 2 * tol) == GENERIC_WRONG


# ------------------------------------------------------------------------------------------------------
# Numeric: anticipated wrong answers and validation
# ------------------------------------------------------------------------------------------------------
def test_targeted_feedback_for_anticipated_wrong_answers() -> None:
    q = _ring_question()
    assert q.feedback_for(3.5) == "正确！"
    assert q.feedback_for(4.0) == "这是 $2M$：忘了因子 $(N-1)/N$。"
    assert q.feedback_for(4.05) == q.wrong[0][1]  # within 2 % of the wrong value 4.0
    assert q.match_wrong(4.05) == 0
    assert q.feedback_for(28.3) == "这是比特数，不是字节数。"
    assert q.feedback_for(5.0) == GENERIC_WRONG
    assert q.match_wrong(5.0) is None


def test_accepted_answer_wins_over_an_overlapping_wrong_band() -> None:
    # the band of the wrong value 1.03 (±0.0206) overlaps the accepted band [0.98, 1.02]
    q = quiz.numeric("x?", 1.0, wrong=[(1.03, "偏大。")])
    assert q.accepts(1.015) and q.match_wrong(1.015) is None and q.feedback_for(1.015) == "正确！"
    assert q.match_wrong(1.025) == 0


def test_first_matching_wrong_value_wins() -> None:
    q = quiz.numeric("x?", 1.0, rel_tol=0.01, wrong={2.0: "甲", 2.03: "乙"})
    assert q.wrong == ((2.0, "甲"), (2.03, "乙"))
    assert q.feedback_for(2.015) == "甲"
    assert q.feedback_for(2.05) == "乙"


def test_a_distractor_inside_the_tolerance_is_rejected() -> None:
    with pytest.raises(ValueError, match="distractor"):
        quiz.numeric("x?", 100.0, rel_tol=0.02, wrong=[(101.0, "?")])
    with pytest.raises(ValueError, match="distractor"):
        quiz.numeric("x?", 100.0, rel_tol=0.02, wrong=[(102.0, "边界上也算对")])
    with pytest.raises(ValueError, match="distractor"):
        quiz.numeric("x?", 0.0, rel_tol=0.0, abs_tol=0.1, wrong=[(-0.05, "?")])
    quiz.numeric("x?", 100.0, rel_tol=0.02, wrong=[(102.01, "刚好在外面")])  # just outside: fine


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"answer": math.nan}, "answer"),
        ({"answer": math.inf}, "answer"),
        ({"answer": True}, "answer"),
        ({"answer": "3"}, "answer"),
        ({"rel_tol": -0.01}, "rel_tol"),
        ({"abs_tol": -1.0}, "abs_tol"),
        ({"rel_tol": math.nan}, "rel_tol"),
        ({"digits": 0}, "digits"),
        ({"digits": 16}, "digits"),
        ({"prompt": "  "}, "prompt"),
        ({"wrong": [(5.0, "")]}, "feedback"),
        ({"wrong": [(math.nan, "x")]}, "wrong value"),
        ({"wrong": [(5.0,)]}, "pairs"),
        ({"unit": 3}, "unit"),
    ],
)
def test_numeric_validation(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"prompt": "x?", "answer": 1.0} | kwargs
    with pytest.raises(ValueError, match=match):
        quiz.numeric(**args)  # type: ignore[arg-type]


def test_numpy_answers_become_plain_floats() -> None:
    np = pytest.importorskip("numpy")
    q = quiz.numeric("x?", np.float64(2.5), wrong=[(np.float32(5.0), "两倍")])
    assert type(q.answer) is float and type(q.wrong[0][0]) is float
    assert json.dumps(quiz.to_dict(q))  # serialisable


# ------------------------------------------------------------------------------------------------------
# parsing typed answers
# ------------------------------------------------------------------------------------------------------
PARSE_CASES: list[tuple[str, str, float | None]] = [
    ("1.75", "", 1.75),
    ("  1.75 ", "", 1.75),
    ("1,75", "", 1.75),
    ("1,750", "", 1750.0),
    ("12,345.6", "", 12345.6),
    ("1,2,3", "", None),
    ("7/4", "", 1.75),
    ("-7/4", "", -1.75),
    ("1,5/2", "", 0.75),
    ("1/0", "", None),
    ("1/2/3", "", None),
    ("/4", "", None),
    ("2.45e10", "", 2.45e10),
    ("2.45E-3", "", 2.45e-3),
    ("2.45×10^10", "", 2.45e10),
    ("2.45 x 10^10", "", 2.45e10),
    ("2.45*10**10", "", 2.45e10),
    ("１．７５", "", 1.75),
    ("\u22123", "", -3.0),
    (".5", "", 0.5),
    ("5.", "", 5.0),
    ("12\u2009345", "", 12345.0),
    ("1.75 GB", "GB", 1.75),
    ("1.75GB", "GB", 1.75),
    ("1.75 Gb", "GB", None),
    ("23.25 gb", "GB", 23.25),
    ("23.25gib", "GB", 23.25 * (2**30 / 1e9)),
    ("23.25 GiB", "GB", 23.25 * (2**30 / 1e9)),
    ("2325 MB", "GB", 2325 * (1e6 / 1e9)),
    ("1.5 kb", "KB", 1.5),
    ("1.5 Kb", "KB", None),
    ("25 MiB", "MiB", 25.0),
    ("25 mib", "MiB", 25.0),
    ("26.2144 MB", "MiB", 26.2144 * (1e6 / 2**20)),
    ("50 gb/s", "GB/s", 50.0),
    ("400 Gb/s", "GB/s", None),
    ("90 ms", "s", 90 * (1e-3 / 1)),
    ("90 MS", "s", None),
    ("30 min", "h", 30 * (60 / 3600)),
    ("3 s", "GB", None),
    ("3 GB", "", None),
    ("3 parsecs", "GB", None),
    ("7/2 gb", "GB", 3.5),
    ("12 MIN", "min", None),
    ("88 个", "个", 88.0),
    ("1.97 ×10⁻⁵ /GPU·h", "×10⁻⁵ /GPU·h", 1.97),
    ("50 GB/s", "GB/s", 50.0),
    ("12%", "%", 12.0),
    ("12％", "%", 12.0),
    ("", "", None),
    ("abc", "", None),
    ("1e999", "", None),
    ("0x10", "", None),
    ("1_000", "", None),
    ("nan", "", None),
    ("inf", "", None),
    ("1.2.3", "", None),
    ("--1", "", None),
]


@pytest.mark.parametrize(("text", "unit", "expected"), PARSE_CASES)
def test_parse_number(text: str, unit: str, expected: float | None) -> None:
    assert quiz.parse_number(text, unit) == expected


def test_judge_statuses() -> None:
    q = _ring_question()
    assert q.judge("  ").status == "empty"
    assert q.judge("三点五").status == "invalid"
    assert q.judge("3,5").status == "correct"
    assert q.judge("7/2 GB").status == "correct"
    j = q.judge("4")
    assert (j.status, j.wrong_index, j.value) == ("anticipated", 0, 4.0)
    assert j.message == q.wrong[0][1]
    j = q.judge("2.8e1")
    assert (j.status, j.wrong_index) == ("anticipated", 1)
    assert q.judge("9").status == "wrong" and q.judge("9").message == GENERIC_WRONG


# ------------------------------------------------------------------------------------------------------
# Choice
# ------------------------------------------------------------------------------------------------------
def test_single_choice_needs_exactly_one_correct_option() -> None:
    with pytest.raises(ValueError, match="exactly 1 correct"):
        quiz.choice("?", [("a", False), ("b", False)])
    with pytest.raises(ValueError, match="exactly 1 correct"):
        quiz.choice("?", [("a", True), ("b", True), ("c", False)])
    with pytest.raises(ValueError, match="at least 1 correct"):
        quiz.choice("?", [("a", False), ("b", False)], multiple=True)
    with pytest.raises(ValueError, match="at least 2 options"):
        quiz.choice("?", [("a", True)])
    with pytest.raises(ValueError, match="options must be"):
        quiz.choice("?", ["a", "b"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="bool"):
        Option("a", 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Option instances"):
        Choice("?", (("a", True), ("b", False)))  # type: ignore[arg-type]
    assert quiz.choice("?", [("a", True), ("b", True)], multiple=True).correct_indices == {0, 1}


def test_choice_accepts() -> None:
    c = _choice_question()
    assert c.options[0] == Option("带宽项", True, "对，$\\beta$ 项随消息大小增长。")
    assert c.accepts([0]) and not c.accepts([1]) and not c.accepts([]) and not c.accepts([0, 1])
    m = _multi_question()
    assert m.accepts([0, 1, 3]) and m.accepts((3, 1, 0)) and m.accepts([0, 0, 1, 3])
    assert not m.accepts([0, 1]) and not m.accepts([0, 1, 2, 3])
    with pytest.raises(ValueError, match="selected"):
        m.accepts([4])
    with pytest.raises(ValueError, match="selected"):
        m.accepts([-1])
    with pytest.raises(ValueError, match="selected"):
        m.accepts([True])


# ------------------------------------------------------------------------------------------------------
# markup, formatting, to_dict
# ------------------------------------------------------------------------------------------------------
def test_markup() -> None:
    m = quiz._markup
    assert m("求 $a<b$ 时") == "求 \\(a&lt;b\\) 时"
    assert m("$$x^2$$") == "\\[x^2\\]"
    expected = "&lt;b&gt;不是标签&lt;/b&gt; &amp; <code>x&lt;y</code> <strong>粗</strong>"
    assert m("<b>不是标签</b> & `x<y` **粗**") == expected
    assert m("单价 \\$5，$a*b*c$") == "单价 $5，\\(a*b*c\\)"
    assert m("一行\n两行") == "一行<br>两行"
    assert m("只有一个 $ 号") == "只有一个 $ 号"


def test_format_number() -> None:
    assert quiz.format_number(1.75) == "1.75"
    assert quiz.format_number(1.7549, 3) == "1.75"
    assert quiz.format_number(0) == "0"
    assert quiz.format_number(12345, 5) == "12\u2009345"
    assert quiz.format_number(2.45e10) == "2.45 × 10¹⁰"
    assert quiz.format_number(3e-6, 3) == "3 × 10⁻⁶"
    assert quiz.format_number(-1.5e7, 2) == "-1.5 × 10⁷"


def test_answer_and_tolerance_text() -> None:
    assert _ring_question().answer_text == "3.5 GB"
    assert quiz.numeric("x?", 12.5, unit="%").answer_text == "12.5%"
    q = quiz.numeric("x?", 3.0, rel_tol=0.05, abs_tol=0.2, unit="s")
    assert q.tolerance_text == "允许误差 ±5% 或 ±0.2 s（取较大者）"
    assert quiz.numeric("x?", 3.0, rel_tol=0, abs_tol=0.2).tolerance_text == "允许误差 ±0.2"


def test_to_dict() -> None:
    d = quiz.to_dict(_ring_question())
    assert d["type"] == "numeric" and d["answer"] == 3.5 and d["rel_tol"] == 0.02 and d["unit"] == "GB"
    assert d["wrong"][1] == {"value": 28.0, "feedback_html": "这是比特数，不是字节数。"}
    assert d["prompt_html"] == "8 卡环形 all-reduce，\\(M = 2\\) GB，每卡发送多少？"
    c = quiz.to_dict(_multi_question())
    assert c["type"] == "choice" and c["multiple"] is True
    assert [o["correct"] for o in c["options"]] == [True, True, False, True]
    with pytest.raises(ValueError, match="Numeric or Choice"):
        quiz.to_dict("x")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------------
# render / show
# ------------------------------------------------------------------------------------------------------
QUESTIONS: list[Numeric | Choice] = [_ring_question(), _choice_question(), _multi_question()]


def _embedded(html: str) -> dict[str, object]:
    m = re.search(r'<script type="application/json" class="clq-data">(.*?)</script>', html, re.DOTALL)
    assert m is not None
    data: dict[str, object] = json.loads(m.group(1))
    return data


def _checker(html: str) -> str:
    m = re.search(r"<script>\n(.*?)\n</script>", html, re.DOTALL)
    assert m is not None
    return m.group(1)


def test_render_is_deterministic_and_self_contained() -> None:
    h1 = quiz.render(QUESTIONS, "ch03-ring")
    h2 = quiz.render(list(QUESTIONS), "ch03-ring")
    assert h1 == h2
    assert h1.startswith('<div id="quiz-ch03-ring" class="clq mathjax_process"')
    assert "http" not in h1
    assert "typesetPromise" in h1  # MathJax is used when the page has it, never loaded
    for label in ("检查", "显示答案", "第 ", " 题", "正确！", "不对，再想想。", "你的答案", "允许误差"):
        assert label in h1, label
    assert h1.count("<div") == h1.count("</div>") == 2  # root and the <noscript> note
    assert h1.count("<script") == h1.count("</script>") == 2
    assert h1.count("<style>") == h1.count("</style>") == 1
    assert quiz.render(QUESTIONS, "ch03-other") != h1


def test_embedded_json_matches_to_dict() -> None:
    html = quiz.render(QUESTIONS, "q1")
    data = _embedded(html)
    assert data == {"key": "q1", "questions": [quiz.to_dict(q) for q in QUESTIONS]}


def test_embedded_json_cannot_close_the_script() -> None:
    q = quiz.numeric("</script><script>alert(1)</script> <!-- & -->", 1.0)
    html = quiz.render([q], "xss")
    assert html.count("</script>") == 2 and "<!--" not in html
    assert _embedded(html)["questions"] == [quiz.to_dict(q)]


def test_single_question_and_checker_size() -> None:
    html = quiz.render(_choice_question(), "one")
    assert len(_embedded(html)["questions"]) == 1  # type: ignore[arg-type]
    assert len(_checker(html).encode("utf-8")) < 7000  # 5.9 KB before the unit table (parse_number)
    assert _checker(html) == _checker(quiz.render(QUESTIONS, "other"))  # same script for every quiz


@pytest.mark.parametrize("key", ["", "Ch1", "-a", "a_b", "a b", "a/b", "测验", "a\n", None, 3])
def test_bad_keys_raise(key: object) -> None:
    with pytest.raises(ValueError, match="key"):
        quiz.render(QUESTIONS, key)  # type: ignore[arg-type]


def test_bad_question_lists_raise() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        quiz.render([], "k")
    with pytest.raises(ValueError, match="Numeric or Choice"):
        quiz.render([_ring_question(), {"type": "numeric"}], "k")  # type: ignore[list-item]


def test_duplicate_keys_are_allowed() -> None:
    assert quiz.render(QUESTIONS, "dup") == quiz.render(QUESTIONS, "dup")


def test_show_displays_html_and_a_plain_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    display_mod = pytest.importorskip("IPython.display")
    shown: list[tuple[object, dict[str, object]]] = []
    monkeypatch.setattr(display_mod, "display", lambda obj, **kw: shown.append((obj, kw)))
    quiz.show(QUESTIONS, "ch03-ring")
    ((obj, kw),) = shown
    assert kw == {"raw": True}
    assert isinstance(obj, dict)
    assert obj["text/html"] == quiz.render(QUESTIONS, "ch03-ring")
    assert obj["text/plain"].startswith("自测 ch03-ring（共 3 题")
    assert "第 2 题：大消息时" in obj["text/plain"]


# ------------------------------------------------------------------------------------------------------
# the JavaScript checker agrees with Python (node)
# ------------------------------------------------------------------------------------------------------
def _run_node(js: str, payload: object) -> object:
    assert NODE is not None
    prog = js + "\nconst P=JSON.parse(require('fs').readFileSync(0,'utf8'));\n" + _NODE_DRIVER
    res = subprocess.run(
        [NODE, "-e", prog], input=json.dumps(payload), capture_output=True, text=True, check=True, timeout=60
    )
    return json.loads(res.stdout)


_NODE_DRIVER = """
const c = globalThis.clq;
const out = {
  parse: P.parse.map(([t, u]) => c.parse(t, u)),
  numeric: P.numeric.map(([q, t]) => { const r = c.judgeNumeric(q, t); return [r.status, r.index ?? null]; }),
  choice: P.choice.map(([q, s]) => c.judgeChoice(q, s).status),
};
process.stdout.write(JSON.stringify(out));
"""


def _numeric_cases() -> list[tuple[Numeric, str]]:
    rng = random.Random(20260)
    cases: list[tuple[Numeric, str]] = []
    q = _ring_question()
    cases += [
        (q, t) for t in ("", "x", "3.5", "3,43", "3.57", "3.5701", "4", "4.08", "4.09", "28", "7/2 GB", "1e9")
    ]
    for _ in range(300):
        a = rng.choice([0.0, rng.uniform(-1e3, 1e3), 10 ** rng.uniform(-6, 12)])
        rel = rng.choice([0.0, 0.01, 0.02, 0.05, rng.uniform(0, 0.3)])
        ab = rng.choice([0.0, 0.0, rng.uniform(0, 1)])
        tol = max(ab, rel * abs(a))
        wrong = [(v, f"w{i}") for i, v in enumerate((2 * a + 1, -a - 1, a * 8 + 3)) if abs(v - a) > tol]
        q = Numeric("x?", a, rel_tol=rel, abs_tol=ab, wrong=tuple(wrong))
        xs = [a, a + tol, a - tol, a + tol * (1 + 1e-12), a * (1 + rel), a * (1 - rel), a + 2 * tol]
        xs += [v + s * max(ab, rel * abs(v)) for v, _ in wrong for s in (-1, 1)]
        xs += [rng.uniform(-2, 2) * (abs(a) + 1)]
        cases += [(q, repr(x)) for x in xs]
    return cases


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_javascript_checker_agrees_with_python() -> None:
    js = _checker(quiz.render(QUESTIONS, "node"))
    numeric_cases = _numeric_cases()
    choices = [_choice_question(), _multi_question()]
    choice_cases = [
        (c, list(sel))
        for c in choices
        for k in range(len(c.options) + 1)
        for sel in itertools.combinations(range(len(c.options)), k)
    ]
    payload = {
        "parse": [[t, u] for t, u, _ in PARSE_CASES],
        "numeric": [[quiz.to_dict(q), t] for q, t in numeric_cases],
        "choice": [[quiz.to_dict(c), s] for c, s in choice_cases],
    }
    out = _run_node(js, payload)
    assert isinstance(out, dict)
    assert out["parse"] == [quiz.parse_number(t, u) for t, u, _ in PARSE_CASES]
    expected = []
    for q, t in numeric_cases:
        j = q.judge(t)
        expected.append([j.status, j.wrong_index])
    assert out["numeric"] == expected
    statuses = {s for s, _ in expected}
    assert {"correct", "anticipated", "wrong", "empty", "invalid"} <= statuses  # the cases cover every path
    assert out["choice"] == [
        "empty" if not s else "correct" if c.accepts(s) else "wrong" for c, s in choice_cases
    ]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_embedded_checker_is_valid_javascript(tmp_path: Path) -> None:
    f = tmp_path / "quiz.js"
    f.write_text(_checker(quiz.render(QUESTIONS, "syntax")), encoding="utf-8")
    assert NODE is not None
    subprocess.run([NODE, "--check", str(f)], check=True, capture_output=True, timeout=60)


# ------------------------------------------------------------------------------------------------------
# the page really builds the quiz (headless chromium, optional)
# ------------------------------------------------------------------------------------------------------
_DRIVE = """
<script>
(function () {
  var root = document.getElementById("quiz-drive"), qs = root.querySelectorAll(".clq-q");
  var inp = qs[0].querySelector("input");
  var out = [];
  function press(q, cls) { q.querySelector("button." + cls).click(); return q.querySelector(".clq-fb"); }
  inp.value = "4"; out.push(press(qs[0], "clq-check").textContent);
  inp.value = "3,5"; out.push(press(qs[0], "clq-check").textContent);
  out.push(qs[0].querySelector(".clq-expl").hidden ? "hidden" : "shown");
  qs[1].querySelectorAll("input")[1].checked = true; out.push(press(qs[1], "clq-check").textContent);
  press(qs[2], "clq-show"); out.push(String(qs[2].querySelectorAll(".clq-key").length));
  out.push(qs[0].querySelector(".clq-num").textContent);
  var pre = document.createElement("pre"); pre.id = "result"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None or sys.platform != "linux", reason="chromium is not installed")
def test_quiz_works_in_a_browser(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    body = quiz.render(QUESTIONS, "drive")
    page.write_text(
        f'<!doctype html><html lang="zh"><meta charset="utf-8"><body>{body}{_DRIVE}</body></html>'
    )
    assert CHROMIUM is not None
    res = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    m = re.search(r'<pre id="result">(.*?)</pre>', res.stdout, re.DOTALL)
    assert m is not None, res.stdout[-2000:]
    got = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert got == [
        "这是 \\(2M\\)：忘了因子 \\((N-1)/N\\)。",  # targeted feedback for the anticipated wrong value
        "正确！",  # "3,5" (decimal comma) is accepted
        "shown",  # the explanation appears after a correct answer
        "不对，再想想。",  # wrong single choice without a Python-side message
        "3",  # "显示答案" marks the three correct options of the multiple-choice question
        "第 1 题",
    ]
