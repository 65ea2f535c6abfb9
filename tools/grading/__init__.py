"""Kept for one release: the grader is the installable package :mod:`clusterlab_grade` (``src/clusterlab_grade``).

``from grading import master`` and ``from grading.judge import Package`` still work and give the package's modules.
"""

from __future__ import annotations

import importlib
import sys

_MODULES = ("book", "classroom", "cli", "judge", "lms", "master", "protocol", "runner", "sandbox", "similarity")
for _name in _MODULES:
    _module = importlib.import_module(f"clusterlab_grade.{_name}")
    sys.modules[f"{__name__}.{_name}"] = _module
    globals()[_name] = _module
