"""Fixes to the pinned theme (pydata-sphinx-theme 0.17.1 under sphinx-book-theme 1.3.0).

* **Navigation at every width.** pydata-sphinx-theme 0.17 renders its own header bar with a second
  ``.primary-toggle``/``.secondary-toggle`` pair; both themes' scripts attach their handlers to the *first* button of
  each class (``document.querySelector``), which is the header's, so the buttons a reader sees in the article header do
  nothing: the drawer never opens below 992 px and the desktop collapse is dead. The header bar holds nothing else
  but a second, almost empty search field. With ``navbar_persistent`` set explicitly to ``[]`` the theme does not
  render that header content at all, the article header's buttons are the only ones, and both scripts wire them up.
* **No links to files that are not shipped.** With ``html_copy_source: false`` there is no ``_sources/``; the download
  menu's source-file entry would point there, so it is dropped (the print entry stays).
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
    ("aria-label", "Toggle hidden content", "显示或隐藏内容"),
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


def translate(text: str) -> str:
    """The page with the theme's English strings replaced by their Chinese versions."""
    for pattern, chinese in _PATTERNS:
        text = pattern.sub(lambda m, c=chinese: m.group(1) + c + m.group(3), text)
    return text


def rewrite_pages(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for page in outdir.rglob("*.html"):
        if "_static" in page.relative_to(outdir).parts:
            continue
        text = page.read_text(encoding="utf-8")
        new = translate(text)
        if new != text:
            page.write_text(new, encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    # after jupyter-book has filled html_theme_options from _config.yml
    app.connect("config-inited", set_theme_options, priority=900)
    app.connect("html-page-context", drop_source_downloads, priority=600)  # after sphinx-book-theme's (501)
    app.connect("build-finished", rewrite_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
