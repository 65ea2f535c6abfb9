"""Experiments that run processes on the reader's machine (as opposed to the pure compute subpackages).

:mod:`~clusterlab.lab.variants`
    the same training under different BLAS kernels and numpy SIMD levels, each in a fresh process, compared bit by
    bit (§9.6.5.2).
:mod:`~clusterlab.lab.mpibench`
    the §2.3 lab's runner: real MPICH collectives under ``mpiexec -n N`` (size × algorithm sweep, a slow rank),
    tidy CSV with the machine described.
:mod:`~clusterlab.lab.mpifit`
    the §2.3 lab's fit (pure): α-β(-γ) models of MPICH's algorithms, least-squares fit, held-out errors, busbw of
    measurements, the chooser vs the measured winner.
:mod:`~clusterlab.lab.mpigamma`
    the §2.3 lab's α-β-γ model (pure): bytes reduced per algorithm, the shared (α, β, γ) fit, its chooser.
:mod:`~clusterlab.lab.mpicheck`
    the §2.3 lab's checks (pure but for the current load): error vs spread, the recorded load against the cores,
    the reader's run beside the reference.
"""

from __future__ import annotations

from . import mpibench, mpicheck, mpifit, mpigamma, variants

__all__ = ["mpibench", "mpicheck", "mpifit", "mpigamma", "variants"]
