"""Two data-parallel training runs that differ only in the order of the gradient all-reduce (§9.6.5).

A tiny float32 MLP (``features`` inputs → ``hidden`` tanh units → one logit, binary cross-entropy) learns a seeded
teacher's labels by plain SGD. Each of ``N`` simulated ranks computes the float32 gradient of its own
``batch_per_rank`` samples; the ``N`` gradient vectors are summed by
:func:`clusterlab.faults.determinism.reduce_gradients` in one order per run (e.g. the ring simulator's order in
run A and the NCCL tree's in run B), divided by ``N`` and applied: ``θ ← θ − η·(Σ_r g_r)/N``. Data, initial
weights and every other operation are the same in both runs, so any difference starts as the last-bit difference
of the sums and is then carried — and amplified — by the nonlinear training dynamics.

Units: parameters, gradients and losses are dimensionless; the loss is the mean binary cross-entropy in nats on a
fixed evaluation set of ``eval_samples`` samples, computed in float64 from the float32 parameters (so that its
difference reflects the parameters only).

Sources: mini-batch SGD with gradient averaging over data-parallel workers as in Goyal et al., "Accurate, large
minibatch SGD", arXiv:1706.02677, §2; floating-point rounding: see :mod:`clusterlab.faults.determinism`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..validate import choice, int_in_range, positive
from .determinism import MAX_RANKS, ORDERS, reduce_gradients, ulp_distance

__all__ = ["TrainingDivergence", "training_divergence"]


@dataclass(frozen=True)
class TrainingDivergence:
    """Result of :func:`training_divergence`: runs A and B use ``orders[0]`` and ``orders[1]``.

    Arrays have ``steps + 1`` entries (index 0: before the first step, where both runs are identical):
    ``loss`` (2 × (steps + 1), nats, run A then run B), ``max_param_diff`` (largest ``|θ_A − θ_B|`` over the
    parameters), ``max_param_ulp`` (largest float32 ULP distance between the parameters), ``differing_params``
    (how many of the ``parameters`` differ in at least one bit).
    """

    ranks: int
    steps: int
    orders: tuple[str, str]
    parameters: int
    learning_rate: float
    loss: npt.NDArray[np.float64] = field(repr=False)
    max_param_diff: npt.NDArray[np.float64] = field(repr=False)
    max_param_ulp: npt.NDArray[np.int64] = field(repr=False)
    differing_params: npt.NDArray[np.int64] = field(repr=False)

    @property
    def loss_diff(self) -> npt.NDArray[np.float64]:
        """``|loss_A − loss_B|`` after every step (nats), ``steps + 1`` entries."""
        out: npt.NDArray[np.float64] = np.abs(self.loss[0] - self.loss[1])
        return out

    @property
    def first_divergent_step(self) -> int | None:
        """The first step after which the parameters of the two runs differ in any bit (None if never)."""
        idx = np.flatnonzero(self.differing_params)
        return int(idx[0]) if idx.size else None


def _init(rng: np.random.Generator, features: int, hidden: int) -> npt.NDArray[np.float32]:
    w1 = rng.standard_normal((features, hidden)) / np.sqrt(features)
    w2 = rng.standard_normal(hidden) / np.sqrt(hidden)
    return np.concatenate([w1.ravel(), np.zeros(hidden), w2, [0.0]]).astype(np.float32)


def _unpack(theta: npt.NDArray[Any], features: int, hidden: int) -> tuple[npt.NDArray[Any], ...]:
    k = features * hidden
    return (theta[:k].reshape(features, hidden), theta[k : k + hidden], theta[k + hidden : k + 2 * hidden],
            theta[k + 2 * hidden :])


def _gradient(theta: npt.NDArray[np.float32], x: npt.NDArray[np.float32], y: npt.NDArray[np.float32],
              hidden: int) -> npt.NDArray[np.float32]:
    """Float32 gradient of the mean binary cross-entropy of one rank's batch (backpropagation by hand)."""
    w1, b1, w2, b2 = _unpack(theta, x.shape[1], hidden)
    h = np.tanh(x @ w1 + b1)
    z = h @ w2 + b2
    p = np.float32(0.5) * (np.float32(1) + np.tanh(np.float32(0.5) * z))  # sigmoid, no overflow
    dz = (p - y) / np.float32(x.shape[0])
    da = np.outer(dz, w2) * (np.float32(1) - h * h)
    grad = np.concatenate([(x.T @ da).ravel(), da.sum(axis=0), h.T @ dz, [dz.sum()]])
    return grad.astype(np.float32)


