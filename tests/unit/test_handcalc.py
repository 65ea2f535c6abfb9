"""The by-hand layout model of the planner exercise: its stated formulas, its constraints, and how far its choice
lies from the planner's (the exercise promises 6 % and grades at 10 %)."""

from __future__ import annotations

import importlib.util
import math
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.cluster.planning import handcalc as hc

REF = hc.Job(48, 8192, 22016, 64, 64, 32000, 4096, 512, 40e9, 4 * 2**20)  # the exercise's public reference job


def test_memory_matches_the_exercise_anchors() -> None:
    for lay, gb in (((8, 4, 16), 6.468716544), ((4, 2, 64), 21.704067072), ((2, 1, 256), 81.866246144),
                    ((1, 8, 64), 25.798920192)):
        assert math.isclose(hc.first_stage_memory(REF, *lay) / 1e9, gb, rel_tol=1e-9)
    assert math.isclose(hc.first_stage_memory(replace(REF, kv_heads=8), 8, 4, 16) / 1e9, 5.631952896, rel_tol=1e-9)


def test_violations_name_each_constraint() -> None:
    cases = {(8, 4, 16): set(), (16, 2, 16): {"node"}, (2, 1, 256): {"memory"}, (8, 3, 16): {"product"},
             (4, 32, 4): {"layers"}}
    for lay, want in cases.items():
        assert set(hc.violations(REF, *lay)) == want
    assert hc.violations(replace(REF, batch_tokens=3 * 2**20), 1, 1, 512) == {"batch"}  # memory not checked then
    assert hc.violations(replace(REF, kv_heads=2), 4, 4, 32) == {"heads"}
    # the margin: 0.9 × 46 GB = 41.4 GB lies between the two layouts' needs
    assert not hc.violations(replace(REF, memory=46e9), 4, 1, 128)
    assert hc.violations(replace(REF, memory=46e9), 2, 2, 128) == {"memory"}


def test_step_time_matches_the_exercise_anchors() -> None:
    job = replace(REF, kv_heads=8)
    for lay, want in (((8, 4, 16), 5.53746781058), ((4, 16, 8), 5.18065776911), ((1, 1, 512), 5.42961386788)):
        assert math.isclose(hc.step_time(job, *lay), want, rel_tol=1e-9)


def test_bad_input_names_the_parameter() -> None:
    with pytest.raises(ValueError, match="t"):
        hc.violations(REF, 0, 1, 512)
    with pytest.raises(ValueError, match="memory"):
        replace(REF, memory=0.0)
    with pytest.raises(ValueError, match="margin"):
        replace(REF, margin=1.5)


@settings(max_examples=60, deadline=None)
@given(t=st.sampled_from([1, 2, 4, 8]), p=st.sampled_from([1, 2, 3, 4, 6, 8, 12, 16]),
       d1=st.integers(1, 64), k=st.integers(2, 8))
def test_memory_never_grows_with_more_data_parallel_ranks(t: int, p: int, d1: int, k: int) -> None:
    """ZeRO-1 shards the optimizer states over d, and fewer micro-batches per replica are in flight."""
    job = replace(REF, gpus=t * p * d1 * k, batch_tokens=REF.seq * d1 * k * 4)
    assert hc.first_stage_memory(job, t, p, d1 * k) <= hc.first_stage_memory(job, t, p, d1) * (1 + 1e-12)


def _variant() -> object:
    path = Path(__file__).parents[2] / "exercises" / "source" / "planner" / "variant.py"
    spec = importlib.util.spec_from_file_location("planner_variant", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_by_hand_choice_is_within_six_percent_of_the_planner_for_every_scenario() -> None:
    variant = _variant()
    shapes = {j[0]: j[1:] for j in variant.JOBS}  # type: ignore[attr-defined]
    worst = 0.0
    for name, s, gpus, mem, batch_m in variant.SCENARIOS:  # type: ignore[attr-defined]
        job = hc.Job(*shapes[name], s, gpus, mem * 1e9, batch_m * 2**20)
        cands = hc.feasible_layouts(job)
        assert cands and all(not hc.violations(job, *c) for c in cands)
        choice = min(cands, key=lambda c: hc.step_time(job, *c))
        worst = max(worst, hc.planner_ratio(job, choice))
    assert 1.0 <= worst <= 1.06  # the exercise's text states 6 %; its hidden check allows 10 %


def test_a_slow_layout_is_far_from_the_planners_best() -> None:
    job = replace(REF, kv_heads=8)
    cands = hc.feasible_layouts(job)
    times = hc.planner_times(job, cands)
    slowest = cands[max(range(len(cands)), key=times.__getitem__)]
    assert hc.planner_ratio(job, slowest) > 1.10  # the hidden check's tolerance tells it from the best


def test_the_hardware_is_the_catalogues_and_the_exercise_states_it() -> None:
    """The exercise's text gives 989 TFLOP/s, 450 GB/s and 50 GB/s: the catalogue's DGX H100."""
    assert (hc.PEAK, hc.NVLINK, hc.NET) == (989e12, 450e9, 50e9)
