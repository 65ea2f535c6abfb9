"""Fixes to the pinned theme (pydata-sphinx-theme 0.17.1 under sphinx-book-theme 1.3.0).

* **Navigation at every width.** pydata-sphinx-theme 0.17 renders its own header bar with a second
  ``.primary-toggle``/``.secondary-toggle`` pair; both themes' scripts attach their handlers to the *first* button of
  each class (``document.querySelector``), which is the header's, so the buttons a reader sees in the article header do
  nothing: the drawer never opens below 992 px and the desktop collapse is dead. The header bar holds nothing else
  but a second, almost empty search field. With ``navbar_persistent`` set explicitly to ``[]`` the theme does not
  render that header content at all, the article header's buttons are the only ones, and both scripts wire them up.
* **No links to files that are not shipped.** With ``html_copy_source: false`` there is no ``_sources/``; the download
  menu's source-file entry would point there, so it is dropped (the print entry stays).
* **Only what the pages use is shipped.** Source maps (3.5 MB; with their ``sourceMappingURL`` comments), the
  theme's Font Awesome SVG script (1.5 MB, no page loads it: see ``site_assets.py``) and the TrueType copies of
  the icon fonts (every browser the book supports takes the WOFF2 ones) are removed from the built site, and so
  is the brand-icon font when no page uses a brand icon.
* **Chinese throughout.** The search placeholder, and the theme strings that the templates hard-code in English or
  that the pinned translations lack, are rewritten in the written pages (``THEME_STRINGS``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

SEARCH_PLACEHOLDER = "搜索本书…"

# (attribute, English value in the theme's markup, Chinese value)
THEME_STRINGS: tuple[tuple[str, str, str], ...] = (
    ("title", "Toggle primary sidebar", "显示或收起全书目录"),
    ("title", "Toggle secondary sidebar", "显示或收起本页目录"),
    ("aria-label", "Color mode", "配色模式"),
    ("data-bs-title", "Color mode", "配色模式"),
    ("title", "System Settings", "跟随系统"),
    ("aria-label", "Main", "全书目录"),
    ("aria-label", "Page", "本页目录"),
    ("title", "Link to this heading", "本节链接"),
    ("title", "Link to this image", "本图链接"),
    ("title", "Link to this table", "本表链接"),
    ("title", "Link to this code", "本段代码链接"),
    ("title", "Link to this equation", "本式链接"),
    ("title", "Link to this definition", "本定义链接"),
    ("placeholder", "Search this book...", SEARCH_PLACEHOLDER),
    ("aria-label", "Search this book...", SEARCH_PLACEHOLDER),
    ("title", "列印成 PDF", "打印"),
)
_PATTERNS = [
    (re.compile(rf'(\s{re.escape(attr)}=")({re.escape(english)})(")'), chinese)
    for attr, english, chinese in THEME_STRINGS
]


def set_theme_options(app: Sphinx, config: Config) -> None:
    options = dict(config.html_theme_options or {})
    options["navbar_persistent"] = []  # no header bar: its toggles shadow the article header's (see above)
    options["search_bar_text"] = SEARCH_PLACEHOLDER
    config.html_theme_options = options


def drop_source_downloads(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if app.config.html_copy_source:
        return
    for group in context.get("header_buttons", []):
        if group.get("type") == "group":
            group["buttons"] = [b for b in group.get("buttons", []) if "_sources" not in str(b.get("url", ""))]


# labels that hide the visible text from the accessible name (WCAG 2.5.3): the element is named by its content
NAME_HIDING = (
    re.compile(r'(<summary) aria-label="Toggle hidden content"'),
    re.compile(r'(<button class="btn search-button-field[^"]*" title="[^"]*") aria-label="[^"]*"'),
)


# the sidebar's toggle for a chapter with sections shows only a chevron: give it a name (axe: summary-name)
TOC_TOGGLE = re.compile(r'<summary>(<span class="toctree-toggle" role="presentation">)')


def translate(text: str) -> str:
    """The page with the theme's English strings replaced by their Chinese versions."""
    for pattern in NAME_HIDING:
        text = pattern.sub(lambda m: m.group(1), text)
    text = TOC_TOGGLE.sub(lambda m: '<summary aria-label="展开或收起本章的小节">' + m.group(1), text)
    for pattern, chinese in _PATTERNS:
        text = pattern.sub(lambda m, c=chinese: m.group(1) + c + m.group(3), text)
    return text


SOURCE_MAP_COMMENT = re.compile(r"\n?(//|/\*)# sourceMappingURL=[^\n]*?(\*/)?[ \t]*(?=\n|$)")
UNUSED_STATIC = ("scripts/fontawesome.js", "scripts/fontawesome.js.LICENSE.txt")
BRAND_ICON = re.compile(r'class="[^"]*\b(fa-brands|fab)\b')


def prune_static(outdir: Path, pages_text: str) -> None:
    static = outdir / "_static"
    for path in list(static.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(static).as_posix()
        brand_font = "fa-brands-" in path.name and not BRAND_ICON.search(pages_text)
        if path.suffix == ".map" or rel in UNUSED_STATIC or path.suffix == ".ttf" or brand_font:
            path.unlink()
        elif path.suffix in {".js", ".css"}:
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            new = SOURCE_MAP_COMMENT.sub("", text)
            if new != text:
                path.write_text(new, encoding="utf-8", errors="surrogateescape")


def rewrite_pages(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    texts = []
    for page in outdir.rglob("*.html"):
        if "_static" in page.relative_to(outdir).parts:
            continue
        text = page.read_text(encoding="utf-8")
        new = translate(text)
        if new != text:
            page.write_text(new, encoding="utf-8")
        texts.append(new)
    prune_static(outdir, "\n".join(texts))


def setup(app: Sphinx) -> dict[str, Any]:
    # after jupyter-book has filled html_theme_options from _config.yml
    app.connect("config-inited", set_theme_options, priority=900)
    app.connect("html-page-context", drop_source_downloads, priority=600)  # after sphinx-book-theme's (501)
    app.connect("build-finished", rewrite_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
