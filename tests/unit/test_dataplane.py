"""The data plane: shard cache (LRU / static), its closed forms, the prefetching loader, tokens and storage load."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.cluster import dataplane as dp
from clusterlab.cluster import loader as ld


# ------------------------------------------------------------------------------------------------ the cache
def _reference_lru(streams: list[list[int]], cap: int) -> list[int]:
    """A second, list-based LRU written independently: hits per epoch."""
    cache: list[int] = []
    out = []
    for stream in streams:
        hits = 0
        for s in stream:
            if s in cache:
                cache.remove(s)
                cache.append(s)
                hits += 1
            elif cap > 0:
                cache.append(s)
                if len(cache) > cap:
                    cache.pop(0)
        out.append(hits)
    return out


@given(
    shards=st.integers(1, 60),
    cap_frac=st.floats(0, 1.5),
    epochs=st.integers(1, 5),
    order=st.sampled_from(dp.ORDERS),
    nodes=st.integers(1, 4),
    split=st.sampled_from(dp.SPLITS),
    seed=st.integers(0, 10_000),
)
@settings(max_examples=80)
def test_lru_matches_an_independent_reference(shards, cap_frac, epochs, order, nodes, split, seed):
    nodes = min(nodes, shards)
    cap = int(cap_frac * shards)
    run = dp.simulate_shard_cache(shards, cap, epochs, order=order, nodes=nodes, split=split, seed=seed)
    streams = [s.tolist() for s in dp._epoch_streams(shards, epochs, order, nodes, split, seed)]
    assert run.hits.tolist() == _reference_lru(streams, cap)
    assert run.opens.tolist() == [len(s) for s in streams]


@given(shards=st.integers(1, 200), cap=st.integers(0, 400), order=st.sampled_from(dp.ORDERS),
       policy=st.sampled_from(dp.POLICIES), seed=st.integers(0, 999))
@settings(max_examples=60)
def test_cold_first_pass_without_reuse_has_no_hits(shards, cap, order, policy, seed):
    run = dp.simulate_shard_cache(shards, cap, 1, order=order, policy=policy, seed=seed)
    assert run.hits[0] == 0
    assert run.fetched_bytes[0] == run.read_bytes[0]


@given(shards=st.integers(1, 200), extra=st.integers(0, 50), epochs=st.integers(2, 6),
       order=st.sampled_from(dp.ORDERS), policy=st.sampled_from(dp.POLICIES), nodes=st.integers(1, 5),
       seed=st.integers(0, 999))
@settings(max_examples=60)
def test_cache_that_holds_everything_hits_every_warm_epoch(shards, extra, epochs, order, policy, nodes, seed):
    nodes = min(nodes, shards)
    run = dp.simulate_shard_cache(shards, shards + extra, epochs, order=order, policy=policy, nodes=nodes,
                                  split="fixed", seed=seed)
    assert np.all(run.hit_rate[1:] == 1.0)


@given(shards=st.integers(2, 300), frac=st.floats(0.01, 0.99), seed=st.integers(0, 999))
@settings(max_examples=40)
def test_sequential_lru_thrashes_when_the_cache_is_smaller(shards, frac, seed):
    cap = min(int(frac * shards), shards - 1)
    run = dp.simulate_shard_cache(shards, cap, 4, order="sequential", seed=seed)
    assert np.all(run.hits == 0)


@given(shards=st.integers(2, 300), frac=st.floats(0.0, 0.99), order=st.sampled_from(dp.ORDERS),
       seed=st.integers(0, 999))
@settings(max_examples=40)
def test_static_cache_hits_its_fraction(shards, frac, order, seed):
    cap = min(int(frac * shards), shards - 1)
    run = dp.simulate_shard_cache(shards, cap, 3, order=order, policy="static", seed=seed)
    assert run.hits[1:].tolist() == [cap, cap]


@pytest.mark.parametrize("c", [0.1, 0.25, 0.5, 0.75, 0.9])
def test_shuffled_lru_matches_closed_form(c):
    n = 4000
    run = dp.simulate_shard_cache(n, int(c * n), 6, order="shuffled", seed=6)
    assert run.hit_rate[1:].mean() == pytest.approx(dp.shuffled_lru_hit_rate(c), abs=0.02)


def test_closed_form_values_and_limits():
    assert dp.shuffled_lru_hit_rate(0.5) == pytest.approx(0.5 + 0.5 * math.log(0.5), rel=1e-12)
    assert dp.shuffled_lru_hit_rate(0) == 0
    assert dp.shuffled_lru_hit_rate(1) == 1
    assert dp.shuffled_lru_hit_rate(3) == 1
    grid = np.linspace(0, 0.999, 200)
    h = [dp.shuffled_lru_hit_rate(float(c)) for c in grid]
    assert all(b >= a for a, b in itertools.pairwise(h))
    assert all(v <= c + 1e-15 for v, c in zip(h, grid, strict=True))


def test_sizes_in_bytes():
    assert dp.shard_count(1e12, 1e9) == 1000
    assert dp.shard_count(1.5e9, 1e9) == 2
    assert dp.cache_capacity(3.5e12, 1e9) == 3500
    run = dp.simulate_cache(1e12, 1e9, 0.5e12, 3, order="sequential")
    assert run.shards == 1000 and run.capacity == 500
    assert run.fetched_bytes.tolist() == [1e12, 1e12, 1e12]


def test_result_is_frozen_and_read_only():
    run = dp.simulate_shard_cache(10, 5, 2)
    with pytest.raises(AttributeError):
        run.capacity = 3  # type: ignore[misc]
    with pytest.raises(ValueError):
        run.hits[0] = 1


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"shards": 0}, "shards"),
        ({"capacity": -1}, "capacity"),
        ({"epochs": 0}, "epochs"),
        ({"order": "random"}, "order"),
        ({"policy": "fifo"}, "policy"),
        ({"nodes": 11}, "nodes"),
        ({"split": "x"}, "split"),
        ({"shard_bytes": 0}, "shard_bytes"),
        ({"samples_per_shard": 0}, "samples_per_shard"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, name):
    args = {"shards": 10, "capacity": 5, "epochs": 2} | kwargs
    with pytest.raises(ValueError, match=name):
        dp.simulate_shard_cache(**args)


def test_bad_sizes_name_the_parameter():
    with pytest.raises(ValueError, match="dataset_bytes"):
        dp.shard_count(0, 1)
    with pytest.raises(ValueError, match="cache_bytes"):
        dp.cache_capacity(-1, 1)
    with pytest.raises(ValueError, match="cache_fraction"):
        dp.shuffled_lru_hit_rate(-0.1)


def test_per_epoch_split_reuses_less_than_a_fixed_split():
    # the cache holds exactly the node's quarter of the shards
    fixed = dp.simulate_shard_cache(2000, 500, 6, nodes=4, split="fixed", seed=1)
    moving = dp.simulate_shard_cache(2000, 500, 6, nodes=4, split="per_epoch", seed=1)
    assert np.all(fixed.hit_rate[1:] == 1.0)
    assert moving.hit_rate[1:].max() < 0.3


# ------------------------------------------------------------------------------------------------ the loader
loads = st.lists(st.floats(0, 5, allow_nan=False), min_size=1, max_size=60)


@given(lt=loads, g=st.floats(0.01, 3), w=st.integers(1, 6), p=st.integers(1, 6), extra=st.integers(1, 4))
@settings(max_examples=120)
def test_prefetch_never_lowers_throughput(lt, g, w, p, extra):
    base = ld.simulate_loader(lt, g, workers=w, prefetch_factor=p)
    deeper = ld.simulate_loader(lt, g, workers=w, prefetch_factor=p + extra)
    assert deeper.throughput >= base.throughput * (1 - 1e-12)
    assert np.all(deeper.taken <= base.taken + 1e-9)


@given(lt=loads, g=st.floats(0.01, 3), w=st.integers(0, 6), p=st.integers(1, 6))
@settings(max_examples=120)
def test_loader_invariants(lt, g, w, p):
    a = ld.simulate_loader(lt, g, workers=w, prefetch_factor=p)
    # a batch is taken after it is ready, one step after the previous one, and the GPU time adds up
    assert np.all(a.taken >= a.ready - 1e-12)
    assert np.all(np.diff(a.taken) >= g - 1e-9)
    assert a.total_time == pytest.approx(a.batches * g + a.total_wait, rel=1e-9)
    assert a.total_time >= a.batches * g - 1e-9
    lbar = float(np.mean(lt))
    if w == 0:
        assert a.total_time == pytest.approx(a.batches * ld.steady_step_time(lbar, g, w), rel=1e-9)
    else:  # each worker loads its own batches one after another
        per_worker = max(float(np.sum(a.load_times[i::w])) for i in range(w))
        assert a.total_time >= per_worker - 1e-9


def test_loader_small_cases():
    sync = ld.simulate_loader([1.0, 1.0, 1.0], 2.0, workers=0)
    assert sync.total_time == pytest.approx(9.0)
    assert sync.depth == 0
    # one worker, depth 1: the next load starts only when the loop took the previous batch
    one = ld.simulate_loader([1.0, 1.0, 1.0], 2.0, workers=1, prefetch_factor=1)
    assert one.taken.tolist() == [1.0, 3.0, 5.0]
    assert one.total_time == pytest.approx(7.0)
    assert one.wait.tolist() == [1.0, 0.0, 0.0]
    # loads slower than the step on average: no prefetch depth helps
    slow = [ld.simulate_loader([3.0] * 50, 1.0, workers=1, prefetch_factor=p).total_time for p in (1, 8)]
    assert slow[0] == pytest.approx(slow[1])
    assert ld.steady_step_time(3.0, 1.0, 1) == 3.0
    assert ld.steady_step_time(3.0, 1.0, 0) == 4.0
    assert ld.steady_step_time(3.0, 1.0, 4) == 1.0


@pytest.mark.parametrize(
    ("args", "kwargs", "name"),
    [
        (([], 1.0), {}, "load_times"),
        (([-1.0], 1.0), {}, "load_times"),
        (([1.0], 0.0), {}, "step_time"),
        (([1.0], 1.0), {"workers": -1}, "workers"),
        (([1.0], 1.0), {"prefetch_factor": 0}, "prefetch_factor"),
    ],
)
def test_loader_bad_input(args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        ld.simulate_loader(*args, **kwargs)


# ------------------------------------------------------------------------------------- tokens and storage
def test_token_rate_inverts_six_n():
    r = ld.token_rate(7e9, 8, 312e12, 0.45)
    assert r == pytest.approx(8 * 312e12 * 0.45 / (6 * 7e9), rel=1e-12)
    with pytest.raises(ValueError, match="mfu"):
        ld.token_rate(7e9, 8, 312e12, 1.5)


def test_tokenisation_throughput_divides_only():
    t = ld.tokenisation_throughput(1e5, 2e9, token_bytes=4, raw_bytes_per_token=4, tokenizer_rate=1e6, cores=10)
    assert t.pretokenised == 5e8
    assert t.read_limited == 5e8
    assert t.cpu_limited == 2.5e6
    assert t.on_the_fly == 2.5e6
    assert t.cores_needed == pytest.approx(0.4)
    assert t.stored_ratio == 1.0
    assert t.on_the_fly_headroom == pytest.approx(25)
    with pytest.raises(ValueError, match="cores"):
        ld.tokenisation_throughput(1, 1, token_bytes=1, raw_bytes_per_token=1, tokenizer_rate=1, cores=0)


def test_storage_load():
    s = ld.storage_load(1e6, 4, 112e9, 3600, 56)
    assert s.data_bandwidth == 4e6
    assert s.checkpoint_burst == pytest.approx(2e9)
    assert s.checkpoint_mean == pytest.approx(112e9 / 3656)
    assert s.burst_over_data == pytest.approx(500)
    assert s.data_per_hour == pytest.approx(4e6 * 3600)
    with pytest.raises(ValueError, match="save_time"):
        ld.storage_load(1, 1, 1, 1, 0)


def test_storage_load_wall_clock_period():
    s = ld.storage_load(1e6, 4, 112e9, 3600, 56, wall_clock=True)
    assert s.period == 3600 and s.checkpoint_mean == pytest.approx(112e9 / 3600)
    assert s.checkpoint_per_hour == pytest.approx(112e9)
    assert ld.storage_load(1e6, 4, 112e9, 3600, 56).period == 3656
    with pytest.raises(ValueError, match="save_time"):
        ld.storage_load(1, 1, 1, 50, 56, wall_clock=True)


def test_hit_rates_over_seeds_spread():
    r = dp.hit_rates_over_seeds(400e9, 1e9, 100e9, 8, seeds=6, warm_from=4, nodes=4, split="per_epoch")
    assert r.rates.shape == (6, 4)
    for sd in (0, 5):
        one = dp.simulate_cache(400e9, 1e9, 100e9, 8, nodes=4, split="per_epoch", seed=sd)
        assert np.array_equal(r.rates[sd], one.hit_rate[4:])
    assert r.mean == pytest.approx(float(np.mean(r.per_seed)))
    assert 0 < r.seed_std < r.epoch_std  # averaging four epochs narrows the spread
    fixed = dp.hit_rates_over_seeds(400e9, 1e9, 100e9, 4, seeds=3, nodes=4)
    assert fixed.mean == 1.0 and fixed.seed_std == 0.0
    with pytest.raises(ValueError, match="warm_from"):
        dp.hit_rates_over_seeds(1e9, 1e9, 1e9, 2, warm_from=2)
