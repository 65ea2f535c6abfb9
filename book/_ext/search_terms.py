"""Site search finds the page that defines a term.

Sphinx's search ranks a page that merely mentions a word about as high as the page that explains it. Every term of
``book/_data/glossary.yml`` names the page (and anchor) that first discusses it in detail (``see``); this extension
gives that page a main index entry for each of the term's names (Chinese, English, abbreviation, other names).
Sphinx's search page scores an index entry that equals the query far above any full-text hit (100 against 15 for
a title), so the defining page comes first. ``PAGE_KEYWORDS`` does the same for a few pages that are not glossary
terms but that readers look for by one word (the errata page for 勘误).

The entries are added to the resolved doctree, which is what the search indexer reads; the general index page is
not built (``html_use_index`` is off in Jupyter Book), so they appear nowhere else.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

ROOT = Path(__file__).resolve().parents[2]
PAGE_KEYWORDS: dict[str, tuple[str, ...]] = {
    "errata": ("勘误", "勘误表", "errata"),
    "references": ("参考文献", "references"),
    "glossary": ("术语表", "glossary"),
    "progress": ("自测进度",),
}


def _glossary() -> Any:
    spec = importlib.util.spec_from_file_location("glossary_tool", ROOT / "tools" / "glossary.py")
    if spec is None or spec.loader is None:
        raise RuntimeError("tools/glossary.py not found")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def collect_entries(app: Sphinx) -> None:
    """docname → [(name, anchor)] from the glossary and PAGE_KEYWORDS."""
    _, terms = _glossary().load()
    entries: dict[str, list[tuple[str, str]]] = {}
    for t in terms:
        doc, _, anchor = t.see.partition("#")
        for name in t.names():
            entries.setdefault(doc, []).append((name, anchor))
    for doc, words in PAGE_KEYWORDS.items():
        entries.setdefault(doc, []).extend((w, "") for w in words)
    app.config._search_term_entries = entries  # type: ignore[attr-defined]


def _resolve_labels(app: Sphinx) -> None:
    """Entries whose ``see`` is a bare ``#label`` (a MyST target anywhere in the book) move to the label's page."""
    entries: dict[str, list[tuple[str, str]]] = app.config._search_term_entries  # type: ignore[attr-defined]
    labels = app.env.get_domain("std").labels  # type: ignore[attr-defined]
    for name, anchor in entries.pop("", []):
        if anchor not in labels:
            raise ValueError(f"glossary 'see' names #{anchor}, which is no label of the book")
        doc, label_id, _title = labels[anchor]
        entries.setdefault(doc, []).append((name, label_id))
    app.config._search_term_labels_resolved = True  # type: ignore[attr-defined]


def add_index_entries(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if not getattr(app.config, "_search_term_labels_resolved", False):
        _resolve_labels(app)
    wanted = getattr(app.config, "_search_term_entries", {}).get(docname)
    if not wanted:
        return
    node = addnodes.index(entries=[("single", name, anchor, "main", None) for name, anchor in wanted])
    doctree.append(node)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", collect_entries)
    app.connect("doctree-resolved", add_index_entries)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
