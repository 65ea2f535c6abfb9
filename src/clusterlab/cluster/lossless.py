"""Lossless Ethernet for RoCE: the PFC headroom a switch port must reserve, and what one lost packet costs a
go-back-N RDMA transport (集群篇 §3).

**PFC headroom.** Priority flow control (IEEE 802.1Qbb) lets a switch tell its neighbour to pause one priority.
Between the moment the buffer crosses its threshold and the moment the last byte sent before the pause arrives,
the port keeps receiving: the pause frame crosses the cable, the sender finishes the frame it is sending and reacts,
and the bytes already on the cable keep coming. First-order headroom per port and priority:

``H = 2·B·L/v + B·t_r + 2·MTU``

(``B`` line rate in B/s per direction, ``L`` cable length in m, ``v`` ≈ 2×10⁸ m/s in fibre, i.e. 5 ns/m; ``t_r`` the
sender's response time; one maximum frame in flight at each end). Vendors' calculators add PHY and MAC delays;
the structure — proportional to rate × (round trip + response) — is the point (需核实 against 802.1Qbb Annex N).

**Go-back-N.** RoCE NICs of the ConnectX-4/5 generation recover from a loss by go-back-N: the receiver drops every
packet after the hole and the sender resends from the lost one, about one window ``W`` (the bandwidth-delay product
in packets). With independent loss probability ``p`` per packet, each delivered packet costs about ``1 + p·W``
transmissions, so the goodput fraction is ``1/(1 + p·W)``; selective repeat resends only the lost packet,
``1/(1 + p)`` (Mittal et al., *Revisiting network support for RDMA*, SIGCOMM 2018, motivates exactly this
contrast; the formula here is the first-order model, not the paper's measurement). Lossless operation (PFC) keeps
``p ≈ 0``; ECN/DCQCN (Zhu et al., SIGCOMM 2015) slows senders before queues reach the PFC threshold.

Sizes in bytes, rates in B/s per direction, times in s, lengths in m.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from ..validate import fraction, non_negative, positive

__all__ = ["FIBRE_SPEED", "GoBackN", "PfcHeadroom", "go_back_n", "pfc_headroom"]

#: propagation speed in optical fibre, m/s (refractive index ≈ 1.5: 5 ns per metre)
FIBRE_SPEED: Final = 2e8


@dataclass(frozen=True)
class PfcHeadroom:
    """The terms of the PFC headroom (bytes): ``cable`` (round trip on the wire), ``response`` (sender reaction)
    and ``frames`` (a maximum frame at each end)."""

    cable: float
    response: float
    frames: float

    @property
    def total(self) -> float:
        """``cable + response + frames`` in bytes."""
        return self.cable + self.response + self.frames


def pfc_headroom(
    link_bandwidth: float, cable_length: float, *, mtu: float = 4096.0, response_time: float = 1e-6
) -> PfcHeadroom:
    """Headroom per port and priority: ``2·B·L/v + B·t_r + 2·MTU`` (bytes; ``link_bandwidth`` in B/s per direction,
    ``cable_length`` in m, ``mtu`` in bytes, ``response_time`` in s)."""
    b = positive("link_bandwidth", link_bandwidth)
    length = non_negative("cable_length", cable_length)
    frame = positive("mtu", mtu)
    t_r = non_negative("response_time", response_time)
    return PfcHeadroom(cable=2 * b * length / FIBRE_SPEED, response=b * t_r, frames=2 * frame)


@dataclass(frozen=True)
class GoBackN:
    """Goodput under random loss: ``window`` packets in flight (bandwidth × RTT / MTU), loss probability ``loss``;
    goodput fractions of the line rate for go-back-N and for selective repeat."""

    loss: float
    window: float
    go_back_n: float
    selective: float

    @property
    def ratio(self) -> float:
        """How much more goodput selective repeat keeps than go-back-N."""
        return self.selective / self.go_back_n


def go_back_n(loss: float, link_bandwidth: float, rtt: float, *, mtu: float = 4096.0) -> GoBackN:
    """Goodput fraction ``1/(1 + p·W)`` (go-back-N) and ``1/(1 + p)`` (selective repeat), with the window
    ``W = ⌈B·RTT/MTU⌉`` packets (``link_bandwidth`` B/s per direction, ``rtt`` s, ``mtu`` bytes)."""
    p = fraction("loss", loss, high_open=True)
    b = positive("link_bandwidth", link_bandwidth)
    t = positive("rtt", rtt)
    frame = positive("mtu", mtu)
    w = float(max(1, math.ceil(b * t / frame - 1e-9)))
    return GoBackN(loss=p, window=w, go_back_n=1.0 / (1.0 + p * w), selective=1.0 / (1.0 + p))
