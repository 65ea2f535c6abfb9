"""Re-execute notebooks in place so that their stored outputs are current (``make outputs``).

Usage: ``python tools/refresh_notebooks.py [--remeasure] PATH [PATH ...]`` (files or folders; ``_build`` folders are
skipped).

Outputs are made reproducible: the kernel runs with ``PYTHONHASHSEED=0`` and the notebook's folder as cwd, no
timing metadata is recorded, cell ids are made stable (derived from the position when missing), and the JSON is
written with a fixed layout.

A cell keeps its stored outputs when the new ones are the same under the comparison the tests make
(:mod:`clusterlab.book.outputs`): text equal after the sanitising rules of ``tests/nbval_sanitize.cfg``, images and
animation frames within the RMS tolerance. So re-running an unchanged notebook rewrites identical bytes on any CPU,
although a figure's antialiasing may differ in a few pixels from one SIMD level to another. Cells tagged
``machine-measurement`` (and ``nbval-ignore-output``) show a measurement of the machine they ran on: they keep the
stored (reference) output unless ``--remeasure`` is given.
"""

from __future__ import annotations

import configparser
import hashlib
import os
import re
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

from clusterlab.book.outputs import IMAGE_KEYS, same_html, same_image

SANITIZE = Path(__file__).resolve().parents[1] / "tests" / "nbval_sanitize.cfg"
MEASUREMENT_TAG = "machine-measurement"


def sanitize_rules(path: Path = SANITIZE) -> list[tuple[re.Pattern[str], str]]:
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(path, encoding="utf-8")
    return [(re.compile(cfg[s]["regex"]), cfg[s]["replace"]) for s in cfg.sections()]


RULES = sanitize_rules()


def _text(v: Any) -> str:
    return "".join(v) if isinstance(v, list) else str(v)


def _clean(v: Any) -> str:
    t = _text(v)
    for rx, rep in RULES:
        t = rx.sub(rep, t)
    return t


def coalesce_streams(outputs: list[Any]) -> list[Any]:
    """Merge consecutive stream outputs of the same stream (how a kernel chunks stdout depends on timing)."""
    out: list[Any] = []
    for o in outputs:
        if (o.get("output_type") == "stream" and out and out[-1].get("output_type") == "stream"
                and out[-1].get("name") == o.get("name")):
            out[-1]["text"] = _text(out[-1]["text"]) + _text(o["text"])
        else:
            out.append(o)
    return out


def same_outputs(old: list[Any], new: list[Any]) -> bool:
    """Whether a cell's new outputs equal the stored ones as the tests compare them."""
    if len(old) != len(new):
        return False
    for a, b in zip(old, new, strict=True):
        if a.get("output_type") != b.get("output_type") or set(a) - {"execution_count"} != set(b) - {"execution_count"}:
            return False
        if "text" in a and _clean(a["text"]) != _clean(b["text"]):
            return False
        if a.get("name") != b.get("name") or a.get("metadata") != b.get("metadata"):
            return False
        da, db = a.get("data", {}), b.get("data", {})
        if set(da) != set(db):
            return False
        for k in da:
            if k in IMAGE_KEYS:
                ok = same_image(_text(da[k]), _text(db[k]))
            elif k == "text/html":
                ok = same_html(_text(da[k]), _text(db[k]))
            else:
                ok = _clean(da[k]) == _clean(db[k])
            if not ok:
                return False
    return True


def notebooks(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(
                q
                for q in p.rglob("*.ipynb")
                if not any(part.startswith(("_", ".")) for part in q.relative_to(p).parts)  # _build, _exercises
            )
        elif p.suffix == ".ipynb":
            out.append(p)
    return out


def stable_ids(nb: nbformat.NotebookNode, stem: str) -> None:
    seen: set[str] = set()
    for i, cell in enumerate(nb.cells):
        cid = cell.get("id")
        if not cid or cid in seen:
            cid = hashlib.sha1(f"{stem}:{i}".encode()).hexdigest()[:8]
            cell["id"] = cid
        seen.add(cid)
        cell.get("metadata", {}).pop("execution", None)


def refresh(path: Path, *, remeasure: bool = False) -> None:
    nb = nbformat.read(path, as_version=4)
    stored = [c.get("outputs") for c in nb.cells]
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    os.environ.setdefault("PYTHONHASHSEED", "0")
    os.environ.setdefault("MPLBACKEND", "Agg")
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
        allow_errors=False,
    )
    client.execute()
    for cell, old in zip(nb.cells, stored, strict=True):
        if cell.cell_type != "code" or old is None:
            continue
        cell.outputs = coalesce_streams(cell.outputs)
        keep_measurement = MEASUREMENT_TAG in cell.get("metadata", {}).get("tags", []) and not remeasure and old
        if keep_measurement or same_outputs(old, cell.outputs):
            cell.outputs = old
    stable_ids(nb, path.stem)
    nb.metadata.pop("widgets", None)
    nbformat.validate(nb)
    text = nbformat.writes(nb, version=4)
    if not text.endswith("\n"):
        text += "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    remeasure = "--remeasure" in argv
    paths = notebooks([a for a in argv if a != "--remeasure"] or ["book", "exercises/source"])
    for p in paths:
        print(f"执行 {p}", flush=True)
        refresh(p, remeasure=remeasure)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
