"""Shared helpers for the browser tests (tests/browser) and the page-load benchmark (benchmarks).

The built site is served by a threaded ``http.server`` on 127.0.0.1 and driven with Playwright through Debian's
Chromium (``/usr/bin/chromium``; Playwright's own browser download is not used). ``CLUSTERLAB_SITE`` points the
tests at another build (default ``book/_build/html``), ``CLUSTERLAB_CHROMIUM`` at another Chromium binary.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("CLUSTERLAB_SITE") or ROOT / "book" / "_build" / "html").resolve()
NO_CHROMIUM = "Chromium not found: browser tests skipped; install Debian's chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def chromium() -> str | None:
    """The Chromium binary: ``$CLUSTERLAB_CHROMIUM`` when set (only that), else ``chromium`` on PATH, else
    ``/usr/bin/chromium``."""
    forced = os.environ.get("CLUSTERLAB_CHROMIUM")
    candidates = [forced] if forced is not None else [shutil.which("chromium"), "/usr/bin/chromium"]
    return next((c for c in candidates if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)


def unavailable() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    if chromium() is None:
        return NO_CHROMIUM
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright not installed: browser tests skipped; run make venv"
    if not (SITE / "intro.html").is_file():
        return f"site not built at {SITE}: browser tests skipped; run make book"
    return None


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Quiet, and lets the browser cache for an hour (the site does not change during a run)."""

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on a free port of 127.0.0.1; yields the base URL (ending in ``/``)."""
    handler = functools.partial(_Handler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextlib.contextmanager
def launch() -> Iterator[Any]:
    """One headless Chromium (Playwright's ``Browser``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def pages(site: Path = SITE) -> list[str]:
    """Every HTML page of the site (relative POSIX paths), except redirects and the build's own folders."""
    out = []
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if rel.startswith("_"):
            continue
        head = path.read_text(encoding="utf-8", errors="replace")[:2000].lower()
        if 'http-equiv="refresh"' in head:
            continue
        out.append(rel)
    return out


def axe_core() -> Path | None:
    """``axe.min.js`` as vendored by ``tools/vendor_assets.py`` (pinned in requirements/npm), or None."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("vendor_assets", ROOT / "tools" / "vendor_assets.py")
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module.axe_core_path() if module.axe_core_installed() else None


def weight(site: Path, rel: str) -> int:
    """Bytes of a page and of the local images it shows (images in data: URLs are part of the page)."""
    text = (site / rel).read_text(encoding="utf-8", errors="replace")
    total = len(text.encode())
    for src in sorted(set(re.findall(r'<img\b[^>]*?\bsrc="([^"#?:]+)"', text))):
        img = (site / rel).parent / src
        total += img.stat().st_size if img.is_file() else 0
    return total


def settle(page: Any) -> None:
    """Wait until MathJax (when present) has typeset the page."""
    page.evaluate(
        "() => window.MathJax && MathJax.startup && MathJax.startup.promise ? "
        "MathJax.startup.promise.then(() => true, () => true) : true"
    )


LOAD_METRICS = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  let all = nav.encodedBodySize;
  for (const r of performance.getEntriesByType("resource")) all += r.encodedBodySize || 0;
  return {load_ms: nav.loadEventEnd, dcl_ms: nav.domContentLoadedEventEnd, all_bytes: all};
}"""
