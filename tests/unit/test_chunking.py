"""clusterlab.communication.chunking: terms, exact optimum (small messages included), flat bottom, simulation rows."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from clusterlab.book import tables
from clusterlab.communication import chunking, ring

S, N, ALPHA, BETA = 14e9, 8, 5e-6, 25e9  # the book's scenario: 7B fp16 gradients, 8 ranks, 200 Gb/s


def _brute(s, n, a, b, h, upto):
    times = [ring.pipelined_time(s, n, c, a, b, stages=h) for c in range(1, upto + 1)]
    best = int(np.argmin(times)) + 1
    return best, times[best - 1]


# --------------------------------------------------------------------------------------------------------
# single chain
# --------------------------------------------------------------------------------------------------------
def _chain_des(s, c, a, b, h):
    """Independent discrete-event run of c chunks through h stages (job i may enter stage j when it left
    stage j−1 and stage j finished job i−1)."""
    tau = a + s / (c * b)
    free = [0.0] * h
    t = 0.0
    for _ in range(c):
        t = 0.0
        for j in range(h):
            t = max(t, free[j]) + tau
            free[j] = t
    return t


@given(st.floats(0, 1e10), st.integers(1, 60), st.floats(0, 1e-4), st.floats(1e8, 1e12), st.integers(1, 6))
def test_chain_time_matches_event_simulation(s, c, a, b, h):
    assert chunking.chain_time(s, c, a, b, stages=h) == pytest.approx(_chain_des(s, c, a, b, h), rel=1e-12)


def test_chain_single_stage_grows_with_chunks():
    times = [chunking.chain_time(S, c, ALPHA, BETA, stages=1) for c in (1, 2, 8, 64)]
    assert times == sorted(times) and times[0] < times[-1]
    assert times[0] == pytest.approx(ALPHA + S / BETA)


# --------------------------------------------------------------------------------------------------------
# terms
# --------------------------------------------------------------------------------------------------------
@given(st.floats(0, 1e11), st.integers(2, 64), st.integers(1, 500), st.floats(0, 1e-4), st.floats(1e8, 1e12),
       st.integers(1, 6))
def test_terms_add_up_to_the_closed_form(s, n, c, a, b, h):
    t = chunking.pipelined_terms(s, n, c, a, b, stages=h)
    assert t.time == pytest.approx(ring.pipelined_time(s, n, c, a, b, stages=h), rel=1e-12, abs=1e-300)
    assert t.slots == 2 * (n - 1) * max(c, h) + min(c, h) - 1
    assert t.stalls == (c < h)
    # the bandwidth part never beats the plain ring's bandwidth term (the lower bound of §2)
    assert t.bandwidth_part >= t.bandwidth_bound * (1 - 1e-12)


def test_terms_of_the_book_scenario():
    t = chunking.pipelined_terms(S, N, 45, ALPHA, BETA, stages=3)
    assert t.slots == 2 * 7 * 45 + 3 - 1 == 632
    assert t.latency_part == pytest.approx(632 * 5e-6)
    assert t.bandwidth_bound == pytest.approx(2 * S * 7 / 8 / BETA)  # 0.98 s
    # bandwidth part = plain ring term + fill/drain (h−1)·S/(Ncβ)
    assert t.bandwidth_part == pytest.approx(0.98 + 2 * S / (8 * 45 * BETA))


# --------------------------------------------------------------------------------------------------------
# exact optimum
# --------------------------------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.floats(1.0, 1e11), st.integers(2, 64), st.floats(1e-8, 1e-4), st.floats(1e8, 1e12), st.integers(1, 6))
def test_best_chunks_equals_brute_force(s, n, a, b, h):
    opt = chunking.best_chunks(s, n, a, b, stages=h)
    assume(opt.continuous < 3000)
    upto = int(max(20, 3 * opt.continuous))
    best, t_best = _brute(s, n, a, b, h, upto)
    assert opt.time == pytest.approx(t_best, rel=1e-12)
    assert opt.chunks == best or abs(opt.time - t_best) <= 1e-12 * t_best  # same c unless a tie
    assert opt.time == pytest.approx(ring.pipelined_time(s, n, opt.chunks, a, b, stages=h), rel=1e-12)
    assert opt.chunk_bytes == pytest.approx(s / (n * opt.chunks))
    # the sweet-spot formula is the minimiser of the c ≥ h branch alone, never below h
    assert opt.sweet_spot >= h


def test_small_message_wants_fewer_chunks_than_stages():
    # 10 kB on 8 ranks, α = 5 µs: α dominates, one chunk per block is best although h = 3
    opt = chunking.best_chunks(1e4, N, ALPHA, BETA, stages=3)
    assert opt.chunks == 1 and opt.regime == "fewer_than_stages"
    assert opt.time == pytest.approx(2 * 7 * 3 * (ALPHA + 1e4 / 8 / BETA))
    assert opt.time < ring.pipelined_time(1e4, N, 3, ALPHA, BETA, stages=3)
    assert opt.sweet_spot >= 3  # the sweet-spot formula is the c ≥ h branch
    assert opt.continuous < 1.5


def test_book_scenario_optimum():
    opt = chunking.best_chunks(S, N, ALPHA, BETA, stages=3)
    cont = math.sqrt(2 * S / (2 * 8 * 7 * ALPHA * BETA))  # sqrt(2000) ≈ 44.72
    assert opt.continuous == pytest.approx(cont)
    assert opt.chunks == 45 and opt.regime == "more_than_stages"
    assert opt.sweet_spot == pytest.approx(cont)  # above h both minimisers agree


def test_single_stage_optimum_is_one_chunk():
    for s in (1e3, 1e6, 14e9):
        opt = chunking.best_chunks(s, N, ALPHA, BETA, stages=1)
        assert opt.chunks == 1


def test_zero_latency_needs_a_cap():
    with pytest.raises(ValueError, match="max_chunks"):
        chunking.best_chunks(1e9, 8, 0.0, 1e10, stages=3)
    assert chunking.best_chunks(1e9, 8, 0.0, 1e10, stages=3, max_chunks=64).chunks == 64
    assert chunking.best_chunks(1e9, 8, 0.0, 1e10, stages=1).chunks == 1  # T constant: smallest c


def test_cap_is_respected():
    opt = chunking.best_chunks(S, N, ALPHA, BETA, stages=3, max_chunks=10)
    assert opt.chunks == 10


@given(st.integers(2, 64), st.floats(1e-7, 1e-4), st.floats(1e8, 1e12), st.integers(2, 6))
def test_regime_sizes_bracket_the_stage_count(n, a, b, h):
    low, high = chunking.regime_sizes(n, a, b, stages=h)
    assert 0 < low < high
    assert chunking.best_chunks(0.5 * low, n, a, b, stages=h).continuous < h
    assert chunking.best_chunks(2 * high, n, a, b, stages=h).continuous > h
    mid = math.sqrt(low * high)
    assert chunking.best_chunks(mid, n, a, b, stages=h).chunks == h


def test_regime_sizes_single_stage():
    low, high = chunking.regime_sizes(8, ALPHA, BETA, stages=1)
    assert math.isinf(high) and low > 0


# --------------------------------------------------------------------------------------------------------
# flat bottom
# --------------------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.floats(1e3, 1e10), st.integers(2, 16), st.floats(1e-7, 1e-4), st.floats(1e9, 1e11), st.integers(1, 5),
       st.sampled_from([0.0, 0.01, 0.05, 0.2]))
def test_near_optimal_range_is_tight(s, n, a, b, h, tol):
    left, right = chunking.near_optimal_range(s, n, a, b, stages=h, tolerance=tol)
    opt = chunking.best_chunks(s, n, a, b, stages=h)
    limit = (1 + tol) * opt.time

    def t(c):
        return ring.pipelined_time(s, n, c, a, b, stages=h)

    assert left <= opt.chunks <= right
    assert t(left) <= limit and t(right) <= limit
    assert left == 1 or t(left - 1) > limit
    assert t(right + 1) > limit


def test_book_scenario_bottom_is_wide():
    left, right = chunking.near_optimal_range(S, N, ALPHA, BETA, stages=3, tolerance=0.05)
    assert left <= 5 and right >= 500  # within 5 % for c from a handful to several hundred


def test_near_optimal_range_needs_latency():
    with pytest.raises(ValueError, match="latency"):
        chunking.near_optimal_range(S, N, 0.0, BETA)


# --------------------------------------------------------------------------------------------------------
# simulation rows
# --------------------------------------------------------------------------------------------------------
def test_comparison_rows_equal_closed_form():
    rows = chunking.compare_with_simulation(1e8, 4, [1, 2, 3, 8, 40], ALPHA, BETA, stages=3)
    assert [r.chunks for r in rows] == [1, 2, 3, 8, 40]
    for r in rows:
        assert r.simulated == pytest.approx(r.closed_form, rel=1e-12)
        assert r.relative_difference < 1e-12
        assert 0 < r.busy_fraction <= 1
    # more chunks keep the stages busier (until α dominates)
    assert rows[0].busy_fraction < rows[-1].busy_fraction
    table = tables.Table(tables.comparison_rows(rows))
    assert table.header[0] == "块数 c" and len(table.body) == 5


def test_single_stage_single_chunk_keeps_links_always_busy():
    (r,) = chunking.compare_with_simulation(1e8, 4, [1], ALPHA, BETA, stages=1)
    assert r.busy_fraction == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: chunking.chain_time(-1, 2, 1e-6, 1e9), "size"),
        (lambda: chunking.chain_time(1e6, 0, 1e-6, 1e9), "chunks"),
        (lambda: chunking.pipelined_terms(1e6, 1, 2, 1e-6, 1e9), "ranks"),
        (lambda: chunking.pipelined_terms(1e6, 4, 2, -1e-6, 1e9), "latency"),
        (lambda: chunking.best_chunks(1e6, 4, 1e-6, 0.0), "bandwidth"),
        (lambda: chunking.best_chunks(1e6, 4, 1e-6, 1e9, stages=0), "stages"),
        (lambda: chunking.best_chunks(1e6, 4, 1e-6, 1e9, max_chunks=0), "max_chunks"),
        (lambda: chunking.near_optimal_range(1e6, 4, 1e-6, 1e9, tolerance=-0.1), "tolerance"),
        (lambda: chunking.compare_with_simulation(1e6, 4, [], 1e-6, 1e9), "chunks"),
        (lambda: chunking.compare_with_simulation(1e6, 4, [0], 1e-6, 1e9), "chunks"),
        (lambda: tables.comparison_rows([]), "rows"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_terms_rows():
    terms = [chunking.pipelined_terms(S, N, c, ALPHA, BETA, stages=1) for c in (1, 8)]
    rows = tables.terms_rows(terms)
    assert rows[0][0] == "块数 c" and [r[0] for r in rows[1:]] == ["1", "8"]
    assert rows[1][2] == str(2 * 7)  # K = 2(N−1) slots for c = h = 1
    assert rows[1][1] == "1\u2009750"  # S/N = 1.75 GB in MB (thin-space grouping)
    with pytest.raises(ValueError, match="terms"):
        tables.terms_rows([])
