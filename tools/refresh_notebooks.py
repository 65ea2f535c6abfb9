"""Re-execute notebooks in place so that their stored outputs are current (``make outputs``).

Usage: ``python tools/refresh_notebooks.py PATH [PATH ...]`` (files or folders; ``_build`` folders are skipped).

Outputs are made reproducible: the kernel runs with ``PYTHONHASHSEED=0`` and the notebook's folder as cwd, no
timing metadata is recorded, cell ids are made stable (derived from the position when missing), and the JSON is
written with a fixed layout. Re-running an unchanged notebook therefore rewrites identical bytes.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient


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


def refresh(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
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
    stable_ids(nb, path.stem)
    nb.metadata.pop("widgets", None)
    nbformat.validate(nb)
    text = nbformat.writes(nb, version=4)
    if not text.endswith("\n"):
        text += "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    paths = notebooks(argv or ["book", "exercises/source"])
    for p in paths:
        print(f"执行 {p}", flush=True)
        refresh(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
