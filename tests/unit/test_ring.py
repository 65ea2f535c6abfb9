import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from clusterlab.communication import collectives
from clusterlab.communication.ring import chunk_bounds, simulate_all_reduce

DTYPES = [np.int8, np.int32, np.int64, np.uint16, np.float16, np.float32, np.float64, np.complex64]


@st.composite
def ring_inputs(draw):
    n = draw(st.integers(2, 12))
    length = draw(st.integers(0, 50))
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    if dtype.kind in "iu":
        elements = st.integers(int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    elif dtype.kind == "c":
        elements = st.complex_numbers(max_magnitude=1e3, allow_nan=False, allow_infinity=False, width=64)
    else:
        elements = st.floats(-1e3, 1e3, width=16 if dtype == np.float16 else 32)
    data = draw(hnp.arrays(dtype, (n, length), elements=elements))
    return data


@settings(max_examples=150, deadline=None)
@given(ring_inputs())
def test_final_is_elementwise_sum_in_input_dtype(data):
    trace = simulate_all_reduce(data)
    expected = data.sum(axis=0, dtype=data.dtype)
    assert trace.final.dtype == data.dtype
    assert trace.final.shape == data.shape
    if data.dtype.kind in "iu":
        np.testing.assert_array_equal(trace.final, np.broadcast_to(expected, data.shape))  # wrap-around exact
    else:
        tol = 1e-2 if data.dtype == np.float16 else 1e-4
        scale = np.abs(data).sum(axis=0) + 1
        assert np.all(np.abs(trace.final - expected) <= tol * scale)
    # every rank ends with bit-identical buffers (the all-gather copies, it never re-adds)
    assert all(np.array_equal(trace.final[0], row) for row in trace.final)


@settings(max_examples=100, deadline=None)
@given(ring_inputs())
def test_step_count_and_volumes_match_formula(data):
    n, length = data.shape
    trace = simulate_all_reduce(data)
    assert trace.num_steps == 2 * (n - 1) == collectives.steps("all_reduce", n)
    size = trace.buffer_bytes
    formula = collectives.send_volume("all_reduce", size, n)
    sent = trace.bytes_sent
    # uneven chunks differ by at most one element: every rank within 2(N-1) elements of the formula
    assert np.all(np.abs(sent - formula) <= 2 * (n - 1) * data.itemsize)
    assert sent.sum() == trace.bytes_received.sum() == 2 * (n - 1) * size
    if length % n == 0:
        assert np.all(sent == formula)


@settings(max_examples=60, deadline=None)
@given(ring_inputs())
def test_reduce_scatter_leaves_one_complete_chunk_per_rank(data):
    n, _ = data.shape
    trace = simulate_all_reduce(data)
    contrib = trace.contributions_after(n - 1)
    for r in range(n):
        owned = (r + 1) % n
        assert contrib[r, owned].all()
        # exactly one chunk is complete on each rank after the first phase
        assert contrib[r].all(axis=1).sum() == 1
    mid = trace.buffers_after(n - 1)
    b = trace.bounds
    if data.dtype.kind in "iu":
        for r in range(n):
            c = (r + 1) % n
            np.testing.assert_array_equal(mid[r, b[c] : b[c + 1]], data[:, b[c] : b[c + 1]].sum(0, dtype=data.dtype))


def test_contributions_start_and_end():
    trace = simulate_all_reduce(np.arange(12, dtype=np.float64).reshape(3, 4))
    c0 = trace.contributions_after(0)
    assert c0.sum() == 3 * 3  # each rank holds only its own data in each of its 3 chunks
    assert trace.contributions_after(trace.num_steps).all()


def test_replay_matches_final_and_inputs():
    rng = np.random.default_rng(1)
    data = rng.integers(0, 100, size=(5, 13))
    trace = simulate_all_reduce(list(data))
    np.testing.assert_array_equal(trace.buffers_after(0), data)
    np.testing.assert_array_equal(trace.buffers_after(trace.num_steps), trace.final)
    before_last = trace.buffers_after(trace.num_steps - 1)
    # the last all-gather step delivers one chunk to every rank: each rank still lacks exactly that one
    assert all(not np.array_equal(before_last[r], trace.final[r]) for r in range(5))


def test_schedule_n4():
    trace = simulate_all_reduce(np.zeros((4, 8), dtype=np.float32))
    first = trace.steps[0]
    assert first.phase == "reduce_scatter"
    assert [(s.src, s.dst, s.chunk, s.nbytes) for s in first.sends] == [
        (0, 1, 0, 8), (1, 2, 1, 8), (2, 3, 2, 8), (3, 0, 3, 8)
    ]
    ag0 = trace.steps[3]
    assert ag0.phase == "all_gather" and ag0.phase_step == 0
    assert [s.chunk for s in ag0.sends] == [1, 2, 3, 0]


def test_alpha_beta_time_from_trace_matches_formula():
    n, length = 8, 64
    trace = simulate_all_reduce(np.ones((n, length), dtype=np.float32))
    t = trace.time_after(trace.num_steps, 5e-6, 25e9)
    assert t == pytest.approx(collectives.alpha_beta_time("all_reduce", trace.buffer_bytes, n, 5e-6, 25e9))


def test_input_is_not_modified_and_result_read_only():
    data = np.ones((3, 6))
    trace = simulate_all_reduce(data)
    assert np.all(data == 1)
    with pytest.raises(ValueError):
        trace.final[0, 0] = 5


def test_chunk_bounds_like_array_split():
    for length in range(0, 20):
        for n in range(2, 7):
            parts = np.array_split(np.arange(length), n)
            assert list(np.diff(chunk_bounds(length, n))) == [len(p) for p in parts]


@pytest.mark.parametrize(
    ("buffers", "match"),
    [
        ([np.ones(3)], "at least 2"),
        (np.ones((1, 4)), "at least 2"),
        ([np.ones(3), np.ones(4)], "same shape"),
        ([np.ones(3), np.ones(3, dtype=np.float32)], "same dtype"),
        ([np.ones((2, 2)), np.ones((2, 2))], "1-D"),
        (np.ones(5), "2-D"),
        ([np.array(["a"]), np.array(["b"])], "numeric"),
        ([np.array([True]), np.array([False])], "numeric"),
    ],
)
def test_bad_input(buffers, match):
    with pytest.raises(ValueError, match=match):
        simulate_all_reduce(buffers)


def test_step_out_of_range():
    trace = simulate_all_reduce(np.ones((3, 3)))
    with pytest.raises(ValueError, match="step"):
        trace.buffers_after(5)


# ---------------------------------------------------------------------------------------------------------------
# chunked ring model
# ---------------------------------------------------------------------------------------------------------------
from clusterlab.communication.chunking import best_chunks  # noqa: E402
from clusterlab.communication.ring import pipelined_time, simulate_pipelined  # noqa: E402


@settings(max_examples=80, deadline=None)
@given(
    st.floats(1e3, 1e11), st.integers(2, 9), st.integers(1, 40), st.floats(0, 1e-4), st.floats(1e8, 1e12),
    st.integers(1, 5),
)
def test_simulation_equals_closed_form(s, n, c, a, b, h):
    t_closed = pipelined_time(s, n, c, a, b, stages=h)
    t_sim = simulate_pipelined(s, n, c, a, b, stages=h).makespan
    assert t_sim == pytest.approx(t_closed, rel=1e-9)


def test_plain_ring_is_the_special_case():
    assert pipelined_time(14e9, 8, 1, 5e-6, 25e9, stages=1) == pytest.approx(
        collectives.alpha_beta_time("all_reduce", 14e9, 8, 5e-6, 25e9)
    )


@given(st.floats(1e6, 1e11), st.integers(2, 64), st.floats(1e-7, 1e-4), st.floats(1e8, 1e12), st.integers(1, 5))
def test_best_chunks_beats_neighbours(s, n, a, b, h):
    opt = best_chunks(s, n, a, b, stages=h)
    t = opt.time
    assert t == pytest.approx(pipelined_time(s, n, opt.chunks, a, b, stages=h))
    for c in {1, max(1, opt.chunks - 1), opt.chunks + 1, 2 * opt.chunks, h}:
        assert t <= pipelined_time(s, n, c, a, b, stages=h) * (1 + 1e-12)
    # never below the bandwidth lower bound 2S(N-1)/(Nβ)
    assert t >= 2 * s * (n - 1) / (n * b) * (1 - 1e-12)


def test_single_stage_gains_nothing_from_chunking():
    assert best_chunks(14e9, 8, 5e-6, 25e9, stages=1).chunks == 1
    times = [pipelined_time(14e9, 8, c, 5e-6, 25e9, stages=1) for c in (1, 2, 10, 100)]
    assert times == sorted(times)


def test_seed_scenario_u_shape():
    # 14 GB, 8 ranks, 200 Gb/s, α = 5 µs, h = 3: an interior optimum with both ends slower
    opt = best_chunks(14e9, 8, 5e-6, 25e9, stages=3)
    assert 3 < opt.chunks < 1000
    assert pipelined_time(14e9, 8, 1, 5e-6, 25e9) > opt.time < pipelined_time(14e9, 8, 10_000, 5e-6, 25e9)
    assert opt.chunks == round(opt.continuous) or abs(opt.chunks - opt.continuous) < 1


def test_zero_latency_needs_a_cap():
    with pytest.raises(ValueError, match="max_chunks"):
        best_chunks(1e9, 8, 0.0, 1e10)
    assert best_chunks(1e9, 8, 0.0, 1e10, max_chunks=64).chunks == 64


@pytest.mark.parametrize(
    ("args", "match"),
    [((1e9, 1, 4, 1e-6, 1e10), "ranks"), ((1e9, 8, 0, 1e-6, 1e10), "chunks"), ((-1.0, 8, 4, 1e-6, 1e10), "size"),
     ((1e9, 8, 4, -1e-6, 1e10), "latency"), ((1e9, 8, 4, 1e-6, 0.0), "bandwidth")],
)
def test_pipelined_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        pipelined_time(*args)
    with pytest.raises(ValueError, match="stages"):
        pipelined_time(1e9, 8, 4, 1e-6, 1e10, stages=0)


def test_schedule_busy_fraction():
    sch = simulate_pipelined(1e9, 4, 6, 1e-6, 1e10, stages=3)
    assert 0 < sch.link_busy_fraction() <= 1
    assert sch.finish.shape == (4, 2 * 3 * 6, 3)
