"""The grading tools live in tools/ (tools/grading, tools/gradebook.py …): make them importable before any test
module of this folder is collected, whatever order its imports are sorted in."""

from __future__ import annotations

import sys
from pathlib import Path

TOOLS = str(Path(__file__).resolve().parents[2] / "tools")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)
