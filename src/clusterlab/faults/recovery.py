"""Resuming a training run from a checkpoint, shown on a real (small) training run.

A run can continue *exactly* where it stopped only if the checkpoint holds four pieces:

1. **weights** — the model parameters;
2. **optimizer state** — for Adam the first and second moments ``m``, ``v`` and the step counter ``t`` used by the
   bias correction (Kingma & Ba, *Adam*, arXiv:1412.6980, Algorithm 1);
3. **RNG state** — every random generator the step consumes (here: dropout masks and the shuffling of the data);
4. **data position** — where the loader stands: epoch, position in the epoch and the order of the current epoch.

The demonstration model is a two-layer MLP (ReLU hidden layer with inverted dropout, logistic output) trained with
Adam on a seeded "two moons" data set, mini-batches drawn from a shuffled loader. Everything is float64 numpy and
deterministic, so :func:`train` resumed from a full checkpoint reproduces the uninterrupted run **bit for bit**
(``np.array_equal`` on losses and weights). Dropping a piece shows what it is for:

* optimizer state dropped → Adam restarts with ``m = v = 0, t = 0``: the bias-corrected first update is
  ``lr·g/|g| = ±lr`` for *every* parameter, whatever its gradient — the loss jumps;
* RNG state dropped (generators re-seeded as at the start) or data position dropped (loader back to epoch 0) →
  nothing fails and the loss still falls, but the run has silently become a different experiment.

The learning-rate schedule (linear warm-up, then constant) follows the global step, which the checkpoint always
carries (``Checkpoint.step``), so it continues in every scenario.

The time one failure costs is :class:`clusterlab.faults.incident.Incident`; a slow link is
:mod:`clusterlab.faults.slowlink`.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from .. import numerics as nm
from ..validate import fraction, int_in_range, non_negative, positive

__all__ = [
    "PARAMS",
    "PIECES",
    "SCENARIOS",
    "AdamState",
    "Checkpoint",
    "Config",
    "DataPosition",
    "RecoveryExperiment",
    "RngState",
    "Run",
    "adam_update",
    "make_dataset",
    "recovery_experiment",
    "train",
]

FloatArray = npt.NDArray[np.float64]

#: The four pieces of a checkpoint, in the order the book names them.
PIECES: Final = ("weights", "optimizer", "rng", "data")
#: Parameter names of the MLP: ``x → relu(x W1 + b1) → dropout → · W2 + b2 → logit``.
PARAMS: Final = ("W1", "b1", "W2", "b2")
#: Resume scenarios of :func:`recovery_experiment`: the pieces each one restores from the checkpoint.
SCENARIOS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "all": PIECES,
        "no_optimizer": ("weights", "rng", "data"),
        "no_rng": ("weights", "optimizer", "data"),
        "no_data": ("weights", "optimizer", "rng"),
    }
)


# ------------------------------------------------------------------------------------------------------------
# configuration and data
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    """Everything that defines the demonstration run (defaults: one run of 600 steps takes well under a second).

    ``samples`` points of two interleaved half circles with Gaussian ``noise``; an MLP with ``hidden`` ReLU units and
    inverted dropout of rate ``dropout``; mini-batches of ``batch`` samples (``samples`` must be a multiple of
    ``batch``: every epoch has the same number of steps); Adam with peak ``learning_rate`` reached by a linear
    warm-up over ``warmup`` steps, ``beta1``, ``beta2``, ``eps`` as in Kingma & Ba. Four seeds: data set, initial
    weights, dropout generator, shuffling generator.
    """

    samples: int = 512
    noise: float = 0.1
    hidden: int = 128
    batch: int = 64
    dropout: float = 0.2
    learning_rate: float = 0.05
    warmup: int = 50
    final_lr_ratio: float = 0.1
    horizon: int = 600
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    data_seed: int = 0
    init_seed: int = 1
    dropout_seed: int = 2
    shuffle_seed: int = 3

    def __post_init__(self) -> None:
        int_in_range("samples", self.samples, 2, 1 << 20)
        int_in_range("hidden", self.hidden, 1, 4096)
        int_in_range("batch", self.batch, 1)
        if self.batch > self.samples or self.samples % self.batch:
            raise ValueError(f"batch must divide samples ({self.samples}), got {self.batch!r}")
        non_negative("noise", self.noise)
        fraction("dropout", self.dropout, high_open=True)
        positive("learning_rate", self.learning_rate)
        int_in_range("warmup", self.warmup, 1)
        fraction("final_lr_ratio", self.final_lr_ratio, low_open=True)
        int_in_range("horizon", self.horizon, self.warmup + 1)
        for name in ("beta1", "beta2"):
            fraction(name, getattr(self, name), high_open=True)
        positive("eps", self.eps)
        for name in ("data_seed", "init_seed", "dropout_seed", "shuffle_seed"):
            int_in_range(name, getattr(self, name), 0)

    @property
    def steps_per_epoch(self) -> int:
        return self.samples // self.batch

    def lr_at(self, step: int) -> float:
        """Learning rate of global step ``step`` (0-based): linear warm-up ``lr·(step+1)/warmup``, then a cosine
        from ``lr`` down to ``final_lr_ratio·lr`` at step ``horizon`` (constant ``lr`` when the ratio is 1)."""
        if step + 1 < self.warmup:
            return self.learning_rate * (step + 1) / self.warmup
        progress = min(1.0, (step + 1 - self.warmup) / (self.horizon - self.warmup))
        r = self.final_lr_ratio
        return self.learning_rate * (r + (1 - r) * 0.5 * (1 + math.cos(math.pi * progress)))


def make_dataset(config: Config | None = None) -> tuple[FloatArray, FloatArray]:
    """Two interleaved half circles ("two moons"): ``X`` of shape ``(samples, 2)``, labels ``y`` in {0, 1}."""
    cfg = Config() if config is None else config
    rng = np.random.default_rng(cfg.data_seed)
    t = rng.uniform(0.0, math.pi, cfg.samples)
    y = (rng.random(cfg.samples) < 0.5).astype(np.float64)
    x0 = np.where(y == 0, np.cos(t), 1.0 - np.cos(t))
    x1 = np.where(y == 0, np.sin(t), 0.5 - np.sin(t))
    x = np.stack([x0, x1], axis=1) + cfg.noise * rng.standard_normal((cfg.samples, 2))
    return x, y


# ------------------------------------------------------------------------------------------------------------
# the four pieces
# ------------------------------------------------------------------------------------------------------------
def _frozen(arrays: Mapping[str, FloatArray]) -> Mapping[str, FloatArray]:
    out = {}
    for k, a in arrays.items():
        c = np.array(a, copy=True)
        c.setflags(write=False)
        out[k] = c
    return MappingProxyType(out)


def _nbytes(arrays: Mapping[str, FloatArray]) -> int:
    return int(sum(a.nbytes for a in arrays.values()))


@dataclass(frozen=True)
class AdamState:
    """Adam's state: step counter ``t`` (of this optimizer instance) and moments ``m``, ``v`` per parameter."""

    t: int
    m: Mapping[str, FloatArray]
    v: Mapping[str, FloatArray]

    @property
    def nbytes(self) -> int:
        """Bytes of the moments plus an 8-byte counter: twice the weights for Adam."""
        return _nbytes(self.m) + _nbytes(self.v) + 8


