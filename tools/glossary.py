"""Generate the glossary page and the search dictionary from one data file.

``book/_data/glossary.yml`` is the single source of the book's terms. From it this script writes

* ``book/glossary.md`` — the 中英术语表 page, terms sorted in pinyin order (terms written in Latin letters, such as
  ``rank`` or ``checkpoint``, are read letter by letter into the same sequence);
* a jieba user dictionary (default ``book/_build/glossary.dict``), passed to Sphinx as
  ``html_search_options: {dict: …}`` so that every term — Chinese, English, abbreviation and other names — is
  segmented as one word and becomes a search term.

``make book`` runs it before ``jupyter-book build``; ``tests/site/test_glossary.py`` checks that the committed
``book/glossary.md`` is what this script generates.

Usage: ``python tools/glossary.py [--check] [DICT_PATH]``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pypinyin import Style, lazy_pinyin

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "book" / "_data" / "glossary.yml"
PAGE = ROOT / "book" / "glossary.md"
DICT = ROOT / "book" / "_build" / "glossary.dict"

# The search page splits a query the way Sphinx's searchtools.js does: on every run of characters that are not
# letters, digits or "_". Each piece of a term must therefore be a search term on its own.
QUERY_SPLIT = re.compile(r"[^\w]+", re.UNICODE)
CJK = re.compile(r"[\u3400-\u9fff]")

HEADER = """\
# 中英术语表

% 本页由 tools/glossary.py 从 book/_data/glossary.yml 生成（make book），请改数据文件，不要手改本页。

按中文拼音排序（用拉丁字母书写的术语按字母读入同一顺序）。“见”一栏给出本书中首次详细讨论该术语的位置。\
表中的每个术语（中文、英文、缩写）都可以在本书的搜索框中直接搜索。

## 用语约定

"""


@dataclass(frozen=True)
class Term:
    zh: str
    en: str
    definition: str
    see: str
    abbr: str = ""
    also: tuple[str, ...] = field(default_factory=tuple)

    def names(self) -> list[str]:
        """Every string a reader may type into the search box for this term."""
        out = [self.zh, self.en, *self.also]
        if self.abbr:
            out.append(self.abbr)
        return list(dict.fromkeys(n for n in out if n))


def sort_key(text: str) -> tuple[str, str, str]:
    """Pinyin order: toneless syllables first, then tones, then the characters themselves."""
    syllables = lazy_pinyin(text, style=Style.TONE3, neutral_tone_with_five=True, errors="default")
    pieces = [s.lower() for s in syllables if s.strip() and not QUERY_SPLIT.fullmatch(s)]
    plain = " ".join(re.sub(r"\d", "", p) for p in pieces)
    tones = " ".join(pieces)
    return plain, tones, text


def _names(value: object, term: object) -> tuple[str, ...]:
    """``also`` as a tuple of names: one name may be written as a plain string, several as a list."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"glossary term {term!r}: 'also' must be a name or a list of names, got {value!r}")
    return tuple(v.strip() for v in value)


def load(path: Path = DATA) -> tuple[list[str], list[Term]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    terms = []
    for i, row in enumerate(data["terms"]):
        missing = {"zh", "en", "def", "see"} - set(row)
        if missing:
            raise SystemExit(f"{path}: 第 {i + 1} 个术语缺少字段 {sorted(missing)}")
        terms.append(
            Term(
                zh=str(row["zh"]).strip(),
                en=str(row["en"]).strip(),
                definition=str(row["def"]).strip(),
                see=str(row["see"]).strip(),
                abbr=str(row.get("abbr") or "").strip(),
                also=_names(row.get("also"), row["zh"]),
            )
        )
    seen: dict[str, str] = {}
    for t in terms:
        short = [n for n in t.names() if len(n) < 2]
        if short:  # Sphinx's search index drops one-character words: such a name could never be found
            raise SystemExit(f"{path}: 术语 {t.zh} 的名称 {short} 只有一个字符，站内搜索找不到它")
        for name in (t.zh, t.en, t.abbr):
            if name and name.lower() in seen and seen[name.lower()] != t.zh:
                raise SystemExit(f"{path}: “{name}” 同时出现在 {seen[name.lower()]} 与 {t.zh} 两个术语中")
            if name:
                seen[name.lower()] = t.zh
    return list(data.get("conventions") or []), sorted(terms, key=lambda t: sort_key(t.zh))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _see(target: str) -> str:
    if "#" in target:
        doc, anchor = target.split("#", 1)
        return f"[](#{anchor})" if not doc else f"[]({doc}.md#{anchor})"
    return f"{{doc}}`{target}`"


def render(conventions: list[str], terms: list[Term]) -> str:
    lines = [HEADER.rstrip("\n"), ""]
    lines += [f"- {c}" for c in conventions]
    lines += ["", "## 术语", "", "| 中文 | English | 缩写 | 说明 | 见 |", "|---|---|---|---|---|"]
    for t in terms:
        zh = t.zh + (f"（{'、'.join(t.also)}）" if t.also else "")
        lines.append(f"| {_cell(zh)} | {_cell(t.en)} | {_cell(t.abbr)} | {_cell(t.definition)} | {_see(t.see)} |")
    return "\n".join(lines) + "\n"


def dictionary_words(terms: list[Term]) -> list[str]:
    """Words for jieba: every term name and every Chinese piece of it, as the search page splits queries."""
    words: set[str] = set()
    for t in terms:
        for name in t.names():
            for piece in [name, *QUERY_SPLIT.split(name)]:
                if len(piece) > 1 and CJK.search(piece) and not QUERY_SPLIT.search(piece):
                    words.add(piece)
    return sorted(words, key=sort_key)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    conventions, terms = load()
    page = render(conventions, terms)
    if check:
        if PAGE.read_text(encoding="utf-8") != page:
            print("book/glossary.md 与 book/_data/glossary.yml 不一致：运行 python tools/glossary.py", file=sys.stderr)
            return 1
        return 0
    if not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != page:
        PAGE.write_text(page, encoding="utf-8")
        print(f"术语表 → {PAGE.relative_to(ROOT)}")
    target = Path(args[0]) if args else DICT
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(f"{w}\n" for w in dictionary_words(terms)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
