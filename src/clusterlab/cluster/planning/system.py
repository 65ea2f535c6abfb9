"""What the step model needs to know of the hardware: one accelerator and the levels of the network (集群篇 §3, §4).

A :class:`System` is ``gpus`` accelerators and a list of :class:`Level` s from the inside out: the node (NVLink),
then each tier of the network that a group of GPUs can stay within (a leaf or rail group, a pod), and the whole
cluster. A level says how many GPUs one of its blocks holds, the bandwidth per GPU and direction between blocks of
the level below it, and the latency of one ring step at that level. A communication group is priced level by level
(:mod:`.comm`), so a data-parallel group that stays inside a pod never pays for the oversubscribed links above it.

Kernel efficiencies (``gemm_efficiency``, ``attention_efficiency``) are what the best library kernels reach on
large shapes, a property of the device and its software, not of a training run; the step model derives every
run's efficiency from them and from the shapes that run multiplies (:mod:`.kernels`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...validate import fraction, int_in_range, non_negative, positive

__all__ = ["Device", "Level", "System"]


@dataclass(frozen=True)
class Device:
    """One accelerator: ``memory`` (B), dense bf16 ``peak`` (FLOP/s), ``memory_bandwidth`` (B/s), streaming
    multiprocessors ``sms`` (for wave quantisation), and the fractions of the peak that large GEMMs and the
    attention kernel reach."""

    name: str
    memory: float
    peak: float
    memory_bandwidth: float
    sms: int
    gemm_efficiency: float
    attention_efficiency: float
    tile_m: int = 128
    tile_n: int = 256

    def __post_init__(self) -> None:
        positive("memory", self.memory)
        positive("peak", self.peak)
        positive("memory_bandwidth", self.memory_bandwidth)
        int_in_range("sms", self.sms, 1)
        fraction("gemm_efficiency", self.gemm_efficiency, low_open=True)
        fraction("attention_efficiency", self.attention_efficiency, low_open=True)
        int_in_range("tile_m", self.tile_m, 1)
        int_in_range("tile_n", self.tile_n, 1)


@dataclass(frozen=True)
class Level:
    """One level of the hierarchy: blocks of ``size`` GPUs; ``bandwidth`` (B/s per GPU and direction) and
    ``latency`` (s per ring step) of the links that join the blocks of the level below inside one such block."""

    name: str
    size: int
    bandwidth: float
    latency: float

    def __post_init__(self) -> None:
        int_in_range("size", self.size, 1)
        positive("bandwidth", self.bandwidth)
        non_negative("latency", self.latency)


@dataclass(frozen=True)
class System:
    """``gpus`` accelerators ``device``, joined by ``levels`` from the node outwards. The last level covers the
    whole system (its size is taken as at least ``gpus``); each level's size is a multiple of the one below."""

    gpus: int
    device: Device
    levels: tuple[Level, ...]

    def __post_init__(self) -> None:
        int_in_range("gpus", self.gpus, 1)
        if not isinstance(self.device, Device):
            raise ValueError("device must be a Device")
        if not self.levels or not all(isinstance(lv, Level) for lv in self.levels):
            raise ValueError("levels must be a non-empty tuple of Level, the node first")
        for inner, outer in zip(self.levels, self.levels[1:], strict=False):
            if outer.size % inner.size:
                raise ValueError(f"levels: {outer.name} ({outer.size} GPUs) is not a multiple of {inner.name} "
                                 f"({inner.size} GPUs)")

    @property
    def gpus_per_node(self) -> int:
        return self.levels[0].size

    @property
    def nodes(self) -> int:
        return -(-self.gpus // self.gpus_per_node)

    @classmethod
    def simple(cls, gpus: int, device: Device, gpus_per_node: int, intra_bandwidth: float,
               inter_bandwidth: float, *, intra_latency: float = 3.4e-6, inter_latency: float = 14e-6) -> System:
        """Nodes joined by one non-blocking network: two levels. Default latencies per ring step are NCCL's own
        model for the Simple protocol (``hwLat``, NCCL 2.20 ``src/graph/tuning.cc``: 3.4 µs NVLink, 14 µs network)."""
        node = Level("NVLink", gpus_per_node, intra_bandwidth, intra_latency)
        net = Level("网络", -(-gpus // gpus_per_node) * gpus_per_node, inter_bandwidth, inter_latency)
        return cls(gpus, device, (node, net) if gpus > gpus_per_node else (node,))
