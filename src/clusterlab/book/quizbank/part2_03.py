"""Self-check questions for 集群篇 §3 (参数面网络), shown in ``book/part2/03-network.ipynb``.

Most questions transfer the chapter to numbers it does not print (32-port switches, 2,048 GPUs, four NICs per
node, four flows on sixteen uplinks, a 1:3 pod, an 8 µs round trip). Every key comes from
:mod:`clusterlab.cluster.network`, :mod:`~clusterlab.cluster.ecmp` or :mod:`~clusterlab.cluster.lossless`;
distractors are the slips readers make: ``k²`` for ``k²/2`` (forgetting that half of a leaf's ports go up), the
three-tier formula used for two tiers, the original text's "fixed 3 hops", NVLink's bidirectional total against a
NIC's one direction, bits for bytes, the union bound for the birthday problem, selective repeat for go-back-N.
"""

from __future__ import annotations

from typing import Final

from ... import units
from ...cluster import ecmp, lossless, network
from ...communication import collectives
from ..quiz import Choice, Numeric, choice, numeric

__all__ = ["c03_questions"]

SMALL_RADIX: Final = 32
RADIX: Final = 64
GPUS: Final = 2048
NIC_400G: Final = 400e9  # bit/s
NIC_200G: Final = 200e9  # bit/s
SHARED_NICS: Final = 4  # four 200 Gb/s NICs for eight A100s
FLOWS: Final = 4
UPLINKS: Final = 16
POD_OVERSUB: Final = 3
LOSS: Final = 1e-3
RTT: Final = 8e-6  # s
MTU: Final = 4096  # B
MESH_NPUS: Final = 4  # a group of NPUs joined pairwise, no switch
MESH_LINK: Final = 28e9  # B/s per link, per direction
MESH_BUFFER: Final = 1e9  # B

Question = Numeric | Choice


