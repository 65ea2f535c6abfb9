"""集群篇 §4: context parallelism, all-gather (Llama 3) versus ring attention."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterlab import specs
from clusterlab.cluster import context, parallel
from clusterlab.communication import collectives

LLAMA = specs.MODELS["Llama 3 405B"]
ALPHA, BETA, FLOPS = 5e-6, 50e9, 400e12  # s, B/s per direction (400 Gb/s), achieved FLOP/s


def _both(**kw):
    args = dict(seq_len=131072, heads=LLAMA.heads, kv_heads=LLAMA.kv_heads, head_dim=LLAMA.head_size, cp=16,
                latency=ALPHA, bandwidth=BETA, flops=FLOPS)
    args.update(kw)
    return {s: context.context_parallel(s, **args) for s in context.SCHEMES}


def test_llama3_405b_shape_by_hand():
    r = _both()
    s_kv = 2 * 131072 * 8 * 128 * 2  # K and V, bf16
    assert r["ring"].kv_bytes == r["all_gather"].kv_bytes == s_kv
    for x in r.values():
        assert x.send == pytest.approx(s_kv * 15 / 16)
        assert x.step_send == pytest.approx(3 * s_kv * 15 / 16)
        assert x.attention_time == pytest.approx(4 * 131072**2 * 128 * 128 / 16 / 2 / FLOPS)
    ag = r["all_gather"]
    assert ag.forward.time == pytest.approx(collectives.cost("all_gather", s_kv, 16, ALPHA, BETA).time)
    assert ag.exposed == pytest.approx(15 * ALPHA + s_kv * 15 / 16 / BETA)
    assert ag.kv_memory == s_kv
    ring = r["ring"]
    assert ring.exposed == 0.0  # 0.67 ms per chunk under 5.5 ms of attention per step
    assert ring.kv_memory == pytest.approx(2 * s_kv / 16)
    assert ring.chunk_bytes == pytest.approx(s_kv / 16)


def test_grouped_query_attention_is_what_makes_the_all_gather_cheap():
    gqa = _both(latency=0)["all_gather"].exposed_fraction  # bandwidth term only: it scales with the K/V heads
    mha = _both(latency=0, kv_heads=LLAMA.heads)["all_gather"].exposed_fraction
    assert mha == pytest.approx(gqa * LLAMA.heads / LLAMA.kv_heads)
    assert gqa < 0.2 < 1 < mha


def test_ring_is_exposed_when_compute_is_too_short():
    r = context.context_parallel("ring", 8192, 32, 8, 128, 8, ALPHA, BETA, FLOPS)
    one = collectives.cost("send_recv", r.chunk_bytes, 2, ALPHA, BETA).time
    assert r.exposed == pytest.approx(7 * (one - r.attention_time / 8))
    assert 0 < r.exposed < r.forward.time


def test_tensor_parallel_divides_heads_and_bytes():
    one = _both(latency=0)["all_gather"]
    tp8 = _both(latency=0, tensor_parallel=8)["all_gather"]
    assert tp8.kv_bytes == pytest.approx(one.kv_bytes / 8)
    assert tp8.attention_time == pytest.approx(one.attention_time / 8)
    assert tp8.exposed_fraction == pytest.approx(one.exposed_fraction)  # without α the ratio does not change


def test_agrees_with_the_ring_count_of_parallel_cp_volume():
    v = parallel.cp_volume(8 * 128, 131072, 1, 1, 1, 16)
    r = _both()["ring"]
    assert v.size == pytest.approx(r.chunk_bytes)
    assert v.send == pytest.approx(r.step_send)


@given(st.integers(2, 64), st.sampled_from([1, 2, 4, 8]), st.integers(1, 4),
       st.integers(10, 17).map(lambda e: 2**e), st.floats(1e9, 1e12), st.floats(0, 1e-4), st.floats(1e13, 2e15))
def test_properties(cp, kv, group, seq, beta, alpha, flops):
    heads = kv * group
    r = {s: context.context_parallel(s, seq, heads, kv, 128, cp, alpha, beta, flops) for s in context.SCHEMES}
    ag, ring = r["all_gather"], r["ring"]
    # same bytes, same unoverlapped time (c−1 steps of S/c either way); ring never exposes more
    assert ag.send == pytest.approx(ring.send) == pytest.approx(ag.kv_bytes * (cp - 1) / cp)
    assert ag.forward.time == pytest.approx(ring.forward.time)
    assert 0 <= ring.exposed <= ag.exposed == pytest.approx(ag.forward.time)
    assert ring.kv_memory == pytest.approx(2 * ag.kv_memory / cp)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(scheme="ulysses"), "scheme must be one of"),
        (dict(cp=1), "cp must be an integer >= 2"),
        (dict(kv_heads=3), "heads must be a multiple of kv_heads"),
        (dict(kv_heads=256), "kv_heads must be an integer in 1 … 128"),
        (dict(tensor_parallel=3), "kv_heads must be a multiple of tensor_parallel"),
        (dict(bandwidth=0), "bandwidth must be a finite number > 0"),
        (dict(latency=-1), "latency must be a finite number >= 0"),
        (dict(flops=float("nan")), "flops must be finite"),
        (dict(seq_len=0), "seq_len must be an integer >= 1"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, match):
    args = dict(scheme="ring", seq_len=131072, heads=128, kv_heads=8, head_dim=128, cp=16, latency=ALPHA,
                bandwidth=BETA, flops=FLOPS)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        context.context_parallel(**args)