@dataclass(frozen=True)
class RngState:
    """Snapshots (``bit_generator.state``) of the dropout and the shuffling generator (PCG64)."""

    dropout: Mapping[str, Any]
    shuffle: Mapping[str, Any]

    def generator(self, which: str) -> np.random.Generator:
        """A new generator continuing exactly from the snapshot ``which`` ("dropout" or "shuffle")."""
        if which not in ("dropout", "shuffle"):
            raise ValueError(f"which must be 'dropout' or 'shuffle', got {which!r}")
        g = np.random.Generator(np.random.PCG64())
        g.bit_generator.state = copy.deepcopy(dict(getattr(self, which)))
        return g

    @property
    def nbytes(self) -> int:
        """Bytes of the two PCG64 states (128-bit state + 128-bit increment each)."""
        return 2 * 32


@dataclass(frozen=True)
class DataPosition:
    """Where the loader stands: ``epoch``, ``cursor`` (next sample index into ``order``), this epoch's ``order``."""

    epoch: int
    cursor: int
    order: npt.NDArray[np.int64]

    @property
    def nbytes(self) -> int:
        return int(self.order.nbytes) + 16


@dataclass(frozen=True)
class Checkpoint:
    """A snapshot after ``step`` completed steps holding the four pieces (read-only copies)."""

    step: int
    weights: Mapping[str, FloatArray]
    optimizer: AdamState
    rng: RngState
    data: DataPosition

    def nbytes(self) -> dict[str, int]:
        """Bytes of each piece, keyed by :data:`PIECES`."""
        return {
            "weights": _nbytes(self.weights),
            "optimizer": self.optimizer.nbytes,
            "rng": self.rng.nbytes,
            "data": self.data.nbytes,
        }


