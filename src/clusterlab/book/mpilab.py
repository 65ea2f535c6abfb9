"""Wording and tables for 集群篇 §2.3 (the MPI lab): the load warning and the reader's run beside the reference.

Built from :mod:`clusterlab.lab.mpicheck`; Chinese text and number formatting live here and nowhere else.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from .. import units
from ..lab import mpibench, mpicheck
from ..lab.mpifit import Sweep
from .labels import OPS
from .table import Table

__all__ = ["MPI_ALGORITHM_NAMES", "comparison_table", "load_warning", "own_run"]

#: MPICH algorithm → its name in the book's tables
MPI_ALGORITHM_NAMES = {
    "ring": "环", "recursive_doubling": "递归倍增", "reduce_scatter_allgather": "减半-倍增",
    "pairwise": "成对交换", "recursive_halving": "递归减半", "binomial": "二项树",
    "scatter_ring_allgather": "散播 + 环全收集",
}


def load_warning(sweep: Sweep | None = None) -> str | None:
    """A warning when the 1-minute load average exceeds the cores — of the machine ``sweep`` was measured on (its
    recorded note), or of this machine now (no ``sweep``) — or when ``sweep`` recorded no load; None otherwise."""
    load = mpicheck.machine_load(sweep)
    where = "这次测量开始时" if load.source != "current" else "这台机器现在"
    if not load.known:
        return (f"这次测量没有记下负载（{load.cores} 核），无法判断当时有没有别的作业在跑；"
                "用 mpibench.load_note 记下负载后重测。")
    if load.overloaded:
        return (f"注意：{where}的一分钟负载是 {load.load1:.2f}，超过了核数 {load.cores}。别的进程在和 rank "
                "争抢 CPU，MPICH 等待时忙轮询，时间会像超订时一样被放大；请在空闲时重测。")
    return None


def own_run(path: str | os.PathLike[str]) -> Sweep | None:
    """The reader's measurement at ``path`` (written by ``mpibench.write_csv``), or None when the file is absent."""
    p = Path(path)
    return mpibench.read_csv(p) if p.is_file() else None


def _pct(x: float) -> str:
    return "—" if math.isnan(x) else f"{100 * x:.0f}%"


def comparison_table(reference: Sweep, own: Sweep | None = None) -> Table:
    """Per (op, algorithm, N) of the reference: α, β, the two-regime held-out error and the largest spread —
    with the reader's run (``own``) in extra columns when there is one."""
    rows: list[list[str]] = []
    head = ["操作", "算法", "N", "α", "β", "留出误差", "最大离散度"]
    if own is not None:
        head += ["你的 α", "你的 β", "你的留出误差", "你的最大离散度"]
    rows.append(head)
    for c in mpicheck.compare_runs(reference, own):
        r = c.reference
        n = f"{r.ranks}（超订）" if r.oversubscribed else str(r.ranks)
        row = [OPS[r.op].zh, MPI_ALGORITHM_NAMES[r.algorithm], n, units.fmt_seconds(r.latency),
               f"{units.fmt_bytes(r.bandwidth)}/s", _pct(r.held_out), f"{r.max_spread:.2f}"]
        if own is not None:
            o = c.own
            row += (["—"] * 4 if o is None else
                    [units.fmt_seconds(o.latency), f"{units.fmt_bytes(o.bandwidth)}/s", _pct(o.held_out),
                     f"{o.max_spread:.2f}"])
        rows.append(row)
    return Table(rows)