def c03_questions() -> list[Question]:
    """Self-check of 集群篇 §3: capacities, a spine count, hops, node bandwidth ratio, ECMP, oversubscription,
    go-back-N, a ring on a full mesh without a switch."""
    k = SMALL_RADIX
    cap2 = network.max_hosts(k, 2)
    cap3 = network.max_hosts(k, 3)
    b400 = units.gbit_per_s(NIC_400G / 1e9)
    fab = network.leaf_spine(GPUS, RADIX, b400)
    a100 = network.NODES["A100"]
    shared = network.NodeSpec("A100, 4 NICs", a100.gpus, a100.nvlink_per_direction, a100.nvlink_links, SHARED_NICS,
                              NIC_200G)
    nb = network.node_bandwidth(shared)
    col = ecmp.ecmp_collisions(FLOWS, UPLINKS)
    pod = network.fat_tree(4 * k, k, b400, pod_oversubscription=POD_OVERSUB)
    b200 = units.gbit_per_s(NIC_200G / 1e9)
    gbn = lossless.go_back_n(LOSS, b200, RTT, mtu=MTU)

    q_cap2 = numeric(
        f"用 {k} 口交换机搭**两层无阻塞**叶脊网络，最多能接多少块网卡？",
        cap2,
        unit="块",
        wrong=(
            (k * k, "叶交换机只有一半的口向下接网卡，另一半要向上接脊，否则就不是无阻塞：$k \\cdot k/2$。"),
            (cap3, "这是三层胖树的 $k^3/4$；两层的上限是 $k^2/2$。"),
            ((k // 2) ** 2, "脊交换机的口全部向下，每个口接一台叶，所以叶最多 $k$ 台，不是 $k/2$ 台。"),
        ),
        explanation=f"叶最多 {k} 台（脊的口数），每台向下 {k // 2} 口：{k} × {k // 2} = {cap2}。",
        transfer=True,
    )
    q_cap3 = numeric(
        f"同样用 {k} 口交换机，**三层无阻塞**胖树最多能接多少块网卡？",
        cap3,
        unit="块",
        wrong=(
            (cap2, "这是两层的 $k^2/2$。加一层后，每个 pod 就是一个两层小网络，再由核心交换机连起 $k$ 个 pod。"),
            (k**3 // 2, "汇聚交换机也只有一半的口向下：一个 pod 是 $(k/2)^2$ 台主机，不是 $k^2/2$。"),
            (k**3, "每一层都要留一半的口向上（核心层除外），容量是 $k^3/4$。"),
        ),
        explanation=f"{k} 个 pod × 每 pod ({k // 2})² 台主机 = {cap3}（Al-Fares 等 2008）。",
        transfer=True,
    )
    q_spines = numeric(
        f"{GPUS} 张 GPU、每卡一块 400 Gb/s 网卡，用 {RADIX} 口交换机搭两层无阻塞叶脊网络。需要几台**脊**交换机？",
        fab.spines,
        unit="台",
        wrong=(
            (fab.leaves, "这是叶交换机的台数。每台叶有 32 个上行口，共 64 × 32 个，每台脊接 64 个。"),
            (fab.switches, "这是叶与脊的总数；题目只问脊。"),
            (fab.spines // 2, "叶的上行口数等于下行口数（无阻塞），不是它的一半。"),
        ),
        explanation=f"叶 {fab.leaves} 台 × 上行 {fab.leaf_uplinks} 口 ÷ {RADIX} = {fab.spines} 台脊。",
    )
    q_hops = choice(
        "三层胖树里，两块接在**同一台叶交换机**上的网卡之间，数据要经过几台交换机？",
        (
            ("1 台", True, "对：叶交换机直接转发，不上脊。按轨接线正是要把最多的流量放到这种路径上。"),
            ("3 台", False, "你以为任意两块网卡之间都固定是叶—脊—叶 3 跳（种子教材也这样写）。那是跨叶的路径；"
             "同一台叶下的两口由叶直接转发，不上脊。"),
            ("5 台", False, "这是跨 pod 的路径（叶—汇聚—核心—汇聚—叶）。"),
            ("1 台或 3 台，看 ECMP 把这条流哈希到哪里", False,
             "ECMP 只在几条**等价的最短**路径之间挑；同叶两口之间的最短路径只有经过这台叶的一条，"
             "不会被哈希到脊上去。"),
        ),
        explanation="同叶 1 台，同 pod 跨叶 3 台，跨 pod 5 台。",
    )
    q_ratio = numeric(
        f"一台 8 卡 A100 服务器只配 {SHARED_NICS} 块 200 Gb/s 网卡（两张 GPU 共用一块）。按**每张 GPU、单向**计，"
        "机内 NVLink 带宽是机间带宽的几倍？",
        nb.ratio,
        unit="倍",
        wrong=(
            (2 * nb.ratio, "用了 NVLink 的双向合计 600 GB/s；应与网卡的单向比较，用 300 GB/s。"),
            (nb.ratio / 8, "把 200 Gb/s 当成了 200 GB/s：网卡速率按比特标注，1 字节 = 8 比特，200 Gb/s = 25 GB/s。"),
            (nb.ratio / 2, "忘了两张 GPU 共用一块网卡：每张 GPU 只分到 12.5 GB/s。"),
        ),
        explanation=f"机内 300 GB/s；机间 {SHARED_NICS} × 25 GB/s ÷ 8 = {nb.inter / 1e9:g} GB/s；比值 {nb.ratio:g}。",
        transfer=True,
    )
    q_ecmp = numeric(
        f"叶交换机有 {UPLINKS} 个等价上行口，{FLOWS} 条长流由 ECMP 均匀随机地哈希上去。"
        "至少两条流落在同一个口上的概率是多少（0 到 1）？",
        col.collision_probability,
        rel_tol=0.01,
        wrong=(
            (FLOWS / UPLINKS, "不是“流数 ÷ 口数”。按生日问题：$1 - \\frac{16\\cdot15\\cdot14\\cdot13}{16^4}$。"),
            (6 / UPLINKS, "这是联合界 $\\binom{4}{2}/16$，把各对流撞车的概率直接相加，重复计算了多对同时撞车的情形。"),
            (1 / UPLINKS, "这只是某一对指定的流撞车的概率；4 条流有 6 对。"),
        ),
        explanation=f"$1 - 16\\cdot15\\cdot14\\cdot13/16^4$ = {col.collision_probability:.4f}。",
        transfer=True,
    )
    q_pod = numeric(
        f"三层网络，每卡 400 Gb/s，pod 内无阻塞、pod 之上的汇聚层按 1:{POD_OVERSUB} 收敛。"
        "所有卡同时跨 pod 通信时，每张卡单向能分到多少 GB/s？",
        b400 / pod.cross_pod_oversubscription / 1e9,
        unit="GB/s",
        wrong=(
            (NIC_400G / 1e9 / POD_OVERSUB, "单位错了：400 Gb/s 是比特，先除以 8 得 50 GB/s。"),
            (b400 / 1e9, "收敛比 1:3 意味着上行容量只有下行的三分之一，跨 pod 时不能跑满线速。"),
            (b400 / (POD_OVERSUB + 1) / 1e9, "收敛比是下行 : 上行 = 3 : 1，每卡分到上行的 1/3，不是 1/4。"),
        ),
        explanation=f"50 GB/s ÷ {POD_OVERSUB} = {b400 / POD_OVERSUB / 1e9:.2f} GB/s。",
        transfer=True,
    )
    q_gbn = numeric(
        f"RoCE 网卡用 go-back-N 重传。链路 200 Gb/s、往返时间 {RTT * 1e6:g} µs、MTU {MTU} B，每包丢失概率 "
        f"{LOSS:g}。按一阶模型 $1/(1 + pW)$，有效带宽是线速的百分之几？",
        100 * gbn.go_back_n,
        unit="%",
        rel_tol=0.005,
        wrong=(
            (100 * gbn.selective, "这是选择性重传（只重发丢失的包）的结果；go-back-N 每丢一个包要重发约一整个窗口。"),
            (100 / (1 + LOSS * 8 * gbn.window), "窗口按比特算了：$W$ = 带宽（字节/秒）× RTT ÷ MTU（字节）。"),
            (
                100 * lossless.go_back_n(LOSS, b200, RTT / 2, mtu=MTU).go_back_n,
                "窗口按单程时间算了：发送端要等一个往返才知道丢包，在途的是带宽 × 往返时间。",
            ),
        ),
        explanation=f"$W = \\lceil 25\\,\\text{{GB/s}} \\times {RTT * 1e6:g}\\,\\mu\\text{{s}} / {MTU} \\rceil$ = "
        f"{gbn.window:.0f} 包；$1/(1 + {LOSS:g} \\times {gbn.window:.0f})$ = {100 * gbn.go_back_n:.1f}%。",
        transfer=True,
    )
    links = MESH_NPUS - 1
    ring_bytes = collectives.traffic("all_reduce", MESH_BUFFER, MESH_NPUS).send_max  # on each neighbour link
    q_mesh = numeric(
        f"{MESH_NPUS} 颗 NPU 两两直连（全互联，没有交换芯片），每颗 {links} 条链路，每条单向 "
        f"{MESH_LINK / 1e9:.0f} GB/s。用一个只和相邻 NPU 收发的环做 {MESH_BUFFER / 1e9:.0f} GB 的全归约，"
        "不计延迟，要多少 ms？",
        1e3 * ring_bytes / MESH_LINK,
        unit="ms",
        wrong=(
            (1e3 * ring_bytes / MESH_LINK / links,
             "按每颗 NPU 的总带宽算了：全互联下一对 NPU 之间只有自己那条链路，环只向一个邻居发，只用得上一条；"
             "总带宽要每颗 NPU 同时向所有对端收发才用得上（交换结构才让一对卡用满全部链路）。"),
            (1e3 * MESH_BUFFER / MESH_LINK, "环全归约每颗 NPU 发 2S(N−1)/N，不是 S。"),
        ),
        explanation=f"2 × {MESH_BUFFER / 1e9:.0f} GB × ({MESH_NPUS}−1)/{MESH_NPUS} ÷ {MESH_LINK / 1e9:.0f} GB/s。",
        transfer=True,
    )
    return [q_cap2, q_cap3, q_spines, q_hops, q_ratio, q_ecmp, q_pod, q_gbn, q_mesh]