# ------------------------------------------------------------------------------------------------------------
# model and optimizer
# ------------------------------------------------------------------------------------------------------------
def _init_weights(cfg: Config) -> dict[str, FloatArray]:
    rng = np.random.default_rng(cfg.init_seed)
    h = cfg.hidden
    return {
        "W1": rng.standard_normal((2, h)) * math.sqrt(2 / 2),
        "b1": np.zeros(h),
        "W2": rng.standard_normal((h, 1)) * math.sqrt(1 / h),
        "b2": np.zeros(1),
    }


def _pre_activation(p: Mapping[str, FloatArray], x: FloatArray) -> FloatArray:
    """``x W1 + b1`` for two input features, written out (faster than a matmul with inner size 2)."""
    w1 = p["W1"]
    out = np.multiply(x[:, :1], w1[0])
    out += x[:, 1:] * w1[1]
    out += p["b1"]
    return np.asarray(out)


def _logits(p: Mapping[str, FloatArray], x: FloatArray) -> FloatArray:
    return np.asarray(nm.dot(np.maximum(_pre_activation(p, x), 0.0), p["W2"][:, 0]) + p["b2"][0])


def _bce(z: FloatArray, y: FloatArray) -> float:
    """Mean binary cross-entropy of logits ``z`` (numerically stable ``log(1 + e^z) − y·z``)."""
    return nm.mean(nm.softplus(z) - y * z)


def _loss_and_grads(
    p: Mapping[str, FloatArray], x: FloatArray, y: FloatArray, mask: FloatArray
) -> tuple[float, dict[str, FloatArray]]:
    z1 = _pre_activation(p, x)
    a1 = np.maximum(z1, 0.0) * mask
    z2 = (nm.dot(a1, p["W2"]) + p["b2"])[:, 0]
    dz2 = (nm.sigmoid(z2) - y) / y.size
    da1 = (dz2[:, None] * p["W2"][:, 0]) * mask
    dz1 = da1 * (z1 > 0)
    grads = {"W1": nm.dot(x.T, dz1), "b1": nm.sequential_sum(dz1, axis=0), "W2": nm.dot(a1.T, dz2[:, None]),
             "b2": np.array([nm.sequential_sum(dz2)])}
    return _bce(z2, y), grads


