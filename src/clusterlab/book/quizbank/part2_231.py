"""Self-check questions for 集群篇 §2.3.1 (``book/part2/02-3-1-emulated.ipynb``): the α-β model on an emulated
cluster whose links have an imposed rate.

Given data are the module constants below (invented for the questions, not the page's reference runs); every key
comes from :mod:`clusterlab.lab.emulated`, :mod:`clusterlab.lab.mpifit` or :mod:`clusterlab.faults.slowlink`.
Distractors are the slips a reader makes: the rate in bytes without framing, one-way framing for a ring whose
links carry data both ways, bits for bytes, a two-leaf ring priced at the node links' rate or with both uplink
crossings on one direction, a slow link averaged into the ring instead of deciding it.
"""

from __future__ import annotations

from typing import Final

from ... import units
from ...faults import slowlink
from ...lab import emulated, mpifit
from ..quiz import Choice, Numeric, choice, numeric

__all__ = ["FRAME_RATE", "LEAF_NODES", "LEAF_RATE", "LEAF_UPLINK", "SLOW_ALPHA", "SLOW_BETA", "SLOW_FACTOR",
           "SLOW_NODES", "SLOW_SIZE", "questions", "slow_ring_time"]

FRAME_RATE: Final = 400e6  # bit/s per direction, MTU 1500
LEAF_NODES: Final = 6  # three per leaf
LEAF_RATE: Final = 200e6  # bit/s, every node link
LEAF_UPLINK: Final = 150e6  # bit/s per direction between the leaves
SLOW_NODES: Final = 4
SLOW_ALPHA: Final = 6e-6  # s, fitted
SLOW_BETA: Final = 12e6  # B/s, fitted on the healthy ring
SLOW_FACTOR: Final = 3.0  # one node's link at 1/3 of the rate (both directions)
SLOW_SIZE: Final = 2e6  # B, one rank's buffer

Question = Numeric | Choice


def slow_ring_time(node: int = 1) -> float:
    """Ring all-reduce time of :data:`SLOW_SIZE` on :data:`SLOW_NODES` nodes with ``node``'s link (both of its
    ring hops) at β/k."""
    n = SLOW_NODES
    links = [SLOW_BETA / SLOW_FACTOR if r in (node, (node - 1) % n) else SLOW_BETA for r in range(n)]
    return slowlink.ring_with_slow_link(SLOW_SIZE, links, SLOW_ALPHA).total_time


