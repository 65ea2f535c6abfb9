"""Pictures of the cluster network (集群篇 §3): the topology of a sized fabric with its nodes and three planes, and
ECMP collision curves. Everything drawn comes from :mod:`clusterlab.cluster.network` and
:mod:`clusterlab.cluster.ecmp`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..cluster.ecmp import EcmpCollisions
from ..cluster.network import Fabric, nic_leaves
from ..validate import choice, int_in_range
from ._style import PALETTE, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["ecmp_curves", "network_topology"]

_PLANE_COLOURS = {"param": PALETTE["blue"], "storage": PALETTE["green"], "mgmt": PALETTE["grey"]}


def network_topology(fabric: Fabric, nodes: int, gpus_per_node: int, wiring: str = "rail") -> Figure:
    """The parameter plane of a two-tier ``fabric`` (spines, leaves, every cable of :meth:`Fabric.uplinks` and of
    :func:`~clusterlab.cluster.network.nic_leaves`), ``nodes`` servers with their NVLink domains, and the storage
    and management planes (one NIC per node each, drawn on their own switches)."""
    if fabric.tiers != 2:
        raise ValueError(f"fabric must be a two-tier leaf-spine to be drawn, got tiers={fabric.tiers}")
    m = int_in_range("nodes", nodes, 1, 16)
    g = int_in_range("gpus_per_node", gpus_per_node, 1, 16)
    w = choice("wiring", wiring, ("rail", "node"))
    leaves_of = nic_leaves(m, g, fabric, w)
    import matplotlib.patches as mpatches
    from matplotlib.lines import Line2D

    fig = new_figure((11.0, 6.8))
    ax = fig.add_subplot(1, 1, 1)
    ax.set_axis_off()
    width = 100.0
    y_spine, y_leaf, y_gpu, y_store, y_mgmt = 92.0, 66.0, 30.0, 6.0, 6.0
    node_w = width / m
    gpu_x = [[n * node_w + node_w * (i + 0.5) / g for i in range(g)] for n in range(m)]

    def _row(count: int, y: float, label: str, colour: str) -> list[float]:
        xs = [width * (i + 0.5) / count for i in range(count)]
        bw = min(7.0, 0.8 * width / count)
        for i, x in enumerate(xs):
            ax.add_patch(mpatches.FancyBboxPatch((x - bw / 2, y - 2.2), bw, 4.4, boxstyle="round,pad=0.3",
                                                 fc=colour, ec=PALETTE["ink"], lw=0.8, zorder=3))
            ax.text(x, y, f"{label}{i}", ha="center", va="center", fontsize=7.5, color="white", zorder=4)
        return xs

    spine_x = _row(fabric.spines, y_spine, "S", PALETTE["blue"])
    leaf_x = _row(fabric.leaves, y_leaf, "L", PALETTE["sky"])
    for leaf, spine in fabric.uplinks():
        ax.plot([leaf_x[leaf], spine_x[spine]], [y_leaf + 2.2, y_spine - 2.2], color=PALETTE["blue"], lw=0.8,
                alpha=0.55, zorder=1)
    rail_colours = [PALETTE[c] for c in ("orange", "sky", "green", "vermillion", "purple", "blue", "yellow", "grey")]
    for n in range(m):
        x0 = n * node_w
        ax.add_patch(mpatches.FancyBboxPatch((x0 + 1.0, y_gpu - 9.0), node_w - 2.0, 20.0, boxstyle="round,pad=0.2",
                                             fc="#F4F4F4", ec=PALETTE["ink"], lw=0.9, zorder=0))
        ax.add_patch(mpatches.Rectangle((x0 + 2.0, y_gpu - 7.0), node_w - 4.0, 2.6, fc=PALETTE["purple"],
                                        ec="none", alpha=0.8, zorder=2))
        ax.text(x0 + node_w / 2, y_gpu - 5.7, "NVSwitch / NVLink 域", ha="center", va="center", fontsize=7,
                color="white", zorder=3)
        ax.text(x0 + node_w / 2, y_gpu + 9.0, f"节点 {n}", ha="center", va="center", fontsize=8.5, zorder=3)
        for i in range(g):
            x = gpu_x[n][i]
            ax.plot([x, x], [y_gpu - 4.4, y_gpu - 1.6], color=PALETTE["purple"], lw=1.2, zorder=2)
            ax.add_patch(mpatches.Rectangle((x - 0.42 * node_w / g, y_gpu - 1.6), 0.84 * node_w / g, 3.4,
                                            fc=PALETTE["ink"], ec="none", zorder=3))
            ax.text(x, y_gpu + 0.1, str(i), ha="center", va="center", fontsize=6.5, color="white", zorder=4)
            leaf = leaves_of[n][i]
            colour = rail_colours[leaf % len(rail_colours)] if w == "rail" else PALETTE["blue"]
            ax.plot([x, leaf_x[leaf]], [y_gpu + 1.8, y_leaf - 2.2], color=colour, lw=0.9, alpha=0.8, zorder=1)
    # storage / sample plane and management plane: one NIC each per node
    store_x, mgmt_x = width * 0.3, width * 0.75
    for x, label, plane in ((store_x, "样本/存储面交换机", "storage"), (mgmt_x, "管理面交换机", "mgmt")):
        ax.add_patch(mpatches.FancyBboxPatch((x - 9.0, y_store - 2.2), 18.0, 4.4, boxstyle="round,pad=0.3",
                                             fc=_PLANE_COLOURS[plane], ec=PALETTE["ink"], lw=0.8, zorder=3))
        ax.text(x, y_store, label, ha="center", va="center", fontsize=8, color="white", zorder=4)
    for n in range(m):
        xs = n * node_w + node_w * 0.35
        xm = n * node_w + node_w * 0.65
        ax.plot([xs, store_x], [y_gpu - 9.0, y_store + 2.2], color=_PLANE_COLOURS["storage"], lw=1.1, ls="--",
                zorder=1)
        ax.plot([xm, mgmt_x], [y_gpu - 9.0, y_mgmt + 2.2], color=_PLANE_COLOURS["mgmt"], lw=1.0, ls=":", zorder=1)
    ax.set_xlim(-1, width + 1)
    ax.set_ylim(0, 98)
    handles = [
        Line2D([], [], color=PALETTE["blue"], lw=1.5, label="参数面（RoCE/IB，每 GPU 一块网卡）"),
        Line2D([], [], color=_PLANE_COLOURS["storage"], lw=1.5, ls="--", label="样本/存储面（每节点）"),
        Line2D([], [], color=_PLANE_COLOURS["mgmt"], lw=1.5, ls=":", label="管理面（SSH、监控、调度）"),
        Line2D([], [], color=PALETTE["purple"], lw=4, label="机内 NVLink"),
    ]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.01), ncol=4, frameon=False, fontsize=8.5)
    wiring_name = (
        "按轨（rail）接线：各节点的第 i 块网卡接同一台叶交换机"
        if w == "rail"
        else "按节点接线：一个节点的网卡接同一台叶交换机"
    )
    ax.set_title(f"{m} 个节点 × {g} 张 GPU，{fabric.radix} 口交换机：{fabric.leaves} 台叶、{fabric.spines} 台脊；"
                 f"{wiring_name}", fontsize=9.5)
    return fig


def ecmp_curves(results: Sequence[EcmpCollisions]) -> Figure:
    """Left: probability of at least one collision vs flows; right: aggregate throughput fraction and slowdown
    of the slowest flow, for every :class:`~clusterlab.cluster.ecmp.EcmpCollisions` given (one uplink count)."""
    if not results:
        raise ValueError("results must be a non-empty sequence of EcmpCollisions")
    fig = new_figure((9.5, 3.6))
    ax1, ax2 = fig.subplots(1, 2)
    by_m: dict[int, list[EcmpCollisions]] = {}
    for r in results:
        by_m.setdefault(r.uplinks, []).append(r)
    colours = [PALETTE[c] for c in ("blue", "orange", "green", "vermillion")]
    for (m, rs), colour in zip(sorted(by_m.items()), colours * 4, strict=False):
        rs = sorted(rs, key=lambda r: r.flows)
        n = [r.flows for r in rs]
        ax1.plot(n, [r.collision_probability for r in rs], "o-", color=colour, ms=3, label=f"{m} 个上行口")
        ax2.plot(n, [r.throughput_fraction for r in rs], "o-", color=colour, ms=3, label=f"{m} 个上行口：总吞吐比例")
        ax2.plot(n, [1 / r.slowdown for r in rs], "s--", color=colour, ms=3, label=f"{m} 个上行口：最慢流的速率比例")
    ax1.set_xlabel("同时上行的长流数 n")
    ax1.set_ylabel("至少两条流撞上同一链路的概率")
    ax1.set_ylim(0, 1.03)
    ax1.legend(fontsize=8)
    ax2.set_xlabel("同时上行的长流数 n")
    ax2.set_ylabel("相对理想均匀分布")
    ax2.set_ylim(0, 1.03)
    ax2.legend(fontsize=7.5)
    return fig
