"""Two data-parallel training runs that differ only in the order of the gradient all-reduce (§9.6.5).

A tiny float32 MLP (``features`` inputs → ``hidden`` tanh units → one logit, binary cross-entropy) learns a seeded
teacher's labels by plain SGD. Each of ``N`` simulated ranks computes the float32 gradient of its own
``batch_per_rank`` samples; the ``N`` gradient vectors are summed by
:func:`clusterlab.faults.determinism.reduce_gradients` in one order per run (e.g. the ring simulator's order in
run A and the NCCL tree's in run B), divided by ``N`` and applied: ``θ ← θ − η·(Σ_r g_r)/N``. Data, initial
weights and every other operation are the same in both runs, so any difference starts as the last-bit difference
of the sums and is then carried — and amplified — by the nonlinear training dynamics.

Two backends compute the same mathematics. ``"fixed"`` (the default, used for every number the book prints) adds
the products of each matrix product one at a time in index order and evaluates ``tanh``, the logistic function and
the loss from correctly rounded operations (:mod:`clusterlab.numerics`), so a run gives the same bits on every CPU
and the only difference between runs A and B is the all-reduce order. ``"blas"`` writes the passes as one usually
would, with ``@`` (BLAS) and numpy's ``tanh``: then the bits also depend on the BLAS kernel and the SIMD level of the
machine, a second source of difference that §9.6.5.2 measures.

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

from .. import numerics as nm
from ..validate import choice, int_in_range, positive
from .determinism import MAX_RANKS, ORDERS, reduce_gradients, ulp_distance

__all__ = ["BACKENDS", "TrainingDivergence", "training_divergence"]


@dataclass(frozen=True)
class TrainingDivergence:
    """Result of :func:`training_divergence`: runs A and B use ``orders[0]`` and ``orders[1]``.

    Arrays have ``steps + 1`` entries (index 0: before the first step, where both runs are identical):
    ``loss`` (2 × (steps + 1), nats, run A then run B), ``max_param_diff`` (largest ``|θ_A − θ_B|`` over the
    parameters), ``max_param_ulp`` (largest float32 ULP distance between the parameters), ``differing_params``
    (how many of the ``parameters`` differ in at least one bit); ``final_parameters`` (2 × ``parameters``, float32):
    θ of run A and of run B after the last step.
    """

    ranks: int
    steps: int
    orders: tuple[str, str]
    parameters: int
    learning_rate: float
    backend: str
    loss: npt.NDArray[np.float64] = field(repr=False)
    max_param_diff: npt.NDArray[np.float64] = field(repr=False)
    max_param_ulp: npt.NDArray[np.int64] = field(repr=False)
    differing_params: npt.NDArray[np.int64] = field(repr=False)
    final_parameters: npt.NDArray[np.float32] = field(repr=False)

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


def _gradient_blas(theta: npt.NDArray[np.float32], x: npt.NDArray[np.float32], y: npt.NDArray[np.float32],
                   hidden: int) -> npt.NDArray[np.float32]:
    """Float32 gradients of every rank's batch (``x``: ranks × batch × features) the way one usually writes it:
    matrix products through BLAS (``@``) and numpy's ``tanh`` — bits that depend on the CPU's BLAS kernel and SIMD
    level. Backpropagation by hand; one row per rank."""
    w1, b1, w2, b2 = _unpack(theta, x.shape[2], hidden)
    out = []
    for xr, yr in zip(x, y, strict=True):
        h = np.tanh(xr @ w1 + b1)
        z = h @ w2 + b2
        p = np.float32(0.5) * (np.float32(1) + np.tanh(np.float32(0.5) * z))  # sigmoid, no overflow
        dz = (p - yr) / np.float32(xr.shape[0])
        da = np.outer(dz, w2) * (np.float32(1) - h * h)
        out.append(np.concatenate([(xr.T @ da).ravel(), da.sum(axis=0), h.T @ dz, [dz.sum()]]))
    return np.stack(out).astype(np.float32)


def _gradient_fixed(theta: npt.NDArray[np.float32], x: npt.NDArray[np.float32], y: npt.NDArray[np.float32],
                    hidden: int) -> npt.NDArray[np.float32]:
    """The same float32 gradients with every sum in an order the code fixes (:func:`clusterlab.numerics.dot`,
    :func:`~clusterlab.numerics.sequential_sum`) and ``tanh`` from correctly rounded operations
    (:func:`~clusterlab.numerics.float32_tanh`): the same bits on every CPU."""
    w1, b1, w2, b2 = _unpack(theta, x.shape[2], hidden)
    h = nm.float32_tanh(nm.dot(x, w1) + b1)  # ranks × batch × hidden
    z = nm.dot(h, w2) + b2  # ranks × batch
    p = nm.float32_sigmoid(z)
    dz = (p - y) / np.float32(x.shape[1])
    da = dz[:, :, None] * w2 * (np.float32(1) - h * h)
    xt = np.swapaxes(x, 1, 2)  # ranks × features × batch
    g_w1 = np.stack([nm.dot(xt[r], da[r]) for r in range(x.shape[0])])
    g_b1 = nm.sequential_sum(da, axis=1)
    g_w2 = np.stack([nm.dot(h[r].T, dz[r]) for r in range(x.shape[0])])
    g_b2 = nm.sequential_sum(dz, axis=1)
    grad = np.concatenate([g_w1.reshape(x.shape[0], -1), g_b1, g_w2, g_b2[:, None]], axis=1)
    return grad.astype(np.float32)


def _loss_blas(theta: npt.NDArray[np.float32], x: npt.NDArray[np.float64], y: npt.NDArray[np.float64],
               hidden: int) -> float:
    """Mean binary cross-entropy (nats) in float64 with BLAS and numpy's ``tanh``/``logaddexp``."""
    w1, b1, w2, b2 = (a.astype(np.float64) for a in _unpack(theta, x.shape[1], hidden))
    z = np.tanh(x @ w1 + b1) @ w2 + b2
    return float(np.mean(np.logaddexp(0.0, -(2 * y - 1) * z)))


