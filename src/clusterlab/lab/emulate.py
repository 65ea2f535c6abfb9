"""The α-β model against a physical link (集群篇 §2.3): measure collectives on the emulated cluster (or a real one),
fit α and β per level, and compare them with what was imposed.

A run (:func:`measure`) has up to five parts, each one ``mpiexec``:

1. **floor** — ping-pong of 8 B … 1 KB between node 0 and node 1: the one-way software floor (half a round trip);
2. **inter** — ring all-reduce with one rank per node, at every node count in ``node_counts``: the fit uses the
   first count's 1st, 3rd, … sizes; the other sizes and the other node counts are held out;
3. **intra** — ring all-reduce of R ranks inside node 0 (MPICH's shared memory), fitted the same way;
4. **hier** — the two-level all-reduce of §2.2 across N × R ranks, phase by phase, priced with the two fitted
   levels by :func:`clusterlab.communication.collectives.hierarchical_phases` (the R shard rings of the middle phase
   share the node's link, so that phase sees β/R);
5. **slow** — the same ring all-reduce with one node's link slowed (emulated cluster only), predicted by
   :func:`clusterlab.faults.slowlink.ring_with_slow_link`, and the pairwise bandwidth of every neighbouring pair,
   which points at the slow node.

What was imposed (emulated cluster only): β = :func:`~clusterlab.lab.emulated.payload_rate` of the link rate (TCP/IP
framing with the other direction's ACKs) and α = the measured floor plus the imposed one-way delay. The report is
a plain dict (JSON): ``imposed``, ``fitted`` per level, ``held_out`` errors, the hierarchical phases measured and
predicted, and the machine (CPU, cores, load average, and how many cores other work used in the second before the
run — above :data:`BUSY_CORES` the run is flagged busy, since busy-polling ranks then share cores with other work).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from ..communication import collectives
from ..faults import slowlink
from ..validate import int_in_range, positive
from . import mpibench, mpifit
from .emulated import Fabric, Topology, payload_rate
from .launch import Launcher
from .machine import BUSY_CORES, busy_cores

__all__ = ["DEFAULT_SIZES", "HIER_SIZES", "Plan", "emulated_plan", "main", "measure", "plan", "run_emulated",
           "slow_link", "summary"]

#: ring all-reduce sizes per rank buffer: 16 B … 4 MB, ×2 per step (19 sizes; the fit takes the 1st, 3rd, …)
DEFAULT_SIZES: Final = tuple(16.0 * 2.0**k for k in range(19))
HIER_SIZES: Final = (262_144.0, 1_048_576.0, 4_194_304.0)
FLOOR_SIZES: Final = (8, 64, 1024)
WORKER: Final = "clusterlab.lab._labworker"


@dataclass(frozen=True)
class Step:
    """One ``mpiexec`` of a run: what it measures, how many ranks, on which launcher, with what arguments."""

    part: str
    ranks: int
    launcher: Launcher
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()

    def shell(self) -> str:
        return self.launcher.shell(self.ranks, self.argv)


@dataclass(frozen=True)
class Plan:
    """The steps of a run, in order (:func:`plan`); a dry run prints them."""

    steps: tuple[Step, ...]

    def lines(self) -> list[str]:
        return [f"# {s.part}\n" + s.shell() for s in self.steps]


def _worker(mode: str, sizes: Sequence[float], repeats: int) -> tuple[str, ...]:
    return (sys.executable, "-m", WORKER, mode, "--sizes", ",".join(str(int(z)) for z in sizes),
            "--repeats", str(repeats))


def _collective(sizes: Sequence[float], n: int, repeats: int) -> tuple[str, ...]:
    rounded = list(dict.fromkeys(mpibench._round_size(z, n) for z in sizes))  # small sizes can round together
    return (sys.executable, "-m", "clusterlab.lab._mpiworker", "--op", "all_reduce", "--sizes",
            ",".join(map(str, rounded)), "--warmup", "2", "--repeats", str(repeats))


def plan(one_per_node: Launcher, full: Launcher, *, nodes: int, ranks_per_node: int,
         node_counts: Sequence[int] | None = None, sizes: Sequence[float] = DEFAULT_SIZES,
         hier_sizes: Sequence[float] = HIER_SIZES, repeats: int = 5) -> Plan:
    """The steps of a run on ``nodes`` nodes of ``ranks_per_node`` ranks (``one_per_node`` places one rank per
    node, ``full`` R per node)."""
    n = int_in_range("nodes", nodes, 2)
    r = int_in_range("ranks_per_node", ranks_per_node, 1)
    counts = tuple(dict.fromkeys(int_in_range("node_counts", k, 2, n) for k in (node_counts or (2, n))))
    int_in_range("repeats", repeats, 1)
    ring = (("MPIR_CVAR_DEVICE_COLLECTIVES", "none"), (mpibench.CVAR["all_reduce"], "ring"))
    steps = [Step("floor", 2, one_per_node, _worker("pingpong", FLOOR_SIZES, 3 * repeats))]
    steps += [Step(f"inter:{k}", k, one_per_node, _collective(sizes, k, repeats), ring) for k in counts]
    if r >= 2:
        steps.append(Step("intra", r, full, _collective(sizes, r, repeats), ring))
        steps.append(Step("hier", n * r, full, _worker("hier", hier_sizes, repeats), ring))
    return Plan(tuple(steps))


def _execute(step: Step, timeout: float) -> list[dict[str, Any]]:
    env = dict(os.environ, **step.launcher.env, **dict(step.env))
    try:
        out = subprocess.run(step.launcher.command(step.ranks, step.argv), env=env, capture_output=True, text=True,
                             timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise mpibench.MPIUnavailableError(f"{step.part}: mpiexec took more than {timeout} s") from exc
    if out.returncode != 0:
        raise mpibench.MPIUnavailableError(f"{step.part}: mpiexec failed with code {out.returncode}:\n"
                                           f"{out.stderr[-2000:]}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def _samples(rows: list[dict[str, Any]], n: int) -> tuple[mpifit.Sample, ...]:
    out = []
    for row in rows[1:]:
        t = np.asarray(row["times"], dtype=float)
        q25, med, q75 = np.quantile(t, [0.25, 0.5, 0.75])
        out.append(mpifit.Sample("all_reduce", "ring", n, float(row["size"]), float(med), float(q25), float(q75),
                                 float(t.min()), float(t.max()), int(t.size), False))
    return tuple(out)


def _fit_level(samples: Sequence[mpifit.Sample], held: Sequence[mpifit.Sample]) -> dict[str, Any]:
    """Two regimes split where the data say (:func:`~clusterlab.lab.mpifit.fit_regimes`): α is the small
    regime's latency, β the large regime's bandwidth; one α-β over every size is reported beside it."""
    rf = mpifit.fit_regimes("all_reduce", "ring", samples, threshold=None)
    one = mpifit.fit("all_reduce", "ring", samples)
    errs, errs_one = mpifit.relative_errors(rf, held), mpifit.relative_errors(one, held)
    assert rf.small is not None and rf.large is not None  # a split chosen from the data leaves 2 sizes a side
    return {"alpha_s": rf.small.latency, "beta_Bps": rf.large.bandwidth,
            "large_alpha_s": rf.large.latency, "small_beta_Bps": rf.small.bandwidth,
            "split_message_B": rf.threshold, "one_fit": {"alpha_s": one.latency, "beta_Bps": one.bandwidth,
                                                         "held_median_abs_error": mpifit.median_abs(errs_one)},
            "fit_sizes": [s.size for s in samples], "held_sizes": [s.size for s in held],
            "held_errors": list(errs), "held_median_abs_error": mpifit.median_abs(errs),
            "spread_max": max(s.spread for s in (*samples, *held))}


def _regimes(level: dict[str, Any]) -> mpifit.RegimeFit:
    """The two-regime model a report level describes (to predict other sizes or node counts)."""
    def one(alpha: float, beta: float) -> mpifit.Fit:
        return mpifit.Fit("all_reduce", "ring", alpha, beta, (), (), (), (), (), False)
    return mpifit.RegimeFit("all_reduce", "ring", level["split_message_B"],
                            one(level["alpha_s"], level["small_beta_Bps"]),
                            one(level["large_alpha_s"], level["beta_Bps"]), "data")


def _table(samples: Sequence[mpifit.Sample]) -> list[dict[str, float]]:
    return [{"size": s.size, "ranks": s.ranks, "median_s": s.median, "q25_s": s.q25, "q75_s": s.q75}
            for s in samples]


def _hier_report(rows: list[dict[str, Any]], inter: dict[str, Any], intra: dict[str, Any], n: int,
                 r: int) -> list[dict[str, Any]]:
    out = []
    for row in rows[1:]:
        ph = np.median(np.asarray(row["phases"], dtype=float), axis=0)
        s = float(row["size"])
        rs, mid, ag = collectives.hierarchical_phases(
            s, n * r, r, inter["large_alpha_s"], inter["beta_Bps"] / r,
            intra_latency=intra["large_alpha_s"], intra_bandwidth=intra["beta_Bps"])
        pred = [rs.time, mid.time, ag.time]
        out.append({"size": s, "measured_s": [float(x) for x in ph[:3]], "measured_total_s": float(ph[3]),
                    "predicted_s": pred, "predicted_total_s": float(sum(pred)),
                    "error": float(sum(pred) / ph[3] - 1)})
    return out


def measure(one_per_node: Launcher, full: Launcher, *, nodes: int, ranks_per_node: int,
            node_counts: Sequence[int] | None = None, sizes: Sequence[float] = DEFAULT_SIZES,
            hier_sizes: Sequence[float] = HIER_SIZES, repeats: int = 5, timeout: float = 600.0,
            progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run :func:`plan` and fit: the report described in the module docstring (without ``imposed``)."""
    p = plan(one_per_node, full, nodes=nodes, ranks_per_node=ranks_per_node, node_counts=node_counts,
             sizes=sizes, hier_sizes=hier_sizes, repeats=repeats)
    load = os.getloadavg()
    others = busy_cores(1.0)
    started = time.perf_counter()
    results: dict[str, list[dict[str, Any]]] = {}
    for step in p.steps:
        if progress:
            progress(f"{step.part}: {step.ranks} ranks ({time.perf_counter() - started:.0f} s)")
        results[step.part] = _execute(step, timeout)
    floor_rows = results["floor"][1:]
    floor = float(np.median(floor_rows[0]["times"]))
    counts = [int(k.split(":")[1]) for k in results if k.startswith("inter:")]
    inter_samples = {k: _samples(results[f"inter:{k}"], k) for k in counts}
    first = inter_samples[counts[0]]
    inter = _fit_level(first[::2], first[1::2])
    fitted = _regimes(inter)
    inter["other_counts"] = {str(k): {"held_median_abs_error": mpifit.median_abs(mpifit.relative_errors(fitted, v)),
                                      "errors": list(mpifit.relative_errors(fitted, v))}
                             for k, v in inter_samples.items() if k != counts[0]}
    per_count = {str(k): _fit_level(v[::2], v[1::2]) for k, v in inter_samples.items()}
    report: dict[str, Any] = {
        "nodes": nodes, "ranks_per_node": ranks_per_node, "where": full.where,
        "floor": {"one_way_s": floor, "sizes": [row["size"] for row in floor_rows],
                  "medians_s": [float(np.median(row["times"])) for row in floor_rows]},
        "fitted": {"inter": inter, "inter_by_nodes": per_count},
        "measurements": {"inter": {str(k): _table(v) for k, v in inter_samples.items()}},
        "machine": {**dict(mpibench.machine_info(str(results["floor"][0].get("library", "")))),
                    "cores": mpibench.cores(), "load_average": list(load), "busy_cores_at_start": others,
                    "busy": others > BUSY_CORES},
    }
    if "intra" in results:
        intra_s = _samples(results["intra"], ranks_per_node)
        report["fitted"]["intra"] = _fit_level(intra_s[::2], intra_s[1::2])
        report["measurements"]["intra"] = _table(intra_s)
        report["hier"] = _hier_report(results["hier"], inter, report["fitted"]["intra"], nodes, ranks_per_node)
    report["elapsed_s"] = time.perf_counter() - started
    return report


