"""Measure real collectives with MPICH (集群篇 §2.3): run ``mpiexec -n N`` on a small worker, write a tidy CSV.

:func:`run_sweep` times every (op, MPICH algorithm, N, size) of a plan: warm-up calls, then ``repeats`` timings,
each barrier-synchronised and taken as the slowest rank's time per call; the median and quartiles go into
:class:`~clusterlab.lab.mpifit.Sample`. The algorithm is forced per run with
``MPIR_CVAR_<OP>_INTRA_ALGORITHM`` (and ``MPIR_CVAR_DEVICE_COLLECTIVES=none`` so the device layer cannot override
it). :func:`run_straggler` delays one rank by a sleep and reports how long every rank's call took.

MPICH busy-polls while it waits: with more ranks than cores the ranks take turns on the CPU and every time is
inflated. :func:`machine_info` records the cores, and each sample carries ``oversubscribed``.

The book's reference measurement (``book/_data/mpi_lab_reference.csv`` and ``mpi_lab_straggler.json``) is made by
:func:`reference_run`; on a quiet machine, from the repository root::

    .venv/bin/python -m clusterlab.lab.mpibench book/_data

The MPI runtime comes from the ``mpich`` and ``mpi4py`` wheels (``pip install mpich mpi4py``, pinned in
requirements/lock.txt). The fitting is in :mod:`clusterlab.lab.mpifit` (pure).
"""

from __future__ import annotations

import csv
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from ..validate import int_in_range, non_negative, positive
from .launch import Launcher
from .machine import cpu_model
from .mpifit import MPI_ALGORITHMS, Sample, Sweep, check_algorithm

__all__ = [
    "CVAR",
    "DEFAULT_SIZES",
    "MPIUnavailableError",
    "Straggler",
    "cores",
    "find_mpiexec",
    "load_note",
    "machine_info",
    "read_csv",
    "reference_run",
    "run_straggler",
    "run_sweep",
    "write_csv",
]

#: op → the MPICH control variable that forces its algorithm
CVAR: Final = {
    "all_reduce": "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM",
    "reduce_scatter": "MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM",
    "all_gather": "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM",
    "broadcast": "MPIR_CVAR_BCAST_INTRA_ALGORITHM",
}
#: 1 KB … 64 MB (1000·2^k B), ×2 per step: every other size fitted leaves 8–9 points per fit and per held-out set
DEFAULT_SIZES: Final = tuple(1e3 * 2.0**k for k in range(17))
COLUMNS: Final = ("op", "algorithm", "ranks", "size_bytes", "median_s", "q25_s", "q75_s", "min_s", "max_s",
                  "repeats", "oversubscribed")


class MPIUnavailableError(RuntimeError):
    """``mpiexec`` or ``mpi4py`` is missing, or the MPI run failed."""


def find_mpiexec(mpiexec: str | None = None) -> str:
    """Path of ``mpiexec``: the given one, else the one beside this Python (the venv's), else on PATH."""
    if mpiexec is not None:
        found = shutil.which(mpiexec)
        if found is None:
            raise MPIUnavailableError(f"mpiexec={mpiexec!r} not found or not executable")
        return found
    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    if found is None:
        raise MPIUnavailableError("mpiexec not found: install MPICH with `pip install mpich mpi4py` "
                                  "(requirements/lock.txt pins both)")
    return found


def cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def machine_info(library: str = "", note: str = "") -> tuple[tuple[str, str], ...]:
    """(key, value) pairs describing the machine: CPU, cores, OS, Python, MPI library, mpi4py; ``note`` free text."""
    info = [("cpu", cpu_model()), ("cores", str(cores())), ("os", f"{platform.system()} {platform.release()}"),
            ("python", platform.python_version()), ("mpi", " ".join(library.split()))]
    if note:
        info.append(("note", note))
    return tuple(info)


def load_note(note: str = "") -> str:
    """``note`` followed by the load average now, as a measurement's ``note`` records it:
    ``"<note>; load average 0.62 3.06 5.06"`` (1, 5 and 15 minutes; just ``note`` where the OS has none)."""
    try:
        load = "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except (AttributeError, OSError):  # pragma: no cover - not Unix
        load = ""
    return "; ".join(x for x in (note, load) if x)


