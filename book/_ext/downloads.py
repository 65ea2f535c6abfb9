"""Student notebooks download from a copy of the site opened from disk (file://) too.

Over http(s) a ``{download}`` link (``<a class="reference download internal" download href="…ipynb">``) saves the
notebook. From file:// Chromium ignores the ``download`` attribute (every file is its own origin) and shows the
notebook's raw JSON instead, and a page cannot read a file beside it. A ``<script src>`` may load one, though: so
after the build each published notebook gets a sibling ``<name>.ipynb.js`` holding its bytes (base64), and pages
that link a notebook get a small script that, only under file://, loads that sibling on click and saves the bytes
under the notebook's own name (a Blob URL, which the ``download`` attribute does work with). The notebook saved is
byte for byte the one the http link serves.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

MARK = 'class="reference download internal"'
# the key is the link's last two path parts ("<hash>/<name>.ipynb"), as Sphinx names the copies in _downloads
SCRIPT = (
    '(function(){if(location.protocol!=="file:")return;'
    'document.addEventListener("click",function(e){'
    'var a=e.target&&e.target.closest?e.target.closest(\'a.download[href$=".ipynb"]\'):null;if(!a)return;'
    'e.preventDefault();var href=a.getAttribute("href"),parts=href.split("/"),name=parts[parts.length-1],'
    'key=parts.slice(-2).join("/");'
    "var save=function(){var s=atob(window.clqDownloads[key]),b=new Uint8Array(s.length);"
    "for(var i=0;i<s.length;i++)b[i]=s.charCodeAt(i);"
    'var t=document.createElement("a");t.href=URL.createObjectURL(new Blob([b],{type:"application/x-ipynb+json"}));'
    "t.download=name;document.body.appendChild(t);t.click();t.remove();};"
    "if(window.clqDownloads&&window.clqDownloads[key])return save();"
    'var s=document.createElement("script");s.src=href+".js";s.onload=save;document.head.appendChild(s);'
    "});})();"
)


def wrapper(notebook: Path) -> str:
    """The script that hands ``notebook``'s bytes to the page (``window.clqDownloads["<dir>/<name>"]``)."""
    key = f"{notebook.parent.name}/{notebook.name}"
    data = base64.b64encode(notebook.read_bytes()).decode("ascii")
    return f'(window.clqDownloads=window.clqDownloads||{{}})[{json.dumps(key)}]="{data}";\n'


def add_script(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    body = context.get("body", "")
    if MARK in body and ".ipynb" in body:
        app.builder.add_js_file(None, body=SCRIPT)  # type: ignore[attr-defined]  # this page only


def write_wrappers(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for notebook in sorted((Path(app.outdir) / "_downloads").rglob("*.ipynb")):
        notebook.with_name(notebook.name + ".js").write_text(wrapper(notebook), encoding="ascii")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", add_script)
    app.connect("build-finished", write_wrappers)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
