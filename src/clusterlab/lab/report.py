"""Reading the emulated cluster's reports (pure): the JSON that ``python -m clusterlab.lab emulate --json`` prints
(:func:`clusterlab.lab.emulate.run_emulated`) back into samples, models and tables for the book (集群篇 §2.3.1).

:func:`load` reads one report; :func:`samples` gives one level's measurements as
:class:`~clusterlab.lab.mpifit.Sample`; :func:`model` the two-regime fit the report holds; :func:`recovery_rows`
imposed vs fitted α and β of several reports; :func:`imposed_curve` the time the imposed link alone would give;
:func:`suspect_nodes` the node a set of pairwise ping-pongs points at (the rule of
:func:`clusterlab.lab.emulate.slow_link`).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..validate import choice
from . import mpifit

__all__ = ["RecoveryRow", "imposed_curve", "load", "model", "recovery_rows", "samples", "suspect_nodes"]


def load(path: str | os.PathLike[str]) -> dict[str, Any]:
    """One report (a JSON object with ``fitted``, ``measurements``, ``floor``, ``machine``)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    missing = [k for k in ("fitted", "measurements", "floor", "machine") if k not in data]
    if missing:
        raise ValueError(f"path {str(path)!r} is not an emulated-cluster report: it lacks {', '.join(missing)}")
    report: dict[str, Any] = data
    return report


def samples(report: dict[str, Any], level: str = "inter", nodes: int | None = None) -> tuple[mpifit.Sample, ...]:
    """The ring all-reduce measurements of ``level`` (``"inter"`` at ``nodes`` nodes, default the first count;
    ``"intra"`` inside one node) as samples."""
    choice("level", level, ("inter", "intra"))
    table = report["measurements"][level]
    if level == "inter":
        key = str(nodes) if nodes is not None else next(iter(table))
        if key not in table:
            raise ValueError(f"nodes must be one of {sorted(int(k) for k in table)}; got {nodes}")
        table = table[key]
    return tuple(mpifit.Sample("all_reduce", "ring", int(r["ranks"]), float(r["size"]), float(r["median_s"]),
                               float(r["q25_s"]), float(r["q75_s"]), float(r["q25_s"]), float(r["q75_s"]), 0, False)
                 for r in table)


def model(report: dict[str, Any], level: str = "inter") -> mpifit.RegimeFit:
    """The two-regime model of ``level`` the report fitted: below the split the small regime (its α is the
    reported α), from the split up the large regime (its β is the reported β)."""
    f = report["fitted"][choice("level", level, ("inter", "intra"))]

    def one(alpha: float, beta: float) -> mpifit.Fit:
        return mpifit.Fit("all_reduce", "ring", alpha, beta, (), (), (), (), (), False)

    return mpifit.RegimeFit("all_reduce", "ring", float(f["split_message_B"]),
                            one(float(f["alpha_s"]), float(f["small_beta_Bps"])),
                            one(float(f["large_alpha_s"]), float(f["beta_Bps"])), "data")


def imposed_curve(report: dict[str, Any], sizes: Sequence[float], nodes: int) -> tuple[float, ...]:
    """Ring all-reduce time at ``sizes`` if the link were exactly what was imposed: α = floor + delay, β = the
    payload rate of the ring's slowest hop (emulated reports only)."""
    imp = report.get("imposed")
    if imp is None:
        raise ValueError("report must come from the emulated cluster (it has no `imposed` part)")
    beta = float(imp["beta_by_nodes_Bps"].get(str(nodes), imp["beta_Bps"]))
    return tuple(mpifit.cost_terms("all_reduce", "ring", z, nodes).priced(float(imp["alpha_s"]), beta).time
                 for z in sizes)


@dataclass(frozen=True)
class RecoveryRow:
    """One emulated run at one node count: imposed vs fitted α (s) and β (B/s), and the fit's held-out error."""

    label: str
    nodes: int
    rate: float
    alpha_imposed: float
    alpha_fitted: float
    beta_imposed: float
    beta_fitted: float
    held_out: float

    @property
    def alpha_error(self) -> float:
        return self.alpha_fitted / self.alpha_imposed - 1

    @property
    def beta_error(self) -> float:
        return self.beta_fitted / self.beta_imposed - 1


def recovery_rows(reports: dict[str, dict[str, Any]]) -> tuple[RecoveryRow, ...]:
    """Imposed vs fitted per (report, node count) — α is fitted once per report (at its first node count)."""
    rows = []
    for label, r in reports.items():
        imp = r["imposed"]
        for k, f in r["fitted"]["inter_by_nodes"].items():
            rows.append(RecoveryRow(label, int(k), float(imp["rate_bps"]), float(imp["alpha_s"]), float(f["alpha_s"]),
                                    float(imp["beta_by_nodes_Bps"][k]), float(f["beta_Bps"]),
                                    float(f["held_median_abs_error"])))
    if not rows:
        raise ValueError("reports must hold at least one emulated run")
    if any(math.isnan(x.beta_error) for x in rows):
        raise ValueError("reports hold a run without a fitted β")
    return tuple(rows)


def suspect_nodes(pairs: Sequence[tuple[int, int, float]]) -> tuple[int, ...]:
    """The nodes that the two slowest of ``pairs`` (``(i, j, bandwidth B/s)``, one ping-pong per pair of nodes) share:
    a slow link slows every pair through its node, so the two slowest pairs meet there (empty when they do not meet;
    both nodes of the only pair when there is one)."""
    if not pairs:
        raise ValueError("pairs must hold at least one (i, j, bandwidth) measurement")
    ranked = sorted(pairs, key=lambda p: float(p[2]))
    if len(ranked) == 1:
        return tuple(sorted({int(ranked[0][0]), int(ranked[0][1])}))
    first, second = ranked[0], ranked[1]
    return tuple(sorted({int(first[0]), int(first[1])} & {int(second[0]), int(second[1])}))
