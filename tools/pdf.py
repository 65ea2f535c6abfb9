"""The PDF edition: every page of the built site, in table-of-contents order, printed by the system Chromium.

Usage: ``python tools/pdf.py HTML_DIR [-o OUT.pdf] [--pages REL ...]`` (``make pdf``: the whole book into
``HTML_DIR/clusterlab-book.pdf``, and every page's download menu then links it).

Offline: the site is served on 127.0.0.1 and any request to another host is refused. Each page is loaded, its
formulas typeset by the site's own MathJax, and prepared for paper: hidden code and collapsed blocks open, each
animation becomes a strip of key frames, each quiz keeps its questions and sends its answers to an appendix at the
end of the book. Chromium prints the page with the site's print stylesheet (``book/_static/print.css``: long code
lines wrap, wide tables fit the page, no empty frames at page breaks) and embeds the fonts it used (Noto CJK).
The page PDFs are merged with pypdf; the bookmarks follow the table of contents (part → chapter → the page's own
headings, from Chromium's outline) and every page gets its number, stamped from one more Chromium print.

The run reports the pages, the time, and anything wider than the page after preparing (``overflow``), which the
tests require to be empty.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import html
import http.server
import io
import json
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PDF_NAME = "clusterlab-book.pdf"
KEY_FRAMES = 6  # frames per animation strip (first and last included)
A4_CONTENT_PX = 680  # 180 mm of A4 at 96 px/in: the width print.css leaves between the margins
MARGIN = {"top": "16mm", "bottom": "18mm", "left": "15mm", "right": "15mm"}
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
LINK_MARK = "clusterlab-pdf-edition"
# pages with nothing for paper: the self-check progress page shows scores kept in the reader's browser
NOT_PRINTED = {"progress.html"}


@dataclass
class Entry:
    """One page of the book: where it sits in the table of contents."""

    rel: str  # path in the site, e.g. "part1/9.6.2-overlap.html"
    title: str
    part: str  # caption of its part ("" for the opening page)


@dataclass
class Report:
    """What a run produced: pages and their place in the PDF (first page, page count), and what did not fit."""

    pdf: Path
    pages: int = 0
    seconds: float = 0.0
    bytes: int = 0
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    strips: dict[str, int] = field(default_factory=dict)
    quizzes: dict[str, int] = field(default_factory=dict)
    overflow: dict[str, list[str]] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------------------------
# the table of contents, read from the built site's navigation
# ---------------------------------------------------------------------------------------------------------------
def contents(site: Path) -> list[Entry]:
    """Every page of the book in reading order: the root page, then each part's chapters (from the sidebar)."""
    root = (site / "intro.html").read_text(encoding="utf-8")
    nav = re.search(r'<nav class="[^"]*\bbd-docs-nav\b[^"]*"[^>]*>(.*?)</nav>', root, re.S)
    if not nav:
        raise ValueError(f"site: no table of contents in {site / 'intro.html'}")
    title = re.search(r"<h1[^>]*>(.*?)</h1>", root, re.S)
    entries = [Entry("intro.html", _text(title.group(1)) if title else "", "")]
    part = ""
    for m in re.finditer(r'<p aria-level="2" class="caption"[^>]*>(.*?)</p>|<li class="toctree-l1[^"]*">\s*'
                         r'<a class="reference internal" href="([^"#]+)"[^>]*>(.*?)</a>', nav.group(1), re.S):
        if m.group(1) is not None:
            part = _text(m.group(1))
        else:
            entries.append(Entry(m.group(2), _text(m.group(3)), part))
    return [e for e in entries if e.rel not in NOT_PRINTED]


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", fragment))).strip()


