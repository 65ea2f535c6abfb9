"""The one cost value: its terms price as the α-β model says, costs add and scale, and every communication model
returns it with latency and bandwidth parts that agree with the model's total."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.cluster import parallel, training
from clusterlab.communication import algorithms, collectives
from clusterlab.communication.cost import ZERO, Cost, Term, link_cost
from clusterlab.lab import mpifit

alphas = st.floats(0, 1e-3)
betas = st.floats(1e8, 1e12)
sizes = st.floats(0, 1e11)


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 1e4), sizes, alphas, betas)
def test_one_link_is_steps_alpha_plus_bytes_over_beta(k, s, a, b) -> None:
    c = link_cost("x", k, s, a, b)
    assert c.time == k * a + s / b
    assert c.latency == k * a and c.bandwidth == s / b
    assert (c.steps, c.bytes, c.bytes_by_link) == (k, s, (("x", s),))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.floats(0, 100), sizes, alphas, betas), min_size=1, max_size=6),
       st.floats(0, 1e-4), st.floats(0, 50))
def test_costs_add_and_scale(parts, overhead, k) -> None:
    costs = [link_cost(n, st_, s, a, b, overhead=overhead) for n, st_, s, a, b in parts]
    total = ZERO
    for c in costs:
        total = total + c
    assert math.isclose(total.time, sum(c.time for c in costs), rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(total.time, total.latency + total.bandwidth, rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(total.bytes, sum(s for _, _, s, _, _ in parts), rel_tol=1e-12, abs_tol=1e-300)
    assert dict(total.bytes_by_link).keys() == {n for n, *_ in parts}
    assert math.isclose((total * k).time, k * total.time, rel_tol=1e-12, abs_tol=1e-300)
    assert (k * total) == (total * k)


def test_an_unpriced_term_must_be_priced_first() -> None:
    c = Cost((Term("x", 3.0, 6e6),))
    with pytest.raises(ValueError, match="priced"):
        _ = c.time
    assert c.priced(1e-6, 1e9).time == 3e-6 + 6e6 / 1e9
    with pytest.raises(ValueError, match="latency"):
        c.priced(-1.0, 1e9)
    with pytest.raises(ValueError, match="bandwidth"):
        c.priced(1e-6, 0.0)
    with pytest.raises(ValueError, match="scaled"):
        _ = c * -1


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["ring", "naive", "tree", "halving_doubling"]), sizes, st.integers(2, 4096), alphas, betas)
def test_collectives_latency_and_bandwidth_are_the_size_0_and_alpha_0_times(alg, s, n, a, b) -> None:
    c = collectives.cost("all_reduce", s, n, a, b, alg)
    assert c.latency == collectives.alpha_beta_time("all_reduce", 0.0, n, a, b, alg)
    assert c.bandwidth == collectives.alpha_beta_time("all_reduce", s, n, 0.0, b, alg)
    assert c.time == collectives.alpha_beta_time("all_reduce", s, n, a, b, alg)


@settings(max_examples=40, deadline=None)
@given(sizes, st.sampled_from([2, 4, 8]), st.integers(2, 64), alphas, betas, alphas, betas)
def test_hierarchical_cost_is_its_three_phases_on_two_links(s, g, m, a, b, a_in, b_in) -> None:
    c = collectives.cost("all_reduce", s, g * m, a, b, "hierarchical", ranks_per_node=g, intra_latency=a_in,
                         intra_bandwidth=b_in)
    h = algorithms.hierarchical_breakdown(s, g * m, g, a, b, intra_latency=a_in, intra_bandwidth=b_in)
    assert c.time == h.total and c == h.cost
    per = dict(c.bytes_by_link)
    assert math.isclose(per["intra"], 2 * s * (g - 1) / g, rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(per["inter"], 2 * (s / g) * (m - 1) / m, rel_tol=1e-12, abs_tol=1e-300)
    assert c.steps == 2 * (g - 1) + 2 * (m - 1)


def test_the_other_models_return_the_same_value() -> None:
    z3 = training.step_traffic("zero3", 7e9, 64)
    c = z3.cost(5e-6, 50e9)
    assert isinstance(c, Cost) and c.steps == 3 * 63
    assert c.bandwidth == pytest.approx(z3.send / 50e9)
    v = parallel.dp_volume("ddp", 7e9, 64)
    assert v.cost(5e-6, 50e9) == link_cost("dp", v.latency_steps, v.send, 5e-6, 50e9)
    f = mpifit.cost_terms("all_reduce", "recursive_doubling", 1e6, 8)
    assert (f.steps, f.bytes) == (3.0, 3e6)
    assert f.priced(2e-6, 1e10).time == 3 * 2e-6 + 3e6 / 1e10