def _loss(theta: npt.NDArray[np.float32], x: npt.NDArray[np.float64], y: npt.NDArray[np.float64],
          hidden: int) -> float:
    """Mean binary cross-entropy (nats) in float64: ``mean(log(1 + e^{−s·z}))`` with ``s = 2y − 1``."""
    w1, b1, w2, b2 = (a.astype(np.float64) for a in _unpack(theta, x.shape[1], hidden))
    z = np.tanh(x @ w1 + b1) @ w2 + b2
    return float(np.mean(np.logaddexp(0.0, -(2 * y - 1) * z)))


def training_divergence(
    ranks: int,
    steps: int = 100,
    *,
    orders: Sequence[str] = ("ring", "tree"),
    batch_per_rank: int = 16,
    features: int = 8,
    hidden: int = 16,
    learning_rate: float = 0.5,
    eval_samples: int = 1024,
    seed: int = 0,
) -> TrainingDivergence:
    """Train the same seeded MLP twice on ``ranks`` simulated ranks for ``steps`` SGD steps, all-reducing the
    gradients in ``orders[0]`` (run A) and ``orders[1]`` (run B) — see the module docstring — and record, after
    every step, both losses, the largest parameter difference and its size in ULPs.

    ``ranks``: 2 … 1024; ``steps``: 1 … 10 000; ``orders``: two names from
    :data:`~clusterlab.faults.determinism.ORDERS` (``"arrival"`` draws a new permutation every step);
    ``learning_rate`` η > 0; ``seed`` fixes data, labels and initial weights.
    """
    n = int_in_range("ranks", ranks, 2, MAX_RANKS)
    t = int_in_range("steps", steps, 1, 10_000)
    pair = tuple(choice("orders", o, ORDERS) for o in orders)
    if len(pair) != 2:
        raise ValueError(f"orders must name exactly two orders from {', '.join(ORDERS)}, got {tuple(orders)!r}")
    b = int_in_range("batch_per_rank", batch_per_rank, 1, 4096)
    d = int_in_range("features", features, 1, 1024)
    hid = int_in_range("hidden", hidden, 1, 1024)
    lr = positive("learning_rate", learning_rate)
    m = int_in_range("eval_samples", eval_samples, 1, 1 << 20)
    s = int_in_range("seed", seed, 0)

    rng = np.random.default_rng(s)
    teacher = rng.standard_normal(d)
    x_eval = rng.standard_normal((m, d))
    y_eval = (x_eval @ teacher > 0).astype(np.float64)
    theta0 = _init(rng, d, hid)
    thetas = [theta0.copy(), theta0.copy()]
    eta = np.float32(lr)
    inv_n = np.float32(1.0 / n)

    loss = np.empty((2, t + 1))
    diff = np.zeros(t + 1)
    ulps = np.zeros(t + 1, dtype=np.int64)
    differing = np.zeros(t + 1, dtype=np.int64)
    loss[:, 0] = _loss(theta0, x_eval, y_eval, hid)
    for step in range(1, t + 1):
        x = rng.standard_normal((n, b, d))
        y = (x @ teacher + 0.5 * rng.standard_normal((n, b)) > 0).astype(np.float32)
        x32 = x.astype(np.float32)
        for k in range(2):
            grads = np.stack([_gradient(thetas[k], x32[r], y[r], hid) for r in range(n)])
            total = reduce_gradients(grads, pair[k], seed=s + step)
            thetas[k] = (thetas[k] - eta * (total * inv_n)).astype(np.float32)
            loss[k, step] = _loss(thetas[k], x_eval, y_eval, hid)
        delta = ulp_distance(thetas[0], thetas[1])
        diff[step] = float(np.abs(thetas[0].astype(np.float64) - thetas[1]).max())
        ulps[step] = int(delta.max())
        differing[step] = int(np.count_nonzero(delta))
    for arr in (loss, diff, ulps, differing):
        arr.setflags(write=False)
    return TrainingDivergence(n, t, (pair[0], pair[1]), int(theta0.size), lr, loss, diff, ulps, differing)
