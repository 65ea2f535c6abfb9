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

The run reports the pages, the time, anything wider than the page after preparing (``overflow``) and every framed
box that a page break leaves empty (``empty_frames``, read from the printed PDF by :func:`empty_frames`); the tests
require both to be empty.
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
    empty_frames: dict[str, list[str]] = field(default_factory=dict)


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
# empty frames at page breaks, read from the printed PDF
# ---------------------------------------------------------------------------------------------------------------
FRAME_MIN_WIDTH = 20.0  # pt: narrower paint is a side of a frame (a bar), not a whole box
FRAME_MIN_HEIGHT = 4.0  # pt: lower paint is a rule or the top or bottom edge of a frame
EDGE_TOL = 2.0  # pt: a fragment cut by a page break ends this close to the edge of the page's content area
# pt: how far a cut box may run past its content to the page's edge. A break before a block that must stay whole
# (a formula, a figure, a list item kept together by orphans and widows) leaves up to about three lines; a box that
# runs on further fills the page bottom with nothing
EMPTY_RUN = 60.0


def _mul(a: list[float], b: list[float]) -> list[float]:
    return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3], a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]


def _at(m: list[float], x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points, y up


def _cut(a: Box, b: Box) -> Box | None:
    out = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return out if out[0] < out[2] and out[1] < out[3] else None


def page_paint(reader: Any, page: Any) -> tuple[list[Box], list[Box]]:
    """What a PDF page paints: (the visible bounding box of every filled or stroked path in a colour other than
    white, clipped; what carries content: the start of every text run, as a point, and every image)."""
    from pypdf.generic import ContentStream

    frames: list[Box] = []
    marks: list[Box] = []
    full: Box = (-1e9, -1e9, 1e9, 1e9)

    def run(stream: Any, ctm: list[float], resources: Any) -> None:
        stack: list[tuple[list[float], tuple[float, ...], tuple[float, ...], Box | None]] = []
        fill: tuple[float, ...] = (0.0,)
        stroke: tuple[float, ...] = (0.0,)
        clip: Box | None = full
        path: list[tuple[float, float]] = []
        clip_next = False
        tm = lm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        for ops, raw in ContentStream(stream, reader).operations:
            op = raw.decode("latin-1") if isinstance(raw, bytes) else str(raw)
            if op == "q":
                stack.append((ctm, fill, stroke, clip))
            elif op == "Q" and stack:
                ctm, fill, stroke, clip = stack.pop()
            elif op == "cm":
                ctm = _mul([float(v) for v in ops], ctm)
            elif op in ("rg", "g", "k", "sc", "scn"):
                fill = tuple(float(v) for v in ops if not isinstance(v, str))
            elif op in ("RG", "G", "K", "SC", "SCN"):
                stroke = tuple(float(v) for v in ops if not isinstance(v, str))
            elif op == "re":
                x, y, w, h = (float(v) for v in ops)
                path += [_at(ctm, x, y), _at(ctm, x + w, y + h)]
            elif op in ("m", "l", "c", "v", "y"):
                nums = [float(v) for v in ops]
                path += [_at(ctm, nums[i], nums[i + 1]) for i in range(0, len(nums), 2)]
            elif op in ("W", "W*"):
                clip_next = True
            elif op in ("f", "F", "f*", "B", "B*", "b", "b*", "S", "s", "n"):
                if path:
                    xs, ys = [p[0] for p in path], [p[1] for p in path]
                    box: Box = (min(xs), min(ys), max(xs), max(ys))
                    if clip_next:
                        clip = _cut(clip, box) if clip else None
                    colour = fill if op[0] in "fFBb" else stroke
                    seen = _cut(box, clip) if clip else None
                    white = all(v >= 0.999 for v in colour) if len(colour) in (1, 3) else not any(colour)
                    if op != "n" and seen and not white:
                        frames.append(seen)
                path, clip_next = [], False
            elif op == "BT":
                tm = lm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
            elif op == "Tm":
                tm = lm = [float(v) for v in ops]
            elif op in ("Td", "TD"):
                tm = lm = _mul([1.0, 0.0, 0.0, 1.0, float(ops[0]), float(ops[1])], lm)
            elif op in ("Tj", "TJ", "'", '"'):
                x, y = _at(_mul(tm, ctm), 0.0, 0.0)
                marks.append((x, y, x, y))
            elif op == "Do":
                xo = resources["/XObject"][ops[0]].get_object()
                if xo.get("/Subtype") == "/Image":
                    (ax, ay), (bx, by) = _at(ctm, 0.0, 0.0), _at(ctm, 1.0, 1.0)
                    marks.append((min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)))
                else:  # a form: its own content, in its own matrix
                    m = [float(v) for v in xo.get("/Matrix", [1, 0, 0, 1, 0, 0])]
                    run(xo, _mul(m, ctm), xo.get("/Resources", resources))

    if page.get_contents() is not None:
        run(page.get_contents(), [1.0, 0.0, 0.0, 1.0, 0.0, 0.0], page["/Resources"])
    return frames, marks


