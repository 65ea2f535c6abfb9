"""What each page of the site loads, and the Chinese search dictionary.

* **Search.** ``html_search_options: {dict: …}`` names the jieba user dictionary generated from
  ``book/_data/glossary.yml`` by ``tools/glossary.py``; a relative path is resolved against the book directory
  (Sphinx itself would resolve it against the working directory and silently ignore a missing file). The
  Chinese search language is extended so that a single Greek letter (α, β, λ …) is indexed: the book's model
  names are written with them and a query splits "α-β" into "α" and "β".
* **Scripts a page does not use are not loaded.**
  - MathJax only on pages whose HTML holds math (Sphinx would also load it on the root page because its table of
    contents includes pages with math). It is fetched with the page (``defer``), and the article stays hidden
    until the formulas are typeset (at most ``MATH_WAIT_MS``, then the text shows whatever state MathJax is in):
    readers never see raw ``\\(…\\)`` and the text does not jump when the formulas replace it;
  - Thebe (``sphinx_thebe`` is always loaded by Jupyter Book; the book has no live kernels): its handlers are
    disconnected, so neither its configuration script nor the Binder settings reach the pages;
  - the theme's Font Awesome SVG script (1.5 MB): the icons come from the web font that the theme's stylesheet
    already declares;
  - the theme's inline-search scripts and ``searchindex.js`` on every page other than the search page (they are
    only used for search-as-you-type, which the book does not enable).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError
from sphinx.search import languages
from sphinx.search.zh import SearchChinese

GREEK = re.compile(r"^[\u0370-\u03ff]$")
MATH_MARKERS = ('class="math', "\\(", "\\[", "$$")
MATH_WAIT_MS = 3000
MATH_PENDING = (
    "(function(){var d=document.documentElement;d.classList.add('mj-pending');"
    "var done=function(){d.classList.remove('mj-pending');};"
    f"setTimeout(done,{MATH_WAIT_MS});"
    "var M=window.MathJax=window.MathJax||{};M.startup=M.startup||{};"
    "M.startup.pageReady=function(){return MathJax.startup.defaultPageReady().then(done,done);};})();"
)
# Emitted by the theme's templates rather than through Sphinx's script list: removed after writing each page.
THEME_SCRIPTS = re.compile(
    r'\s*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>'
    r'|\s*<script src="[^"]*_static/searchtools\.js"></script>'
    r'|\s*<script src="[^"]*_static/language_data\.js"></script>'
    r'|\s*<script src="[^"]*searchindex\.js"></script>'
)


class SearchChineseGlossary(SearchChinese):
    """Chinese search (jieba) that also indexes single Greek letters."""

    def word_filter(self, stemmed_word: str) -> bool:
        return super().word_filter(stemmed_word) or bool(GREEK.match(stemmed_word))


def resolve_search_dict(app: Sphinx, config: Config) -> None:
    options = dict(config.html_search_options or {})
    path = options.get("dict")
    if not path:
        return
    resolved = Path(path) if Path(path).is_absolute() else Path(app.srcdir) / path
    if not resolved.is_file():
        raise ExtensionError(
            f"jieba 用户词典不存在：{resolved}。"
            "它由 tools/glossary.py 从 book/_data/glossary.yml 生成（make book 会先运行它）。"
        )
    options["dict"] = str(resolved)
    config.html_search_options = options


def _is_thebe(asset: Any) -> bool:
    filename = getattr(asset, "filename", asset) or ""
    body = getattr(asset, "attributes", {}).get("body", "")
    return "thebe" in str(filename) or "THEBE_JS_URL" in body


def _is_mathjax_script(app: Sphinx, asset: Any) -> bool:
    filename = str(getattr(asset, "filename", asset) or "")
    return filename.split("?")[0].endswith(str(app.config.mathjax_path))


def _is_mathjax(app: Sphinx, asset: Any) -> bool:
    body = getattr(asset, "attributes", {}).get("body", "")
    return _is_mathjax_script(app, asset) or body.startswith("window.MathJax")


def trim_page_assets(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    scripts = context.get("script_files")
    if scripts is None:
        return
    body = context.get("body", "")
    has_math = any(marker in body for marker in MATH_MARKERS)
    keep = [s for s in scripts if not _is_thebe(s)]
    if not has_math:
        keep = [s for s in keep if not _is_mathjax(app, s)]
    scripts[:] = keep  # the builder restores its own list after each page
    if has_math:
        # runs before the deferred MathJax script: the article is hidden (custom.css, html.mj-pending) until
        # MathJax's first typesetting pass has finished, or MATH_WAIT_MS has passed
        builder: Any = app.builder
        if not any(_is_mathjax_script(app, s) for s in keep):  # math only in notebook outputs: Sphinx saw none
            if app.config.mathjax3_config:
                builder.add_js_file(None, body="window.MathJax = " + json.dumps(app.config.mathjax3_config))
            builder.add_js_file(app.config.mathjax_path, defer="defer")
        builder.add_js_file(None, body=MATH_PENDING, priority=501)
    css = context.get("css_files")
    if css is not None:
        css[:] = [c for c in css if "thebe" not in str(getattr(c, "filename", c))]


def drop_theme_scripts(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for page in outdir.rglob("*.html"):
        if page.parent.name == "_static" or "_static" in page.relative_to(outdir).parts:
            continue
        text = page.read_text(encoding="utf-8")
        if page.relative_to(outdir).as_posix() == "search.html":
            new = re.sub(r'\s*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>', "", text)
        else:
            new = THEME_SCRIPTS.sub("", text)
        if new != text:
            page.write_text(new, encoding="utf-8")


def disconnect_thebe(app: Sphinx) -> None:
    """Jupyter Book always loads sphinx_thebe; the book has no live kernels, so its handlers are not run."""
    for listeners in app.events.listeners.values():
        for listener in list(listeners):
            if getattr(listener.handler, "__module__", "").startswith("sphinx_thebe"):
                app.disconnect(listener.id)


def setup(app: Sphinx) -> dict[str, Any]:
    languages["zh"] = SearchChineseGlossary
    app.connect("builder-inited", disconnect_thebe)
    app.connect("config-inited", resolve_search_dict)
    # after sphinx.ext.mathjax (priority 500) has added its scripts for the page
    app.connect("html-page-context", trim_page_assets, priority=900)
    app.connect("build-finished", drop_theme_scripts)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