def _imposed(topo: Topology, floor: float, counts: Sequence[int]) -> dict[str, Any]:
    return {"rate_bps": topo.rate, "delay_s": topo.delay, "uplink_rate_bps": topo.uplink_rate,
            "leaves": topo.leaves, "beta_Bps": payload_rate(topo.ring_rate(counts[0]), topo.mtu),
            "beta_by_nodes_Bps": {str(k): payload_rate(topo.ring_rate(k), topo.mtu) for k in counts},
            "beta_one_way_Bps": payload_rate(topo.rate, topo.mtu, both_ways=False),
            "alpha_s": floor + topo.delay, "framing": f"TCP/IPv4 with timestamps on MTU {topo.mtu}: "
            f"{topo.mtu - 52} B payload per {topo.mtu + 14} B frame, plus the reverse direction's 66 B ACK "
            "per two segments"}


def _pairwise(one: Launcher, n: int, repeats: int, timeout: float) -> list[dict[str, Any]]:
    """1 MB ping-pong between every neighbouring pair of the ring (one pair when n = 2)."""
    pairs: list[dict[str, Any]] = []
    for i in range(n if n > 2 else 1):
        j = (i + 1) % n
        opts = list(one.options)
        opts[opts.index("-hosts") + 1] = f"n{i}:1,n{j}:1"
        pair = Launcher(one.mpiexec, tuple(opts), one.env, 2, 1, one.where)
        got = _execute(Step(f"pair {i}-{j}", 2, pair, _worker("pingpong", (1_048_576,), repeats)), timeout)
        t = float(np.median(got[1]["times"]))
        pairs.append({"pair": [i, j], "one_way_s": t, "bandwidth_Bps": 1_048_576 / t})
    return pairs