def _loss_fixed(theta: npt.NDArray[np.float32], x: npt.NDArray[np.float64], y: npt.NDArray[np.float64],
                hidden: int) -> float:
    """Mean binary cross-entropy (nats) in float64, ``mean(log(1 + e^{−s·z}))`` with ``s = 2y − 1``, in fixed order
    (:mod:`clusterlab.numerics`; the mean is a correctly rounded sum)."""
    w1, b1, w2, b2 = (a.astype(np.float64) for a in _unpack(theta, x.shape[1], hidden))
    z = nm.dot(nm.tanh(nm.dot(x, w1) + b1), w2) + b2
    return nm.mean(nm.softplus(-(2 * y - 1) * z))


BACKENDS = ("fixed", "blas")
"""``fixed``: every float32 sum in an order the code fixes (the book's numbers, identical on every CPU); ``blas``:
matrix products through BLAS and numpy's SIMD ``tanh`` (bits depend on the machine — §9.6.5.2 measures how)."""
_IMPL = {"fixed": (_gradient_fixed, _loss_fixed), "blas": (_gradient_blas, _loss_blas)}


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
    backend: str = "fixed",
) -> TrainingDivergence:
    """Train the same seeded MLP twice on ``ranks`` simulated ranks for ``steps`` SGD steps, all-reducing the
    gradients in ``orders[0]`` (run A) and ``orders[1]`` (run B) — see the module docstring — and record, after
    every step, both losses, the largest parameter difference and its size in ULPs.

    ``ranks``: 2 … 1024; ``steps``: 1 … 10 000; ``orders``: two names from
    :data:`~clusterlab.faults.determinism.ORDERS` (``"arrival"`` draws a new permutation every step);
    ``learning_rate`` η > 0; ``seed`` fixes data, labels and initial weights; ``backend``: one of :data:`BACKENDS`
    (``"fixed"``, the default, gives the same bits on every CPU; ``"blas"`` computes the forward and backward
    passes with BLAS and numpy's ``tanh``, as one usually would, and its bits depend on the machine).
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
    gradient, loss_of = _IMPL[choice("backend", backend, BACKENDS)]

    rng = np.random.default_rng(s)
    teacher = rng.standard_normal(d)
    x_eval = rng.standard_normal((m, d))
    y_eval = (nm.dot(x_eval, teacher) > 0).astype(np.float64)
    theta0 = _init(rng, d, hid)
    thetas = [theta0.copy(), theta0.copy()]
    eta = np.float32(lr)
    inv_n = np.float32(1.0 / n)

    loss = np.empty((2, t + 1))
    diff = np.zeros(t + 1)
    ulps = np.zeros(t + 1, dtype=np.int64)
    differing = np.zeros(t + 1, dtype=np.int64)
    loss[:, 0] = loss_of(theta0, x_eval, y_eval, hid)
    for step in range(1, t + 1):
        x = rng.standard_normal((n, b, d))
        y = (nm.dot(x, teacher) + 0.5 * rng.standard_normal((n, b)) > 0).astype(np.float32)
        x32 = x.astype(np.float32)
        for k in range(2):
            grads = gradient(thetas[k], x32, y, hid)
            total = reduce_gradients(grads, pair[k], seed=s + step)
            thetas[k] = (thetas[k] - eta * (total * inv_n)).astype(np.float32)
            loss[k, step] = loss_of(thetas[k], x_eval, y_eval, hid)
        delta = ulp_distance(thetas[0], thetas[1])
        diff[step] = float(np.abs(thetas[0].astype(np.float64) - thetas[1]).max())
        ulps[step] = int(delta.max())
        differing[step] = int(np.count_nonzero(delta))
    final = np.stack(thetas)
    for arr in (loss, diff, ulps, differing, final):
        arr.setflags(write=False)
    return TrainingDivergence(n, t, (pair[0], pair[1]), int(theta0.size), lr, backend, loss, diff, ulps,
                              differing, final)
