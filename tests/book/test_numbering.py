"""book/_ext/numbering.py: the section prefix each page's file name carries, and per-page renumbering."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def numbering():
    spec = importlib.util.spec_from_file_location("book_numbering", ROOT / "book" / "_ext" / "numbering.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("docname", "prefix"),
    [
        ("part1/9.6.1-collectives", "9.6.1"),
        ("part1/9.6.3-checkpoint", "9.6.3"),
        ("part1/9.6.5-1-parallel-5d", "9.6.5.1"),
        ("part1/9.6.5-2-determinism", "9.6.5.2"),
        ("part1/9.6-overview", "9.6"),
        ("part2/01-gradient-sync", "1"),
        ("part2/02-ring-allreduce", "2"),
        ("part2/02-1-chunking", "2.1"),
        ("part2/02-2-nccl-hccl", "2.2"),
        ("part2/05-fault-tolerance", "5"),
        ("notation", ""),
        ("errata", ""),
    ],
)
def test_section_prefix(numbering, docname, prefix):
    assert numbering.section_prefix(docname) == prefix


def test_every_toc_page_with_a_number_in_its_name_gets_a_prefix(numbering):
    toc = (ROOT / "book" / "_toc.yml").read_text(encoding="utf-8")
    for line in toc.splitlines():
        if "file:" in line and ("part1/" in line or "part2/" in line):
            docname = line.split("file:")[1].strip()
            assert numbering.section_prefix(docname), f"{docname}: its items would be numbered without a section"


def test_renumber_is_per_page_in_document_order(numbering):
    env = SimpleNamespace(
        toc_fignumbers={
            "part1/9.6.3-checkpoint": {"figure": {"fig-b": (7,), "fig-a": (6,)}, "table": {"tbl-a": (3,)}},
            "part2/02-1-chunking": {"figure": {"fig-c": (8,)}},
            "notation": {"table": {"tbl-n": (1,)}},
        }
    )
    numbering.renumber(None, env)
    assert env.toc_fignumbers["part1/9.6.3-checkpoint"]["figure"] == {"fig-a": ("9.6.3-1",), "fig-b": ("9.6.3-2",)}
    assert env.toc_fignumbers["part1/9.6.3-checkpoint"]["table"] == {"tbl-a": ("9.6.3-1",)}
    assert env.toc_fignumbers["part2/02-1-chunking"]["figure"] == {"fig-c": ("2.1-1",)}
    assert env.toc_fignumbers["notation"]["table"] == {"tbl-n": ("1",)}


def test_labels_are_chinese(numbering):
    assert numbering.LABELS["figure"] == "图" and numbering.LABELS["example"] == "例"
    assert numbering.LABELS["table"] == "表" and numbering.LABELS["algorithm"] == "算法"
