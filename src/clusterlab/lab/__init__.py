"""Experiments that run processes on the reader's machine (as opposed to the pure compute subpackages).

:mod:`~clusterlab.lab.variants`
    the same training under different BLAS kernels and numpy SIMD levels, each in a fresh process, compared bit by
    bit (§9.6.5.2).
"""

from __future__ import annotations

from . import variants

__all__ = ["variants"]
