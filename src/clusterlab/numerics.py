"""Floating-point results with the same bits on every CPU: products, sums, exp, log, tanh and small least squares
evaluated in an order the code fixes.

Why this module exists. IEEE 754 requires the basic operations + − × ÷ and √ to be correctly rounded (IEEE
754-2019 §4.3, §5.4.1), so one such operation on the same operands gives the same bits on any conforming CPU, and a
fixed sequence of them gives a fixed result. Two common building blocks do not have that property:

- **Matrix products through BLAS** (``a @ b``, ``np.dot``, ``np.linalg``). OpenBLAS selects a kernel for the CPU it
  runs on (``OPENBLAS_CORETYPE`` overrides the choice); kernels differ in blocking, in the number of partial sums and
  in the use of fused multiply-add, so they add the same products in different orders and round differently.
- **numpy's transcendental functions** (``np.exp``, ``np.log``, ``np.tanh`` …). numpy dispatches them at run time to
  implementations for the instruction-set level it finds (e.g. AVX-512, AVX2, baseline SSE; NEON on ARM64), whose
  last bits may differ; ``NPY_DISABLE_CPU_FEATURES`` restricts the choice.

§9.6.5.2 measures both effects. Everything here is built from correctly rounded elementwise numpy operations
(``+ − × ÷``, ``rint``, ``ldexp``, ``frexp``, comparisons) applied in a sequence written in this file — each is a
separate ufunc call, so no compiler can fuse a multiply and an add — and from :func:`math.fsum` (correctly rounded,
so independent of order). Elementwise SIMD does not change results: every lane performs its own correctly rounded
operation. The results are therefore identical on any x86-64 or ARM64 CPU with the same numpy version.

Accuracy: :func:`exp`, :func:`expm1`, :func:`log`, :func:`log1p`, :func:`tanh` are float64 evaluations within a few
units in the last place (ULP) of the exact value (tested against :mod:`math` on many points); the float32 wrappers
round them once. :func:`dot` rounds every product once and adds them along a balanced tree fixed by the number of terms
(:func:`pairwise_sum`), in the dtype of its inputs — an order of our choosing, not that of any BLAS kernel.

Sources: IEEE 754-2019; Cody–Waite range reduction and the constants of fdlibm's ``e_exp.c`` (Sun Microsystems,
1993) for :func:`exp`; the series ``log m = 2 atanh((m−1)/(m+1))`` (Abramowitz & Stegun 4.1.27); Householder QR
for least squares (Golub & Van Loan, *Matrix Computations*, 4th ed., §5.3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["dot", "exp", "expm1", "float32_sigmoid", "float32_tanh", "fsum_rows", "log", "log1p", "lstsq",
           "mean", "pairwise_sum", "powi", "sequential_sum", "sigmoid", "softplus", "tanh"]

FloatArray = npt.NDArray[np.floating]

# fdlibm e_exp.c: ln2 split so that k·LN2_HI is exact for |k| < 2^20
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_SQRT_HALF = 0.7071067811865476
_EXP_TAYLOR = tuple(1.0 / math.factorial(n) for n in range(14))  # |r| ≤ ln2/2: remainder < 1e-17 relative
_EXPM1_TAYLOR = tuple(1.0 / math.factorial(n) for n in range(1, 18))  # for |x| < 0.5
_ATANH_ODD = tuple(1.0 / (2 * i + 1) for i in range(18))  # Σ s^i/(2i+1), s = f²


def _f64(x: npt.ArrayLike) -> npt.NDArray[np.float64]:
    return np.asarray(x, dtype=np.float64)


def _horner(x: npt.NDArray[np.float64], coeffs: Sequence[float]) -> npt.NDArray[np.float64]:
    """``Σ coeffs[i]·x^i`` by Horner's rule, one multiply and one add per step (never fused)."""
    acc = np.full_like(x, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        acc = np.add(np.multiply(acc, x), c)
    return acc


def exp(x: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``e^x`` in float64 (elementwise): ``x = k·ln2 + r`` with ``|r| ≤ ln2/2`` (Cody–Waite), ``e^r`` by its Taylor
    polynomial of degree 13, then ``2^k·e^r`` exactly by ``ldexp``. Overflows to inf above ≈ 709.78, underflows
    to subnormals and 0 below ≈ −708; NaN stays NaN."""
    v = _f64(x)
    finite = np.isfinite(v)
    z = np.clip(np.where(finite, v, 0.0), -760.0, 720.0)
    k = np.rint(np.multiply(z, _INV_LN2))
    r = np.subtract(np.subtract(z, np.multiply(k, _LN2_HI)), np.multiply(k, _LN2_LO))
    with np.errstate(over="ignore", under="ignore"):
        out = np.ldexp(_horner(r, _EXP_TAYLOR), k.astype(np.int64))
    out = np.where(finite, out, np.where(v > 0, np.inf, np.where(v < 0, 0.0, v)))
    return np.asarray(out, dtype=np.float64)


def expm1(x: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``e^x − 1`` in float64, accurate also for small ``|x|`` (Taylor polynomial of degree 17 for ``|x| < 0.5``,
    :func:`exp` − 1 elsewhere)."""
    v = _f64(x)
    small = np.abs(v) < 0.5
    if not small.any():
        return np.asarray(np.subtract(exp(v), 1.0), dtype=np.float64)
    series = np.multiply(_horner(np.where(small, v, 0.0), _EXPM1_TAYLOR), v)
    if small.all():
        return np.asarray(series, dtype=np.float64)
    return np.asarray(np.where(small, series, np.subtract(exp(np.where(small, 0.0, v)), 1.0)), dtype=np.float64)


def log(x: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Natural logarithm in float64: ``x = m·2^e`` exactly (``frexp``), ``m`` scaled into ``[√½, √2)``, then
    ``log m = 2 atanh(f)`` with ``f = (m−1)/(m+1)`` (``|f| ≤ 0.172``, series to ``f^35``) and ``e·ln2`` added in two
    parts. ``log 0 = −inf``, negative → NaN, ``log inf = inf``."""
    v = _f64(x)
    ok = np.isfinite(v) & (v > 0)
    m, e = np.frexp(np.where(ok, v, 1.0))
    low = m < _SQRT_HALF
    m = np.where(low, np.multiply(m, 2.0), m)
    e = np.where(low, e - 1, e).astype(np.float64)
    f = np.divide(np.subtract(m, 1.0), np.add(m, 1.0))
    two_atanh = np.multiply(np.multiply(f, 2.0), _horner(np.multiply(f, f), _ATANH_ODD[:12]))
    out = np.add(np.multiply(e, _LN2_HI), np.add(np.multiply(e, _LN2_LO), two_atanh))
    special = np.where(v == 0, -np.inf, np.where(v == np.inf, np.inf, np.nan))
    return np.asarray(np.where(ok, out, special), dtype=np.float64)


def log1p(x: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``log(1 + x)`` in float64 for ``x > −1``, accurate for small ``|x|``: ``2 atanh(x/(2+x))`` by its series for
    ``0 ≤ x ≤ 1`` and ``−0.25 ≤ x < 0`` (``|f| ≤ 1/3``), :func:`log` of ``1 + x`` elsewhere."""
    v = _f64(x)
    near = (v >= -0.25) & (v <= 1.0)
    u = np.where(near, v, 0.0)
    f = np.divide(u, np.add(u, 2.0))
    series = np.multiply(np.multiply(f, 2.0), _horner(np.multiply(f, f), _ATANH_ODD))
    return np.asarray(np.where(near, series, log(np.add(np.where(near, 0.0, v), 1.0))), dtype=np.float64)


def tanh(x: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``tanh x`` in float64: ``sign(x)·t/(t + 2)`` with ``t = expm1(2|x|)``; ``|x| ≥ 20`` gives ±1 exactly."""
    v = _f64(x)
    a = np.minimum(np.abs(v), 20.0)
    t = expm1(np.multiply(a, 2.0))
    mag = np.divide(t, np.add(t, 2.0))
    return np.asarray(np.where(v < 0, np.negative(mag), np.where(v > 0, mag, v)), dtype=np.float64)


def softplus(z: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``log(1 + e^z)`` = ``max(z, 0) + log1p(e^{−|z|})`` in float64, without overflow (the logistic loss)."""
    v = _f64(z)
    return np.asarray(np.add(np.maximum(v, 0.0), log1p(exp(np.negative(np.abs(v))))), dtype=np.float64)


def sigmoid(z: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Logistic ``1/(1 + e^{−z})`` in float64 (``e^{−z}`` by :func:`exp`; overflow to inf gives 0)."""
    return np.asarray(np.divide(1.0, np.add(exp(np.negative(_f64(z))), 1.0)), dtype=np.float64)


def powi(base: float, n: int) -> float:
    """``base**n`` for an integer ``n ≥ 0`` by repeated squaring with correctly rounded multiplications (Python's
    ``**`` on floats calls the C library's ``pow``, whose last bit is not specified)."""
    if n < 0:
        raise ValueError(f"n must be ≥ 0, got {n}")
    result, b, k = 1.0, float(base), int(n)
    while k:
        if k & 1:
            result *= b
        b *= b
        k >>= 1
    return result


def float32_tanh(x: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """``tanh`` of float32 values, evaluated by :func:`tanh` in float64 and rounded once to float32."""
    return tanh(np.asarray(x, dtype=np.float32).astype(np.float64)).astype(np.float32)


def float32_sigmoid(z: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Logistic ``1/(1 + e^{−z})`` of float32 values as ``½(1 + tanh(z/2))`` (no overflow), rounded to float32."""
    half = np.multiply(np.asarray(z, dtype=np.float32).astype(np.float64), 0.5)
    return np.multiply(np.add(tanh(half), 1.0), 0.5).astype(np.float32)


def pairwise_sum(x: npt.ArrayLike, axis: int = 0) -> npt.NDArray[np.floating]:
    """Sum along ``axis`` by a balanced tree that the code fixes, in the input's dtype: the first half of the terms
    is added elementwise to the second half (an odd last term waits), and so on until one term is left —
    ``⌈log₂ k⌉`` rounds of elementwise additions for ``k`` terms. The tree depends only on ``k``, never on the CPU."""
    v = np.moveaxis(np.asarray(x), axis, 0)
    if v.shape[0] == 0:
        raise ValueError(f"axis {axis} must not be empty")
    while v.shape[0] > 1:
        h = v.shape[0] // 2
        head = np.add(v[:h], v[h : 2 * h])
        v = head if v.shape[0] == 2 * h else np.concatenate([head, v[2 * h :]])
    return np.asarray(v[0])


def dot(a: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.floating]:
    """Contract the last axis of ``a`` with the first axis of ``b`` (like ``a @ b`` for 1-D or 2-D ``b``): every
    product ``a[…, j]·b[j, …]`` is rounded once, then the ``k`` products are added by :func:`pairwise_sum`'s fixed
    tree. Unlike BLAS, the order of additions is the same on every CPU.

    The dtype is that of the inputs (float32 stays float32, so every product and partial sum is rounded to float32);
    both must have the same floating dtype. The result has shape ``a.shape[:-1] + b.shape[1:]``.
    """
    x = np.asarray(a)
    y = np.asarray(b)
    if x.dtype != y.dtype or x.dtype.kind != "f":
        raise ValueError(f"a and b must have the same floating dtype, got {x.dtype} and {y.dtype}")
    if x.ndim < 1 or y.ndim < 1 or x.shape[-1] != y.shape[0]:
        raise ValueError(f"a's last axis must match b's first axis, got shapes {x.shape} and {y.shape}")
    if x.shape[-1] == 0:
        raise ValueError("the contracted axis must not be empty")
    k = x.shape[-1]
    # products with the contracted axis first: shape (k, *a.shape[:-1], *b.shape[1:])
    lhs = np.moveaxis(x, -1, 0).reshape((k,) + x.shape[:-1] + (1,) * (y.ndim - 1))
    rhs = y.reshape((k,) + (1,) * (x.ndim - 1) + y.shape[1:])
    return pairwise_sum(np.multiply(lhs, rhs), axis=0)


def sequential_sum(x: npt.ArrayLike, axis: int = 0) -> npt.NDArray[np.floating]:
    """Sum along ``axis`` one term at a time in index order, in the input's dtype (``((x₀ + x₁) + x₂) + …``)."""
    v = np.moveaxis(np.asarray(x), axis, 0)
    if v.shape[0] == 0:
        raise ValueError(f"axis {axis} must not be empty")
    acc = np.array(v[0], copy=True)
    for row in v[1:]:
        acc = np.add(acc, row)
    return np.asarray(acc)


def fsum_rows(x: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Correctly rounded sum of each row of a 2-D array (:func:`math.fsum`): independent of order and CPU."""
    v = _f64(x)
    if v.ndim != 2:
        raise ValueError(f"x must be 2-D, got shape {v.shape}")
    return np.array([math.fsum(row) for row in v.tolist()], dtype=np.float64)


def mean(x: npt.ArrayLike) -> float:
    """Mean of all elements as the correctly rounded sum (:func:`math.fsum`) divided by their count."""
    v = _f64(x).ravel()
    if v.size == 0:
        raise ValueError("x must not be empty")
    return math.fsum(v.tolist()) / v.size


def lstsq(a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[tuple[float, ...], int]:
    """Least-squares solution of ``a·x ≈ b`` for a small tall matrix (``m ≥ n`` rows, ``n ≤ 16`` columns) by
    Householder QR in Python floats, every inner product a :func:`math.fsum`.

    Returns ``(x, rank)``; ``rank < n`` when a column is (numerically) a combination of the previous ones — its
    reflection norm is at most ``1e-12`` times the largest column norm — and then ``x`` holds NaN.
    """
    mat = _f64(a)
    rhs = _f64(b)
    if mat.ndim != 2 or rhs.shape != (mat.shape[0],):
        raise ValueError(f"a must be m × n and b of length m, got shapes {mat.shape} and {rhs.shape}")
    m, n = mat.shape
    if not 1 <= n <= 16 or m < n:
        raise ValueError(f"a must have 1 … 16 columns and at least as many rows, got {m} × {n}")
    cols = [mat[:, j].tolist() for j in range(n)]
    y = rhs.tolist()
    scale = max(math.sqrt(math.fsum(v * v for v in c)) for c in cols)
    if not scale > 0:
        return tuple(math.nan for _ in range(n)), 0
    r_diag: list[float] = []
    r_upper: list[list[float]] = [[0.0] * n for _ in range(n)]
    rank = n
    for j in range(n):
        c = cols[j]
        norm = math.sqrt(math.fsum(v * v for v in c[j:]))
        if norm <= 1e-12 * scale:
            rank = min(rank, j)
            r_diag.append(0.0)
            continue
        alpha = -norm if c[j] >= 0 else norm
        v = [0.0] * j + [c[j] - alpha] + c[j + 1 :]
        vv = math.fsum(t * t for t in v[j:])
        for k in range(j + 1, n):
            ck = cols[k]
            f = 2.0 * math.fsum(v[i] * ck[i] for i in range(j, m)) / vv
            for i in range(j, m):
                ck[i] -= f * v[i]
            r_upper[j][k] = ck[j]
        f = 2.0 * math.fsum(v[i] * y[i] for i in range(j, m)) / vv
        for i in range(j, m):
            y[i] -= f * v[i]
        r_diag.append(alpha)
    if rank < n:
        return tuple(math.nan for _ in range(n)), rank
    x = [0.0] * n
    for j in reversed(range(n)):
        x[j] = (y[j] - math.fsum(r_upper[j][k] * x[k] for k in range(j + 1, n))) / r_diag[j]
    return tuple(x), rank
