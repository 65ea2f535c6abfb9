"""Worker started by :mod:`clusterlab.lab.emulate` under ``mpiexec``; not imported by the package.

``pingpong``: ranks 0 and N−1 (on different nodes) bounce a message; one JSON line per size with the one-way times
(half a round trip) of every repeat. ``hier``: the two-level all-reduce of §2.2 done by hand — reduce-scatter inside
the node, all-reduce of each shard across nodes (the R shards' rings run at once and share the node's link),
all-gather inside the node — one JSON line per size with every repeat's phase times (slowest rank per phase).
``step``: data-parallel training steps with no overlap — matrix products, then the gradient's all-reduce — with
every repeat's compute, communication and step time (slowest rank each).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from mpi4py import MPI


def _pingpong(comm: MPI.Intracomm, sizes: list[int], warmup: int, repeats: int) -> None:
    peer = {0: comm.size - 1, comm.size - 1: 0}.get(comm.rank, -1)
    for size in sizes:
        buf = np.ones(max(1, size), np.uint8)
        iters = max(1, min(200, 2_000_000 // max(size, 1)))
        times = []
        for k in range(warmup + repeats):
            comm.Barrier()
            t0 = time.perf_counter()
            for _ in range(iters):
                if comm.rank == 0:
                    comm.Send(buf, dest=peer)
                    comm.Recv(buf, source=peer)
                elif peer >= 0:
                    comm.Recv(buf, source=peer)
                    comm.Send(buf, dest=peer)
            if k >= warmup:
                times.append((time.perf_counter() - t0) / iters / 2)
        if comm.rank == 0:
            print(json.dumps({"size": size, "iters": iters, "times": times}), flush=True)


def _hier(comm: MPI.Intracomm, sizes: list[int], warmup: int, repeats: int) -> None:
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    across = comm.Split(local.rank, comm.rank)
    g = local.size
    for size in sizes:
        count = size // 4
        send = np.ones(count, np.float32)
        shard = np.empty(count // g, np.float32)
        reduced = np.empty_like(shard)
        out = np.empty(count, np.float32)
        rows = []
        for k in range(warmup + repeats):
            comm.Barrier()
            t0 = time.perf_counter()
            local.Reduce_scatter(send, shard, recvcounts=[shard.size] * g, op=MPI.SUM)
            t1 = time.perf_counter()
            across.Allreduce(shard, reduced, op=MPI.SUM)
            t2 = time.perf_counter()
            local.Allgather(reduced, out)
            t3 = time.perf_counter()
            phases = np.array([t1 - t0, t2 - t1, t3 - t2, t3 - t0])
            slowest = np.empty_like(phases)
            comm.Allreduce(phases, slowest, op=MPI.MAX)
            if k >= warmup:
                rows.append([float(x) for x in slowest])
        if comm.rank == 0:
            print(json.dumps({"size": size, "ranks_per_node": g, "nodes": across.size, "phases": rows}), flush=True)


def _step(comm: MPI.Intracomm, sizes: list[int], warmup: int, repeats: int, work: int) -> None:
    """Data-parallel steps without overlap: ``work`` float32 matrix products (the compute), then an all-reduce of
    ``sizes[0]`` bytes (the gradient); per repeat the slowest rank's compute, communication and step time."""
    rng = np.random.default_rng(comm.rank)
    a = rng.standard_normal((192, 192)).astype(np.float32)
    grad = np.ones(sizes[0] // 4, np.float32)
    out = np.empty_like(grad)
    rows = []
    for k in range(warmup + repeats):
        comm.Barrier()
        t0 = time.perf_counter()
        x = a
        for _ in range(work):
            x = np.tanh(x @ a)
        t1 = time.perf_counter()
        comm.Allreduce(grad, out, op=MPI.SUM)
        t2 = time.perf_counter()
        mine = np.array([t1 - t0, t2 - t1, t2 - t0])
        slowest = np.empty_like(mine)
        comm.Allreduce(mine, slowest, op=MPI.MAX)
        if k >= warmup:
            rows.append([float(v) for v in slowest])
    if comm.rank == 0:
        print(json.dumps({"size": sizes[0], "work": work, "steps": rows}), flush=True)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=("pingpong", "hier", "step"))
    p.add_argument("--sizes", required=True)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--work", type=int, default=40)
    a = p.parse_args()
    sizes = [int(z) for z in a.sizes.split(",")]
    comm = MPI.COMM_WORLD
    if comm.rank == 0:
        print(json.dumps({"library": MPI.Get_library_version().strip().splitlines()[0]}), flush=True)
    if a.mode == "step":
        _step(comm, sizes, a.warmup, a.repeats, a.work)
    else:
        (_pingpong if a.mode == "pingpong" else _hier)(comm, sizes, a.warmup, a.repeats)


if __name__ == "__main__":
    main()