def _exposure(healthy: list[list[float]], slow: list[list[float]], k_model: float, k_imposed: float,
              step_bytes: int) -> dict[str, Any]:
    """§5's exposure model against measured training steps: per step the slowest rank's compute, and the step
    (from the common barrier) minus it, the exposed communication."""
    def phases(steps: list[list[float]]) -> list[float]:
        comp = float(np.median([r[0] for r in steps]))
        step = float(np.median([r[2] for r in steps]))
        return [comp, step - comp, step]

    med_h, med_s = phases(healthy), phases(slow)
    f = med_h[1] / med_h[2]
    out: dict[str, Any] = {"step_bytes": step_bytes, "healthy_s": med_h, "slow_s": med_s, "exposed_fraction": f,
           "comm_slowdown": med_s[1] / med_h[1], "model_slowdown": k_model,
           "measured_throughput": med_h[2] / med_s[2],
           "predicted_throughput": slowlink.throughput_with_slow_link(f, max(1.0, k_model)),
           "predicted_throughput_imposed_k": slowlink.throughput_with_slow_link(f, k_imposed)}
    out["error"] = out["predicted_throughput"] / out["measured_throughput"] - 1
    return out


def slow_link(fab: Fabric, mpiexec: str, node: int, rate: float, fitted: dict[str, Any], *,
              sizes: Sequence[float] = (1_048_576.0, 4_194_304.0), repeats: int = 5, step_bytes: int = 1_048_576,
              work: int = 500, timeout: float = 600.0) -> dict[str, Any]:
    """Slow ``node``'s link to ``rate`` bit/s, time the ring all-reduce on every node and the bandwidth of every
    neighbouring pair, restore the link; predictions from the fitted inter-node α and β.

    Also a training step without overlap (``work`` matrix products, then an all-reduce of ``step_bytes``), healthy
    and with the slow link: the measured throughput against §5's exposure model
    :func:`~clusterlab.faults.slowlink.throughput_with_slow_link`, with the exposed fraction ``f`` measured on the
    healthy steps and the slowdown ``k`` of the step's all-reduce from the α-β model of the slowed ring (the
    measured k is reported too; with it the model would be an identity as long as the compute is unchanged)."""
    topo = fab.topology
    positive("rate", rate)
    n = topo.nodes
    k = topo.link_rate(node) / rate
    beta, alpha = fitted["beta_Bps"], fitted["large_alpha_s"]
    links = [beta / k if r in (node, (node - 1) % n) else beta for r in range(n)]
    one = fab.launcher(mpiexec, ranks_per_node=1)
    ring = (("MPIR_CVAR_DEVICE_COLLECTIVES", "none"), (mpibench.CVAR["all_reduce"], "ring"))
    step_argv = (*_worker("step", (step_bytes,), repeats), "--work", str(work))
    # one BLAS thread per rank: the ranks already fill the cores, extra spinning BLAS threads would take turns with them
    single = (*ring, ("OPENBLAS_NUM_THREADS", "1"), ("OMP_NUM_THREADS", "1"))
    healthy = _execute(Step("step healthy", n, one, step_argv, single), timeout)[1]["steps"]
    fab.set_rate(node, rate)
    try:
        slow_steps = _execute(Step("step slow", n, one, step_argv, single), timeout)[1]["steps"]
        rows = _execute(Step("slow", n, one, _collective(sizes, n, repeats), ring), timeout)
        pairs = _pairwise(one, n, repeats, timeout)
    finally:
        fab.set_rate(node, topo.link_rate(node))

    def ring_time(size: float, bandwidths: Sequence[float]) -> float:
        return slowlink.ring_with_slow_link(size, bandwidths, alpha).total_time

    out = []
    for s in _samples(rows, n):
        pred, fast = ring_time(s.size, links), ring_time(s.size, [beta] * n)
        out.append({"size": s.size, "measured_s": s.median, "predicted_s": pred, "unslowed_model_s": fast,
                    "error": pred / s.median - 1, "measured_slowdown": s.median / fast})
    ranked = sorted(pairs, key=lambda p: float(p["bandwidth_Bps"]))
    suspects = set(ranked[0]["pair"]) & set(ranked[1]["pair"]) if len(ranked) > 1 else set(ranked[0]["pair"])
    k_model = ring_time(step_bytes, links) / ring_time(step_bytes, [beta] * n)
    return {"node": node, "rate_bps": rate, "slowdown_imposed": k, "allreduce": out, "pairs": pairs,
            "exposure": _exposure(healthy, slow_steps, k_model, k, step_bytes),
            "suspect_pair": ranked[0]["pair"], "suspect_nodes": sorted(suspects)}


