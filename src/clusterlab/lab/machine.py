"""What a measurement records about the machine it ran on."""

from __future__ import annotations

import platform
from pathlib import Path

__all__ = ["BUSY_CORES", "busy_cores", "cpu_model"]

#: other work above this many cores at the start marks a measurement busy (its timings inflated)
BUSY_CORES = 0.25


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (x86-64: ``model name``; some ARM64 kernels: ``Hardware`` or
    ``cpu model``), else what :mod:`platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "cpu model", "hardware")):
                return line.split(":", 1)[1].strip()
    except OSError:  # pragma: no cover - not Linux
        pass
    return platform.processor() or platform.machine()


def busy_cores(seconds: float = 0.5) -> float:
    """How many cores' worth of CPU other work used over the next ``seconds`` (from ``/proc/stat``: non-idle time
    over wall time, summed over cores). Unlike the load average, which remembers the last minute, this is the
    machine's state at the moment a measurement starts. ``nan`` where ``/proc/stat`` does not exist."""
    def sample() -> tuple[float, float] | None:
        try:
            fields = [float(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        except OSError:  # pragma: no cover - not Linux
            return None
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)
        return sum(fields) - idle, sum(fields)

    import os
    import time

    a = sample()
    time.sleep(seconds)
    b = sample()
    if a is None or b is None or b[1] == a[1]:
        return float("nan")
    cores = os.cpu_count() or 1
    return (b[0] - a[0]) / (b[1] - a[1]) * cores
