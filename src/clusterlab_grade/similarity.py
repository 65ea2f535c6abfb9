"""Which submissions are alike: token winnowing (Schleimer, Wilkerson & Aiken 2003, the method behind MOSS).

Each submission's code cells are tokenised with :mod:`tokenize`; names become ``V``, numbers ``N`` and strings
``S`` (renaming a variable or changing a constant does not hide a copy), comments and layout are dropped. Every run
of :data:`K` tokens is hashed, and in every window of :data:`W` consecutive hashes the smallest is kept: the
fingerprints. Fingerprints of the code handed out (the student notebook) and those found in more than half of the
class are ignored. The similarity of two submissions is the share of the smaller fingerprint set found in the
other; pairs at or above the threshold are reported with the matching passages (lines of each). A report is a hint
for the teacher and never changes a score.
"""

from __future__ import annotations

import hashlib
import io
import tokenize
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from . import classroom as cr

K = 12  # tokens per k-gram
W = 8  # window of k-grams
MAX_PAIRS = 200


def tokens(cells: Iterable[str]) -> list[tuple[str, int, int]]:
    """Normalised tokens of the cells: (token, cell, line)."""
    out: list[tuple[str, int, int]] = []
    for ci, source in enumerate(cells):
        try:
            for tok in tokenize.generate_tokens(io.StringIO(source).readline):
                if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                tokenize.ENDMARKER):
                    continue
                if tok.type == tokenize.NAME:
                    text = tok.string if tok.string in _KEYWORDS else "V"
                elif tok.type == tokenize.NUMBER:
                    text = "N"
                elif tok.type == tokenize.STRING:
                    text = "S"
                else:
                    text = tok.string
                out.append((text, ci, tok.start[0]))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            continue
    return out


_KEYWORDS = frozenset(__import__("keyword").kwlist) | {"print", "range", "len", "np", "sum", "min", "max"}


def fingerprints(cells: Iterable[str]) -> dict[int, tuple[int, int]]:
    """Winnowed fingerprints → (cell, line) of their first occurrence."""
    toks = tokens(cells)
    hashes = []
    for i in range(len(toks) - K + 1):
        gram = " ".join(t for t, _, _ in toks[i : i + K]).encode()
        hashes.append((int.from_bytes(hashlib.blake2b(gram, digest_size=8).digest(), "big"), toks[i][1], toks[i][2]))
    out: dict[int, tuple[int, int]] = {}
    for i in range(max(len(hashes) - W + 1, 1 if hashes else 0)):
        window = hashes[i : i + W]
        h, cell, line = min(window, key=lambda x: x[0])
        out.setdefault(h, (cell, line))
    return out


def similar_pairs(codes: Mapping[str, list[str]], starter: list[str], threshold: float) -> list[dict[str, Any]]:
    """Pairs of submissions (keys of ``codes``) whose similarity is at least ``threshold``, most similar first."""
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold 应在 0 到 1 之间（得到 {threshold}）")
    given = set(fingerprints(starter))
    prints = {k: {h: at for h, at in fingerprints(cells).items() if h not in given} for k, cells in codes.items()}
    common = Counter(h for p in prints.values() for h in p)
    limit = max(2, len(prints) // 2)
    prints = {k: {h: at for h, at in p.items() if common[h] <= limit} for k, p in prints.items()}
    keys = sorted(prints)
    pairs: list[dict[str, Any]] = []
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            pa, pb = prints[a], prints[b]
            small = min(len(pa), len(pb))
            if small < 5:
                continue
            shared = set(pa) & set(pb)
            score = len(shared) / small
            if score >= threshold:
                passages = _passages(codes[a], codes[b], [(pa[h], pb[h]) for h in shared])
                pairs.append({"a": a, "b": b, "score": round(score, 3), "shared": len(shared), "passages": passages})
    pairs.sort(key=lambda p: (-float(p["score"]), str(p["a"]), str(p["b"])))
    return pairs[:MAX_PAIRS]


def _passages(cells_a: list[str], cells_b: list[str], spots: list[tuple[tuple[int, int], tuple[int, int]]],
              most: int = 3) -> list[dict[str, str]]:
    """Up to ``most`` matching passages: the lines around the shared fingerprints, grouped by cell."""
    by_cell: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for (ca, la), (cb, lb) in spots:
        by_cell.setdefault((ca, cb), []).append((la, lb))
    ranked = sorted(by_cell.items(), key=lambda kv: -len(kv[1]))[:most]
    out = []
    for (ca, cb), lines in ranked:
        la0, la1 = min(x for x, _ in lines), max(x for x, _ in lines) + 2
        lb0, lb1 = min(y for _, y in lines), max(y for _, y in lines) + 2
        text_a = "\n".join(cells_a[ca].splitlines()[la0 - 1 : la1])[:400]
        text_b = "\n".join(cells_b[cb].splitlines()[lb0 - 1 : lb1])[:400]
        out.append({"a": f"单元格 {ca + 1} 第 {la0}–{la1} 行", "b": f"单元格 {cb + 1} 第 {lb0}–{lb1} 行",
                    "text_a": text_a, "text_b": text_b})
    return out


def report_rows(pairs: list[dict[str, Any]]) -> list[list[str]]:
    out = [["学号 A", "文件 A", "学号 B", "文件 B", "相似度", "相同指纹数", "相同片段（A）", "相同片段（B）"]]
    for p in pairs:
        sid_a, _, file_a = p["a"].partition("|")
        sid_b, _, file_b = p["b"].partition("|")
        text_a = "\n---\n".join(f"{x['a']}：\n{x['text_a']}" for x in p["passages"])
        text_b = "\n---\n".join(f"{x['b']}：\n{x['text_b']}" for x in p["passages"])
        out.append([cr.cell_text(sid_a), cr.cell_text(file_a), cr.cell_text(sid_b), cr.cell_text(file_b),
                    f"{p['score']:.0%}", str(p["shared"]), _multiline(text_a), _multiline(text_b)])
    return out


def _multiline(text: str) -> str:
    """A cell that keeps its line breaks (the CSV writer quotes it) but cannot start a formula."""
    lines = [cr.printable(line, 300) for line in text.splitlines()]
    joined = "\n".join(lines)[:2000]
    return "'" + joined if joined.startswith(cr.FORMULA_START) else joined