def run_emulated(topo: Topology, *, node_counts: Sequence[int] | None = None, sizes: Sequence[float] = DEFAULT_SIZES,
                 repeats: int = 5, slow: tuple[int, float] | None = None,
                 progress: Callable[[str], None] | None = None, workdir: str | None = None) -> dict[str, Any]:
    """Build the emulated cluster (call this inside :func:`~clusterlab.lab.emulated.isolated_command`), measure,
    and add what was imposed."""
    exe = mpibench.find_mpiexec()
    with Fabric(topo, workdir=workdir) as fab:
        report = measure(fab.launcher(exe, ranks_per_node=1), fab.launcher(exe), nodes=topo.nodes,
                         ranks_per_node=topo.ranks_per_node, node_counts=node_counts, sizes=sizes, repeats=repeats,
                         progress=progress)
        by_nodes = report["fitted"]["inter_by_nodes"]
        imposed = report["imposed"] = _imposed(topo, report["floor"]["one_way_s"], [int(k) for k in by_nodes])
        inter = report["fitted"]["inter"]
        report["recovery"] = {"beta": inter["beta_Bps"] / imposed["beta_Bps"] - 1,
                              "alpha": inter["alpha_s"] / imposed["alpha_s"] - 1,
                              "beta_by_nodes": {k: v["beta_Bps"] / imposed["beta_by_nodes_Bps"][k] - 1
                                                for k, v in by_nodes.items()}}
        if slow is not None:
            report["slow"] = slow_link(fab, exe, slow[0], slow[1], inter, repeats=repeats)
    return report


