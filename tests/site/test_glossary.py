"""The glossary has one data source (book/_data/glossary.yml); the page and the search dictionary are generated.

These checks need no build: the committed book/glossary.md must be exactly what tools/glossary.py generates, its
rows must be in pinyin order, and the book-wide term decisions must hold.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "book" / "glossary.md"

MTTR = (
    "MTTR（mean time to recovery，平均恢复时间）：从故障发生到作业重新开始训练的平均时间，"
    "包括发现、诊断、换机或重新调度、加载 checkpoint；不含重算丢失的那段工作"
)


@pytest.fixture(scope="module")
def glossary():
    spec = importlib.util.spec_from_file_location("glossary_tool", ROOT / "tools" / "glossary.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def rows() -> list[list[str]]:
    out = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("| ") and not line.startswith("| 中文"):
            out.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
    return out


def test_page_is_generated_from_data(glossary):
    conventions, terms = glossary.load()
    assert PAGE.read_text(encoding="utf-8") == glossary.render(conventions, terms), (
        "book/glossary.md is out of date: run .venv/bin/python tools/glossary.py"
    )


def test_rows_are_in_pinyin_order():
    from pypinyin import Style, lazy_pinyin

    names = [re.sub(r"（.*?）$", "", r[0]) for r in rows()]
    assert len(names) >= 25

    def key(name: str) -> list[str]:
        syllables = lazy_pinyin(name, style=Style.NORMAL)
        return [s.lower() for s in syllables if re.search(r"\w", s)]

    keys = [" ".join(key(n)) for n in names]
    out_of_order = [(a, b) for a, b, ka, kb in zip(names, names[1:], keys, keys[1:], strict=False) if ka > kb]
    assert not out_of_order, f"not in pinyin order: {out_of_order}"
    assert keys.index("gui yue") < keys.index("gui yue san bo") < keys.index("huan xing quan gui yue")


def test_term_decisions():
    by_en = {r[1]: r for r in rows()}
    mttr = by_en["mean time to recovery"]
    assert f"{mttr[2]}（{mttr[1]}，{mttr[0]}）：{mttr[3]}" == MTTR
    text = PAGE.read_text(encoding="utf-8")
    assert "mean time to repair" not in text and "平均修复时间" not in text
    assert "kB" not in text.replace("不写 kB", "")
    # rank is the participant of a collective; 秩 appears only where the page says it is not used
    assert by_en["rank"][0] == "rank"
    assert all(m.start() > 0 and text[m.start() - 1] == "“" for m in re.finditer("秩", text))
    # checkpoint is the term, 检查点 its translation
    assert by_en["checkpoint"][0] == "checkpoint（检查点）"


def test_every_chinese_term_is_in_the_search_dictionary(glossary):
    _, terms = glossary.load()
    words = set(glossary.dictionary_words(terms))
    for term in terms:
        for name in term.names():
            for piece in re.split(r"[^\w]+", name):
                if re.search(r"[\u4e00-\u9fff]", piece) and len(piece) > 1:
                    assert piece in words, f"{piece} ({term.zh}) missing from the jieba dictionary"
