"""§9.6.5 determinism: one element summed step by step, one global batch under different DP layouts, bit figure."""

from __future__ import annotations

from fractions import Fraction

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab import viz
from clusterlab.faults import determinism as dt
from clusterlab.faults import summation as sm


@settings(max_examples=40)
@given(st.integers(2, 12), st.integers(1, 40), st.integers(0, 1000), st.sampled_from(sm.LINEAR_ORDERS))
def test_last_partial_sum_is_the_reduction(n, length, seed, order):
    g = dt.sample_gradients(n, length, seed=seed, spread_bits=seed % 20)
    want = dt.reduce_gradients(g, order, seed=seed)
    for i in range(length):
        ps = sm.partial_sums(g, i, order, seed=seed)
        assert ps.values[-1].view(np.uint32) == want[i].view(np.uint32)
        assert sorted(ps.ranks) == list(range(n))


def test_partial_sums_follow_the_ring_chunk_and_the_exact_prefix():
    g = dt.sample_gradients(5, 23, seed=3)
    bounds = np.cumsum([0] + [len(c) for c in np.array_split(np.arange(23), 5)])
    for i in (0, 4, 5, 22):
        chunk = int(np.searchsorted(bounds, i, side="right")) - 1
        ps = sm.partial_sums(g, i)
        assert ps.ranks == dt.ring_order(5)[chunk]
        for k in range(5):  # exact prefix sums, rounded once (rational arithmetic)
            s = sum((Fraction(float(g[r, i])) for r in ps.ranks[: k + 1]), Fraction(0))
            f = ps.exact[k]
            err = abs(Fraction(float(f)) - s)
            for v in (np.nextafter(f, np.float32(-np.inf)), np.nextafter(f, np.float32(np.inf))):
                assert err <= abs(Fraction(float(v)) - s)
    assert ps.ulp_from_exact[0] == 0 and len(ps.hexes) == 5 and ps.result == float(ps.values[-1])


def test_layouts_of_one_batch():
    x = dt.sample_gradients(24, 512, seed=1)
    ls = sm.layout_sums(x, (1, 2, 3, 4, 6, 8, 12, 24))
    seq = x[0].copy()
    for k in range(1, 24):
        seq += x[k]
    assert ls.sums[0].tobytes() == seq.tobytes()  # one rank adds the samples in order
    for n in ls.ranks[1:]:
        assert 0.2 < ls.differing(1, n) < 0.95  # a different layout, different bits
        assert ls.differing(n, n) == 0
        assert np.median(ls.error_ulp(n)) <= 2  # but only in the last bits
    again = sm.layout_sums(x, (4, 8))
    assert again.sums[1].tobytes() == ls.sums[ls.ranks.index(8)].tobytes()  # same layout, same bits


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: sm.partial_sums(np.ones((2, 3)), 3), "element"),
        (lambda: sm.partial_sums(np.ones((2, 3)), 0, "tree"), "order"),
        (lambda: sm.layout_sums(np.ones((6, 3)), (4,)), "divide"),
        (lambda: sm.layout_sums(np.ones((6, 3)), ()), "ranks"),
        (lambda: sm.layout_sums(np.ones((6, 3)), (0,)), "ranks"),
        (lambda: sm.layout_sums(np.ones((6, 3)), (2,)).ulp(2, 3), "ranks"),
    ],
)
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_float_bits_figure_outlines_the_differing_bits(no_leak, strict_warnings):
    one, nxt = np.float32(1.0), np.nextafter(np.float32(1.0), np.float32(2))
    fig = viz.float_bits_figure([("a", float(one)), ("b", float(nxt)), ("c", -1.0)])
    fig.canvas.draw()
    ax = fig.axes[0]
    outlined = [p for p in ax.patches if not p.get_fill()]
    assert len(outlined) == 1 + 1  # b: the last bit; c: the sign bit
    texts = [t.get_text() for t in ax.texts]
    assert "0x3f800001" in texts and "1 位不同" in texts and "参照" in texts
    plt.close(fig)
    with pytest.raises(ValueError, match="rows"):
        viz.float_bits_figure([])
    with pytest.raises(ValueError, match="reference"):
        viz.float_bits_figure([("a", 1.0)], reference=1)


@settings(max_examples=30)
@given(st.integers(2, 16), st.integers(1, 30), st.integers(0, 500), st.sampled_from(dt.ORDERS))
def test_every_order_uses_at_most_the_whole_bound(n, length, seed, order):
    g = dt.sample_gradients(n, length, seed=seed, spread_bits=seed % 25)
    use = sm.bound_use(g, order, seed=seed)
    assert np.all(use.ratio <= 1 + 1e-9) and np.all(use.ratio >= 0)
    assert np.all(use.condition >= 1 - 1e-12)


