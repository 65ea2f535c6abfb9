"""The record types of the formula sheet and the symbols several chapters share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Formula", "Symbol"]


@dataclass(frozen=True)
class Symbol:
    """One argument of a formula: ``arg`` (keyword of :attr:`Formula.compute`), its LaTeX, meaning, unit, and the
    closed range ``[low, high]`` it is tested on (``integer``: whole numbers only)."""

    arg: str
    tex: str
    meaning: str
    unit: str
    low: float
    high: float
    integer: bool = False


@dataclass(frozen=True)
class Formula:
    """One entry of the sheet.

    ``latex`` is what the reader sees; ``compute`` calls the ``clusterlab`` function named by ``function`` (building
    the objects it takes when it takes objects) with the symbols as keyword arguments; ``valid`` (optional)
    restricts the joint range (e.g. an even radix). ``group``: a key of :data:`clusterlab.book.formulas.GROUPS`;
    ``where``: the MyST link to the derivation; ``result``: what the formula gives, with its unit; ``note``: one
    sentence of MyST shown after the symbols (a condition, or where the general case is computed).

    The plain-Python transcription of ``latex`` that proves the entry equal to ``compute`` lives in
    ``tests/unit/test_formulas.py``, apart from the code it checks.
    """

    key: str
    group: str
    name: str
    latex: str
    result: str
    symbols: tuple[Symbol, ...]
    function: str
    compute: Callable[..., float]
    where: str
    valid: Callable[..., bool] | None = None
    note: str = ""

    def holds(self, **values: float) -> bool:
        return self.valid is None or bool(self.valid(**values))

    @property
    def label(self) -> str:
        """The equation label on the sheet (``{eq}`` links to it; the build numbers it)."""
        return f"eq-c08-{self.key}"


# symbols used by several formulas
S = Symbol("size", "S", "每个 rank 的缓冲区", "B", 1.0, 1e12)
N = Symbol("ranks", "N", "rank 数", "—", 2, 4096, True)
ALPHA = Symbol("latency", r"\alpha", "每步延迟", "s", 0.0, 1e-3)
BETA = Symbol("bandwidth", r"\beta", "单方向带宽", "B/s", 1e6, 1e12)
PSI = Symbol("params", r"\Psi", "参数个数", "—", 1e6, 1e12)
PARAM_BYTES = Symbol("param_bytes", r"b_\text{p}", "每个参数的字节（bf16 为 2）", "B", 1, 4, True)
HIDDEN = Symbol("hidden", "h", "隐藏维", "—", 64, 16384, True)
SEQ = Symbol("seq_len", "s", "序列长度", "token", 1, 131072, True)
MICRO = Symbol("micro_batch", "b", "micro-batch 的序列数", "—", 1, 64, True)
MICROS = Symbol("micro_batches", "m", "每步 micro-batch 数", "—", 1, 512, True)
STAGE_LAYERS = Symbol("layers", "L", "本 rank 的层数", "—", 1, 256, True)
SAVE = Symbol("save_time", r"\delta", "一次保存阻塞训练的时间", "s", 1e-3, 1e4)
MTBF = Symbol("mtbf", "M", "作业 MTBF", "s", 60.0, 1e8)
RESTART = Symbol("restart_time", "R", "MTTR（恢复时间）", "s", 0.0, 1e4)
DP = Symbol("dp", r"N_d", "数据并行路数", "—", 1, 4096, True)
STAGES = Symbol("stages", "p", "流水线段数", "—", 1, 128, True)
CHUNKS = Symbol("chunks", "v", "每段的模型块数（交错）", "—", 1, 8, True)
COMPUTE = Symbol("compute_time", "T_c", "计算时间（核函数效率 η 下）", "s", 1e-3, 100.0)
PEAK = Symbol("peak_flops", "P", "单卡峰值", "FLOP/s", 1e12, 1e16)
GPUS = Symbol("gpus", "G", "GPU 数", "—", 1, 100_000, True)