def adam_update(
    param: FloatArray,
    grad: FloatArray,
    m: FloatArray,
    v: FloatArray,
    t: int,
    lr: float,
    beta1: float = 0.9,
    beta2: float = 0.999,
    eps: float = 1e-8,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """One Adam step (Kingma & Ba, Algorithm 1); ``t`` ≥ 1 is the step number *after* incrementing.

    ``m ← β1·m + (1−β1)·g``, ``v ← β2·v + (1−β2)·g²``, ``m̂ = m/(1−β1^t)``, ``v̂ = v/(1−β2^t)``,
    ``θ ← θ − lr·m̂/(√v̂ + ε)``. Returns new ``(param, m, v)``; the inputs are not modified. With ``m = v = 0`` and
    ``t = 1`` the update is ``lr·g/(|g| + ε) ≈ ±lr`` for every element with ``g ≠ 0``.
    """
    step = int_in_range("t", t, 1)
    m_new = beta1 * m + (1 - beta1) * grad
    v_new = beta2 * v + (1 - beta2) * grad * grad
    m_hat = m_new / (1 - nm.powi(beta1, step))
    v_hat = v_new / (1 - nm.powi(beta2, step))
    return param - lr * m_hat / (np.sqrt(v_hat) + eps), m_new, v_new


# ------------------------------------------------------------------------------------------------------------
# training
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    """Result of :func:`train`: global steps ``first_step+1 … first_step+len(loss)``, ``loss[i]`` = full-data loss
    (no dropout) after step ``first_step+i+1``, ``batch_loss[i]`` = the mini-batch loss of that step (with dropout),
    ``checkpoints`` saved on request, ``final`` = checkpoint after the last step."""

    config: Config
    first_step: int
    loss: FloatArray
    batch_loss: FloatArray
    checkpoints: tuple[Checkpoint, ...]
    final: Checkpoint

    @property
    def steps(self) -> npt.NDArray[np.int64]:
        return np.arange(self.first_step + 1, self.first_step + self.loss.size + 1)

    def checkpoint(self, step: int) -> Checkpoint:
        """The checkpoint saved after global step ``step``."""
        for c in self.checkpoints:
            if c.step == step:
                return c
        saved = ", ".join(str(c.step) for c in self.checkpoints) or "none"
        raise ValueError(f"step must be one of the saved steps ({saved}), got {step!r}")


def _check_restore(restore: Iterable[str]) -> frozenset[str]:
    if isinstance(restore, str):
        raise ValueError(f"restore must be a collection of piece names from {PIECES}, got the string {restore!r}")
    items = frozenset(restore)
    unknown = items - set(PIECES)
    if unknown:
        raise ValueError(f"restore must hold names from {PIECES}, got {sorted(unknown)}")
    return items


def train(
    steps: int,
    config: Config | None = None,
    *,
    resume: Checkpoint | None = None,
    restore: Iterable[str] = PIECES,
    save_at: Iterable[int] = (),
) -> Run:
    """Run ``steps`` training steps, from scratch or from the checkpoint ``resume``.

    When resuming, the pieces named in ``restore`` come from the checkpoint; the others start as a freshly launched
    job would: weights re-initialised from ``init_seed``; Adam with ``m = v = 0`` and ``t = 0``; generators re-seeded
    with ``dropout_seed`` / ``shuffle_seed``; the loader at epoch 0, position 0, with a new order drawn from the
    shuffling generator. The global step (for the warm-up schedule and the step numbers) is ``resume.step``.
    ``save_at``: global steps after which a checkpoint is kept (must lie in the steps this call runs).

    Each step: take the next ``batch`` indices of the current order (at the end of an epoch draw a new order with
    ``shuffle.permutation``), draw a dropout mask with ``dropout.random((batch, hidden)) >= p`` scaled by
    ``1/(1−p)``, back-propagate the mean binary cross-entropy, apply :func:`adam_update` to every parameter, then
    record the full-data loss without dropout.
    """
    cfg = Config() if config is None else config
    n_steps = int_in_range("steps", steps, 1, 1_000_000)
    pieces = _check_restore(restore)
    x_all, y_all = make_dataset(cfg)

    start = 0
    weights = _init_weights(cfg)
    m = {k: np.zeros_like(w) for k, w in weights.items()}
    v = {k: np.zeros_like(w) for k, w in weights.items()}
    t = 0
    g_drop = np.random.default_rng(cfg.dropout_seed)
    g_shuf = np.random.default_rng(cfg.shuffle_seed)
    epoch, cursor = 0, 0
    order: npt.NDArray[np.int64] | None = None
    if resume is not None:
        if resume.weights["W1"].shape != (2, cfg.hidden):
            raise ValueError(f"resume must come from a run with hidden = {cfg.hidden}")
        start = resume.step
        if "weights" in pieces:
            weights = {k: np.array(a, copy=True) for k, a in resume.weights.items()}
        if "optimizer" in pieces:
            t = resume.optimizer.t
            m = {k: np.array(a, copy=True) for k, a in resume.optimizer.m.items()}
            v = {k: np.array(a, copy=True) for k, a in resume.optimizer.v.items()}
        if "rng" in pieces:
            g_drop = resume.rng.generator("dropout")
            g_shuf = resume.rng.generator("shuffle")
        if "data" in pieces:
            epoch, cursor = resume.data.epoch, resume.data.cursor
            order = np.array(resume.data.order, copy=True)
    if order is None:
        order = g_shuf.permutation(cfg.samples)

    wanted = sorted({int_in_range("save_at step", s, start + 1, start + n_steps) for s in save_at})

    def snapshot(step: int, order_now: npt.NDArray[np.int64]) -> Checkpoint:
        o = np.array(order_now, copy=True)
        o.setflags(write=False)
        return Checkpoint(
            step=step,
            weights=_frozen(weights),
            optimizer=AdamState(t, _frozen(m), _frozen(v)),
            rng=RngState(
                MappingProxyType(copy.deepcopy(g_drop.bit_generator.state)),
                MappingProxyType(copy.deepcopy(g_shuf.bit_generator.state)),
            ),
            data=DataPosition(epoch, cursor, o),
        )

    losses = np.empty(n_steps)
    batch_losses = np.empty(n_steps)
    saved: list[Checkpoint] = []
    keep = 1.0 - cfg.dropout
    for i in range(n_steps):
        step = start + i  # 0-based global index of this step
        if cursor >= cfg.samples:
            order = g_shuf.permutation(cfg.samples)
            epoch, cursor = epoch + 1, 0
        idx = order[cursor : cursor + cfg.batch]
        cursor += cfg.batch
        mask = (g_drop.random((cfg.batch, cfg.hidden)) >= cfg.dropout) / keep
        batch_losses[i], grads = _loss_and_grads(weights, x_all[idx], y_all[idx], mask)
        t += 1
        lr = cfg.lr_at(step)
        for k in PARAMS:
            weights[k], m[k], v[k] = adam_update(weights[k], grads[k], m[k], v[k], t, lr, cfg.beta1, cfg.beta2,
                                                 cfg.eps)
        losses[i] = _bce(_logits(weights, x_all), y_all)
        if wanted and step + 1 == wanted[0]:
            saved.append(snapshot(step + 1, order))
            wanted.pop(0)
    return Run(cfg, start, losses, batch_losses, tuple(saved), snapshot(start + n_steps, order))


# ------------------------------------------------------------------------------------------------------------
# the experiment of the book: interrupt, then resume with all or all-but-one pieces
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RecoveryExperiment:
    """An uninterrupted ``baseline`` of ``total`` steps, checkpointed after ``save_step``, and one resumed run per
    scenario of :data:`SCENARIOS` (``resumed[name]`` covers steps ``save_step+1 … total``)."""

    total: int
    save_step: int
    baseline: Run
    resumed: Mapping[str, Run] = field(default_factory=dict)

    def _run(self, name: str) -> Run:
        if name not in self.resumed:
            raise ValueError(f"name must be one of {', '.join(self.resumed)}; got {name!r}")
        return self.resumed[name]

    def loss(self, name: str) -> FloatArray:
        """Loss curve of the interrupted run ``name`` over all ``total`` steps (baseline up to the save)."""
        return np.concatenate([self.baseline.loss[: self.save_step], self._run(name).loss])

    def identical(self, name: str) -> bool:
        """True iff the resumed run equals the baseline bit for bit (every loss and every final weight)."""
        run = self._run(name)
        same_loss = np.array_equal(run.loss, self.baseline.loss[self.save_step :])
        same_w = all(np.array_equal(run.final.weights[k], self.baseline.final.weights[k]) for k in PARAMS)
        return bool(same_loss and same_w)

    def excess(self, name: str) -> FloatArray:
        """``loss(name) − baseline loss`` for the steps after the save (zeros for an exact resume)."""
        return np.asarray(self._run(name).loss - self.baseline.loss[self.save_step :])

    def first_divergence(self, name: str) -> int | None:
        """First global step whose loss differs from the baseline, or ``None`` if none does."""
        diff = np.flatnonzero(self.excess(name) != 0)
        return None if diff.size == 0 else self.save_step + int(diff[0]) + 1

    def first_update(self, name: str) -> FloatArray:
        """``|Δθ| / lr`` of every parameter element in the first step after the resume of scenario ``name``.

        For an exact resume this is the baseline's own step (mostly well below 1: Adam's ``v̂`` remembers the large
        early gradients); after dropping the optimizer state it is ``|g|/(|g| + ε) ≈ 1`` wherever ``g ≠ 0``.
        """
        pieces = SCENARIOS.get(name)
        if pieces is None:
            raise ValueError(f"name must be one of {', '.join(SCENARIOS)}; got {name!r}")
        ckpt = self.baseline.checkpoint(self.save_step)
        cfg = self.baseline.config
        after = train(1, cfg, resume=ckpt, restore=pieces).final.weights
        lr = cfg.lr_at(self.save_step)
        return np.concatenate([np.abs(after[k] - ckpt.weights[k]).ravel() / lr for k in PARAMS])

    def peak_excess(self, name: str, window: int = 50) -> tuple[int, float]:
        """Largest ``loss − baseline`` within ``window`` steps after the resume: ``(global step, excess)``."""
        w = int_in_range("window", window, 1)
        ex = self.excess(name)[:w]
        i = int(np.argmax(ex))
        return self.save_step + i + 1, float(ex[i])


def recovery_experiment(total: int = 600, save_step: int = 300, config: Config | None = None) -> RecoveryExperiment:
    """Train ``total`` steps with a checkpoint after ``save_step``; resume from it once per scenario."""
    cfg = Config() if config is None else config
    n = int_in_range("total", total, 2, 1_000_000)
    k = int_in_range("save_step", save_step, 1, n - 1)
    base = train(n, cfg, save_at=(k,))
    ckpt = base.checkpoint(k)
    resumed = {name: train(n - k, cfg, resume=ckpt, restore=pieces) for name, pieces in SCENARIOS.items()}
    return RecoveryExperiment(n, k, base, MappingProxyType(resumed))
