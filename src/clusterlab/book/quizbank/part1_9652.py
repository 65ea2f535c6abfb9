"""Self-check questions for §9.6.5.2 (确定性训练), shown in ``book/part1/9.6.5-2-determinism.ipynb``.

Every key comes from :mod:`clusterlab.faults.determinism` and :mod:`clusterlab.faults.summation` (bounds, chain
lengths, ULP sizes) or from the stated data (the published determinism overhead). Distractors are the slips
readers make: ``N`` additions instead of ``N − 1``, machine epsilon ``2⁻²³`` taken for the unit roundoff
``2⁻²⁴``, the pairwise bound taken for the recursive one, ``⌊log₂N⌋`` instead of ``⌈log₂N⌉``, the ULP at 1.0
used at any magnitude, an overhead percentage read as a multiple of the total, and the belief that seeds,
float64 accumulation or a fixed algorithm make runs on different layouts bit-identical.

Questions marked ``transfer=True`` ask for numbers or situations the chapter does not print.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from ... import validate
from ...faults import determinism, summation
from ..quiz import Choice, Numeric, choice, numeric

__all__ = [
    "BASE_HOURS",
    "BOUND_RANKS",
    "PAIRWISE_RANKS",
    "ULP_VALUE",
    "ZHUANG_MAX_OVERHEAD",
    "deterministic_hours",
    "questions",
    "relative_bound",
]

BOUND_RANKS: Final = 64  # ranks of the bound question (the chapter prints N = 16)
PAIRWISE_RANKS: Final = 1000  # ranks of the chain-length question
ULP_VALUE: Final = 5.0  # the value whose float32 ULP is asked
BASE_HOURS: Final = 20.0  # h: a nondeterministic training run
ZHUANG_MAX_OVERHEAD: Final = 7.46  # Zhuang et al., MLSys 2022, abstract: deterministic training up to 746 % overhead

Question = Numeric | Choice


def relative_bound(ranks: int, *, accumulate: str = "float32", additions: int | None = None) -> float:
    """``γ_k`` (the bound divided by ``Σ|x_i|``) for ``ranks`` terms; ``k = N − 1`` unless ``additions`` is given."""
    n = validate.int_in_range("ranks", ranks, 2, determinism.MAX_RANKS)
    ones = np.ones((n, 1), dtype=np.float32)
    return float(determinism.error_bound(ones, additions=additions, accumulate=accumulate)[0]) / n


def deterministic_hours(base_hours: float, overhead: float) -> float:
    """Wall time of a run that takes ``base_hours`` nondeterministically, with a relative ``overhead``
    (7.46 = 746 %)."""
    return validate.positive("base_hours", base_hours) * (1 + validate.non_negative("overhead", overhead))


def questions() -> list[Question]:
    """Self-check of §9.6.5.2: the summation bound, pairwise chain length, ULP size, determinism overhead,
    which runs can be bit-identical, what a layout change allows, what to record."""
    u = determinism.unit_roundoff("float32")
    n = BOUND_RANKS
    gamma = relative_bound(n)
    q_bound = numeric(
        f"{n} 个 rank 的 float32 梯度按环形顺序全归约。按 $|\\hat s - s| \\le \\gamma_k \\sum|x_i|$，误差相对 "
        "$\\sum|x_i|$ 的上界 $\\gamma_k$ 是多少？（以 $10^{-6}$ 为单位，相对误差 0.5% 以内）",
        gamma * 1e6,
        rel_tol=0.005,
        unit="× 10⁻⁶",
        wrong=(
            (n * u / (1 - n * u) * 1e6, f"用了 $k = N = {n}$。{n} 个数相加只有 $N-1$ 次加法，$k = {n - 1}$。"),
            (relative_bound(n, additions=summation.longest_chain("pairwise", n)) * 1e6,
             "这是两两求和的界（$k = \\lceil\\log_2 N\\rceil$）；环形是按顺序累加，$k = N-1$。"),
            ((n - 1) * 2.0**-23 / (1 - (n - 1) * 2.0**-23) * 1e6,
             "把机器精度 $2^{-23}$ 当成了单位舍入误差；舍入到最近时 $u = 2^{-24}$。"),
        ),
        explanation=f"$\\gamma_{{{n - 1}}} = {n - 1}u/(1-{n - 1}u)$，$u = 2^{{-24}}$，约 {gamma:.3e}。",
        transfer=True,
    )
    k_pair = summation.longest_chain("pairwise", PAIRWISE_RANKS)
    q_chain = numeric(
        f"{PAIRWISE_RANKS} 个 rank 的梯度用两两求和（每层相邻两项相加，奇数项留到下一层）。任何一个输入到最终结果"
        "之间最多经过几次加法？",
        k_pair,
        rel_tol=0.0,
        abs_tol=0.01,
        unit="次",
        wrong=(
            (summation.longest_chain("ring", PAIRWISE_RANKS), "这是按顺序累加的 $N-1$；两两求和每层只加一次。"),
            (k_pair - 1, "用了 $\\lfloor\\log_2 N\\rfloor$；层数要向上取整，$2^9 = 512 < 1000$。"),
            (PAIRWISE_RANKS // 2, "这是第一层的加法个数，不是一条路径上的加法次数。"),
        ),
        explanation=f"$\\lceil\\log_2 {PAIRWISE_RANKS}\\rceil = {k_pair}$，所以误差界是 $\\gamma_{{{k_pair}}}$。",
        transfer=True,
    )
    ulp5 = summation.ulp_size(ULP_VALUE)
    q_ulp = numeric(
        f"float32 中 {ULP_VALUE:g} 附近 1 ULP 是多少？（以 $10^{{-7}}$ 为单位）",
        ulp5 * 1e7,
        rel_tol=0.005,
        unit="× 10⁻⁷",
        wrong=(
            (summation.ulp_size(1.0) * 1e7, "这是 1.0 附近的 ULP $2^{-23}$；5.0 在 $[4, 8)$ 内，ULP 是它的 4 倍。"),
            (ULP_VALUE * u * 1e7, "$u \\cdot x$ 是舍入误差的上限（半个 ULP 左右），不是 ULP 本身。"),
            (summation.ulp_size(3.0) * 1e7, "这是 $[2, 4)$ 里的 ULP；5.0 的指数是 2。"),
        ),
        explanation=f"5.0 = 1.25 × 2²，1 ULP = $2^{{2-23}} = 2^{{-21}}$ ≈ {ulp5:.3e}。",
        transfer=True,
    )
    det = deterministic_hours(BASE_HOURS, ZHUANG_MAX_OVERHEAD)
    q_cost = numeric(
        f"一次非确定性训练要 {BASE_HOURS:g} 小时。打开确定性设置后，若额外开销达到 Zhuang 等 2022 报告的最高值"
        f" {100 * ZHUANG_MAX_OVERHEAD:.0f}%，要多少小时？",
        det,
        rel_tol=0.01,
        unit="h",
        wrong=(
            (BASE_HOURS * ZHUANG_MAX_OVERHEAD,
             "把 746% 当成了总时间的倍数；开销是**额外**的，总时间是 (1 + 7.46) 倍。"),
            (BASE_HOURS + ZHUANG_MAX_OVERHEAD, "把 746% 当成了多出 7.46 小时；它是相对原来时间的比例。"),
            (BASE_HOURS * 1.0746, "把 746% 读成了 7.46%。"),
        ),
        explanation=f"{BASE_HOURS:g} h × (1 + 7.46) = {det:.1f} h。开销随模型与硬件差别很大，这是报告中的最高值。",
        transfer=True,
    )
    q_identical = choice(
        "种子、数据顺序、dropout 都已钉死，确定性算子已打开。下面哪些成对的运行**有可能**逐位相同（其余几种即使"
        "一切顺利也一般做不到）？（多选）",
        [
            ("同样 8 个 rank、同一硬件与软件版本、NCCL 的算法与协议都固定为同一环形，重跑一次", True,
             "对，但这是“有可能”而不是“有保证”：只要每个元素的加法顺序两次都一样，结果就逐位相同（本节的模拟重复 5 次，"
             "差 0 ULP）。NCCL 是否在相同拓扑、rank 数、版本与设置下保证顺序不变，本节没有找到官方说明（标了需核实），"
             "所以要靠实测：把两次运行的损失与参数逐位比较一遍。"),
            ("全局批量不变，数据并行从 8 个 rank 改成 16 个", False,
             "换布局改变了求和顺序；本节的算例中大多数梯度元素的末位都变了。"),
            ("同样 8 个 rank，但梯度用原子加法按到达顺序累加", False,
             "到达顺序每次不同，加法顺序随之不同；原子加法的算子正是确定性开关要拦下的。"),
            ("同样 8 个 rank，一次用环形、一次用二叉树全归约", False, "两种算法的结合方式不同，末位会不同。"),
            ("换 rank 数，但把部分和放在 float64 里累加", False,
             "float64 只是让不同结果变得少见；精确和落在两个 float32 正中附近时仍可能差 1 ULP。"),
        ],
        multiple=True,
        explanation="逐位相同要求每个元素的加法顺序完全一样：同一布局、同一算法、同一版本，且没有按到达顺序累加的步骤。"
        "满足这些条件也只是使逐位相同成为可能；通信库是否保证每次顺序相同，要查它的文档或实测确认。",
    )
    q_layout = choice(
        "一次 64 个 rank 的训练在第 5000 步出现损失尖峰。手头只有 32 张卡，你想在上面逐位重放到出事的那一步。"
        "下面哪种判断正确？",
        [
            ("把所有随机种子设成与原来相同，就能逐位重放", False, "种子只管随机数；rank 数减半后归约顺序变了。"),
            ("把 NCCL 算法固定为环形，就能逐位重放", False,
             "环形的求和顺序由 rank 数决定（第 $c$ 块从 rank $c$ 出发绕一圈），32 个 rank 的环与 64 个不同。"),
            ("32 个 rank 上只能要求统计可复现；逐位重放要回到 64 个 rank 的同一布局、同一版本与设置", True,
             "对：跨布局逐位一致一般做不到，只能在原布局上从 checkpoint 重放。"),
            ("改用 float64 累加就能逐位重放", False, "原来的运行是 float32 累加，改了累加精度本身就是另一种计算。"),
        ],
        explanation="这是一个新情形：判断依据是“同一布局内”与“跨布局”两种可复现的区别。",
        transfer=True,
    )
    q_record = choice(
        "要让同一布局下的重跑逐位相同，下面哪些必须写进训练记录？（多选）",
        [
            ("rank 总数与各并行轴的度数", True, "布局决定归约顺序与参数切分。"),
            ("框架、CUDA、cuBLAS、NCCL 的版本", True, "确定性只在同一版本内成立。"),
            ("GPU 型号与 SM 数", True, "cuBLAS 只对同一架构、同样 SM 数的 GPU 保证逐次结果相同。"),
            ("采样器种子与已消费样本数", True, "否则重放的不是同一串批次。"),
            ("训练开始的日期和时间", False, "时间本身不影响计算；影响计算的是上面那些配置。"),
        ],
        multiple=True,
        explanation="对照本节的最小记录表：软件栈、硬件、布局、通信与数值设置、确定性开关、随机性、数据、进度。",
    )
    return [q_bound, q_chain, q_ulp, q_cost, q_identical, q_layout, q_record]