def questions() -> list[Question]:
    """Self-check of §2.3.1: framing, the two-leaf bottleneck, a slow link, the token bucket's small regime,
    finding the slow node from pairwise bandwidths."""
    both = emulated.payload_rate(FRAME_RATE)
    q_frame = numeric(
        f"一条链路用令牌桶整形到每方向 {FRAME_RATE / 1e6:.0f} Mbit/s，MTU 1500 B。环形全归约时这条链路两个方向"
        "同时有数据（对面方向的 ACK 也走这里，每两个数据段一个 66 B 的 ACK 帧）。应用能看到的 TCP 有效载荷速率"
        "是多少 MB/s？（允许 0.5% 相对误差）",
        both / 1e6,
        rel_tol=0.005,
        unit="MB/s",
        wrong=(
            (FRAME_RATE / 8 / 1e6, "这是整条链路的字节速率：每个 1514 B 的帧里只有 1448 B 是载荷。"),
            (emulated.payload_rate(FRAME_RATE, both_ways=False) / 1e6,
             "这是单向传输的载荷速率；两个方向都有数据时，每个方向还要捎带对方的 ACK。"),
            (both * 8 / 1e6, "这是以 Mbit/s 计的载荷速率，题目问的是 MB/s。"),
        ),
        explanation=f"每个数据帧 1514 B 带 1448 B 载荷，再分摊半个 66 B 的 ACK 帧：{FRAME_RATE / 8 / 1e6:.0f} MB/s × "
        f"1448/1547 = {both / 1e6:.2f} MB/s。",
        transfer=True,
    )

    topo = emulated.Topology(nodes=LEAF_NODES, rate=LEAF_RATE, leaves=2, uplink_rate=LEAF_UPLINK)
    ring = topo.ring_rate()
    q_leaf = numeric(
        f"{LEAF_NODES} 个节点分在两个叶交换机上（前一半一个、后一半一个），"
        f"节点链路每方向 {LEAF_RATE / 1e6:.0f} Mbit/s，"
        f"两个叶之间的上联每方向 {LEAF_UPLINK / 1e6:.0f} Mbit/s。按节点编号成环做全归约，环上每一跳每方向能拿到的"
        "最低速率是多少 Mbit/s？",
        ring / 1e6,
        rel_tol=0.001,
        unit="Mbit/s",
        wrong=(
            (LEAF_RATE / 1e6, "环有两条边跨过上联（一个方向一条），上联比节点链路慢，它决定整个环。"),
            (LEAF_UPLINK / 2 / 1e6, "两条跨叶的边方向相反，上联的每个方向只承载其中一条。"),
        ),
        explanation=f"跨叶的边是 {LEAF_NODES // 2 - 1}→{LEAF_NODES // 2} 与 {LEAF_NODES - 1}→0，上联每方向各一条，"
        f"所以瓶颈是 min({LEAF_RATE / 1e6:.0f}, {LEAF_UPLINK / 1e6:.0f}) = {ring / 1e6:.0f} Mbit/s。"
        "只在一个叶上拟合的 β 不知道这条上联，用它预测跨叶的环会偏乐观。",
        transfer=True,
    )

    t_slow = slow_ring_time()
    healthy = mpifit.cost_terms("all_reduce", "ring", SLOW_SIZE, SLOW_NODES).priced(SLOW_ALPHA, SLOW_BETA).time
    mean_beta = SLOW_BETA * (SLOW_NODES - 2 + 2 / SLOW_FACTOR) / SLOW_NODES
    t_mean = mpifit.cost_terms("all_reduce", "ring", SLOW_SIZE, SLOW_NODES).priced(SLOW_ALPHA, mean_beta).time
    q_slow = numeric(
        f"{SLOW_NODES} 个节点的环，拟合得 $\\alpha$ = {units.fmt_seconds(SLOW_ALPHA)}、$\\beta$ = "
        f"{SLOW_BETA / 1e6:.0f} MB/s。把其中一个节点的链路（两个方向）降到原来的 1/{SLOW_FACTOR:.0f}，"
        f"$S$ = {units.fmt_bytes(SLOW_SIZE, 'MB')} 的环形全归约预计要多少 ms？（允许 1% 相对误差）",
        t_slow * 1e3,
        rel_tol=0.01,
        unit="ms",
        wrong=(
            (healthy * 1e3, "这是链路没变慢时的时间。"),
            (t_mean * 1e3, "把各条链路的带宽取了平均：环是同步的，每一步都等最慢的那条链路。"),
        ),
        explanation=f"$2(N-1)$ 步中每一步都等最慢的链路：每步 $\\alpha + S/(N\\beta/{SLOW_FACTOR:.0f})$，合计 "
        f"{t_slow * 1e3:.1f} ms，是正常的 {t_slow / healthy:.2f} 倍。",
        transfer=True,
    )

    q_bucket = choice(
        "链路整形到 100 Mbit/s，可是 16–256 B 的全归约测出来的时间与不整形时一样，只由软件底噪决定。为什么？",
        [
            ("令牌桶只限制平均速率：小消息到来时桶里有攒下的令牌，按 veth 自身的速度通过；消息流的平均速率低于"
             "整形速率时，根本不会排队", True, "对：所以这一段的 β 不是强加的速率，要分两段拟合，α 取小消息那段。"),
            ("小消息走共享内存，不经过网络", False, "节点之间只有 TCP；共享内存只在同一个节点内部。"),
            ("TCP 把小消息攒起来一起发（Nagle 算法）", False, "攒包只会让小消息更慢，不会让它们快过整形速率。"),
            ("tc 整形对小于 MTU 的包不起作用", False, "整形按字节计数，大包小包都要令牌。"),
        ],
        explanation="真实的网线上，每个帧都要按线速串行发送；令牌桶模拟的是平均速率，这是模拟与真实链路的一处差别。",
    )

    q_find = choice(
        "4 个节点成环，逐对（0-1、1-2、2-3、3-0）做 1 MB 的乒乓，测得的带宽依次是 12.3、3.1、3.1、12.3 MB/s。"
        "哪个节点的链路慢？",
        [
            ("节点 2", True, "对：慢的两对 1-2 与 2-3 都经过节点 2 的链路，而 0-1 与 3-0 正常。"),
            ("节点 1", False, "节点 1 也在 0-1 这一对里，而 0-1 是正常的。"),
            ("节点 1 和 节点 2 之间的那一段", False,
             "每个节点只有一条链路连到交换机：两对都慢，说明是它们共同的那个节点。"),
            ("看不出来：环形全归约的时间只告诉我们有一条慢链路", False,
             "全归约的总时间确实看不出是哪条，所以才要逐对测量。"),
        ],
        explanation="单看集合通信的时间只能知道“有一条慢链路”；逐对测量再取两个最慢对的交集，才能定位到节点。",
        transfer=True,
    )
    return [q_frame, q_leaf, q_slow, q_bucket, q_find]
