"""Worker started by :mod:`clusterlab.lab.faultlab` under ``mpiexec``; not imported by the package.

A data-parallel training of a two-layer MLP (tanh hidden layer, logistic output, Adam) on synthetic data: every
rank holds its own shard, generated from ``(seed, rank)``, draws its mini-batches from its own generator, computes
the local gradient, and ``comm.Allreduce`` sums the gradients. MPICH's recursive-doubling all-reduce is forced by
the caller, so the sum is formed in the same order in every run and on every rank: the parameters of two runs of
the same number of steps are bit-identical, however often the run was interrupted and resumed.

Files in ``--dir`` (the driver reads them):

``pids/rank{r}``
    the rank's process id, written at start (the fault injector kills one of them).
``hb/rank{r}``
    heartbeat: ``step monotonic-time``, rewritten (temp file + ``os.replace``) after every step.
``ckpt/step{S}.rank{r}.npz`` and ``ckpt/LATEST``
    a checkpoint: each rank writes its file atomically (temp file, fsync, ``os.replace``), all ranks meet in a
    barrier, then rank 0 writes ``LATEST`` (the step) the same way — the commit. A restart loads ``LATEST``'s files.
``events.jsonl``
    rank 0's log, one JSON object a line: ``ready`` (resumed step, time), ``save`` (step, start, end), ``done``.

Rank 0 decides when to save (``--interval`` seconds of training since the last save) and tells the others through
one extra element of the all-reduced gradient buffer, so saving costs no extra collective.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
from mpi4py import MPI

KEYS = ("w1", "b1", "w2", "b2")
BETA1, BETA2, EPS, LR = 0.9, 0.999, 1e-8, 1e-3


def _atomic(path: Path, write: object) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(tmp, "wb") as fh:
        write(fh)  # type: ignore[operator]
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _shard(seed: int, rank: int, rows: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    teacher = np.random.default_rng([seed, 1 << 20]).standard_normal(dim)
    g = np.random.default_rng([seed, rank])
    x = g.standard_normal((rows, dim))
    y = (x @ teacher + 0.5 * g.standard_normal(rows) > 0).astype(np.float64)
    return x, y


def _init(seed: int, dim: int, hidden: int) -> dict[str, np.ndarray]:
    g = np.random.default_rng([seed, 1 << 21])
    return {"w1": g.standard_normal((dim, hidden)) / math.sqrt(dim), "b1": np.zeros(hidden),
            "w2": g.standard_normal(hidden) / math.sqrt(hidden), "b2": np.zeros(1)}


def _grads(p: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    h = np.tanh(x @ p["w1"] + p["b1"])
    z = h @ p["w2"] + p["b2"][0]
    dz = (1.0 / (1.0 + np.exp(-z)) - y) / len(y)
    dh = np.outer(dz, p["w2"]) * (1.0 - h * h)
    return [x.T @ dh, dh.sum(axis=0), h.T @ dz, np.array([dz.sum()])]


class Trainer:
    def __init__(self, a: argparse.Namespace, comm: MPI.Intracomm) -> None:
        self.a, self.comm, self.rank = a, comm, comm.rank
        self.dir = Path(a.dir)
        self.x, self.y = _shard(a.seed, self.rank, a.rows, a.dim)
        self.p = _init(a.seed, a.dim, a.hidden)
        self.m = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.rng = np.random.default_rng([a.seed, self.rank, 7])
        self.step = 0
        sizes = [self.p[k].size for k in KEYS]
        self.offsets = np.cumsum([0, *sizes])
        self.send = np.zeros(self.offsets[-1] + 1)
        self.recv = np.empty_like(self.send)

    # -- checkpoints ------------------------------------------------------------------------------------------
    def _file(self, step: int, rank: int) -> Path:
        return self.dir / "ckpt" / f"step{step:08d}.rank{rank}.npz"

    def load(self) -> None:
        latest = self.dir / "ckpt" / "LATEST"
        if not latest.exists():
            return
        step = int(latest.read_text())
        with np.load(self._file(step, self.rank)) as z:
            for k in KEYS:
                self.p[k], self.m[k], self.v[k] = z[k], z["m_" + k], z["v_" + k]
            self.rng.bit_generator.state = json.loads(bytes(z["rng"]).decode())
            self.step = int(z["step"])

    def save(self) -> tuple[float, float]:
        t0 = time.monotonic()
        arrays: dict[str, Any] = {"step": self.step, **self.p, **{"m_" + k: v for k, v in self.m.items()},
                                  **{"v_" + k: v for k, v in self.v.items()}}
        rng = np.frombuffer(json.dumps(self.rng.bit_generator.state).encode(), np.uint8)
        _atomic(self._file(self.step, self.rank), lambda fh: np.savez(fh, rng=rng, **arrays))
        self.comm.Barrier()
        if self.rank == 0:
            # the event first, then the commit: a kill between the two leaves an event for a step that was never
            # committed (the driver looks events up by the resumed step), never a commit without its event
            _event(self.dir / "events.jsonl", ev="save", step=self.step, t0=t0, t1=time.monotonic())
            _atomic(self.dir / "ckpt" / "LATEST", lambda fh: fh.write(str(self.step).encode()))
            for old in (self.dir / "ckpt").glob("step*.npz"):
                if not old.name.startswith(f"step{self.step:08d}."):
                    old.unlink(missing_ok=True)
        return t0, time.monotonic()

    # -- training ---------------------------------------------------------------------------------------------
    def train_step(self, want_save: bool) -> bool:
        idx = self.rng.integers(0, len(self.y), self.a.batch)
        grads = _grads(self.p, self.x[idx], self.y[idx])
        for k, g in enumerate(grads):
            self.send[self.offsets[k]:self.offsets[k + 1]] = g.ravel()
        self.send[-1] = 1.0 if want_save else 0.0
        self.comm.Allreduce(self.send, self.recv, op=MPI.SUM)
        self.step += 1
        t = self.step
        for k, key in enumerate(KEYS):
            g = (self.recv[self.offsets[k]:self.offsets[k + 1]] / self.comm.size).reshape(self.p[key].shape)
            self.m[key] = BETA1 * self.m[key] + (1 - BETA1) * g
            self.v[key] = BETA2 * self.v[key] + (1 - BETA2) * g * g
            mhat = self.m[key] / (1 - BETA1**t)
            vhat = self.v[key] / (1 - BETA2**t)
            self.p[key] = self.p[key] - LR * mhat / (np.sqrt(vhat) + EPS)
        return bool(self.recv[-1] > 0)

    def digest(self) -> str:
        h = hashlib.sha256()
        for k in KEYS:
            h.update(np.ascontiguousarray(self.p[k]).tobytes())
        return h.hexdigest()


def _event(path: Path, **fields: object) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(fields) + "\n")


def _heartbeat(path: Path, step: int) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(f"{step} {time.monotonic():.6f}")
    os.replace(tmp, path)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--interval", type=float, default=math.inf)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--batch", type=int, default=2048)
    p.add_argument("--rows", type=int, default=4096)
    a = p.parse_args()
    comm = MPI.COMM_WORLD
    d = Path(a.dir)
    (d / "pids" / f"rank{comm.rank}").write_text(str(os.getpid()))
    tr = Trainer(a, comm)
    tr.load()
    hb, events = d / "hb" / f"rank{comm.rank}", d / "events.jsonl"
    comm.Barrier()
    _heartbeat(hb, tr.step)
    start = last = time.monotonic()
    saving = 0.0
    if comm.rank == 0:
        _event(events, ev="ready", step=tr.step, t=start)
    while tr.step < a.steps:
        due = comm.rank == 0 and time.monotonic() - last >= a.interval and tr.step + 1 < a.steps
        if tr.train_step(due):
            t0, last = tr.save()
            saving += last - t0
        _heartbeat(hb, tr.step)
    digests = comm.gather(tr.digest(), root=0)
    if comm.rank == 0:
        assert digests is not None
        _event(events, ev="done", step=tr.step, t=time.monotonic(), hash=digests[0],
               agree=len(set(digests)) == 1,
               library=MPI.Get_library_version().splitlines()[0], loop=time.monotonic() - start, saving=saving)


if __name__ == "__main__":
    main()
