"""NCCL's binary tree (``ncclGetBtree``, NVIDIA/nccl ``src/graph/trees.cc``), as the tree all-reduce of
:func:`clusterlab.communication.primitives.simulate` and its pictures use it."""

from __future__ import annotations

from dataclasses import dataclass

from ..validate import int_in_range

__all__ = ["BinaryTree", "binary_tree"]


@dataclass(frozen=True)
class BinaryTree:
    """A rooted binary tree on ``ranks`` ranks: ``parent[r]`` (−1 for the root), ``children[r]`` (at most
    two, smaller rank first) and ``depth[r]`` (0 at the root). ``height`` = ⌈log₂N⌉ for
    :func:`binary_tree`."""

    ranks: int
    root: int
    parent: tuple[int, ...]
    children: tuple[tuple[int, ...], ...]
    depth: tuple[int, ...]

    @property
    def height(self) -> int:
        return max(self.depth)


def _btree_virtual(n: int, v: int) -> tuple[int, list[int]]:
    """Parent and children of ``v`` in NCCL's ``ncclGetBtree`` on ranks ``0 … n−1`` rooted at 0."""
    bit = 1
    while bit < n and not bit & v:
        bit <<= 1
    if v == 0:
        return -1, ([bit >> 1] if n > 1 else [])
    up = (v ^ bit) | (bit << 1)
    if up >= n:
        up = v ^ bit
    low = bit >> 1
    kids: list[int] = []
    if low:
        kids.append(v - low)
        d1 = v + low
        while d1 >= n and low:
            low >>= 1
            d1 = v + low
        if low:
            kids.append(d1)
    return up, kids


def binary_tree(ranks: int, root: int = 0) -> BinaryTree:
    """NCCL's binary tree (``ncclGetBtree``, NVIDIA/nccl ``src/graph/trees.cc``) on ``ranks`` ranks, with rank
    ``root`` in the place of NCCL's rank 0 (ranks counted cyclically from ``root``).

    Counted from the root, an in-order walk visits the ranks in order: node ``v = …x10…0`` has the children
    ``v ∓ 2^(k−1)`` where ``2^k`` is its lowest set bit; the root has the single child ``2^(⌈log₂N⌉−1)``.
    Height ``⌈log₂N⌉``.
    """
    n = int_in_range("ranks", ranks, 2, 1 << 16)
    rho = int_in_range("root", root, 0, n - 1)
    parent = [-1] * n
    children: list[tuple[int, ...]] = [()] * n
    for v in range(n):
        up, kids = _btree_virtual(n, v)
        r = (v + rho) % n
        parent[r] = -1 if up < 0 else (up + rho) % n
        children[r] = tuple(sorted((k + rho) % n for k in kids))
    depth = [0] * n
    for r in range(n):  # count the edges up to the root
        x = r
        while parent[x] >= 0:
            x = parent[x]
            depth[r] += 1
    return BinaryTree(n, rho, tuple(parent), tuple(children), tuple(depth))
