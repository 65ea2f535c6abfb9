"""clusterlab.numerics: fixed-order arithmetic — accuracy against math / fractions, exact order, CPU independence."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from clusterlab import numerics as nm


def _ulps(got: float, want: float) -> float:
    if got == want:
        return 0.0
    return abs(got - want) / math.ulp(abs(want)) if want != 0 else math.inf


@given(st.floats(-708.0, 709.0))
def test_exp_within_two_ulps_of_math(x: float) -> None:
    assert _ulps(float(nm.exp(x)), math.exp(x)) <= 2


@given(st.floats(-30.0, 30.0))
def test_expm1_and_tanh_within_four_ulps(x: float) -> None:
    assert _ulps(float(nm.expm1(x)), math.expm1(x)) <= 4
    assert _ulps(float(nm.tanh(x)), math.tanh(x)) <= 4


@given(st.floats(1e-300, 1e300))
def test_log_within_four_ulps(x: float) -> None:
    want = math.log(x)
    got = float(nm.log(x))
    assert abs(got - want) <= 4 * math.ulp(abs(want)) + 1e-300


@given(st.floats(-0.99, 1e6))
def test_log1p_and_softplus(x: float) -> None:
    assert _ulps(float(nm.log1p(x)), math.log1p(x)) <= 4
    z = math.log(x + 2.0)
    assert math.isclose(float(nm.softplus(z)), math.log1p(math.exp(z)), rel_tol=1e-15)


def test_special_values() -> None:
    assert np.array_equal(nm.exp([np.inf, -np.inf, 800.0, -800.0]), [np.inf, 0.0, np.inf, 0.0])
    assert np.isnan(nm.exp(np.nan)) and np.isnan(nm.log(-1.0)) and np.isnan(nm.tanh(np.nan))
    assert nm.log(0.0) == -np.inf and nm.log(np.inf) == np.inf
    assert np.array_equal(nm.tanh([np.inf, -np.inf, 25.0, 0.0]), [1.0, -1.0, 1.0, 0.0])
    assert float(nm.exp(0.0)) == 1.0 and float(nm.log(1.0)) == 0.0
    assert math.isclose(float(nm.sigmoid(0.0)), 0.5) and float(nm.float32_sigmoid(np.float32(0))) == 0.5


@given(st.floats(0.5, 1.5), st.integers(0, 1500))
def test_powi_is_repeated_squaring(base: float, n: int) -> None:
    want = base**n
    assert nm.powi(base, n) == pytest.approx(want, rel=1e-12, abs=1e-300)


def test_powi_rejects_negative_exponent() -> None:
    with pytest.raises(ValueError, match="n must be ≥ 0"):
        nm.powi(0.9, -1)


_f32 = st.floats(-1e3, 1e3, width=32)


@given(hnp.arrays(np.float32, st.tuples(st.integers(1, 5), st.integers(1, 7)), elements=_f32),
       st.integers(1, 4))
def test_dot_adds_products_along_the_fixed_tree(a: np.ndarray, n: int) -> None:
    """Each element of dot(a, b) equals the float32 products added by the halving tree, written out by hand."""
    b = (np.arange(a.shape[1] * n, dtype=np.float32).reshape(a.shape[1], n) - 3) / np.float32(7)
    got = nm.dot(a, b)
    assert got.dtype == np.float32 and got.shape == (a.shape[0], n)

    def tree(terms: list[np.float32]) -> np.float32:
        while len(terms) > 1:
            h = len(terms) // 2
            terms = [np.float32(terms[i] + terms[h + i]) for i in range(h)] + terms[2 * h:]
        return terms[0]

    for i in range(a.shape[0]):
        for k in range(n):
            want = tree([np.float32(a[i, j] * b[j, k]) for j in range(a.shape[1])])
            assert got[i, k].tobytes() == want.tobytes()


def test_dot_and_sequential_sum_shapes_and_errors() -> None:
    a = np.ones((2, 3, 4), dtype=np.float64)
    assert nm.dot(a, np.ones(4)).shape == (2, 3)
    assert nm.dot(a, np.ones((4, 5))).shape == (2, 3, 5)
    assert np.array_equal(nm.sequential_sum(np.arange(12.0).reshape(3, 4), axis=0), [12.0, 15.0, 18.0, 21.0])
    assert np.array_equal(nm.pairwise_sum(np.arange(12.0).reshape(3, 4), axis=1), [6.0, 22.0, 38.0])
    with pytest.raises(ValueError, match="must not be empty"):
        nm.pairwise_sum(np.ones((2, 0)), axis=1)
    with pytest.raises(ValueError, match="same floating dtype"):
        nm.dot(a, np.ones(4, dtype=np.float32))
    with pytest.raises(ValueError, match="last axis must match"):
        nm.dot(a, np.ones(3))
    with pytest.raises(ValueError, match="must not be empty"):
        nm.sequential_sum(np.ones((0, 2)))


@given(hnp.arrays(np.float64, st.integers(1, 40), elements=st.floats(-1e12, 1e12)))
def test_mean_is_the_correctly_rounded_sum_over_n(x: np.ndarray) -> None:
    exact = sum((Fraction(float(v)) for v in x), Fraction(0))
    assert nm.mean(x) == float(exact) / x.size


@given(st.integers(4, 40), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_lstsq_agrees_with_lapack(m: int, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, n)) * 10.0 ** rng.integers(-3, 4, n)
    b = rng.standard_normal(m)
    x, rank = nm.lstsq(a, b)
    assert rank == min(n, m)
    want = np.linalg.lstsq(a, b, rcond=None)[0]
    assert np.allclose(x, want, rtol=1e-8, atol=1e-12 * np.abs(want).max())


def test_lstsq_reports_rank_deficiency_and_bad_shapes() -> None:
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    x, rank = nm.lstsq(a, np.ones(3))
    assert rank == 1 and all(math.isnan(v) for v in x)
    with pytest.raises(ValueError, match="1 … 16 columns"):
        nm.lstsq(np.ones((1, 2)), np.ones(1))
    with pytest.raises(ValueError, match="m × n"):
        nm.lstsq(np.ones((3, 2)), np.ones(2))


# ------------------------------------------------------------------------------------------------------------
# the same bits whatever numpy's SIMD level: a fresh process with the dispatch limited to the baseline
# ------------------------------------------------------------------------------------------------------------
_PROBE = """
import hashlib, numpy as np
from clusterlab import numerics as nm
from clusterlab.faults import divergence as dv
rng = np.random.default_rng(7)
x = rng.uniform(-40, 40, 4096)
a = rng.standard_normal((64, 33)).astype(np.float32)
b = rng.standard_normal((33, 9)).astype(np.float32)
parts = [nm.exp(x), nm.log(np.abs(x) + 1e-3), nm.tanh(x), nm.softplus(x), nm.float32_tanh(x.astype(np.float32)),
         nm.dot(a, b), np.array(nm.lstsq(rng.standard_normal((30, 3)), rng.standard_normal(30))[0])]
run = dv.training_divergence(4, 12, orders=("ring", "tree"), seed=3)
parts += [run.loss, run.final_parameters]
print(hashlib.sha256(b"".join(np.ascontiguousarray(p).tobytes() for p in parts)).hexdigest())
"""


def _probe(extra_env: dict[str, str]) -> str:
    env = dict(os.environ, **extra_env)
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.mark.skipif(os.uname().machine not in ("x86_64", "amd64"), reason="numpy's x86-64 SIMD levels only")
def test_same_bits_under_numpy_baseline_dispatch() -> None:
    """numerics and the fixed-order training give identical bytes with numpy's SIMD dispatch limited to the
    x86-64 baseline (no AVX, no FMA) and with the machine's best level."""
    from clusterlab.lab.variants import NPY_ABOVE_BASELINE

    assert _probe({}) == _probe({"NPY_DISABLE_CPU_FEATURES": NPY_ABOVE_BASELINE})

