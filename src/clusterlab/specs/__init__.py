"""A sourced catalogue: accelerators, node types, model shapes and published training runs (SI units).

``ACCELERATORS``, ``NODES``, ``MODELS`` and ``RUNS`` are read-only mappings from a name to its record; every record
carries a :class:`Source` (``verified=False`` marks what the book must show as 需核实, listed by :func:`unverified`).
Record types, FLOP conventions and the step-time formulas: :mod:`clusterlab.specs.base`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final, Protocol, TypeVar

from .base import (
    ATTENTIONS,
    CONVENTIONS,
    HIDES,
    KINDS,
    PRECISIONS,
    RECOMPUTE,
    AcceleratorSpec,
    Measured,
    ModelSpec,
    NodeSpec,
    PublishedRun,
    Source,
    model_flops_per_token,
)
from .hardware import ACCELERATOR_LIST, NODE_LIST
from .models import MODEL_LIST
from .runs import RUN_LIST

__all__ = [
    "ACCELERATORS",
    "ATTENTIONS",
    "CONVENTIONS",
    "HIDES",
    "KINDS",
    "MODELS",
    "NODES",
    "PRECISIONS",
    "RECOMPUTE",
    "RUNS",
    "AcceleratorSpec",
    "Measured",
    "ModelSpec",
    "NodeSpec",
    "PublishedRun",
    "Source",
    "model_flops_per_token",
    "unverified",
]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_T = TypeVar("_T", bound=_Named)


def _by_name(items: Iterable[_T]) -> Mapping[str, _T]:
    out: dict[str, _T] = {}
    for item in items:
        if item.name in out:
            raise ValueError(f"name {item.name!r} appears twice in the catalogue")
        out[item.name] = item
    return MappingProxyType(out)


ACCELERATORS: Final = _by_name(ACCELERATOR_LIST)
NODES: Final = _by_name(NODE_LIST)
MODELS: Final = _by_name(MODEL_LIST)
RUNS: Final = _by_name(RUN_LIST)


def unverified() -> tuple[str, ...]:
    """``"<kind>: <name>"`` of every entry whose source could not be confirmed (the book marks them 需核实)."""
    out: list[str] = []
    for kind, table in (("accelerator", ACCELERATORS), ("node", NODES), ("model", MODELS), ("run", RUNS)):
        out.extend(f"{kind}: {name}" for name, item in table.items() if not item.source.verified)
    return tuple(out)