def empty_frames(reader: Any, margin: dict[str, str] = MARGIN) -> list[str]:
    """Every box that a page break cuts so that its piece on one page holds nothing, or runs on for more than
    :data:`EMPTY_RUN` past its content at the page's bottom (or before it, at the top): one line per piece,
    "page 3 bottom: … ".

    A box is what the page paints (a frame, a background, a side of a frame) at least :data:`FRAME_MIN_HEIGHT`
    tall; the pieces that end at the same height on the same edge are one box (the cells of a table row, a frame
    and its background), and a box with a side narrower than :data:`FRAME_MIN_WIDTH` (a left bar) spans the width
    of the page's content area. Its content is the text (where each run starts) and the images inside it."""
    mm = 72 / 25.4
    found: list[str] = []
    for number, page in enumerate(reader.pages, start=1):
        box = page.mediabox
        top = float(box.top) - float(margin["top"].removesuffix("mm")) * mm
        bottom = float(box.bottom) + float(margin["bottom"].removesuffix("mm")) * mm
        left = float(box.left) + float(margin["left"].removesuffix("mm")) * mm
        right = float(box.right) - float(margin["right"].removesuffix("mm")) * mm
        frames, marks = page_paint(reader, page)
        # (edge, the far end of the piece) → [x0, x1, y0, y1] of the pieces cut at that edge that end there
        cut: dict[str, list[list[float]]] = {"bottom": [], "top": []}
        for x0, y0, x1, y1 in sorted(frames, key=lambda f: (f[1], f[3])):
            if y1 - y0 < FRAME_MIN_HEIGHT:
                continue  # a rule or the top or bottom edge of a frame
            at_bottom, at_top = abs(y0 - bottom) <= EDGE_TOL, abs(y1 - top) <= EDGE_TOL
            if at_bottom == at_top:
                continue  # not cut by a break, or a background the size of the page
            edge = "bottom" if at_bottom else "top"
            a, b = (x0, x1) if x1 - x0 >= FRAME_MIN_WIDTH else (left, right)
            far = y1 if at_bottom else y0
            for g in cut[edge]:
                if abs((g[3] if at_bottom else g[2]) - far) <= EDGE_TOL:
                    g[0], g[1], g[2], g[3] = min(g[0], a), max(g[1], b), min(g[2], y0), max(g[3], y1)
                    break
            else:
                cut[edge].append([a, b, y0, y1])
        for edge, boxes in cut.items():
            for x0, x1, y0, y1 in boxes:
                inside = [m for m in marks if m[2] >= x0 and m[0] <= x1 and m[3] >= y0 and m[1] <= y1]
                where = f"page {number} {edge}: box x {x0:.0f}–{x1:.0f} pt, y {y0:.0f}–{y1:.0f} pt"
                if not inside:
                    found.append(f"{where}, empty")
                    continue
                run = min(m[1] for m in inside) - y0 if edge == "bottom" else y1 - max(m[3] for m in inside)
                if run > EMPTY_RUN:
                    found.append(f"{where}, {run:.0f} pt without content {'below' if edge == 'bottom' else 'above'}")
    return found


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
      im.alt = "第 " + (i + 1) + " / " + n + " 帧" + (img.alt ? "：" + img.alt : "");  // a11y.js: this frame's text
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
          link: bool | None = None, browser: Any = None, check_frames: bool = True) -> Report:
    """Print ``pages`` (site-relative; default: the whole book) of the site at ``site`` into ``out``.

    ``browser``: a Playwright Chromium to use (the caller's, left open); default: launch the system Chromium.
    ``check_frames``: look for empty frames at page breaks in each printed page (:func:`empty_frames`).
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
            data = page.pdf(format="A4", margin=MARGIN, print_background=True, outline=True, tagged=True,
                            prefer_css_page_size=False)
            empty = empty_frames(PdfReader(io.BytesIO(data))) if check_frames else []
            if empty:
                report.empty_frames[entry.rel] = empty
            printed.append((entry, data))
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
    for rel, items in report.empty_frames.items():
        print(f"  分页处的空框：{rel}: {'; '.join(items[:5])}", file=sys.stderr)
    print(json.dumps({k: v for k, v in report.ranges.items()}, ensure_ascii=False))
    return 1 if report.overflow or report.empty_frames else 0


if __name__ == "__main__":
    sys.exit(main())
