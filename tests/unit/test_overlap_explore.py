"""The §9.6.2 explorer: its model matches the two simulators, the grid is indexed in product order, and the static
widget carries exactly the precomputed numbers."""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab import viz
from clusterlab.communication import overlap, overlap_explore
from clusterlab.units import MiB


def test_point_matches_simulators() -> None:
    p = overlap_explore.explore_point(12, 1e9, 5e-6, 25e9, 25 * MiB, 2, ranks=16)
    ddp = overlap.simulate_ddp([0.08 / 12] * 12, [1e9 / 12] * 12, 16, 5e-6, 25e9, bucket_cap=25 * MiB,
                               first_bucket_cap=None, forward_time=0.04)
    fsdp = overlap.simulate_prefetch([0.04 / 12] * 12, [1e9 / 24] * 12, 16, 5e-6, 25e9, 2)
    assert p.ddp == ddp and p.fsdp == fsdp
    s = p.summary()
    assert s["ddp_step"] == ddp.step and s["fsdp_extra_bytes"] == fsdp.extra_bytes
    assert s["ddp_buckets"] == len(ddp.buckets)


@settings(max_examples=30, deadline=None)
@given(layers=st.integers(1, 40), grad=st.floats(1e6, 1e10), alpha=st.floats(0, 1e-4), beta=st.floats(1e9, 1e11),
       cap=st.sampled_from([MiB, 25 * MiB, math.inf]), depth=st.integers(0, 4))
def test_point_invariants(layers: int, grad: float, alpha: float, beta: float, cap: float, depth: int) -> None:
    s = overlap_explore.explore_point(layers, grad, alpha, beta, cap, depth).summary()
    assert 0 <= s["ddp_exposed"] <= s["ddp_comm"] * (1 + 1e-9) + 1e-12
    assert math.isclose(s["ddp_step"], s["ddp_compute"] + s["ddp_exposed"], rel_tol=1e-9)
    assert 0 <= s["fsdp_exposed"] <= s["fsdp_comm"] * (1 + 1e-9) + 1e-12
    if math.isinf(cap):
        assert math.isclose(s["ddp_exposed"], s["ddp_comm"], rel_tol=1e-9)


def test_grid_order_and_index() -> None:
    axes = ([6, 24], [5e8, 2e9], [2e-6], [12.5e9, 50e9], [MiB, math.inf], [0, 2])
    g = overlap_explore.explore_grid(*axes)
    assert len(g.summaries) == 2 * 2 * 1 * 2 * 2 * 2
    values = [24, 5e8, 2e-6, 50e9, math.inf, 2]
    assert g.summaries[g.index(values)] == overlap_explore.explore_point(*values).summary()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="values"):
        g.index([7, 5e8, 2e-6, 50e9, math.inf, 2])


@pytest.mark.parametrize(("kwargs", "name"), [({"layers": 0}, "layers"), ({"grad_bytes": -1.0}, "grad_bytes"),
                                              ({"depth": -1}, "depth"), ({"bandwidth": 0.0}, "bandwidth")])
def test_bad_input_names_parameter(kwargs: dict[str, float], name: str) -> None:
    args: dict[str, float] = {"layers": 4, "grad_bytes": 1e8, "latency": 1e-6, "bandwidth": 1e10,
                              "bucket_cap": MiB, "depth": 1}
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        overlap_explore.explore_point(**args)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="layers"):
        overlap_explore.explore_grid([], [1e8], [1e-6], [1e10], [MiB], [0])


def test_static_widget_carries_the_grid() -> None:
    g = overlap_explore.explore_grid([6, 24], [5e8], [2e-6, 2e-5], [50e9], [MiB, math.inf], [0, 1])
    html = viz.overlap_grid_widget(g)._repr_html_()
    assert html == viz.overlap_grid_widget(g)._repr_html_()  # deterministic
    payload = json.loads(re.search(r"var D=(\{.*?\});", html).group(1))  # type: ignore[union-attr]
    assert payload["sizes"] == [2, 1, 2, 1, 2, 2] and len(payload["rows"]) == len(g.summaries)
    assert payload["rows"][5][0] == round(g.summaries[5]["ddp_step"] * 1e3, 4)
    assert html.count("<select") == 6 and "http" not in html
    with pytest.raises(ValueError, match="grid"):
        viz.overlap_grid_widget("grid")  # type: ignore[arg-type]