def test_cancellation_explains_large_ulp_errors():
    g = dt.sample_gradients(16, 4096)
    use = sm.bound_use(g, "ring")
    worst = int(np.argmax(dt.compare_orders(g, ("ring",)).error_ulp("ring")))
    assert use.condition[worst] > 100 * np.median(use.condition)  # the worst element nearly cancels
    assert use.ratio.max() < 0.5  # and still uses less than half the bound


def test_longest_chain_and_ulp_size():
    assert [sm.longest_chain("pairwise", n) for n in (2, 3, 4, 5, 8, 9, 1000, 1024)] == [1, 2, 2, 3, 3, 4, 10, 10]
    assert sm.longest_chain("ring", 16) == 15
    assert sm.ulp_size(1.0) == 2.0**-23 and sm.ulp_size(5.0) == 2.0**-21 and sm.ulp_size(-5.0) == 2.0**-21
    assert sm.ulp_size(0.0) == 2.0**-149
    with pytest.raises(ValueError, match="order"):
        sm.longest_chain("tree", 4)
    with pytest.raises(ValueError, match="value"):
        sm.ulp_size(1e39)


# ------------------------------------------------------------------------------------------------------------
# accumulation precision: bfloat16 vs float32 accumulators
# ------------------------------------------------------------------------------------------------------------
def _bf16_reference(x: float) -> float:
    """Round a float32 value to the nearest bfloat16 (ties to even) with exact rational arithmetic."""
    v = Fraction(x)
    if v == 0:
        return 0.0
    e = abs(v).numerator.bit_length() - abs(v).denominator.bit_length()
    while Fraction(2) ** e > abs(v):
        e -= 1
    while Fraction(2) ** (e + 1) <= abs(v):
        e += 1
    step = Fraction(2) ** (max(e, -126) - 7)  # 8 significant bits; subnormals share the smallest step
    q, r = divmod(abs(v), step)
    if r > step / 2 or (r == step / 2 and q % 2 == 1):
        q += 1
    return float((q * step) * (1 if v > 0 else -1))


@settings(max_examples=200)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False, min_value=-2.0**126, max_value=2.0**126))
def test_round_bfloat16_is_round_to_nearest_even(x):
    got = float(sm.round_bfloat16(np.float32(x)))
    assert got == _bf16_reference(float(np.float32(x)))
    assert int(np.float32(got).view(np.uint32)) & 0xFFFF == 0


def test_round_bfloat16_ties_and_validation():
    assert sm.round_bfloat16([1 + 2.0**-8, 1 + 3 * 2.0**-8, 257.0]).tolist() == [1.0, 1 + 2.0**-6, 256.0]
    with pytest.raises(ValueError, match="values"):
        sm.round_bfloat16([np.inf])


def test_accumulation_precision_orders_and_stall():
    r = sm.accumulation_precision(512, 64, splits=(2, 8), seed=3)
    assert r.stall == (512.0, 512.0, 256.0)  # 512 ones: float32 counts them, bfloat16 stalls at 256
    # float32 accumulation: an independent loop over Python floats rounded to float32 per addition
    rng = np.random.default_rng(3)
    x = sm.round_bfloat16(rng.standard_normal(64, dtype=np.float32) + rng.standard_normal((512, 64),
                                                                                           dtype=np.float32))
    for i in (0, 17, 63):
        parts = []
        for s in range(2):
            acc = np.float32(x[s * 256, i])
            for k in range(s * 256 + 1, (s + 1) * 256):
                acc = np.float32(float(acc) + float(x[k, i]))
            parts.append(acc)
        want = _bf16_reference(float(np.float32(float(parts[0]) + float(parts[1]))))
        assert float(r.sums[0, 0, i]) == want
        assert r.exact[i] == pytest.approx(float(np.sum(x[:, i].astype(np.float64))), abs=1e-9)
    # more precision in the accumulator: smaller errors, fewer disagreements between the split counts
    errs = [r.median_error(a) for a in sm.ACCUMULATORS]
    assert errs[0] <= errs[1] < errs[2]
    diffs = [r.differing(a) for a in sm.ACCUMULATORS]
    assert diffs[0] < diffs[1] < diffs[2]
    assert r.bf16_ulp("bfloat16").max() >= r.bf16_ulp("bf16-reduction").max()


def test_accumulation_precision_validates():
    with pytest.raises(ValueError, match="splits"):
        sm.accumulation_precision(100, 4, splits=(3, 4))
    with pytest.raises(ValueError, match="splits"):
        sm.accumulation_precision(64, 4, splits=(4, 4))
    with pytest.raises(ValueError, match="accumulator"):
        sm.accumulation_precision(64, 4).median_error("float16")
