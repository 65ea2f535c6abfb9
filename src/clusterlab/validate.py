"""Argument checks shared by every compute function: each raises a ``ValueError`` that names the parameter and
the allowed range, and returns the value converted (``float`` or ``int``).

=======================  ====================================================================
:func:`finite`           a real number (not a bool, not NaN or ±inf)
:func:`positive`         a finite number > 0
:func:`non_negative`     a finite number >= 0
:func:`int_in_range`     an integer (Python or numpy, not a bool) in ``minimum … maximum``
:func:`fraction`         a finite number in [0, 1], each end open or closed
:func:`choice`           one of a fixed tuple of strings
=======================  ====================================================================

A compute function checks its inputs once, where it starts; :mod:`clusterlab.viz` passes arguments on and only
checks what a figure itself adds (e.g. the most lines a chart draws).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["choice", "finite", "fraction", "int_in_range", "non_negative", "positive"]


def finite(name: str, value: Any) -> float:
    """``float(value)``, or ``ValueError`` unless it is a finite real number (a bool is not a number)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return v


def positive(name: str, value: Any) -> float:
    """``float(value)``, or ``ValueError`` unless it is a finite number > 0."""
    v = finite(name, value)
    if not v > 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return v


def non_negative(name: str, value: Any) -> float:
    """``float(value)``, or ``ValueError`` unless it is a finite number >= 0."""
    v = finite(name, value)
    if not v >= 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return v


def int_in_range(name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    """``int(value)``, or ``ValueError`` unless it is an integer (not a bool) in ``minimum … maximum``
    (no upper end when ``maximum`` is None)."""
    allowed = f"an integer >= {minimum}" if maximum is None else f"an integer in {minimum} … {maximum}"
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    v = int(value)
    if v < minimum or (maximum is not None and v > maximum):
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return v


def fraction(name: str, value: Any, *, low_open: bool = False, high_open: bool = False) -> float:
    """``float(value)``, or ``ValueError`` unless it lies in the interval from 0 to 1 (``[0, 1]`` by default;
    ``low_open`` excludes 0, ``high_open`` excludes 1)."""
    interval = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
    if isinstance(value, bool):
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be in {interval}, got {value!r}") from None
    low_ok = v > 0 if low_open else v >= 0
    high_ok = v < 1 if high_open else v <= 1
    if not (low_ok and high_ok):
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    return v


def choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    """``value``, or ``ValueError`` listing ``allowed`` unless it is one of them."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value