# ---------------------------------------------------------------------------------------------------------------
# serving the site and driving Chromium
# ---------------------------------------------------------------------------------------------------------------
class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def chromium() -> str | None:
    """``$CLUSTERLAB_CHROMIUM`` when set, else ``chromium`` on PATH, else ``/usr/bin/chromium``."""
    forced = os.environ.get("CLUSTERLAB_CHROMIUM")
    candidates = [forced] if forced is not None else [shutil.which("chromium"), "/usr/bin/chromium"]
    return next((c for c in candidates if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)


PREPARE = """async ({frames, width}) => {
  const M = window.MathJax;
  if (M && M.startup && M.startup.promise) await M.startup.promise.catch(() => {});
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  document.querySelectorAll(".toggle-hidden").forEach((e) => e.classList.remove("toggle-hidden"));
  document.querySelectorAll("button.toggle-button").forEach((b) => b.remove());
  // each animation player → a strip of key frames (the slider drives the player's own frame switch)
  let strips = 0;
  for (const a of Array.from(document.querySelectorAll("div.animation"))) {
    const slider = a.querySelector("input.anim-slider"), img = a.querySelector("img");
    if (!slider || !img) continue;
    const n = Number(slider.max) + 1, k = Math.min(n, frames), picks = [];
    for (let j = 0; j < k; j++) {
      const i = Math.round(j * (n - 1) / Math.max(k - 1, 1));
      if (!picks.includes(i)) picks.push(i);
    }
    const strip = document.createElement("div");
    strip.className = "anim-strip";
    for (const i of picks) {
      slider.value = String(i);
      slider.dispatchEvent(new Event("input"));
      const fig = document.createElement("figure"), im = document.createElement("img");
      const cap = document.createElement("figcaption");
      im.src = img.src;
      im.alt = (img.alt ? img.alt + "，" : "") + "第 " + (i + 1) + " 帧";
      cap.textContent = "第 " + (i + 1) + " / " + n + " 帧";
      fig.append(im, cap);
      strip.append(fig);
    }
    a.replaceWith(strip);
    strips++;
  }
  // quizzes keep their questions; the answers go to the appendix
  const quizzes = [];
  for (const q of Array.from(document.querySelectorAll("div.clq"))) {
    const data = q.querySelector("script.clq-data");
    if (!data) continue;
    quizzes.push(JSON.parse(data.textContent));
    const note = document.createElement("p");
    note.className = "clq-print-note";
    note.textContent = "答案与解析见书末附录“自测答案”。";
    q.append(note);
  }
  if (M && M.typesetPromise) await M.typesetPromise().catch(() => {});
  // tables: whole words if they fit so, else whole words in a smaller size, else break anywhere (print.css)
  const wide = (t) => t.scrollWidth > t.parentElement.clientWidth + 1 || t.getBoundingClientRect().right > width + 2;
  for (const t of Array.from(document.querySelectorAll(".bd-article table"))) {
    t.classList.add("pdf-words");
    if (!wide(t)) continue;
    t.classList.add("pdf-small");
    if (wide(t)) t.classList.remove("pdf-words");
  }
  await Promise.all(Array.from(document.images).map((i) => i.complete ? 0
    : new Promise((r) => { i.onload = i.onerror = r; })));
  // what would still be wider than the page
  const over = [];
  const boxes = ".bd-article pre, .bd-article table, .bd-article img, .bd-article mjx-container[display]";
  for (const e of document.querySelectorAll(boxes)) {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && (e.scrollWidth > e.clientWidth + 1 || r.right > width + 2)) {
      const where = e.closest("[id]") ? "#" + e.closest("[id]").id : "";
      over.push(e.tagName.toLowerCase() + " " + where + " " + Math.round(r.right));
    }
  }
  return {strips, quizzes, over};
}"""


def _answer_html(q: dict[str, Any]) -> str:
    if q["type"] == "numeric":
        return html.escape(q["answer_text"]) + f"（{html.escape(q['tolerance_text'])}）"
    return "；".join(o["html"] for o in q["options"] if o["correct"])


def appendix_html(quizzes: list[tuple[str, list[dict[str, Any]]]]) -> str:
    """The answers of every quiz, chapter by chapter, with the explanations the quizzes show on the site."""
    out = ['<section id="pdf-appendix-answers"><h1>附录 · 自测答案</h1>',
           "<p>各节自测题的答案与解析，题号与正文中的题号一致。数值题在给出的误差范围内都算对。</p>"]
    for title, questions in quizzes:
        out.append(f"<h2>{html.escape(title)}</h2><ol>")
        for q in questions:
            out.append(f'<li class="pdf-answer"><div>{q["prompt_html"]}</div>'
                       f"<div><strong>答案：</strong>{_answer_html(q)}</div>"
                       f'<div>{q.get("explanation_html", "")}</div></li>')
        out.append("</ol>")
    out.append("</section>")
    return "".join(out)


def _numbers_html(count: int) -> str:
    pages = "".join(f'<div class="p"><span>{i}</span></div>' for i in range(1, count + 1))
    return ("<!doctype html><html lang='zh-CN'><head><meta charset='utf-8'><style>"
            "@page{size:A4;margin:0}html,body{margin:0}"
            ".p{position:relative;height:296mm;break-after:page;overflow:hidden}.p:last-child{break-after:auto}"
            ".p span{position:absolute;bottom:8mm;left:0;right:0;text-align:center;"
            "font:9pt 'Noto Sans CJK SC','Noto Sans',sans-serif;color:#444}"
            f"</style></head><body>{pages}</body></html>")


def build(site: Path, out: Path, pages: list[str] | None = None, *, frames: int = KEY_FRAMES,
          link: bool | None = None, browser: Any = None) -> Report:
    """Print ``pages`` (site-relative; default: the whole book) of the site at ``site`` into ``out``.

    ``browser``: a Playwright Chromium to use (the caller's, left open); default: launch the system Chromium.
    ``link``: add the PDF to every page's download menu (default: when the whole book is written into the site)."""
    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject, TextStringObject

    site = site.resolve()
    if not (site / "intro.html").is_file():
        raise ValueError(f"site: {site} holds no built book (intro.html missing)")
    exe = chromium()
    if exe is None and browser is None:
        raise RuntimeError("Chromium not found: install Debian's chromium or set CLUSTERLAB_CHROMIUM")
    toc = contents(site)
    if pages is not None:
        unknown = sorted(set(pages) - {e.rel for e in toc})
        if unknown:
            raise ValueError(f"pages: {unknown} are not in the table of contents")
        toc = [e for e in toc if e.rel in pages]
    start = time.monotonic()
    report = Report(out)
    printed: list[tuple[Entry, bytes]] = []
    quizzes: list[tuple[str, list[dict[str, Any]]]] = []
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(serve(site))
        if browser is None:
            pw = stack.enter_context(sync_playwright())
            browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
            stack.callback(browser.close)
        context = browser.new_context(viewport={"width": A4_CONTENT_PX, "height": 1000})
        stack.callback(context.close)
        context.route(re.compile(r"^(?!http://127\.0\.0\.1:\d+/|data:|blob:)"), lambda route: route.abort())
        page = context.new_page()
        page.emulate_media(media="print")
        for entry in toc:
            page.goto(url + entry.rel, wait_until="load")
            got = page.evaluate(PREPARE, {"frames": frames, "width": A4_CONTENT_PX})
            report.strips[entry.rel] = got["strips"]
            report.quizzes[entry.rel] = sum(len(q["questions"]) for q in got["quizzes"])
            if got["over"]:
                report.overflow[entry.rel] = got["over"]
            quizzes += [(entry.title, q["questions"]) for q in got["quizzes"]]
            printed.append((entry, page.pdf(format="A4", margin=MARGIN, print_background=True, outline=True,
                                            tagged=True, prefer_css_page_size=False)))
        if quizzes:  # the appendix is a page of the site (its MathJax, fonts and styles) with new content
            page.goto(url + "notation.html", wait_until="load")
            page.evaluate("""async (body) => {
              const a = document.querySelector("article.bd-article") || document.querySelector("main");
              a.innerHTML = body;
              const title = document.querySelector("#jb-print-docs-body h1");
              if (title) title.textContent = a.querySelector("h1").textContent;
              document.title = title ? title.textContent : document.title;
              if (window.MathJax && MathJax.typesetPromise) await MathJax.typesetPromise([a]).catch(() => {});
            }""", appendix_html(quizzes))
            appendix = Entry("appendix", "附录 · 自测答案", "附录")
            printed.append((appendix, page.pdf(format="A4", margin=MARGIN, print_background=True, outline=True,
                                               tagged=True)))
        writer = PdfWriter()
        outline: list[tuple[Entry, int, list[tuple[str, int]]]] = []
        for entry, data in printed:
            reader = PdfReader(io.BytesIO(data))
            first = len(writer.pages)
            writer.append(reader, import_outline=False)
            report.ranges[entry.rel] = (first, len(reader.pages))
            outline.append((entry, first, [(t, first + p) for t, p in _headings(reader)]))
        total = len(writer.pages)
        numbers = context.new_page()
        numbers.set_content(_numbers_html(total), wait_until="load")
        stamps = PdfReader(io.BytesIO(numbers.pdf(format="A4", margin={"top": "0", "bottom": "0", "left": "0",
                                                                        "right": "0"}, prefer_css_page_size=True)))
    if len(stamps.pages) != total:
        raise RuntimeError(f"page numbers: {len(stamps.pages)} stamps for {total} pages")
    for i, p in enumerate(writer.pages):
        p.merge_page(stamps.pages[i])
        p.compress_content_streams(level=9)  # merging leaves the page's content uncompressed
    parts: dict[str, Any] = {}
    for entry, first, heads in outline:
        parent = None
        if entry.part:
            if entry.part not in parts:
                parts[entry.part] = writer.add_outline_item(title=entry.part, page_number=first)
            parent = parts[entry.part]
        item = writer.add_outline_item(title=entry.title or entry.rel, page_number=first, parent=parent)
        for title, page_no in heads:
            writer.add_outline_item(title=title, page_number=page_no, parent=item)
    writer.add_metadata({"/Title": _book_title(site), "/Author": "clusterlab 作者组", "/Creator": "tools/pdf.py"})
    writer._root_object[NameObject("/Lang")] = TextStringObject("zh-CN")
    writer.page_mode = "/UseOutlines"
    writer.compress_identical_objects(remove_duplicates=True, remove_unreferenced=True)  # fonts, images shared by pages
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as f:
        writer.write(f)
    report.pages = total
    report.bytes = out.stat().st_size
    report.seconds = time.monotonic() - start
    if (link if link is not None else pages is None and out.resolve().parent == site):
        link_pdf(site, out.name)
    return report


def _headings(reader: Any) -> list[tuple[str, int]]:
    """The page's second-level headings from Chromium's outline (its first level is the page title)."""
    out: list[tuple[str, int]] = []
    items = reader.outline
    for i, item in enumerate(items):
        if isinstance(item, list):
            continue
        children = items[i + 1] if i + 1 < len(items) and isinstance(items[i + 1], list) else []
        for child in children:
            if not isinstance(child, list):
                out.append((_heading(str(child.title)), reader.get_destination_page_number(child)))
        break
    return out


def _heading(title: str) -> str:
    """A heading's text as Chromium's outline gives it, once (a heading that carries a hidden copy of its own text
    comes out doubled)."""
    t = re.sub(r"\s+", " ", title).strip()
    half = len(t) // 2
    return t[:half] if len(t) % 2 == 0 and t[:half] == t[half:] else t


def _book_title(site: Path) -> str:
    m = re.search(r"<title>(.*?)</title>", (site / "intro.html").read_text(encoding="utf-8"), re.S)
    title = _text(m.group(1)) if m else "集群训练工程"
    return title.split(" — ")[-1] if " — " in title else title


def link_pdf(site: Path, name: str = PDF_NAME) -> int:
    """Add "全书 PDF" to the download menu of every page of the site (once); returns the pages changed."""
    changed = 0
    menu = re.compile(r'(<div class="dropdown dropdown-download-buttons">.*?<ul class="dropdown-menu">)', re.S)
    for path in sorted(site.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        if LINK_MARK in text or not menu.search(text):
            continue
        rel = os.path.relpath(site / name, path.parent).replace(os.sep, "/")
        item = (f'\n<li><a href="{rel}" download class="btn btn-sm dropdown-item {LINK_MARK}" title="下载全书 PDF">'
                '<span class="btn__icon-container"><i class="fas fa-file-pdf"></i></span>'
                '<span class="btn__text-container">全书 PDF</span></a></li>')
        path.write_text(menu.sub(lambda m, item=item: m.group(1) + item, text, count=1), encoding="utf-8")
        changed += 1
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("html", type=Path, help="the built site (book/_build/html)")
    ap.add_argument("-o", "--output", type=Path, help=f"the PDF (default HTML/{PDF_NAME})")
    ap.add_argument("--pages", nargs="+", help="only these pages (site-relative, e.g. part1/9.6.2-overlap.html)")
    args = ap.parse_args(argv)
    out = args.output or args.html / PDF_NAME
    try:
        report = build(args.html, out, args.pages)
    except (ValueError, RuntimeError) as e:
        print(f"pdf: {e}", file=sys.stderr)
        return 2
    print(f"{report.pdf}: {report.pages} 页，{report.bytes / 1e6:.1f} MB，{len(report.ranges)} 个文档，"
          f"{sum(report.strips.values())} 个动画帧条，{sum(report.quizzes.values())} 道自测题进附录，"
          f"用时 {report.seconds:.0f} s")
    for rel, items in report.overflow.items():
        print(f"  超出版心：{rel}: {', '.join(items[:5])}", file=sys.stderr)
    print(json.dumps({k: v for k, v in report.ranges.items()}, ensure_ascii=False))
    return 1 if report.overflow else 0


if __name__ == "__main__":
    sys.exit(main())
