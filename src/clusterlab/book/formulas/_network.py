"""Sheet entries of the parameter-plane network: 集群篇 §3 (group ``network``).

A fabric is sized by :func:`clusterlab.cluster.network.leaf_spine` / :func:`~clusterlab.cluster.network.fat_tree`
from an oversubscription ratio; the sheet states the formulas in port counts (``d`` down, ``u = k − d`` up), so
:func:`_fabric` asks for the ratio ``d/(k − d)`` and checks that the fabric got exactly those ports.
"""

from __future__ import annotations

from typing import Final

from ...cluster import ecmp, lossless, network
from ._base import Formula, Symbol

_K = Symbol("radix", "k", "交换机口数", "—", 4, 128, True)
_D1 = Symbol("leaf_down", r"d_1", "叶交换机向下的口数（$u_1 = k - d_1$）", "—", 1, 127, True)
_D2 = Symbol("pod_down", r"d_2", "汇聚交换机向下的口数（$u_2 = k - d_2$）", "—", 1, 127, True)
_H = Symbol("hosts", "H", "主机端口数", "—", 1, 128 * 127 * 127, True)
_LINK = Symbol("link_bandwidth", "B", "每口单方向带宽", "B/s", 1e9, 1e11)
_FLOWS = Symbol("flows", "n", "长流条数", "—", 1, 32, True)
_UPLINKS = Symbol("uplinks", "m", "等价上行口数", "—", 1, 32, True)
_LOSS = Symbol("loss", "p", "每包丢失概率", "—", 0.0, 0.5)

MIN_CUT_NOTE = "两半恰好落在{0}边界上时成立；一般情形按定义是网络的最小割，由 `Fabric.min_bisection` 按拓扑计算"


def _fabric(hosts: int, radix: int, leaf_down: int, pod_down: int | None = None,
            link_bandwidth: float = 1.0) -> network.Fabric:
    """The fabric with exactly ``leaf_down`` (and ``pod_down``) ports down per switch."""
    o1 = leaf_down / (radix - leaf_down)
    if pod_down is None:
        f = network.leaf_spine(hosts, radix, link_bandwidth, oversubscription=o1)
    else:
        f = network.fat_tree(hosts, radix, link_bandwidth, oversubscription=o1,
                             pod_oversubscription=pod_down / (radix - pod_down))
    if f.hosts_per_leaf != leaf_down or (pod_down is not None and f.leaves_per_pod != pod_down):
        raise ValueError(f"ports_split did not return {leaf_down}/{pod_down} ports down on a {radix}-port switch")
    return f


def _two_tier(hosts: float, radix: float, leaf_down: float, **_: float) -> bool:
    return leaf_down < radix and hosts <= radix * leaf_down


def _three_tier(hosts: float, radix: float, leaf_down: float, pod_down: float, **_: float) -> bool:
    return leaf_down < radix and pod_down < radix and hosts <= radix * leaf_down * pod_down


