"""Worker started by :mod:`clusterlab.lab.mpibench` under ``mpiexec -n N``; not imported by the package.

Times one collective over a list of sizes and prints one JSON line per size on rank 0. The MPICH algorithm is chosen
by the caller through the environment (``MPIR_CVAR_<OP>_INTRA_ALGORITHM``). Each repeat: barrier, ``iters`` calls
timed one by one; the repeat's time is the slowest rank's median call time. With ``--delay-rank r --delay d`` rank
``r`` sleeps ``d`` seconds before each call (a slow participant) and every rank reports how long its own call took.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from mpi4py import MPI


def _buffers(op: str, size: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    count = size // 4  # float32
    if op == "all_gather":
        return np.ones(count // n, np.float32), np.empty(count, np.float32)
    if op == "reduce_scatter":
        return np.ones(count, np.float32), np.empty(count // n, np.float32)
    return np.ones(count, np.float32), np.empty(count, np.float32)


def _call(comm: MPI.Intracomm, op: str, send: np.ndarray, recv: np.ndarray) -> None:
    if op == "all_reduce":
        comm.Allreduce(send, recv, op=MPI.SUM)
    elif op == "reduce_scatter":
        comm.Reduce_scatter(send, recv, recvcounts=[recv.size] * comm.size, op=MPI.SUM)
    elif op == "all_gather":
        comm.Allgather(send, recv)
    else:
        comm.Bcast(send, root=0)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--op", required=True)
    p.add_argument("--sizes", required=True)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--delay-rank", type=int, default=-1)
    p.add_argument("--delay", type=float, default=0.0)
    a = p.parse_args()
    comm = MPI.COMM_WORLD
    n, rank = comm.size, comm.rank
    if rank == 0:
        print(json.dumps({"library": MPI.Get_library_version().strip().splitlines()[0],
                          "mpi4py": __import__("mpi4py").__version__}), flush=True)
    for size in (int(z) for z in a.sizes.split(",")):
        send, recv = _buffers(a.op, size, n)
        iters = 1 if a.delay > 0 else max(1, min(50, 200_000 // size))
        for _ in range(a.warmup):
            _call(comm, a.op, send, recv)
        times, mine = [], []
        for _ in range(a.repeats):
            comm.Barrier()
            if rank == a.delay_rank:
                time.sleep(a.delay)
            calls = []
            for _ in range(iters):
                t0 = time.perf_counter()
                _call(comm, a.op, send, recv)
                calls.append(time.perf_counter() - t0)
            local = float(np.median(calls))  # robust to one descheduled call on a shared machine
            mine.append(local)
            times.append(comm.allreduce(local, op=MPI.MAX))
        per_rank = comm.gather(float(np.median(mine)), root=0)
        if rank == 0:
            print(json.dumps({"size": size, "iters": iters, "times": times, "per_rank": per_rank}), flush=True)


if __name__ == "__main__":
    main()
