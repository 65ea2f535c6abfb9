"""Shared helpers of the grading tests: the tools as modules, the sandbox skip, notebook edits."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "exercises" / "source"
sys.path.insert(0, str(ROOT / "tools"))
sys.dont_write_bytecode = True

import build_exercises  # noqa: E402
import gradebook  # noqa: E402
from grading import sandbox  # noqa: E402

__all__ = ["ROOT", "SOURCE", "build_exercises", "gradebook", "needs_bwrap", "sandbox"]

HAS_BWRAP = sandbox.bwrap_works()
needs_bwrap = pytest.mark.skipif(
    not HAS_BWRAP, reason="bubblewrap (bwrap) 不可用：沙箱测试跳过（apt-get install bubblewrap）"
)


def read(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write(nb: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    return path


def for_student(nb: dict[str, Any], student_id: str) -> dict[str, Any]:
    return build_exercises.with_student_id(nb, student_id)


def add_cell(nb: dict[str, Any], source: str, *, at: int | None = None) -> dict[str, Any]:
    out = json.loads(json.dumps(nb))
    cell = {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
    out["cells"].insert(len(out["cells"]) if at is None else at, cell)
    return out