FORMULAS: Final[tuple[Formula, ...]] = (
    Formula(
        "fat-tree-2", "network", "两层无阻塞叶脊最多接的主机（$k$ 为偶数）", r"H_2 = \frac{k^2}{2}", "台",
        (Symbol("radix", "k", "交换机口数", "—", 2, 1024, True),),
        "clusterlab.cluster.network.max_hosts",
        lambda radix: network.max_hosts(radix, 2),
        "{prf:ref}`thm-c03-capacity`",
        valid=lambda radix: radix % 2 == 0,
    ),
    Formula(
        "fat-tree-3", "network", "三层无阻塞胖树最多接的主机（$k$ 为偶数）", r"H_3 = \frac{k^3}{4}", "台",
        (Symbol("radix", "k", "交换机口数", "—", 2, 1024, True),),
        "clusterlab.cluster.network.max_hosts",
        lambda radix: network.max_hosts(radix, 3),
        "{prf:ref}`thm-c03-capacity`",
        valid=lambda radix: radix % 2 == 0,
    ),
    Formula(
        "switches-2", "network", "两层叶脊要买的交换机（叶 + 脊）",
        r"n_\text{sw} = \ell + \left\lceil \frac{\ell\,u_1}{k} \right\rceil,\quad"
        r" \ell = \left\lceil \frac{H}{d_1} \right\rceil",
        "台",
        (_H, _K, _D1), "clusterlab.cluster.network.leaf_spine",
        lambda hosts, radix, leaf_down: _fabric(hosts, radix, leaf_down).switches,
        "{ref}`§3 <sec-c03-sizing>`",
        valid=_two_tier,
    ),
    Formula(
        "switches-3", "network", "三层胖树要买的交换机（叶 + 汇聚 + 核心），每个 pod 配齐 $u_1$ 台汇聚",
        r"n_\text{sw} = \ell + q\,u_1 + \left\lceil \frac{q\,u_1 u_2}{k} \right\rceil,\quad"
        r" \ell = \left\lceil \frac{H}{d_1} \right\rceil,\ q = \left\lceil \frac{\ell}{d_2} \right\rceil", "台",
        (_H, _K, _D1, _D2), "clusterlab.cluster.network.fat_tree",
        lambda hosts, radix, leaf_down, pod_down: _fabric(hosts, radix, leaf_down, pod_down).switches,
        "{ref}`§3 <sec-c03-sizing>`",
        valid=_three_tier,
    ),
    Formula(
        "cables-2", "network", "两层叶脊的线缆（主机线 + 叶到脊）",
        r"n_\text{线} = H + \ell\,u_1,\quad \ell = \left\lceil \frac{H}{d_1} \right\rceil", "根",
        (_H, _K, _D1), "clusterlab.cluster.network.Fabric.cables",
        lambda hosts, radix, leaf_down: _fabric(hosts, radix, leaf_down).cables,
        "{ref}`§3 <sec-c03-sizing>`",
        valid=_two_tier,
    ),
    Formula(
        "cables-3", "network", "三层胖树的线缆（主机线 + 叶到汇聚 + 汇聚到核心）",
        r"n_\text{线} = H + \ell\,u_1 + q\,u_1 u_2", "根",
        (_H, _K, _D1, _D2), "clusterlab.cluster.network.Fabric.cables",
        lambda hosts, radix, leaf_down, pod_down: _fabric(hosts, radix, leaf_down, pod_down).cables,
        "{ref}`§3 <sec-c03-sizing>`",
        valid=_three_tier,
        note="$\\ell$、$q$ 同 {eq}`eq-c08-switches-3`：叶的台数与 pod 数",
    ),
    Formula(
        "bisection-2", "network", "两层叶脊的对分带宽（公式，收敛比 $o_1 \\ge 1$）",
        r"B_\text{bis} = \frac{H}{2}\cdot\frac{B}{o_1},\quad o_1 = \frac{d_1}{u_1}", "B/s",
        (_H, _K, _D1, _LINK), "clusterlab.cluster.network.Fabric.bisection_bandwidth",
        lambda hosts, radix, leaf_down, link_bandwidth: _fabric(
            hosts, radix, leaf_down, link_bandwidth=link_bandwidth).bisection_bandwidth,
        "{ref}`§3 <sec-c03-sizing>`",
        valid=lambda hosts, radix, leaf_down, **_: _two_tier(hosts, radix, leaf_down) and 2 * leaf_down >= radix,
        note=MIN_CUT_NOTE.format("叶"),
    ),
    Formula(
        "bisection-3", "network", "三层胖树跨 pod 的对分带宽（公式，至少两个 pod，$o_1, o_2 \\ge 1$）",
        r"B_\text{bis} = \frac{H}{2}\cdot\frac{B}{o_1 o_2},\quad o_2 = \frac{d_2}{u_2}", "B/s",
        (_H, _K, _D1, _D2, _LINK), "clusterlab.cluster.network.Fabric.bisection_bandwidth",
        lambda hosts, radix, leaf_down, pod_down, link_bandwidth: _fabric(
            hosts, radix, leaf_down, pod_down, link_bandwidth).bisection_bandwidth,
        "{ref}`§3 <sec-c03-sizing>`",
        valid=lambda hosts, radix, leaf_down, pod_down, **_: _three_tier(hosts, radix, leaf_down, pod_down)
        and hosts > leaf_down * pod_down and 2 * leaf_down >= radix and 2 * pod_down >= radix,
        note=MIN_CUT_NOTE.format(" pod ") + "：{prf:ref}`ex-c03-size` 的 1:7 网络分不到 pod 边界上，两者不同",
    ),
    Formula(
        "pfc-headroom", "network", "PFC 每端口每个无损优先级的余量（光纤中 $v = 2\\times10^8$ m/s）",
        r"H_\text{PFC} = \frac{2BL}{v} + B\,t_r + 2\cdot\text{MTU}", "字节 B",
        (_LINK, Symbol("cable_length", "L", "线缆长度", "m", 0.0, 1e4),
         Symbol("mtu", r"\text{MTU}", "最大帧", "B", 256.0, 9216.0),
         Symbol("response_time", "t_r", "上游收到暂停帧后的反应时间", "s", 0.0, 1e-4)),
        "clusterlab.cluster.lossless.pfc_headroom",
        lambda link_bandwidth, cable_length, mtu, response_time: lossless.pfc_headroom(
            link_bandwidth, cable_length, mtu=mtu, response_time=response_time).total,
        "{ref}`§3 <sec-c03-lossless>`",
    ),
    Formula(
        "go-back-n", "network", "go-back-N 的有效带宽（一阶，窗口为带宽-时延积）",
        r"\eta_\text{GBN} = \frac{1}{1 + pW},\quad W = \left\lceil \frac{B\cdot\text{RTT}}{\text{MTU}} \right\rceil",
        "占线速的比例",
        (_LOSS, _LINK, Symbol("rtt", r"\text{RTT}", "往返时间", "s", 1e-7, 1e-3),
         Symbol("mtu", r"\text{MTU}", "最大帧", "B", 256.0, 9216.0)),
        "clusterlab.cluster.lossless.go_back_n",
        lambda loss, link_bandwidth, rtt, mtu: lossless.go_back_n(loss, link_bandwidth, rtt, mtu=mtu).go_back_n,
        "{ref}`§3 <sec-c03-lossless>`",
    ),
    Formula(
        "selective-repeat", "network", "只重传丢失包时的有效带宽", r"\eta_\text{SR} = \frac{1}{1 + p}",
        "占线速的比例",
        (_LOSS,), "clusterlab.cluster.lossless.go_back_n",
        lambda loss: lossless.go_back_n(loss, 50e9, 10e-6).selective,
        "{ref}`§3 <sec-c03-lossless>`",
    ),
    Formula(
        "ecmp-collision", "network", "$n$ 条流哈希到 $m$ 个上行口，至少一处冲突（$n > m$ 时为 1）",
        r"P = 1 - \frac{m!}{(m-n)!\,m^n}", "概率",
        (_FLOWS, _UPLINKS),
        "clusterlab.cluster.ecmp.ecmp_collisions",
        lambda flows, uplinks: ecmp.ecmp_collisions(flows, uplinks).collision_probability,
        "{ref}`§3 <sec-c03-ecmp>`",
    ),
    Formula(
        "ecmp-throughput", "network", "ECMP 下的总吞吐，占理想 $\\min(n, m)B$ 的比例",
        r"\frac{m\left(1 - (1 - 1/m)^n\right)}{\min(n, m)}", "比例",
        (_FLOWS, _UPLINKS),
        "clusterlab.cluster.ecmp.EcmpCollisions.throughput_fraction",
        lambda flows, uplinks: ecmp.ecmp_collisions(flows, uplinks).throughput_fraction,
        "{ref}`§3 <sec-c03-ecmp>`",
        note="$m(1 - 1/m)^n$ 是平均闲着的口数",
    ),
    Formula(
        "ecmp-slowdown", "network", "同步集合通信被最忙的口拖慢的倍数",
        r"\frac{E[\max_j n_j]}{\lceil n/m \rceil},\quad E[\max_j n_j] = \sum_{c=0}^{n-1}"
        r"\left(1 - \frac{n!}{m^n}\,[x^n]\Big(\sum_{i=0}^{c}\frac{x^i}{i!}\Big)^{m}\right)", "倍",
        (_FLOWS, _UPLINKS), "clusterlab.cluster.ecmp.EcmpCollisions.slowdown",
        lambda flows, uplinks: ecmp.ecmp_collisions(flows, uplinks).slowdown,
        "{ref}`§3 <sec-c03-ecmp>`",
        note="$n_j$ 是第 $j$ 个口上的流数，$[x^n]$ 取多项式的 $x^n$ 系数：$m$ 个口各不超过 $c$ 条流的方法数",
    ),
)
