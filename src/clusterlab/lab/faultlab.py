"""Checkpoints against real faults on the emulated cluster (§9.6.3, §9.6.4): a data-parallel training under
``mpiexec`` (:mod:`clusterlab.lab._trainworker`), a fault injector, a watchdog, restarts from the last checkpoint.

One run, inside the isolated process of :mod:`clusterlab.lab.emulated`:

1. **Probe**: a short run that saves after every step measures the save cost ``δ`` (write every rank's file with
   fsync, barrier, commit) and the step time; the interval is Young's ``T* = sqrt(2δM)``
   (:func:`~clusterlab.faults.checkpoint.young_interval`) unless the caller sets one.
2. **Faults**: the training runs with checkpoints every ``T`` s of training time. After every (re)start the
   injector waits an exponential gap of mean ``M`` (:func:`fault_schedule`, seeded) and then either SIGKILLs one
   rank (``kill``) or cuts one node's link at the switch (``link``). The watchdog declares the job failed when
   ``mpiexec`` exits non-zero or a rank's heartbeat is older than ``timeout`` (like NCCL's watchdog); it kills the
   whole job, restores the link, and starts again from the last committed checkpoint.
3. **Reference**: the same number of steps without a fault; its parameters must equal the resumed run's, byte for
   byte (SHA-256). The useful time per step comes from the faulty run's own log (training between saves).

What is compared, and the prediction, are in :mod:`clusterlab.lab.faultplan`.

``python -m clusterlab.lab faults --nodes 2 --ranks-per-node 1 --mtbf 3 --faults 20 --json``
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from ..faults.checkpoint import young_interval
from .emulated import sweep_topology_files
from .faultplan import (
    KINDS,
    Fault,
    FaultConfig,
    FaultRecord,
    FaultReport,
    fault_schedule,
    predict,
    summary,
    useful_share_stderr,
)
from .machine import BUSY_CORES, busy_cores
from .mpibench import cores, machine_info

__all__ = ["FaultLabError", "main", "run_faults", "run_inside"]

WORKER: Final = Path(__file__).with_name("_trainworker.py")
#: MPICH's recursive doubling sums in the same order in every run and on every rank (bit-identical parameters);
#: one BLAS thread per rank, as the ranks already fill the cores
WORKER_ENV: Final = {"MPIR_CVAR_DEVICE_COLLECTIVES": "none",
                     "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": "recursive_doubling",
                     "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
POLL: Final = 0.01
STARTUP_TIMEOUT: Final = 60.0
TAIL_STEPS: Final = 20


# ------------------------------------------------------------------------------------------------------------
# the driver (inside the isolated process)
# ------------------------------------------------------------------------------------------------------------
class FaultLabError(RuntimeError):
    """The experiment could not run as planned (a job failed on its own, did not start, or ran too long)."""


def _events(path: Path) -> list[dict[str, Any]]:
    """rank 0's events; a line cut short by a kill is skipped."""
    out = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


class _Job:
    """One ``mpiexec`` launch of the worker in ``directory`` (its own session, so one signal ends it all)."""

    def __init__(self, cmd: list[str], env: dict[str, str], directory: Path) -> None:
        self.dir = directory
        for sub in ("pids", "hb", "ckpt"):
            (directory / sub).mkdir(parents=True, exist_ok=True)
        for sub in ("pids", "hb"):
            for f in (directory / sub).iterdir():
                f.unlink()
        events = directory / "events.jsonl"
        if events.exists() and not events.read_bytes().endswith(b"\n"):
            with open(events, "ab") as fh:  # a line cut short by a kill must not swallow the next launch's first
                fh.write(b"\n")
        self.log = open(directory / "mpiexec.log", "ab")  # closed in kill()
        self.started = time.time()
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                     start_new_session=True)

    def pids(self) -> list[int]:
        return [int(f.read_text() or 0) for f in sorted((self.dir / "pids").glob("rank*"))]

    def stale(self, ranks: int, timeout: float) -> bool:
        """Whether some rank's heartbeat is older than ``timeout`` s."""
        now = time.monotonic()
        for r in range(ranks):
            try:
                beat = float((self.dir / "hb" / f"rank{r}").read_text().split()[1])
            except (OSError, IndexError, ValueError):
                continue  # being replaced this instant: the next poll reads it
            if now - beat > timeout:
                return True
        return False

    def kill(self) -> None:
        """SIGKILL the job's process group and every rank, wait until none is left, and remove the topology
        files the killed proxies left behind."""
        victims = self.pids()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        self.log.close()
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in victims):
            if time.monotonic() > deadline:
                raise FaultLabError(f"ranks {victims} survived SIGKILL")
            time.sleep(POLL / 2)
        sweep_topology_files(self.started)

    def tail(self) -> str:
        return (self.dir / "mpiexec.log").read_text(errors="replace")[-600:]


