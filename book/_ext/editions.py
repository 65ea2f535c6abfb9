"""The book's edition and the page 「本版变更」: every published number that changed since the previous edition.

Every number the book prints reaches the prose through a glue value stored in a notebook's outputs. When an edition
is published, the glue values of all notebooks are recorded in ``book/_data/editions/<n>.json`` (``python
book/_ext/editions.py record <n>``). At build time this extension compares the notebooks' current glue values with
the newest recorded edition and writes ``changes.html`` (title 本版变更, theme layout, linked from every page's
footer, which also states the edition and the licences): values that changed (page, key, old and new text), values
added and values removed. Figures are not compared (their numbers are glued too); tables are compared by their
text.

``EDITION`` is the number of the edition being prepared (CHANGELOG.md, CITATION.cff); the previous one is the newest
file in ``editions/`` (edition 1: the book as it stood before the licence, accessibility and navigation work).
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path
from typing import Any

BOOK = Path(__file__).resolve().parents[1]
EDITIONS = BOOK / "_data" / "editions"
EDITION = 2
PAGE = "changes"
TITLE = "本版变更"
_TAG = re.compile(r"<[^>]+>")
_PREFIXES = ("text/plain", "text/markdown", "text/latex", "text/html")


def _text(data: dict[str, Any], prefix: str) -> str | None:
    for mime in _PREFIXES:
        value = data.get(prefix + mime)
        if value is None:
            continue
        text = "".join(value) if isinstance(value, list) else str(value)
        if mime == "text/html":
            text = html.unescape(_TAG.sub(" ", text))
        return " ".join(text.split())
    return None  # an image


def glue_values(book: Path = BOOK) -> dict[str, dict[str, str]]:
    """Document name (``part2/02-ring-allreduce``) → glue key → the value's text, from the stored outputs."""
    out: dict[str, dict[str, str]] = {}
    for nb_path in sorted(book.rglob("*.ipynb")):
        rel = nb_path.relative_to(book)
        if any(part.startswith(("_", ".")) for part in rel.parts):
            continue
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        values: dict[str, str] = {}
        for cell in nb.get("cells", []):
            for output in cell.get("outputs", []):
                record = output.get("metadata", {}).get("scrapbook")
                if not record or "name" not in record:
                    continue
                text = _text(output.get("data", {}), record.get("mime_prefix", ""))
                if text is not None:
                    values[str(record["name"])] = text
        if values:
            out[rel.with_suffix("").as_posix()] = values
    return out


def previous_edition(editions: Path = EDITIONS) -> tuple[int, dict[str, dict[str, str]]] | None:
    files = sorted(editions.glob("*.json"), key=lambda p: int(p.stem)) if editions.is_dir() else []
    if not files:
        return None
    return int(files[-1].stem), json.loads(files[-1].read_text(encoding="utf-8"))


def diff(old: dict[str, dict[str, str]], new: dict[str, dict[str, str]]) -> dict[str, list[tuple[str, str, str, str]]]:
    """``changed`` / ``added`` / ``removed``: lists of (document, key, old text, new text)."""
    out: dict[str, list[tuple[str, str, str, str]]] = {"changed": [], "added": [], "removed": []}
    for doc in sorted(set(old) | set(new)):
        a, b = old.get(doc, {}), new.get(doc, {})
        for key in sorted(set(a) | set(b)):
            if key in a and key in b and a[key] != b[key]:
                out["changed"].append((doc, key, a[key], b[key]))
            elif key in b and key not in a:
                out["added"].append((doc, key, "", b[key]))
            elif key in a and key not in b:
                out["removed"].append((doc, key, a[key], ""))
    return out


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(
    edition: int,
    previous: int | None,
    changes: dict[str, list[tuple[str, str, str, str]]],
    titles: dict[str, str],
    link: Any,
) -> str:
    """The page body (HTML). ``link(doc)`` gives the relative URL of a document."""
    e = html.escape
    parts = [f'<section id="changes"><h1>{TITLE}</h1>']
    if previous is None:
        parts.append(f"<p>这是第 {edition} 版；还没有记录过的上一版，无从比较。</p></section>")
        return "".join(parts)
    n = {k: len(v) for k, v in changes.items()}
    parts.append(
        f"<p>本页列出第 {edition} 版与第 {previous} 版相比，书中印出的数字（由 clusterlab 计算、经 glue 引用的值）"
        f"有哪些不同：改变 {n['changed']} 个，新增 {n['added']} 个，删去 {n['removed']} 个。"
        "图中的数字随同一计算而变，不单独列出。</p>"
    )
    labels = {"changed": "改变的数字", "added": "新增的数字", "removed": "删去的数字"}
    for kind in ("changed", "added", "removed"):
        rows = changes[kind]
        parts.append(f'<section id="changes-{kind}"><h2>{labels[kind]}</h2>')
        if not rows:
            parts.append("<p>无。</p></section>")
            continue
        parts.append(
            '<div class="pst-scrollable-table-container"><table class="table clusterlab-table">'
            f"<thead><tr><th>页面</th><th>键</th><th>第 {previous} 版</th><th>本版</th></tr></thead><tbody>"
        )
        for doc, key, old, new in rows:
            title = e(titles.get(doc, doc))
            parts.append(
                f'<tr><td class="wrap"><a href="{e(link(doc))}">{title}</a></td><td><code>{e(key)}</code></td>'
                f'<td class="wrap">{e(_short(old))}</td><td class="wrap">{e(_short(new))}</td></tr>'
            )
        parts.append("</tbody></table></div></section>")
    parts.append("</section>")
    return "".join(parts)


LICENCE_FOOTER = (
    '第 {edition} 版（<a href="{changes}">本版变更</a>）。代码以 '
    '<a href="https://opensource.org/license/mit">MIT 许可</a>发布；正文与图以 '
    '<a href="https://creativecommons.org/licenses/by-sa/4.0/deed.zh-hans">CC BY-SA 4.0</a> 许可发布'
    "（署名—相同方式共享，见仓库的 LICENSE）。"
)


# ---- Sphinx
def _additional_page(app: Any) -> list[tuple[str, dict[str, Any], str]]:
    return [(PAGE, {"title": TITLE}, "page.html")]


def _page_context(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    # every page's footer: the edition, a link to this page and the licences
    footer = LICENCE_FOOTER.format(edition=EDITION, changes=html.escape(context["pathto"](PAGE)))
    context["theme_extra_footer"] = " ".join(x for x in (context.get("theme_extra_footer") or "", footer) if x)
    if pagename != PAGE:
        return
    prev = previous_edition()
    changes = diff(prev[1], glue_values(Path(app.srcdir))) if prev else {"changed": [], "added": [], "removed": []}
    titles = {doc: app.env.titles[doc].astext() for doc in app.env.titles}
    context["body"] = render(EDITION, prev[0] if prev else None, changes, titles, lambda doc: context["pathto"](doc))
    context["title"] = TITLE
    context["display_toc"] = False


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-collect-pages", _additional_page)
    app.connect("html-page-context", _page_context)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "record" or not argv[1].isdigit():
        print("usage: python book/_ext/editions.py record <edition number>", file=sys.stderr)
        return 2
    EDITIONS.mkdir(parents=True, exist_ok=True)
    target = EDITIONS / f"{int(argv[1])}.json"
    values = glue_values()
    target.write_text(json.dumps(values, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{sum(len(v) for v in values.values())} glue values of {len(values)} pages → {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
