"""Axes, number formatting and input checks shared by the charts of the α-β model, the chunked ring and the choice
of algorithm (SI data on the axes, unit-labelled ticks)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt
from matplotlib.axis import Axis
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ..book import labels
from ..communication import collectives
from ..units import fmt_bytes, fmt_num, fmt_seconds
from ..validate import choice, int_in_range
from ._style import PALETTE, byte_unit, time_unit

FloatArray = npt.NDArray[np.float64]

#: Largest N any chart accepts (the α-β formulas are cheap; the limit only guards against typos).
RANKS_MAX: Final = 1 << 20

#: Default message sizes: 1 KB … 10 GB, ten points per decade.
_DEFAULT_SIZES: Final = np.logspace(3.0, 10.0, 71)

_LINE_COLOURS: Final = tuple(PALETTE[k] for k in ("blue", "vermillion", "green", "orange", "purple", "sky"))

#: The figure wording of each cost-model algorithm (:data:`clusterlab.book.labels.ALGORITHMS`).
_alg_name: Final = {a: label.figure for a, label in labels.ALGORITHMS.items()}
_ALG_COLOURS: Final = {
    "ring": PALETTE["blue"],
    "naive": PALETTE["vermillion"],
    "tree": PALETTE["green"],
    "halving_doubling": PALETTE["orange"],
    "hierarchical": PALETTE["purple"],
}
#: Algorithms whose α-β time is ``steps·α + bytes/β`` with no extra parameters (one curve per chart).
_PLAIN_ALGORITHMS: Final = ("ring", "naive", "tree", "halving_doubling")


def _size_text(nbytes: float) -> str:
    """``14e9 → '14 GB'``, ``1e3 → '1 KB'``: decimal unit chosen per value."""
    return fmt_bytes(nbytes, byte_unit(nbytes)) if nbytes > 0 else "0 B"


def _rate_text(rate: float, note: str = "") -> str:
    """A bandwidth with its bit rate: ``25e9 → '25 GB/s（200 Gb/s）'``; ``note`` goes inside the brackets."""
    return f"{_size_text(rate)}/s（{fmt_num(rate * 8 / 1e9)} Gb/s{'，' + note if note else ''}）"


def _link_text(latency: float, bandwidth: float) -> str:
    """``α = 5 µs，β = 25 GB/s（200 Gb/s，每方向 per direction）``."""
    return f"α = {fmt_seconds(latency)}，β = {_rate_text(bandwidth, '每方向 per direction')}"


def _tick_seconds(seconds: float) -> str:
    """Tick label for a log time axis: µs and ms below one second, plain seconds above (no minutes)."""
    return fmt_seconds(seconds) if seconds < 1.0 else f"{fmt_num(seconds)} s"


def _subs(lo: float, hi: float) -> tuple[float, ...]:
    """Ticks at 1, 2, 5 × 10^k when the range spans under 2.5 decades, else only at the decades."""
    return (1.0,) if hi <= 0 or lo <= 0 or math.log10(hi / lo) >= 2.5 else (1.0, 2.0, 5.0)


def _log_axis(axis: Axis, fmt: Callable[[float], str], subs: tuple[float, ...] = (1.0,)) -> None:
    """Log ticks labelled with units (``1 KB``, ``10 µs``) at ``subs`` × 10^k; unlabelled minor ticks."""
    axis.set_major_locator(LogLocator(base=10.0, subs=subs, numticks=12))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt(v)))
    axis.set_minor_formatter(NullFormatter())


def _log_bytes_axis(axis: Axis, subs: tuple[float, ...] = (1.0,)) -> None:
    _log_axis(axis, _size_text, subs)


def _log_time_axis(axis: Axis) -> None:
    _log_axis(axis, _tick_seconds)


def _scaled_axis(axis: Axis, scale: float) -> None:
    """Linear axis holding SI data, tick labels divided by ``scale`` (a power of 1000 keeps nice ticks)."""
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt_num(v / scale, 4)))


def _time_axis(axis: Axis, seconds: float) -> str:
    """Linear time axis in s, ms or µs chosen from ``seconds``; returns the unit."""
    scale, unit = time_unit(seconds)
    _scaled_axis(axis, scale)
    return unit


def _check_algorithm(algorithm: object, op: object, allowed: Sequence[str]) -> str:
    """An algorithm this chart draws (``allowed``) that the cost model has for ``op``: checked by
    :func:`clusterlab.communication.collectives.check_algorithm`."""
    return collectives.check_algorithm(choice("algorithm", algorithm, allowed), collectives.check_op(op))


def _check_ranks_list(values: object, name: str, max_items: int) -> list[int]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise ValueError(f"{name} must be a sequence of integers in 2 … {RANKS_MAX}, got {values!r}")
    items = list(values)
    if not items:
        raise ValueError(f"{name} must hold at least one integer >= 2, got an empty sequence")
    for v in items:
        int_in_range(name, v, 2, RANKS_MAX)
    out = sorted({int(v) for v in items})
    if len(out) > max_items:
        raise ValueError(f"{name} may hold at most {max_items} distinct values for a readable chart, got {len(out)}")
    return out


def _check_sizes(sizes: object, name: str = "sizes") -> FloatArray:
    """Message sizes in bytes: at least two finite values > 0, returned sorted and unique."""
    if sizes is None:
        return np.array(_DEFAULT_SIZES, dtype=float)
    if isinstance(sizes, str | bytes):
        raise ValueError(f"{name} must be a sequence of byte counts > 0, got {sizes!r}")
    try:
        arr = np.asarray(sizes, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a sequence of byte counts > 0, got {sizes!r}") from None
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"{name} must be a 1-D sequence of at least 2 byte counts, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must hold finite byte counts > 0, got min {arr.min()!r}")
    return np.unique(arr)