@dataclass
class _Driver:
    """Runs the three phases of :func:`run_inside` on a built fabric."""

    fab: Any
    cfg: FaultConfig
    workdir: Path
    mpiexec: str
    env: dict[str, str] = field(default_factory=dict)

    def job(self, phase: str, steps: int, interval: float) -> _Job:
        c = self.cfg
        argv = [sys.executable, str(WORKER), "--dir", str(self.workdir / phase), "--steps", str(steps),
                "--interval", repr(interval), "--seed", str(c.seed), "--batch", str(c.batch), "--dim", str(c.dim),
                "--hidden", str(c.hidden)]
        return _Job(self.fab.launcher(self.mpiexec).command(c.ranks, argv), self.env, self.workdir / phase)

    def wait_ready(self, job: _Job, count: int) -> dict[str, Any]:
        """The ``count``-th ``ready`` event of the phase (the job has loaded its checkpoint)."""
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            ready = [e for e in _events(job.dir / "events.jsonl") if e["ev"] == "ready"]
            if len(ready) >= count:
                return ready[count - 1]
            if job.proc.poll() is not None or time.monotonic() > deadline:
                job.kill()
                raise FaultLabError(f"the job did not start (exit {job.proc.returncode}): {job.tail()}")
            time.sleep(POLL)

    def finish(self, job: _Job) -> dict[str, Any]:
        """Wait for a job that must end well; its ``done`` event."""
        try:
            rc = job.proc.wait(timeout=self.cfg.wall_limit)
        except subprocess.TimeoutExpired:
            rc = -1
        job.kill()
        done = [e for e in _events(job.dir / "events.jsonl") if e["ev"] == "done"]
        if rc != 0 or not done:
            raise FaultLabError(f"the job failed without a fault (exit {rc}): {job.tail()}")
        return done[-1]

    def failed(self, job: _Job) -> str | None:
        """``exit`` or ``heartbeat`` when the watchdog sees the job failed, else None."""
        rc = job.proc.poll()
        if rc is not None and rc != 0:
            return "exit"
        if job.stale(self.cfg.ranks, self.cfg.timeout):
            return "heartbeat"
        return None

    def inject(self, job: _Job, fault: Fault) -> float:
        if fault.kind == "kill":
            pids = job.pids()
            os.kill(pids[fault.target], signal.SIGKILL)
        else:
            self.fab.set_link(fault.target, False)
        return time.monotonic()

    def up_until(self, job: _Job, due: float) -> None:
        """Watch the running job until ``due``; it must neither fail nor finish before."""
        while time.monotonic() < due:
            if job.proc.poll() is not None or self.failed(job):
                job.kill()
                raise FaultLabError("the job stopped before the fault was due (raise --timeout if the heartbeat "
                                    f"was only late): exit {job.proc.returncode}: {job.tail()}")
            time.sleep(POLL)

    def detect(self, job: _Job) -> tuple[str, float]:
        deadline = time.monotonic() + 30 * self.cfg.timeout + 30
        while (how := self.failed(job)) is None:
            if time.monotonic() > deadline:
                raise FaultLabError("the watchdog saw no failure after an injected fault")
            time.sleep(POLL)
        return how, time.monotonic()

    def faulty(self, interval: float) -> tuple[list[FaultRecord], dict[str, Any], dict[str, Any], dict[str, Any]]:
        """The run with faults: records, the first and the last ready events, the done event."""
        c = self.cfg
        schedule = fault_schedule(c.faults, c.mtbf, c.seed, nodes=c.nodes, ranks_per_node=c.ranks_per_node,
                                  kinds=c.kinds)
        job = self.job("run", 10**9, interval)
        first = ready = self.wait_ready(job, 1)
        records = []
        for i, f in enumerate(schedule):
            self.up_until(job, ready["t"] + f.gap)
            injected = self.inject(job, f)
            how, detected = self.detect(job)
            job.kill()
            if f.kind == "link":
                self.fab.set_link(f.target, True)
            latest = int((self.workdir / "run" / "ckpt" / "LATEST").read_text() or 0) if (
                self.workdir / "run" / "ckpt" / "LATEST").exists() else 0
            job = self.job("run", 10**9 if i + 1 < len(schedule) else latest + TAIL_STEPS, interval)
            nxt = self.wait_ready(job, i + 2)
            commit = self._commit_time(ready, nxt["step"])
            records.append(FaultRecord(f.kind, f.target, injected - first["t"], detected - first["t"],
                                       nxt["t"] - first["t"], max(0.0, injected - commit), how, int(nxt["step"])))
            ready = nxt
        return records, first, ready, self.finish(job)

    def _commit_time(self, ready: dict[str, Any], step: int) -> float:
        """When the checkpoint of ``step`` was committed (the launch's start if it resumed from it)."""
        if step == ready["step"]:
            return float(ready["t"])
        saves = [e for e in _events(self.workdir / "run" / "events.jsonl") if e["ev"] == "save"
                 and e["step"] == step and e["t1"] >= ready["t"]]
        if not saves:  # the worker logs a save before it commits it, so this cannot happen unless a file was lost
            raise FaultLabError(f"no save event for the committed step {step}")
        return float(saves[0]["t1"])


