"""Quizzes must ask for transfer, not only recall: in every bank shown on a page, at least a third of the
questions carry ``transfer=True``, and a numeric question so flagged has an answer its page does not print.

"Printed" means: equal (within 0.5 % relative) to a number the page glues (its scrapbook records, tables
included, and values it glues from other pages) or writes in its markdown, also after a unit scaling by
10^±3, 10^±6, 10^±9 or 100 (per cent). Small integer answers (≤ 10) are not checked: they occur everywhere.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from functools import cache
from pathlib import Path

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import BANKS

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
MIN_SHARE = 1 / 3
REL_TOL = 5e-3
SCALES = (1.0, 1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9, 100.0, 1e-2)

_NUMBER = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_TAG = re.compile(r"<[^>]+>")
_GLUE_REF = re.compile(r"\{glue(?::text)?\}`([^`:]+?\.ipynb)::([^`:]+)")
_QUIZ_KEY = re.compile(r'quiz\.show\(.*?key="([^"]+)"')
_SKIP_MIME = ("image/png", "image/svg+xml")


def _notebooks() -> list[Path]:
    return sorted(
        p for p in BOOK.rglob("*.ipynb") if not any(part.startswith("_") for part in p.relative_to(BOOK).parts)
    )


def _numbers(text: str) -> list[float]:
    out = []
    for m in _NUMBER.finditer(text):
        try:
            v = float(m.group(0).replace(",", ""))
        except ValueError:  # pragma: no cover - the pattern only matches numbers
            continue
        if math.isfinite(v):
            out.append(abs(v))
    return out


@cache
def _cells(path: Path) -> tuple[dict, ...]:
    return tuple(json.loads(path.read_text(encoding="utf-8"))["cells"])


@cache
def _glued(path: Path) -> dict[str, tuple[float, ...]]:
    """name → numbers of every scrapbook record of a notebook (figures and animations skipped)."""
    records: dict[str, tuple[float, ...]] = {}
    for c in _cells(path):
        for o in c.get("outputs", []):
            meta = o.get("metadata", {}).get("scrapbook")
            if not meta:
                continue
            data = o.get("data", {})
            if any(k.endswith(_SKIP_MIME) for k in data) or "<script" in str(data):
                continue  # figures and animations: their numbers are pixels and frames, not prose
            text = " ".join(
                _TAG.sub(" ", "".join(v) if isinstance(v, list) else str(v))
                for k, v in data.items()
                if k.endswith(("text/plain", "text/html", "text/markdown")) and "IPython.core" not in str(v)
            )
            records[meta.get("name", "")] = tuple(_numbers(text))
    return records


@cache
def _page_numbers(path: Path) -> tuple[float, ...]:
    """Sorted numbers a page prints: its glued records, its markdown, and values it glues from other pages."""
    values: list[float] = [v for nums in _glued(path).values() for v in nums]
    for c in _cells(path):
        if c["cell_type"] != "markdown":
            continue
        src = "".join(c["source"])
        values += _numbers(src)
        for rel, name in _GLUE_REF.findall(src):
            other = (BOOK / rel.lstrip("/")) if rel.startswith("/") else (path.parent / rel)
            if other.resolve().exists():
                values += _glued(other.resolve()).get(name, ())
    return tuple(sorted(v for v in values if v > 0))


def _printed(answer: float, numbers: tuple[float, ...]) -> bool:
    a = abs(answer)
    if a == 0:
        return 0.0 in numbers
    for s in SCALES:
        target = a * s
        lo = bisect.bisect_left(numbers, target * (1 - REL_TOL))
        if lo < len(numbers) and numbers[lo] <= target * (1 + REL_TOL):
            return True
    return False


@cache
def _pages() -> dict[str, Path]:
    pages: dict[str, Path] = {}
    for nb in _notebooks():
        for c in _cells(nb):
            if c["cell_type"] == "code":
                for k in _QUIZ_KEY.findall("".join(c["source"])):
                    pages[k] = nb
    return pages


def _small_integer(x: float) -> bool:
    return abs(x) <= 10 and float(x).is_integer()


SHOWN = sorted(k for k in BANKS if k in _pages())


def test_banks_are_found_on_pages():
    assert SHOWN, "no quiz bank is shown on any page"


@pytest.mark.parametrize("key", SHOWN)
def test_transfer_share(key):
    qs = BANKS[key]()
    n = sum(q.transfer for q in qs)
    assert n >= MIN_SHARE * len(qs), f"bank {key}: {n} of {len(qs)} questions ask for transfer (need ≥ 1/3)"


@pytest.mark.parametrize("key", SHOWN)
def test_transfer_answers_are_not_printed_on_the_page(key):
    numbers = _page_numbers(_pages()[key])
    printed = [
        f"  {q.answer:.6g}: {q.prompt[:60]}…"
        for q in BANKS[key]()
        if isinstance(q, quiz.Numeric) and q.transfer and not _small_integer(q.answer) and _printed(q.answer, numbers)
    ]
    assert not printed, f"bank {key}: transfer answers printed on {_pages()[key].name}:\n" + "\n".join(printed)


def test_checker_finds_scaled_numbers():
    numbers = tuple(sorted(_numbers("耗时 54.44 ms，约 0.6 的比例，16,384 张卡")))
    assert _printed(0.05444, numbers)  # s ↔ ms
    assert _printed(60.0, numbers)  # per cent ↔ fraction
    assert _printed(16384, numbers)
    assert _printed(54.6, numbers)  # within 0.5 %
    assert not _printed(55.0, numbers)
    assert not _printed(7.3, numbers)
