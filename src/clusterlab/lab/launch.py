"""How a lab experiment starts its MPI ranks: here (``mpiexec -n N``), on the emulated cluster, on the hosts of a
hostfile, or inside a Slurm allocation. The experiments (:mod:`~clusterlab.lab.mpibench`,
:mod:`~clusterlab.lab.emulate`, :mod:`~clusterlab.lab.faultlab`) take a :class:`Launcher` and never build an
``mpiexec`` line themselves, so the same code measures a laptop, the emulated cluster and a real one.

On a real cluster (MPICH's hydra launcher, which the pinned ``mpich`` wheel provides)::

    python -m clusterlab.lab emulate --hostfile hosts.txt --ranks-per-node 8 --dry-run   # print, run nothing
    python -m clusterlab.lab emulate --slurm --ranks-per-node 8 --json                   # inside salloc / sbatch

A hostfile lists one host per line (``name`` or ``name:slots``; ``#`` starts a comment), the format of hydra's
``-f``. Every host needs the same Python environment at the same path (a shared file system, or the same venv
installed on each) and password-less ``ssh`` between hosts; under Slurm hydra starts its proxies with ``srun``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..validate import int_in_range

__all__ = ["Launcher", "read_hostfile"]


def read_hostfile(path: str | os.PathLike[str]) -> tuple[tuple[str, int], ...]:
    """(host, slots) per line of a hydra hostfile; ``ValueError`` naming the line if one is malformed."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"hostfile {str(p)!r} does not exist")
    hosts = []
    for k, raw in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, slots = line.partition(":")
        if not name or any(c.isspace() for c in name) or (slots and not slots.isdigit()) or slots == "0":
            raise ValueError(f"hostfile line {k} must be `host` or `host:slots` (slots ≥ 1); got {raw!r}")
        hosts.append((name, int(slots) if slots else 1))
    if not hosts:
        raise ValueError(f"hostfile {str(p)!r} lists no host")
    return tuple(hosts)


@dataclass(frozen=True)
class Launcher:
    """Starts ``ranks`` MPI processes: :meth:`command` is the full command line, :attr:`env` what it adds to the
    environment. ``nodes`` is how many nodes the launcher can reach (None: one machine, any N); ``ranks_per_node``
    how it places ranks (R per node, filling node 0 first)."""

    mpiexec: str
    options: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    nodes: int | None = None
    ranks_per_node: int = 1
    where: str = "this machine"

    def command(self, ranks: int, argv: Sequence[str]) -> list[str]:
        """``mpiexec … -n ranks argv``; on a multi-node launcher ``ranks`` must fit its nodes × ranks per node."""
        n = int_in_range("ranks", ranks, 1)
        if self.nodes is not None and n > self.nodes * self.ranks_per_node:
            raise ValueError(f"ranks must be at most nodes × ranks_per_node = {self.nodes} × {self.ranks_per_node}"
                             f" on {self.where}; got {n}")
        ppn = ["-ppn", str(self.ranks_per_node)] if self.nodes is not None and "-hosts" not in self.options else []
        return [self.mpiexec, *self.options, *ppn, "-n", str(n), *argv]

    def shell(self, ranks: int, argv: Sequence[str]) -> str:
        """:meth:`command` with :attr:`env` as one shell line (what a dry run prints)."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items()))
        return (env + " " if env else "") + shlex.join(self.command(ranks, argv))

    @classmethod
    def local(cls, mpiexec: str) -> Launcher:
        """``mpiexec -n N`` on this machine (every rank one process here)."""
        return cls(mpiexec)

    @classmethod
    def hostfile(cls, path: str | os.PathLike[str], mpiexec: str, *, ranks_per_node: int = 1,
                 env: Mapping[str, str] | None = None) -> Launcher:
        """The hosts of a hydra hostfile (``mpiexec -f FILE -ppn R``), started over ssh."""
        hosts = read_hostfile(path)
        r = int_in_range("ranks_per_node", ranks_per_node, 1)
        return cls(mpiexec, ("-f", str(Path(path).resolve())), dict(env or {}), len(hosts), r,
                   f"the {len(hosts)} hosts of {Path(path).name}")

    @classmethod
    def slurm(cls, mpiexec: str, *, ranks_per_node: int = 1, nodes: int | None = None,
              env: Mapping[str, str] | None = None) -> Launcher:
        """The nodes of the current Slurm allocation (``SLURM_JOB_NUM_NODES`` unless ``nodes`` is given); hydra's
        Slurm launcher starts one proxy per node with ``srun``."""
        r = int_in_range("ranks_per_node", ranks_per_node, 1)
        if nodes is None:
            raw = os.environ.get("SLURM_JOB_NUM_NODES") or os.environ.get("SLURM_NNODES")
            if raw is None:
                raise ValueError("nodes must be given outside a Slurm allocation (no SLURM_JOB_NUM_NODES); "
                                 "run inside salloc/sbatch or pass nodes")
            nodes = int(raw)
        k = int_in_range("nodes", nodes, 1)
        return cls(mpiexec, ("-launcher", "slurm", "-rmk", "slurm"), dict(env or {}), k, r,
                   f"the {k} nodes of a Slurm allocation")