def emulated_plan(topo: Topology, *, node_counts: Sequence[int] | None = None, repeats: int = 5) -> Plan:
    """The steps a run on the emulated cluster ``topo`` makes, with ``<node-exec>`` standing for the launcher script
    the fabric writes when it is built (a dry run: nothing is built)."""
    def placeholder(r: int) -> Launcher:
        hosts = ",".join(f"n{i}:{r}" for i in range(topo.nodes))
        return Launcher("mpiexec", ("-launcher", "rsh", "-launcher-exec", "<node-exec>", "-hosts", hosts,
                                    "-iface", "clbr0"), {}, topo.nodes, r, "the emulated cluster")
    return plan(placeholder(1), placeholder(topo.ranks_per_node), nodes=topo.nodes,
                ranks_per_node=topo.ranks_per_node, node_counts=node_counts, repeats=repeats)


def _parser() -> Any:
    import argparse

    p = argparse.ArgumentParser(prog="python -m clusterlab.lab emulate",
                                description="Fit α and β per level on an emulated (or real) cluster.")
    p.add_argument("--nodes", type=int, default=2)
    p.add_argument("--ranks-per-node", type=int, default=1)
    p.add_argument("--rate", default="200mbit", help="node link rate per direction (tc units: 200mbit, 1gbit)")
    p.add_argument("--delay", default="0", help="one-way delay per node link (needs netem), e.g. 200us")
    p.add_argument("--leaves", type=int, default=1)
    p.add_argument("--uplink-rate", default=None, help="rate between the two leaves (with --leaves 2)")
    p.add_argument("--slow", default=None, metavar="NODE:RATE", help="also measure with NODE's link at RATE")
    p.add_argument("--node-counts", default=None, help="node counts of the inter-node sweep, e.g. 2,4")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--hostfile", default=None, help="a real cluster: hydra hostfile instead of namespaces")
    p.add_argument("--slurm", action="store_true", help="a real cluster: the current Slurm allocation")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    p.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--workdir", default=None, help=argparse.SUPPRESS)
    return p