def _save_stats(events: list[dict[str, Any]]) -> tuple[float, float, float]:
    """From the run's own log: mean training time between saves (from a launch's start or the previous save),
    mean save time, and training time per step (those gaps over the steps they held). The step time is taken
    from the run, not from the reference, so that other work on the machine at one time and not the other cannot
    make the useful share exceed what was measured."""
    gaps, costs, steps, last = [], [], [], None
    for e in events:
        if e["ev"] == "ready":
            last = (e["t"], e["step"])
        elif e["ev"] == "save" and last is not None:
            gaps.append(e["t0"] - last[0])
            costs.append(e["t1"] - e["t0"])
            steps.append(e["step"] - last[1])
            last = (e["t1"], e["step"])
    if not gaps:
        return math.nan, math.nan, math.nan
    return float(np.mean(gaps)), float(np.mean(costs)), float(np.sum(gaps) / np.sum(steps))


def run_inside(cfg: FaultConfig, workdir: str | os.PathLike[str],
               progress: Any = None) -> FaultReport:
    """Build the emulated cluster and run probe, faults and reference (inside :func:`isolated_command`)."""
    from .emulated import Fabric, Topology
    from .mpibench import find_mpiexec

    say = progress or (lambda _msg: None)
    wd = Path(workdir)
    env = {**os.environ, **WORKER_ENV}
    with Fabric(Topology(cfg.nodes, cfg.ranks_per_node, cfg.rate), workdir=str(wd)) as fab:
        d = _Driver(fab, cfg, wd, find_mpiexec())
        d.env = {**env, **fab.launcher(d.mpiexec).env}
        say("probe: save cost and step time")
        d.finish(d.job("probe", 40, 0.0))
        probe = _events(wd / "probe" / "events.jsonl")
        save_cost = float(np.mean([e["t1"] - e["t0"] for e in probe if e["ev"] == "save"][1:]))
        interval = cfg.interval if cfg.interval is not None else young_interval(save_cost, cfg.mtbf)
        say(f"save cost {1e3 * save_cost:.1f} ms, interval {interval:.3f} s; {cfg.faults} faults, MTBF {cfg.mtbf} s")
        records, first, last, done = d.faulty(interval)
        say(f"reference: {done['step']} steps without a fault")
        ref = d.finish(d.job("ref", int(done["step"]), math.inf))
    gap, cost, step_time = _save_stats(_events(wd / "run" / "events.jsonl"))
    restart = float(np.mean([r.restarted - r.injected for r in records]))
    pred = predict(gap, cost, cfg.mtbf, restart)
    return FaultReport(cfg, save_cost, interval, gap, cost, step_time, int(done["step"]), tuple(records),
                       float(last["t"] - first["t"]), int(last["step"]) * step_time, pred,
                       useful_share_stderr(len(records), gap, cost, cfg.mtbf, restart), str(done["hash"]),
                       str(ref["hash"]), bool(done["agree"] and ref["agree"]),
                       {"mpi": str(done.get("library", ""))})


