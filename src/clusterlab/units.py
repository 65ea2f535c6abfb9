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

from .validate import non_negative, positive

__all__ = [
    "DAY",
    "GB",
    "HOUR",
    "KB",
    "MB",
    "MINUTE",
    "TB",
    "GiB",
    "KiB",
    "Link",
    "MiB",
    "bytes_to",
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

#: Seconds in a minute, an hour and a day: the only place the package converts between time units.
MINUTE: float = 60.0
HOUR: float = 3600.0
DAY: float = 86400.0

_UNITS: dict[str, float] = {"B": 1.0, "KB": KB, "MB": MB, "GB": GB, "TB": TB, "KiB": KiB, "MiB": MiB, "GiB": GiB}


# --------------------------------------------------------------------------------------------------------
# bandwidth
# --------------------------------------------------------------------------------------------------------
def gbit_per_s(rate: float) -> float:
    """Bytes per second of a link quoted in Gb/s (bits): ``gbit_per_s(400) == 50e9``."""
    return non_negative("rate", rate) * 1e9 / 8


def gbyte_per_s(rate: float) -> float:
    """Bytes per second of a rate quoted in GB/s (decimal): ``gbyte_per_s(300) == 300e9``."""
    return non_negative("rate", rate) * 1e9


@dataclass(frozen=True)
class Link:
    """A full-duplex link. ``per_direction`` is what one direction carries, in B/s.

    Build it from whichever number the data sheet gives::

        Link.from_per_direction(gbit_per_s(400))       # InfiniBand NDR port: 50 GB/s each way
        Link.from_bidirectional(gbyte_per_s(600))      # A100 NVLink total: 300 GB/s each way

    The α-β cost models in :mod:`clusterlab.communication.collectives` take the per-direction number, because a ring
    step sends on one direction of a link while it receives on the other.
    """

    per_direction: float

    def __post_init__(self) -> None:
        positive("per_direction", self.per_direction)

    @classmethod
    def from_per_direction(cls, rate: float) -> Link:
        return cls(positive("rate", rate))

    @classmethod
    def from_bidirectional(cls, rate: float) -> Link:
        return cls(positive("rate", rate) / 2)

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
    for scale, unit in ((HOUR, "h"), (MINUTE, "min"), (1.0, "s"), (1e-3, "ms")):
        if abs(v) >= scale:
            return f"{fmt_num(v / scale, digits)} {unit}"
    return f"{fmt_num(v / 1e-6, digits)} µs"
