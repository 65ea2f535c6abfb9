"""Self-check questions for 集群篇 §5.1 (``book/part2/05-1-fault-lab.ipynb``): checkpoint and restart against
faults injected into a training on the emulated cluster.

Given data are the module constants below (invented for the questions, not the page's reference run); every key
comes from :mod:`clusterlab.faults.checkpoint` or :mod:`clusterlab.lab.faultplan`. Distractors are the slips a
reader makes: Young's formula without the 2, the book's exact model whose restarts are exposed to faults used for a
run whose injector waits for the restart, the first-order model where the restart is a sizeable share of the
MTBF, a cut link taken for a process that exits.
"""

from __future__ import annotations

import math
from typing import Final

from ...faults import checkpoint
from ...lab import faultplan
from ..quiz import Choice, Numeric, choice, numeric

__all__ = ["MTBF", "RESTART", "SAVE", "questions"]

SAVE: Final = 0.012  # s, δ: one checkpoint
MTBF: Final = 5.0  # s, mean up time between faults
RESTART: Final = 0.8  # s, detection + restart

Question = Numeric | Choice


def questions() -> list[Question]:
    """Self-check of §5.1: Young's interval, the prediction for a run whose restarts faults cannot strike,
    detecting a cut link, and what bit-identical resumption needs."""
    t = checkpoint.young_interval(SAVE, MTBF)
    q_young = numeric(
        f"一次保存要 δ = {1e3 * SAVE:.0f} ms，注入的故障平均每 M = {MTBF:.0f} s 一次。按 Young 公式，两次保存之间"
        "应当训练多少秒？（允许 1% 相对误差）",
        t,
        rel_tol=0.01,
        unit="s",
        wrong=(
            (math.sqrt(SAVE * MTBF), "少了因子 2：T* = √(2δM)。"),
            (2 * SAVE * MTBF, "这是 2δM，还要开平方。"),
            (math.sqrt(2 * SAVE * MTBF) * 1e3, "单位：δ 与 M 都用秒，结果也是秒。"),
        ),
        explanation="T* = √(2δM)：保存的开销 δ/T 与故障丢掉的一半间隔 T/(2M) 在这里相等。",
    )
    p = faultplan.predict(t, SAVE, MTBF, RESTART)
    q_share = numeric(
        f"仍是这个间隔、δ 与 M；每次故障后检测加重启共 R = {RESTART} s，而注入器从每次重启完成才开始计时"
        "（重启期间不会再出故障）。预测有效训练占墙钟时间的比例。（允许 1% 相对误差）",
        p.useful,
        rel_tol=0.01,
        wrong=(
            (p.useful_book_exact, "这是重启期间也可能出故障的精确模型；本题的注入器等重启完成才计时。"),
            (p.useful_first_order, "这是一阶模型 1 − δ/T − (T/2 + R)/M：R 占 M 的比例不小时它偏低。"),
            (1 - checkpoint.expected_wasted_fraction(t, SAVE, MTBF), "漏了重启：每次故障还要加上 R 的墙钟时间。"),
        ),
        explanation="运行时间里用 R = 0 的精确模型，再乘 M/(M + R)：每个周期平均 M 的运行时间之后接一次 R。",
        transfer=True,
    )
    q_link = choice(
        "故障注入器切断了一个节点的链路（ip link set … down）。这时 mpiexec 会怎样，看门狗靠什么发现？",
        [
            ("各 rank 都还活着，全归约只是停住不动；mpiexec 不退出，要靠心跳超时发现", True,
             "对：所以切断链路的检测时间约等于心跳超时，而杀掉进程几乎立刻被 mpiexec 的退出发现。"),
            ("TCP 连接立刻报错，mpiexec 马上以非零状态退出", False,
             "链路断开不会立刻让已建立的 TCP 连接报错：包只是发不出去，重传要很久才放弃。"),
            ("MPI 会自动绕过这条链路，训练不受影响", False, "每个节点只有一条链路，没有别的路可绕。"),
            ("内核杀掉这个节点上的进程", False, "网卡断开不影响进程本身。"),
        ],
        explanation="这正是 NCCL 看门狗要解决的问题：集合通信卡住时没有任何进程退出，只能靠超时。",
    )
    q_bits = choice(
        "中断后从 checkpoint 续跑，要让最后的参数与不中断的运行逐位相同。下面哪一项不是必要的？",
        [
            ("每次都用同样多的 rank 在同样的机器上", True,
             "对：本节的运行每次重启都换了进程，逐位相同靠的是存下的状态与固定的求和顺序，不是同一批进程。"),
            ("存下优化器状态（Adam 的一阶、二阶矩）与步数", False, "缺了它们，续跑的第一步就不同了。"),
            ("存下每个 rank 的随机数发生器状态", False, "缺了它，续跑时抽到的 mini-batch 不同。"),
            ("全归约的求和顺序每次相同", False, "浮点加法不满足结合律：顺序变了，末位就可能不同。"),
        ],
        explanation="本节固定用递归倍增的全归约，所以求和顺序只取决于 rank 数，不取决于时机。",
        transfer=True,
    )
    return [q_young, q_share, q_link, q_bits]