# ------------------------------------------------------------------------------------------------------------
# outside: the isolated process, the command line
# ------------------------------------------------------------------------------------------------------------
def run_faults(cfg: FaultConfig, *, verbose: bool = False) -> FaultReport:
    """Run the experiment in an isolated process (:func:`~clusterlab.lab.emulated.isolated_command`); raises
    :class:`~clusterlab.lab.emulated.LabUnavailableError` where the emulated cluster cannot be built."""
    from .emulated import LabUnavailableError, availability, isolated_command

    ok = availability()
    if not ok:
        raise LabUnavailableError(ok.reason)
    load, others = os.getloadavg(), busy_cores()
    with tempfile.TemporaryDirectory(prefix="clusterlab-faults-") as work:
        cmd = isolated_command([sys.executable, "-m", "clusterlab.lab.faultlab", "--inside", "--workdir", work,
                                "--config", json.dumps(asdict(cfg))], mode=ok.mode)
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None if verbose else subprocess.PIPE, text=True,
                             check=False, timeout=cfg.wall_limit + 120)
    if out.returncode != 0:
        raise FaultLabError(f"the fault experiment failed (exit {out.returncode}): {(out.stderr or '')[-800:]}")
    rep = FaultReport.from_dict(json.loads(out.stdout))
    info = dict(machine_info(str(rep.machine.get("mpi", ""))))
    return dataclasses.replace(rep, machine={**info, "cores": cores(), "load_average": list(load),
                                             "busy_cores_at_start": others, "busy": others > BUSY_CORES})


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m clusterlab.lab faults",
                                description="Checkpoint/restart against injected faults on the emulated cluster.")
    p.add_argument("--nodes", type=int, default=2)
    p.add_argument("--ranks-per-node", type=int, default=1)
    p.add_argument("--mtbf", type=float, default=3.0, help="mean up time between faults (s)")
    p.add_argument("--faults", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--interval", type=float, default=None, help="checkpoint interval (s); default Young's")
    p.add_argument("--timeout", type=float, default=0.5, help="heartbeat timeout of the watchdog (s)")
    p.add_argument("--kinds", default=",".join(KINDS), help="kill, link or both (comma-separated)")
    p.add_argument("--rate", default="1gbit")
    p.add_argument("--batch", type=int, default=2048)
    p.add_argument("--json", action="store_true")
    p.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--workdir", default=None, help=argparse.SUPPRESS)
    p.add_argument("--config", default=None, help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str]) -> int:
    """``python -m clusterlab.lab faults …`` (see :func:`_parser`)."""
    from .emulated import LabUnavailableError, parse_rate

    a = _parser().parse_args(list(argv))
    try:
        if a.inside:
            cfg = FaultConfig(**dict(json.loads(a.config), kinds=tuple(json.loads(a.config)["kinds"])))
            rep = run_inside(cfg, a.workdir, progress=lambda m: print(m, file=sys.stderr, flush=True))
            print(json.dumps(rep.as_dict()))
            return 0
        cfg = FaultConfig(a.nodes, a.ranks_per_node, a.mtbf, a.faults, a.seed, a.interval, a.timeout,
                          tuple(k.strip() for k in a.kinds.split(",") if k.strip()), parse_rate(a.rate), a.batch)
        rep = run_faults(cfg, verbose=not a.json)
    except (ValueError, LabUnavailableError, FaultLabError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(rep.as_dict(), indent=1) if a.json else summary(rep))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
