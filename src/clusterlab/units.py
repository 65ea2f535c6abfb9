"""SI units, conversions and number formatting for Chinese prose.

The whole package speaks SI at its API: sizes in bytes (B), times in seconds (s), bandwidths in bytes per
second (B/s) and compute in FLOP/s. Convert only at the edges, with the constants and helpers here.

Conventions (decimal unless the name says otherwise):

* ``KB, MB, GB, TB`` = 1e3, 1e6, 1e9, 1e12 bytes; ``KiB, MiB, GiB`` = 2**10, 2**20, 2**30 bytes.
* ``Gb/s`` is *bits* per second: ``gbit_per_s(400)`` = 400e9 / 8 = 50e9 B/s.
* A link bandwidth is **per direction** unless it is explicitly built as bidirectional: NVIDIA quotes
  NVLink as a bidirectional total (A100: 600 GB/s, i.e. 300 GB/s per direction), while network links
  (InfiniBand / RoCE 400 Gb/s) are quoted per direction. :class:`Link` keeps both numbers apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "GB",
    "KB",
    "MB",
    "TB",
    "GiB",
    "KiB",
    "Link",
    "MiB",
    "bytes_to",
    "check_nonnegative",
    "check_positive",
    "check_ranks",
    "fmt_bytes",
    "fmt_num",
    "fmt_seconds",
    "gbit_per_s",
    "gbyte_per_s",
]

KB: float = 1e3
MB: float = 1e6
GB: float = 1e9
TB: float = 1e12
KiB: int = 2**10
MiB: int = 2**20
GiB: int = 2**30

_UNITS: dict[str, float] = {"B": 1.0, "KB": KB, "MB": MB, "GB": GB, "TB": TB, "KiB": KiB, "MiB": MiB, "GiB": GiB}


# --------------------------------------------------------------------------------------------------------
# validation shared by every computation module
# --------------------------------------------------------------------------------------------------------
def check_positive(name: str, value: float) -> float:
    """Return ``float(value)`` or raise ``ValueError`` unless it is a finite number > 0."""
    v = _as_float(name, value)
    if not v > 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return v


def check_nonnegative(name: str, value: float) -> float:
    """Return ``float(value)`` or raise ``ValueError`` unless it is a finite number >= 0."""
    v = _as_float(name, value)
    if not v >= 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return v


def check_ranks(ranks: int, minimum: int = 2, name: str = "ranks") -> int:
    """Return ``ranks`` or raise ``ValueError`` (naming ``name``) unless it is an integer >= ``minimum``."""
    if isinstance(ranks, bool) or not isinstance(ranks, int | _np_integer()) or ranks < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {ranks!r}")
    return int(ranks)


def _np_integer() -> type:
    import numpy as np

    return np.integer


def _as_float(name: str, value: float) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return v


# --------------------------------------------------------------------------------------------------------
# bandwidth
# --------------------------------------------------------------------------------------------------------
def gbit_per_s(rate: float) -> float:
    """Bytes per second of a link quoted in Gb/s (bits): ``gbit_per_s(400) == 50e9``."""
    return check_nonnegative("rate", rate) * 1e9 / 8


def gbyte_per_s(rate: float) -> float:
    """Bytes per second of a rate quoted in GB/s (decimal): ``gbyte_per_s(300) == 300e9``."""
    return check_nonnegative("rate", rate) * 1e9


@dataclass(frozen=True)
class Link:
    """A full-duplex link. ``per_direction`` is what one direction carries, in B/s.

    Build it from whichever number the data sheet gives::

        Link.from_per_direction(gbit_per_s(400))       # InfiniBand NDR port: 50 GB/s each way
        Link.from_bidirectional(gbyte_per_s(600))      # A100 NVLink total: 300 GB/s each way

    The α-β cost models in :mod:`clusterlab.collectives` take the per-direction number, because a ring
    step sends on one direction of a link while it receives on the other.
    """

    per_direction: float

    def __post_init__(self) -> None:
        check_positive("per_direction", self.per_direction)

    @classmethod
    def from_per_direction(cls, rate: float) -> Link:
        return cls(check_positive("rate", rate))

    @classmethod
    def from_bidirectional(cls, rate: float) -> Link:
        return cls(check_positive("rate", rate) / 2)

    @property
    def bidirectional(self) -> float:
        """Both directions together, in B/s (the way NVLink totals are quoted)."""
        return 2 * self.per_direction


# --------------------------------------------------------------------------------------------------------
# formatting for prose (edges only)
# --------------------------------------------------------------------------------------------------------
def bytes_to(value: float, unit: str) -> float:
    """Convert bytes to ``unit`` (one of B, KB, MB, GB, TB, KiB, MiB, GiB)."""
    if unit not in _UNITS:
        raise ValueError(f"unit must be one of {sorted(_UNITS)}, got {unit!r}")
    return float(value) / _UNITS[unit]


def fmt_num(value: float, digits: int = 3) -> str:
    """A number with at most ``digits`` significant digits, no trailing zeros, thin grouping for
    thousands (``12 345``), as Chinese technical prose writes it."""
    v = float(value)
    if v == 0:
        return "0"
    if not math.isfinite(v):
        return str(v)
    mag = math.floor(math.log10(abs(v)))
    decimals = max(0, digits - 1 - mag)
    s = f"{round(v, decimals):,.{decimals}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s.replace(",", "\u2009")


def fmt_bytes(value: float, unit: str = "GB", digits: int = 3) -> str:
    """``fmt_bytes(14e9) == '14 GB'``; the unit is chosen by the caller so prose stays consistent."""
    return f"{fmt_num(bytes_to(value, unit), digits)} {unit}"


def fmt_seconds(value: float, digits: int = 3) -> str:
    """Seconds with a readable unit: h, min, s, ms or µs (``fmt_seconds(0.49) == '490 ms'``)."""
    v = float(value)
    for scale, unit in ((3600.0, "h"), (60.0, "min"), (1.0, "s"), (1e-3, "ms")):
        if abs(v) >= scale:
            return f"{fmt_num(v / scale, digits)} {unit}"
    return f"{fmt_num(v / 1e-6, digits)} µs"
