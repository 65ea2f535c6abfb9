"""clusterlab.communication.primitives: every collective on real buffers, against numpy and the collectives cost
model."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from clusterlab.communication import collectives, primitives, ring
from clusterlab.communication.primitives import ALGORITHMS, binary_tree, from_ring_trace, simulate

DTYPES = [np.int8, np.int32, np.uint16, np.float16, np.float32, np.float64, np.complex64]
CASES = [(op, alg) for op in collectives.OPS for alg in ALGORITHMS[op]]


def elements_for(dtype: np.dtype) -> st.SearchStrategy:
    if dtype.kind in "iu":
        return st.integers(int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    if dtype.kind == "c":
        return st.complex_numbers(max_magnitude=1e3, allow_nan=False, allow_infinity=False, width=64)
    return st.floats(-1e3, 1e3, width=16 if dtype == np.float16 else 32)


@st.composite
def case_inputs(draw, op=None, divisible=False):
    if op is None:
        op, alg = draw(st.sampled_from(CASES))
    else:
        alg = draw(st.sampled_from(ALGORITHMS[op]))
    n = draw(st.integers(2, 9))
    if op == "all_to_all" or divisible:
        length = n * draw(st.integers(0, 5))
    else:
        length = draw(st.integers(0, 40))
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    data = draw(hnp.arrays(dtype, (n, length), elements=elements_for(dtype)))
    root = draw(st.integers(0, n - 1)) if op in ("broadcast", "reduce", "send_recv") or alg == "tree" else 0
    return op, alg, data, root


def assert_sum(got: np.ndarray, data: np.ndarray, cols: slice = slice(None)) -> None:
    expected = data.sum(axis=0, dtype=data.dtype)[cols]
    assert got.dtype == data.dtype
    if data.dtype.kind in "iu":
        np.testing.assert_array_equal(got, expected)  # wrap-around exact
    else:
        tol = 1e-2 if data.dtype == np.float16 else 1e-4
        scale = np.abs(data).sum(axis=0)[cols] + 1
        assert np.all(np.abs(got - expected) <= tol * scale)


# --------------------------------------------------------------------------------------------------------
# results equal numpy references
# --------------------------------------------------------------------------------------------------------
@settings(max_examples=250, deadline=None)
@given(case_inputs())
def test_outputs_equal_numpy_references(case):
    op, alg, data, root = case
    n, length = data.shape
    tr = simulate(op, data, alg, root)
    out = tr.outputs
    assert len(out) == n and tr.final.dtype == data.dtype
    bounds = ring.chunk_bounds(length, n)
    if op == "broadcast":
        for r in range(n):
            np.testing.assert_array_equal(out[r], data[root])
    elif op == "reduce":
        assert all(o is None for r, o in enumerate(out) if r != root)
        assert_sum(out[root], data)
    elif op == "all_reduce":
        for r in range(n):
            assert_sum(out[r], data)
            np.testing.assert_array_equal(out[r], out[0])  # every rank ends bit-identical
    elif op == "reduce_scatter":
        for r in range(n):
            assert_sum(out[r], data, slice(bounds[r], bounds[r + 1]))
    elif op == "all_gather":
        for r in range(n):
            np.testing.assert_array_equal(out[r], data.reshape(-1))  # concatenation in rank order
    elif op == "all_to_all":
        m = length // n
        transposed = data.reshape(n, n, m).transpose(1, 0, 2).reshape(n, length)
        np.testing.assert_array_equal(np.stack(out), transposed)
    else:
        assert tr.peer == (root + 1) % n
        assert all(o is None for r, o in enumerate(out) if r != tr.peer)
        np.testing.assert_array_equal(out[tr.peer], data[root])


@settings(max_examples=60, deadline=None)
@given(case_inputs(op="all_gather"))
def test_all_gather_in_place_takes_chunk_r_of_rank_r(case):
    _, _, data, _ = case
    n, length = data.shape
    b = ring.chunk_bounds(length, n)
    tr = simulate("all_gather", data, in_place=True)
    expected = np.concatenate([data[r, b[r] : b[r + 1]] for r in range(n)])
    for r in range(n):
        np.testing.assert_array_equal(tr.outputs[r], expected)
    assert tr.buffer_bytes == data.nbytes // n


@settings(max_examples=60, deadline=None)
@given(case_inputs(op="all_to_all"))
def test_all_to_all_twice_is_the_identity(case):
    _, _, data, _ = case
    once = np.stack(simulate("all_to_all", data).outputs)
    twice = np.stack(simulate("all_to_all", once).outputs)
    np.testing.assert_array_equal(twice, data)


# --------------------------------------------------------------------------------------------------------
# steps, bytes, time against clusterlab.communication.collectives
# --------------------------------------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(case_inputs(), st.integers(1, 7))
def test_step_counts(case, pieces):
    op, alg, data, root = case
    n = data.shape[0]
    kw = {"pieces": pieces} if op in ("broadcast", "reduce") else {}
    tr = simulate(op, data, alg, root, **kw)
    if op in ("broadcast", "reduce"):
        assert tr.num_steps == (n - 1) + (pieces - 1)
        assert collectives.steps(op, n) == n - 1  # the model's pipelined limit ignores the fill
    elif alg == "tree":
        assert tr.num_steps == 2 * math.ceil(math.log2(n)) == collectives.steps(op, n, "tree")
        assert tr.phases == ("reduce", "broadcast")
    else:
        assert tr.num_steps == collectives.steps(op, n, "ring")
    assert [s.index for s in tr.steps] == list(range(tr.num_steps))
    assert sum(tr.phase_length(p) for p in tr.phases) == tr.num_steps


@settings(max_examples=200, deadline=None)
@given(case_inputs(divisible=True), st.integers(1, 6))
def test_byte_counters_equal_rank_traffic(case, pieces):
    op, alg, data, _ = case
    n = data.shape[0]
    kw = {"pieces": pieces} if op in ("broadcast", "reduce") else {}
    tr = simulate(op, data, alg, 0, **kw)
    assert tr.bytes_sent.sum() == tr.bytes_received.sum()
    model = primitives.COST_MODEL[alg]
    if model is None:  # the single tree: every non-root sends its partial sum once, inner nodes the result
        t = tr.tree
        assert t is not None
        s = tr.buffer_bytes
        expected = [s * ((t.parent[r] >= 0) + len(t.children[r])) for r in range(n)]
        np.testing.assert_array_equal(tr.bytes_sent, expected)
        return
    rt = collectives.rank_traffic(op, tr.buffer_bytes, n, model)
    np.testing.assert_allclose(tr.bytes_sent, rt.sent)
    np.testing.assert_allclose(tr.bytes_received, rt.received)
    assert tr.bytes_sent.max() == pytest.approx(collectives.send_volume(op, tr.buffer_bytes, n, model))


@settings(max_examples=100, deadline=None)
@given(case_inputs(divisible=True), st.floats(0, 1e-4), st.floats(1e6, 1e12))
def test_alpha_beta_time(case, alpha, beta):
    op, alg, data, root = case
    n = data.shape[0]
    tr = simulate(op, data, alg, root)
    s = tr.buffer_bytes
    t = tr.time_after(tr.num_steps, alpha, beta)
    if op in ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "send_recv") and alg != "tree":
        assert t == pytest.approx(collectives.alpha_beta_time(op, s, n, alpha, beta), rel=1e-9, abs=1e-18)
    elif op in ("broadcast", "reduce"):
        c = n - 1  # default pieces: piece p crosses link i at step p + i, so step t carries pieces t-N+2 … t
        size = np.diff(ring.chunk_bounds(data.shape[1], c)) * data.itemsize
        expected = sum(alpha + size[max(0, t_ - n + 2) : t_ + 1].max() / beta for t_ in range(n + c - 2))
        assert t == pytest.approx(expected)
        if data.shape[1] % c == 0:
            assert t == pytest.approx((n + c - 2) * (alpha + s / (c * beta)))
    else:  # tree: ⌈log₂N⌉ levels each way, whole buffer per message, two children share one port
        steps = tr.steps
        expected = sum(alpha + s * max(1, max(sum(x.src == r for x in st_.sends) for r in range(n)),
                                       max(sum(x.dst == r for x in st_.sends) for r in range(n))) / beta
                       for st_ in steps)
        assert t == pytest.approx(expected)
    partial = [tr.time_after(k, alpha, beta) for k in range(tr.num_steps + 1)]
    assert partial[0] == 0 and all(a <= b for a, b in itertools.pairwise(partial))


# --------------------------------------------------------------------------------------------------------
# identities
# --------------------------------------------------------------------------------------------------------
def sends_of(steps):
    return [(s.phase, s.phase_step, s.sends) for s in steps]


@settings(max_examples=120, deadline=None)
@given(case_inputs(op="reduce_scatter"))
def test_all_reduce_is_reduce_scatter_then_all_gather(case):
    _, _, data, _ = case
    n = data.shape[0]
    ar = simulate("all_reduce", data, "ring")
    rs = simulate("reduce_scatter", data)
    ag = simulate("all_gather", rs.final, in_place=True)
    assert sends_of(ar.steps) == sends_of(rs.steps) + sends_of(ag.steps)
    for k in range(n):
        np.testing.assert_array_equal(ar.buffers_after(k), rs.buffers_after(k))
    for k in range(n):
        np.testing.assert_array_equal(ar.buffers_after(n - 1 + k), ag.buffers_after(k))
    np.testing.assert_array_equal(ar.final, ag.final)
    np.testing.assert_array_equal(ar.bytes_sent, rs.bytes_sent + ag.bytes_sent)


@settings(max_examples=120, deadline=None)
@given(case_inputs(op="reduce_scatter"))
def test_all_gather_is_the_transpose_of_reduce_scatter(case):
    _, _, data, _ = case
    n, length = data.shape
    rs = simulate("reduce_scatter", data)
    ag = simulate("all_gather", data, in_place=True)
    own = np.diff(ring.chunk_bounds(length, n)) * data.itemsize
    # what a rank sends in reduce-scatter is what it gets in all-gather: everything but its own chunk
    np.testing.assert_array_equal(rs.bytes_sent, ag.bytes_received)
    np.testing.assert_array_equal(rs.bytes_sent, data.nbytes // n - own)
    assert rs.bytes_sent.sum() == ag.bytes_sent.sum() == rs.bytes_received.sum()
    if length % n == 0:
        np.testing.assert_array_equal(rs.bytes_received, ag.bytes_sent)
    # as sets of chunks: rank r sends every chunk but r in reduce-scatter and receives every chunk but r in all-gather
    for r in range(n):
        sent = sorted(x.chunk for st_ in rs.steps for x in st_.sends if x.src == r)
        got = sorted(x.into for st_ in ag.steps for x in st_.sends if x.dst == r)
        assert sent == got == [c for c in range(n) if c != r]


# --------------------------------------------------------------------------------------------------------
# states and contributions
# --------------------------------------------------------------------------------------------------------
@settings(max_examples=120, deadline=None)
@given(st.sampled_from(CASES), st.integers(2, 8), st.integers(1, 4), st.data())
def test_contributions_match_buffers(case, n, m, draw):
    """With input 2**r on rank r every slot's value is the sum of its contributors' powers of two."""
    op, alg = case
    root = draw.draw(st.integers(0, n - 1)) if op in ("broadcast", "reduce", "send_recv") or alg == "tree" else 0
    length = n * m
    data = np.repeat((2 ** np.arange(n, dtype=np.int64))[:, None], length, axis=1)
    tr = simulate(op, data, alg, root)
    b = tr.bounds
    for k in range(tr.num_steps + 1):
        buf = tr.buffers_after(k)
        held = tr.contributions_after(k)
        assert held.shape == (n, tr.slots, n)
        for r in range(n):
            for c in range(tr.slots):
                if held[r, c].any():
                    code = int((2 ** np.flatnonzero(held[r, c])).sum())
                    assert np.all(buf[r, b[c] : b[c + 1]] == code), (op, k, r, c)
    end = tr.contributions_after(tr.num_steps)
    if op == "all_reduce":
        assert end.all()
    if op == "reduce_scatter":
        assert all(end[r, r].all() for r in range(n))
    if op == "reduce":
        assert end[root].all()
    if op in ("broadcast", "all_gather"):
        assert end.sum(axis=2).min() == 1


def test_step_zero_is_the_start_and_states_are_copies():
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    tr = simulate("all_reduce", data)
    np.testing.assert_array_equal(tr.buffers_after(0), data)
    a = tr.buffers_after(tr.num_steps)
    a[:] = 0
    assert tr.final.sum() != 0
    with pytest.raises(ValueError):
        tr.final[0, 0] = 1  # read-only
    data[:] = 0
    assert tr.buffers_after(0).sum() != 0  # the trace kept its own copy


# --------------------------------------------------------------------------------------------------------
# the ring module's trace
# --------------------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(case_inputs(op="reduce_scatter"), st.floats(0, 1e-5), st.floats(1e6, 1e12))
def test_from_ring_trace_is_exact(case, alpha, beta):
    _, _, data, _ = case
    rt = ring.simulate_all_reduce(data)
    ct = from_ring_trace(rt)
    assert ct.num_steps == rt.num_steps and ct.op == "all_reduce"
    for k in range(rt.num_steps + 1):
        np.testing.assert_array_equal(ct.buffers_after(k), rt.buffers_after(k))
        np.testing.assert_array_equal(ct.contributions_after(k), rt.contributions_after(k))
        np.testing.assert_array_equal(ct.bytes_sent_after(k), rt.bytes_sent_after(k))
        assert ct.time_after(k, alpha, beta) == pytest.approx(rt.time_after(k, alpha, beta))
    # the same algorithm as primitives' ring all-reduce, with the chunks numbered one position later
    own = simulate("all_reduce", data, "ring")
    for a, b in zip(rt.steps, own.steps, strict=True):
        assert {(s.src, s.dst, (s.chunk - 1) % rt.ranks) for s in a.sends} == {(s.src, s.dst, s.chunk)
                                                                                for s in b.sends}


# --------------------------------------------------------------------------------------------------------
# the binary tree
# --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", range(2, 65))
def test_binary_tree_shape(n):
    t = binary_tree(n)
    assert t.height == math.ceil(math.log2(n))
    assert t.parent[0] == -1 and len(t.children[0]) == 1
    for r in range(1, n):
        assert r in t.children[t.parent[r]]
        assert t.depth[r] == t.depth[t.parent[r]] + 1
        assert len(t.children[r]) <= 2
    assert sum(len(c) for c in t.children) == n - 1

    def inorder(r):
        kids = t.children[r]
        left = [k for k in kids if k < r]
        right = [k for k in kids if k > r]
        return [x for k in left for x in inorder(k)] + [r] + [x for k in right for x in inorder(k)]

    assert inorder(t.children[0][0]) == list(range(1, n))  # NCCL's btree is in order


def test_binary_tree_matches_nccl_illustration_and_rotates():
    t = binary_tree(14)  # NVIDIA/nccl src/graph/trees.cc, the 14-rank picture
    assert t.children[0] == (8,)
    assert t.children[8] == (4, 12) and t.children[12] == (10, 13)
    assert t.children[4] == (2, 6) and t.children[10] == (9, 11) and t.children[13] == ()
    r = binary_tree(7, root=3)
    base = binary_tree(7)
    for v in range(7):
        assert r.depth[(v + 3) % 7] == base.depth[v]
    tr = simulate("all_reduce", np.ones((7, 3)), "tree", root=3)
    assert tr.tree == r and tr.root == 3
    assert {s.dst for s in tr.steps[tr.tree.height - 1].sends} == {3}


# --------------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------------
def test_bad_input_names_the_parameter():
    x = np.zeros((4, 8), dtype=np.float32)
    tr = simulate("all_reduce", x)
    cases = [
        (lambda: simulate("allreduce", x), "op"),
        (lambda: simulate("all_reduce", x, "halving_doubling"), "algorithm"),
        (lambda: simulate("broadcast", x, "ring"), "algorithm"),
        (lambda: simulate("broadcast", x, root=4), "root"),
        (lambda: simulate("broadcast", x, root=-1), "root"),
        (lambda: simulate("broadcast", x, root=1.0), "root"),
        (lambda: simulate("reduce_scatter", x, root=1), "root"),
        (lambda: simulate("broadcast", x, pieces=0), "pieces"),
        (lambda: simulate("all_gather", x, pieces=2), "pieces"),
        (lambda: simulate("send_recv", x, peer=0), "peer"),
        (lambda: simulate("send_recv", x, peer=4), "peer"),
        (lambda: simulate("broadcast", x, peer=1), "peer"),
        (lambda: simulate("broadcast", x, in_place=True), "in_place"),
        (lambda: simulate("all_gather", x, in_place=1), "in_place"),
        (lambda: simulate("all_to_all", np.zeros((3, 4))), "buffers"),
        (lambda: simulate("all_reduce", np.zeros((1, 4))), "buffers"),
        (lambda: simulate("all_reduce", [np.zeros(3), np.zeros(4)]), "buffers"),
        (lambda: simulate("all_reduce", np.zeros((2, 2), dtype=bool)), "buffers"),
        (lambda: tr.buffers_after(7), "step"),
        (lambda: tr.contributions_after(-1), "step"),
        (lambda: tr.bytes_sent_after(True), "step"),
        (lambda: tr.time_after(1, -1.0, 1e9), "latency"),
        (lambda: tr.time_after(1, 1e-6, 0.0), "bandwidth"),
        (lambda: from_ring_trace(tr), "trace"),
        (lambda: binary_tree(1), "ranks"),
        (lambda: binary_tree(4, root=4), "root"),
    ]
    for call, name in cases:
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            call()


# ---------------------------------------------------------------------------------------------------------------
# transposes: an all-gather played backwards is a reduce-scatter
# ---------------------------------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.integers(2, 8), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_all_gather_backwards_is_reduce_scatter(n, m, seed):
    from clusterlab.communication.primitives import replay_transposed

    rng = np.random.default_rng(seed)
    ag = simulate("all_gather", rng.integers(0, 9, size=(n, m)).astype(np.int64))
    x = rng.integers(-50, 50, size=(n, n * m)).astype(np.int64)
    rep = replay_transposed(ag, x)
    sums = x.reshape(n, n, m).sum(axis=0)
    for r in range(n):
        np.testing.assert_array_equal(rep.buffers.reshape(n, n, m)[r, r], sums[r])
    np.testing.assert_array_equal(rep.bytes_sent, ag.bytes_received)


def test_replay_transposed_checks_shape():
    from clusterlab.communication.primitives import replay_transposed

    ag = simulate("all_gather", np.ones((3, 2)))
    with pytest.raises(ValueError, match="buffers must have shape"):
        replay_transposed(ag, np.ones((3, 5)))
