"""§9.6.5.1: causal attention work per context-parallel rank, contiguous vs zig-zag vs striped."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterlab.cluster import cp_balance


def _brute(ranks: int, seq_len: int, scheme: str) -> np.ndarray:
    owner = np.empty(seq_len, dtype=int)
    if scheme == "contiguous":
        owner[:] = np.arange(seq_len) // (seq_len // ranks)
    elif scheme == "zigzag":
        chunk = np.arange(seq_len) // (seq_len // (2 * ranks))
        owner[:] = np.minimum(chunk, 2 * ranks - 1 - chunk)
    else:
        owner[:] = np.arange(seq_len) % ranks
    keys = np.arange(seq_len) + 1  # query q meets keys 0 … q
    return np.bincount(owner, weights=keys, minlength=ranks)


@pytest.mark.parametrize("scheme", cp_balance.SCHEMES)
@pytest.mark.parametrize(("ranks", "seq_len"), [(1, 8), (2, 8), (3, 24), (4, 64), (8, 512)])
def test_matches_a_token_by_token_count(scheme, ranks, seq_len):
    r = cp_balance.causal_work(ranks, seq_len, scheme=scheme)
    assert np.allclose(r.work, _brute(ranks, seq_len, scheme))
    assert not r.work.flags.writeable


def test_contiguous_tends_to_2c_minus_1_over_c():
    r = cp_balance.causal_work(16, 131072, scheme="contiguous")
    assert r.imbalance == pytest.approx(31 / 16, rel=1e-4)
    assert r.slowest == 15
    assert r.efficiency == pytest.approx(1 / r.imbalance)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: cp_balance.causal_work(0, 8), "ranks"),
        (lambda: cp_balance.causal_work(4, 12), "seq_len"),
        (lambda: cp_balance.causal_work(4, 6, scheme="contiguous"), "seq_len"),
        (lambda: cp_balance.causal_work(2, 8, scheme="ring"), "scheme"),
    ],
)
def test_bad_arguments_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@given(st.integers(1, 64), st.integers(1, 256))
def test_zigzag_is_exactly_balanced_and_contiguous_grows_as_2i_plus_1(c, per_chunk):
    L = 2 * c * per_chunk
    zz = cp_balance.causal_work(c, L)
    plain = cp_balance.causal_work(c, L, scheme="contiguous")
    striped = cp_balance.causal_work(c, L, scheme="striped")
    total = L * (L + 1) / 2
    for r in (zz, plain, striped):
        assert r.total == pytest.approx(total)
        assert r.imbalance >= 1.0 - 1e-12
    assert np.allclose(zz.work, zz.work[0])
    n = L / c
    # rank i of the contiguous split: n²(2i + 1)/2 + n/2 pairs
    assert np.allclose(plain.work, n * n * (2 * np.arange(c) + 1) / 2 + n / 2)
    assert plain.imbalance >= striped.imbalance - 1e-12 >= zz.imbalance - 1e-12