def topology_from(a: Any) -> Topology:
    """The :class:`Topology` the command-line arguments describe."""
    from .emulated import parse_rate, parse_time

    slow: tuple[tuple[int, float], ...] = ()
    return Topology(nodes=a.nodes, ranks_per_node=a.ranks_per_node, rate=parse_rate(a.rate),
                    delay=parse_time(a.delay), leaves=a.leaves,
                    uplink_rate=parse_rate(a.uplink_rate) if a.uplink_rate else None, slow=slow)


def _slow_arg(text: str | None) -> tuple[int, float] | None:
    from .emulated import parse_rate

    if text is None:
        return None
    node, sep, rate = text.partition(":")
    if not sep or not node.isdigit():
        raise ValueError(f"slow must be NODE:RATE, e.g. 1:50mbit; got {text!r}")
    return int(node), parse_rate(rate)


def summary(report: dict[str, Any]) -> str:
    """A few lines for a terminal: imposed vs fitted α and β, held-out errors, the hierarchical check."""
    lines = [f"{report['where']}: {report['nodes']} nodes × {report['ranks_per_node']} ranks, "
             f"{report['elapsed_s']:.0f} s; load {report['machine']['load_average'][0]:.2f} on "
             f"{report['machine']['cores']} cores, other work {report['machine']['busy_cores_at_start']:.2f} cores"
             + ("  (BUSY: timings inflated)" if report["machine"]["busy"] else "")]
    inter = report["fitted"]["inter"]
    imp = report.get("imposed")
    lines.append(f"floor (one way): {report['floor']['one_way_s'] * 1e6:.1f} µs")
    lines.append(f"inter: α = {inter['alpha_s'] * 1e6:.1f} µs, β = {inter['beta_Bps'] / 1e6:.2f} MB/s, "
                 f"held-out median |error| {100 * inter['held_median_abs_error']:.1f} %")
    if imp:
        rec = report["recovery"]
        lines.append(f"imposed: α = {imp['alpha_s'] * 1e6:.1f} µs, β = {imp['beta_Bps'] / 1e6:.2f} MB/s → "
                     f"fitted β {100 * rec['beta']:+.1f} %, α {100 * rec['alpha']:+.1f} %")
        for k, v in rec["beta_by_nodes"].items():
            lines.append(f"  β fitted at {k} nodes: {100 * v:+.1f} %")
    for k, v in inter.get("other_counts", {}).items():
        lines.append(f"  predicted at {k} nodes from the first fit: median |error| "
                     f"{100 * v['held_median_abs_error']:.1f} %")
    if "intra" in report["fitted"]:
        f = report["fitted"]["intra"]
        lines.append(f"intra: α = {f['alpha_s'] * 1e6:.1f} µs, β = {f['beta_Bps'] / 1e9:.2f} GB/s")
        for h in report["hier"]:
            lines.append(f"  hierarchical {h['size'] / 1e6:.2f} MB: measured {h['measured_total_s'] * 1e3:.2f} ms "
                         f"(phases {', '.join(f'{x * 1e3:.2f}' for x in h['measured_s'])}), predicted "
                         f"{h['predicted_total_s'] * 1e3:.2f} ms ({100 * h['error']:+.1f} %)")
    if "slow" in report:
        s = report["slow"]
        for row in s["allreduce"]:
            lines.append(f"slow link on node {s['node']}: {row['size'] / 1e6:.2f} MB measured "
                         f"{row['measured_s'] * 1e3:.1f} ms, predicted {row['predicted_s'] * 1e3:.1f} ms "
                         f"({100 * row['error']:+.1f} %)")
        lines.append(f"  slowest pair: {s['suspect_pair']}; the node in the two slowest pairs: {s['suspect_nodes']}")
        e = s["exposure"]
        lines.append(f"  training step: exposed fraction {e['exposed_fraction']:.2f}, all-reduce "
                     f"{e['comm_slowdown']:.2f}× slower (model {e['model_slowdown']:.2f}×); "
                     f"throughput measured {e['measured_throughput']:.3f}, "
                     f"§5 model {e['predicted_throughput']:.3f} ({100 * e['error']:+.1f} %)")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    """``python -m clusterlab.lab emulate …`` (see :func:`_parser`)."""
    from .emulated import LabUnavailableError, availability, isolated_command

    a = _parser().parse_args(list(argv))
    try:
        topo = topology_from(a)
        slow = _slow_arg(a.slow)
        counts = tuple(int(k) for k in a.node_counts.split(",")) if a.node_counts else None
        if a.hostfile or a.slurm:
            exe = mpibench.find_mpiexec() if not a.dry_run else "mpiexec"
            def make(r: int) -> Launcher:
                if a.hostfile:
                    return Launcher.hostfile(a.hostfile, exe, ranks_per_node=r)
                return Launcher.slurm(exe, ranks_per_node=r, nodes=a.nodes)

            one, full = make(1), make(a.ranks_per_node)
            nodes = full.nodes or a.nodes
            if a.dry_run:
                print("\n".join(plan(one, full, nodes=nodes, ranks_per_node=a.ranks_per_node,
                                     node_counts=counts, repeats=a.repeats).lines()))
                return 0
            report = measure(one, full, nodes=nodes, ranks_per_node=a.ranks_per_node, node_counts=counts,
                             repeats=a.repeats)
        elif a.dry_run:
            print("\n".join(emulated_plan(topo, node_counts=counts, repeats=a.repeats).lines()))
            return 0
        elif not a.inside:
            ok = availability()
            if not ok:
                print(f"emulated cluster unavailable: {ok.reason}", file=sys.stderr)
                return 3
            if topo.delay > 0 and not ok.netem:
                print("emulated cluster: this kernel has no netem qdisc, so --delay cannot be imposed",
                      file=sys.stderr)
                return 3
            with tempfile.TemporaryDirectory(prefix="clusterlab-fabric-") as work:
                cmd = isolated_command([sys.executable, "-m", "clusterlab.lab", "emulate", *argv, "--inside",
                                        "--workdir", work], mode=ok.mode)
                return subprocess.run(cmd, check=False).returncode
        else:
            report = run_emulated(topo, node_counts=counts, repeats=a.repeats, slow=slow, workdir=a.workdir,
                                  progress=None if a.json else (lambda m: print(m, file=sys.stderr, flush=True)))
    except (ValueError, LabUnavailableError, mpibench.MPIUnavailableError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=1) if a.json else summary(report))
    return 0
