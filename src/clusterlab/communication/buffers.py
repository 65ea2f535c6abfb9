"""Per-rank buffers shared by every simulator: input checking, chunk boundaries, byte counters.

:func:`as_buffers` turns one 1-D buffer per rank (or an N × L array) into a private N × L copy after checking
shape and dtype; :func:`chunk_bounds` cuts a buffer into chunks as ``np.array_split`` does; :func:`count_bytes`
sums the bytes each rank sends or receives over any schedule of steps (ring or generic trace).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

__all__ = ["as_buffers", "chunk_bounds", "count_bytes"]


class _Message(Protocol):
    @property
    def src(self) -> int: ...
    @property
    def dst(self) -> int: ...
    @property
    def nbytes(self) -> int: ...


class _Step(Protocol):
    @property
    def sends(self) -> Sequence[_Message]: ...


def count_bytes(steps: Sequence[_Step], ranks: int, end: Literal["src", "dst"] = "src") -> npt.NDArray[np.int64]:
    """Bytes per rank over ``steps``: sent (``end="src"``) or received (``end="dst"``). Shared by every trace."""
    counts = np.zeros(ranks, dtype=np.int64)
    for st in steps:
        for msg in st.sends:
            counts[getattr(msg, end)] += msg.nbytes
    return counts


def chunk_bounds(length: int, ranks: int) -> npt.NDArray[np.int64]:
    """Chunk boundaries ``b`` (``ranks + 1`` entries): chunk ``c`` is ``[b[c], b[c+1])``, as ``np.array_split``."""
    q, r = divmod(length, ranks)
    sizes = np.full(ranks, q, dtype=np.int64)
    sizes[:r] += 1
    return np.concatenate(([0], np.cumsum(sizes)))


def as_buffers(buffers: Sequence[npt.ArrayLike] | npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A private C-ordered N × L copy of ``buffers`` (N ≥ 2 one-dimensional arrays of equal length and numeric
    dtype, or an N × L array); ``ValueError`` naming what is wrong otherwise."""
    if isinstance(buffers, np.ndarray):
        if buffers.ndim != 2:
            raise ValueError(f"buffers must be a 2-D array (ranks × length) or a list of 1-D arrays, "
                             f"got an array of shape {buffers.shape}")
        if buffers.shape[0] < 2:
            raise ValueError(f"buffers must hold at least 2 ranks, got {buffers.shape[0]}")
        _check_dtype(buffers.dtype)
        return np.array(buffers, copy=True, order="C")
    else:
        try:
            arrays = [np.asarray(b) for b in buffers]
        except TypeError:
            raise ValueError("buffers must be a sequence of 1-D numpy arrays, one per rank") from None
    if len(arrays) < 2:
        raise ValueError(f"buffers must hold at least 2 ranks, got {len(arrays)}")
    first = arrays[0]
    for i, a in enumerate(arrays):
        if a.ndim != 1:
            raise ValueError(f"buffers[{i}] must be 1-D, got shape {a.shape}")
        if a.shape != first.shape:
            raise ValueError(f"buffers must all have the same shape: buffers[0] is {first.shape}, "
                             f"buffers[{i}] is {a.shape}")
        if a.dtype != first.dtype:
            raise ValueError(f"buffers must all have the same dtype: buffers[0] is {first.dtype}, "
                             f"buffers[{i}] is {a.dtype}")
    _check_dtype(first.dtype)
    return np.stack(arrays)


def _check_dtype(dtype: np.dtype[Any]) -> None:
    if not (np.issubdtype(dtype, np.integer) or np.issubdtype(dtype, np.floating)
            or np.issubdtype(dtype, np.complexfloating)):
        raise ValueError(f"buffers must have a numeric dtype (integer, float or complex), got {dtype}")