def _check_plan(ops: Sequence[str], ranks: Sequence[int], sizes: Sequence[float],
                algorithms: dict[str, Sequence[str]] | None) -> list[tuple[str, str]]:
    for n in ranks:
        int_in_range("ranks", n, 1)
    if not sizes:
        raise ValueError("sizes must list at least one message size in bytes")
    for z in sizes:
        positive("sizes", z)
    plan = []
    for op in ops:
        algs = (algorithms or {}).get(op, MPI_ALGORITHMS.get(op, ()))
        check_algorithm(op, algs[0] if algs else "")
        plan += [(op, check_algorithm(op, a)[1]) for a in algs]
    return plan


def _round_size(size: float, ranks: int) -> int:
    """``size`` rounded to a whole number of float32 per rank block (a multiple of 4·N bytes, at least that)."""
    unit = 4 * ranks
    return max(unit, round(size / unit) * unit)


def _launch(mpiexec: str, ranks: int, op: str, algorithm: str, sizes: Sequence[int], args: Sequence[str],
            timeout: float, launcher: Launcher | None = None) -> list[dict[str, object]]:
    run = launcher or Launcher.local(mpiexec)
    env = dict(os.environ, **run.env, MPIR_CVAR_DEVICE_COLLECTIVES="none", **{CVAR[op]: algorithm})
    cmd = run.command(ranks, [sys.executable, "-m", "clusterlab.lab._mpiworker",
                              "--op", op, "--sizes", ",".join(map(str, sizes)), *args])
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise MPIUnavailableError(f"mpiexec -n {ranks} ({op}, {algorithm}) took more than {timeout} s") from exc
    if out.returncode != 0:
        raise MPIUnavailableError(f"mpiexec -n {ranks} ({op}, {algorithm}) failed with code {out.returncode}:\n"
                                  f"{out.stderr[-2000:]}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def run_sweep(
    ops: Sequence[str] = ("all_reduce",),
    ranks: Sequence[int] = (2,),
    sizes: Sequence[float] = DEFAULT_SIZES,
    *,
    algorithms: dict[str, Sequence[str]] | None = None,
    warmup: int = 2,
    repeats: int = 7,
    mpiexec: str | None = None,
    note: str = "",
    progress: Callable[[str], None] | bool = True,
    timeout: float = 300.0,
    launcher: Launcher | None = None,
) -> Sweep:
    """Measure every op × MPICH algorithm × N × size; one ``mpiexec`` per (op, algorithm, N).

    ``algorithms`` maps an op to the MPICH algorithms to run (default: all of
    :data:`~clusterlab.lab.mpifit.MPI_ALGORITHMS`).
    Sizes are rounded to a multiple of ``4·N`` bytes (float32 blocks). ``progress``: True prints ``[k/K] …`` lines
    to stderr, a callable receives them, False is silent. ``launcher`` starts the ranks elsewhere (the emulated
    cluster, a hostfile, Slurm: :class:`~clusterlab.lab.launch.Launcher`); by default ``mpiexec -n N`` here.
    """
    plan = _check_plan(ops, ranks, sizes, algorithms)
    int_in_range("warmup", warmup, 0)
    int_in_range("repeats", repeats, 1)
    exe = launcher.mpiexec if launcher is not None else find_mpiexec(mpiexec)
    say: Callable[[str], None]
    if progress is True:
        def say(msg: str) -> None:
            print(msg, file=sys.stderr, flush=True)
    elif callable(progress):
        say = progress
    else:
        def say(msg: str) -> None:
            return None
    samples: list[Sample] = []
    library = ""
    jobs = [(op, a, n) for op, a in plan for n in ranks]
    started = time.perf_counter()
    for k, (op, alg, n) in enumerate(jobs, 1):
        say(f"[{k}/{len(jobs)}] {op} {alg} N={n} ({time.perf_counter() - started:.0f} s)")
        lines = _launch(exe, n, op, alg, [_round_size(z, n) for z in sizes],
                        ["--warmup", str(warmup), "--repeats", str(repeats)], timeout, launcher)
        library = str(lines[0].get("library", ""))
        for row in lines[1:]:
            t = np.asarray(row["times"], dtype=float)
            q25, med, q75 = np.quantile(t, [0.25, 0.5, 0.75])
            samples.append(Sample(op, alg, n, float(row["size"]), float(med), float(q25), float(q75),  # type: ignore[arg-type]
                                  float(t.min()), float(t.max()), int(t.size), n > cores()))
    return Sweep(tuple(samples), machine_info(library, note))


