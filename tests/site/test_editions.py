"""The edition, the licences and the page 本版变更 (book/_ext/editions.py): the page lists every glue value that
differs from the previous edition's record, every page's footer states the edition and both licences, and the
repository carries LICENSE, the CC BY-SA 4.0 text, CITATION.cff and CHANGELOG.md with the same edition number."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "book" / "_build" / "html"
built = pytest.mark.skipif(not (HTML / "index.html").is_file(), reason="book not built (run make book)")


def editions():
    spec = importlib.util.spec_from_file_location("editions_ext", ROOT / "book" / "_ext" / "editions.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_changed_value_is_listed():
    ed = editions()
    old = {"part2/02-ring-allreduce": {"c02-bytes": "23.25 GB", "c02-steps": "766"}, "notation": {"nv": "300"}}
    new = {"part2/02-ring-allreduce": {"c02-bytes": "23.5 GB", "c02-steps": "766", "c02-new": "8"}}
    changes = ed.diff(old, new)
    assert changes["changed"] == [("part2/02-ring-allreduce", "c02-bytes", "23.25 GB", "23.5 GB")]
    assert changes["added"] == [("part2/02-ring-allreduce", "c02-new", "", "8")]
    assert changes["removed"] == [("notation", "nv", "300", "")]
    page = ed.render(2, 1, changes, {"part2/02-ring-allreduce": "2 环形全归约"}, lambda doc: doc + ".html")
    assert "23.25 GB" in page and "23.5 GB" in page and "c02-bytes" in page
    assert "改变 1 个，新增 1 个，删去 1 个" in page
    assert 'href="part2/02-ring-allreduce.html"' in page
    same = ed.render(2, 1, ed.diff(old, old), {}, lambda doc: doc)
    assert "改变 0 个" in same and "23.25 GB" not in same


def test_previous_edition_record_is_complete():
    ed = editions()
    prev = ed.previous_edition()
    assert prev is not None, "no recorded edition in book/_data/editions"
    number, values = prev
    assert number == ed.EDITION - 1
    assert sum(len(v) for v in values.values()) > 1000
    assert all(re.fullmatch(r"[\w./-]+", doc) for doc in values)


def test_glue_values_read_the_stored_outputs(tmp_path):
    ed = editions()
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "outputs": [
                    {
                        "output_type": "display_data",
                        "metadata": {"scrapbook": {"name": "k1", "mime_prefix": "application/papermill.record/"}},
                        "data": {"application/papermill.record/text/plain": "42 GB"},
                    },
                    {
                        "output_type": "display_data",
                        "metadata": {"scrapbook": {"name": "fig", "mime_prefix": "application/papermill.record/"}},
                        "data": {"application/papermill.record/image/png": "iVBOR"},
                    },
                ],
            }
        ]
    }
    (tmp_path / "part9").mkdir()
    (tmp_path / "part9" / "x.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    assert ed.glue_values(tmp_path) == {"part9/x": {"k1": "42 GB"}}


def test_licence_files_and_edition_number():
    ed = editions()
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Attribution-ShareAlike 4.0" in (ROOT / "LICENSES" / "CC-BY-SA-4.0.txt").read_text(encoding="utf-8")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and set(cff["license"]) == {"MIT", "CC-BY-SA-4.0"}
    assert str(cff["version"]) == str(ed.EDITION)
    assert f"## 第 {ed.EDITION} 版" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "CC BY-SA 4.0" in readme and "MIT" in readme


@built
def test_changes_page_and_footers():
    ed = editions()
    page = (HTML / "changes.html").read_text(encoding="utf-8")
    assert "本版变更" in page and f"第 {ed.EDITION} 版与第 {ed.EDITION - 1} 版相比" in page
    missing = []
    for path in sorted(HTML.rglob("*.html")):
        rel = path.relative_to(HTML)
        if rel.parts[0].startswith("_") or rel.name in {"index.html"}:
            continue
        text = path.read_text(encoding="utf-8")
        link = re.search(r'href="((\.\./)*changes\.html|#)">本版变更', text)
        if "CC BY-SA 4.0" not in text or "MIT 许可" not in text or not link:
            missing.append(rel.as_posix())
    assert not missing, f"pages whose footer lacks the licences or the link to 本版变更: {missing}"