@dataclass(frozen=True)
class Straggler:
    """One rank delayed by ``delay`` s before each call: every rank's median call time (s), and the same call's
    time with no delay."""

    op: str
    algorithm: str
    ranks: int
    size: float
    delay: float
    delayed_rank: int
    per_rank: tuple[float, ...]
    baseline: float

    @property
    def waiting(self) -> tuple[float, ...]:
        """Per rank: call time minus the undelayed call time (what the slow rank cost it)."""
        return tuple(t - self.baseline for t in self.per_rank)


def run_straggler(ranks: int = 2, size: float = 1e6, delay: float = 0.02, *, delayed_rank: int = 1,
                  algorithm: str = "ring", repeats: int = 5, mpiexec: str | None = None,
                  timeout: float = 120.0) -> Straggler:
    """All-reduce with rank ``delayed_rank`` sleeping ``delay`` s before each call; every rank's call time."""
    n = int_in_range("ranks", ranks, 2)
    r = int_in_range("delayed_rank", delayed_rank, 0, n - 1)
    d = non_negative("delay", delay)
    positive("size", size)
    check_algorithm("all_reduce", algorithm)
    exe = find_mpiexec(mpiexec)
    z = _round_size(size, n)
    base = _launch(exe, n, "all_reduce", algorithm, [z], ["--repeats", str(repeats), "--warmup", "1"], timeout)
    slow = _launch(exe, n, "all_reduce", algorithm, [z],
                   ["--repeats", str(repeats), "--warmup", "1", "--delay-rank", str(r), "--delay", str(d)], timeout)
    baseline = float(np.median(np.asarray(base[1]["times"], dtype=float)))
    per_rank = tuple(float(x) for x in np.asarray(slow[1]["per_rank"], dtype=float))
    return Straggler("all_reduce", algorithm, n, float(z), d, r, per_rank, baseline)


def write_csv(sweep: Sweep, path: str | os.PathLike[str]) -> Path:
    """Write ``sweep`` as a tidy CSV: ``# key: value`` lines for the machine, then one row per sample."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", newline="", encoding="utf-8") as f:
        for k, v in sweep.machine:
            f.write(f"# {k}: {v}\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        for s in sweep.samples:
            w.writerow([s.op, s.algorithm, s.ranks, f"{s.size:.0f}", f"{s.median:.6e}", f"{s.q25:.6e}",
                        f"{s.q75:.6e}", f"{s.low:.6e}", f"{s.high:.6e}", s.repeats, int(s.oversubscribed)])
    return p


def read_csv(path: str | os.PathLike[str]) -> Sweep:
    """Read a CSV written by :func:`write_csv`."""
    machine, rows = [], []
    with Path(path).open(encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                k, _, v = line[1:].partition(":")
                machine.append((k.strip(), v.strip()))
            else:
                rows.append(line)
    samples = tuple(
        Sample(r["op"], r["algorithm"], int(r["ranks"]), float(r["size_bytes"]), float(r["median_s"]),
               float(r["q25_s"]), float(r["q75_s"]), float(r["min_s"]), float(r["max_s"]), int(r["repeats"]),
               bool(int(r["oversubscribed"])))
        for r in csv.DictReader(rows)
    )
    return Sweep(samples, tuple(machine))


def reference_run(out_dir: str | os.PathLike[str], note: str = "") -> tuple[Path, Path]:
    """The book's reference measurement: every op and MPICH algorithm at N = 2 (7 repeats), all-reduce at N = 4
    (5 repeats), :data:`DEFAULT_SIZES`; and a 20 ms straggler on a 1 MB ring all-reduce at N = 2. Writes
    ``mpi_lab_reference.csv`` and ``mpi_lab_straggler.json`` into ``out_dir``; the load average at the start goes
    into the CSV's ``note``."""
    text = load_note(note)
    two = run_sweep(tuple(MPI_ALGORITHMS), (2,), DEFAULT_SIZES, repeats=7, note=text)
    four = run_sweep(("all_reduce",), (4,), DEFAULT_SIZES, repeats=5, progress=True)
    csv_path = write_csv(Sweep(two.samples + four.samples, two.machine), Path(out_dir) / "mpi_lab_reference.csv")
    st = run_straggler(2, 1e6, 0.02, delayed_rank=1)
    json_path = Path(out_dir) / "mpi_lab_straggler.json"
    json_path.write_text(json.dumps({k: getattr(st, k) for k in Straggler.__dataclass_fields__}, indent=1) + "\n",
                         encoding="utf-8")
    return csv_path, json_path


if __name__ == "__main__":  # pragma: no cover - a measurement, run by hand
    for written in reference_run(sys.argv[1] if len(sys.argv) > 1 else "."):
        print(f"wrote {written}")
