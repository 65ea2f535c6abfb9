"""clusterlab.cluster.training: per-step traffic of DDP / ZeRO / FSDP and the size of a Llama-shaped layer."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.cluster import training
from clusterlab.communication import collectives

PSI = 7e9
GB = 1e9


def test_seed_example_ddp_and_zero2_move_the_same_bytes():
    # ZeRO §7.2.1: "Ψ + Ψ = 2Ψ, exactly the same as the baseline data parallel" (the seed says ZeRO-2 halves it)
    ddp = training.step_traffic("ddp", PSI, 8)
    zero2 = training.step_traffic("zero2", PSI, 8)
    assert ddp.send == pytest.approx(24.5 * GB)
    assert zero2.send == pytest.approx(24.5 * GB)
    assert [c.send for c in zero2.calls] == pytest.approx([12.25 * GB, 12.25 * GB])
    assert zero2.ops() == ("reduce_scatter", "all_gather")
    assert ddp.ops() == ("all_reduce",)
    # 50 GB/s per direction (IB 400 Gb/s): both 0.49 s; the seed's 0.245 s is the reduce-scatter alone
    assert ddp.cost(5e-6, 50e9).bandwidth == pytest.approx(0.49)
    assert zero2.cost(5e-6, 50e9).bandwidth == pytest.approx(0.49)
    assert zero2.calls[0].cost(5e-6, 50e9).bandwidth == pytest.approx(0.245)


def test_zero3_is_one_and_a_half_ddp():
    # ZeRO §7.2.2: 3Ψ, "1.5x"; 7B bf16 on 512 ranks → 41.9 GB (55.9 GB with fp32 gradients)
    z3 = training.step_traffic("zero3", PSI, 512)
    assert z3.ops() == ("all_gather", "all_gather", "reduce_scatter")
    assert z3.send / GB == pytest.approx(41.918, abs=5e-4)
    assert z3.in_psi == pytest.approx(3.0)
    assert training.step_traffic("ddp", PSI, 512).in_psi == pytest.approx(2.0)
    fp32 = training.step_traffic("zero3", PSI, 512, grad_bytes=4)
    assert fp32.send / GB == pytest.approx(55.8906, abs=5e-4)


def test_zero1_equals_zero2_and_grad_bytes_only_change_the_gradient_calls():
    z1 = training.step_traffic("zero1", PSI, 16, grad_bytes=4)
    z2 = training.step_traffic("zero2", PSI, 16, grad_bytes=4)
    assert z1.calls == z2.calls
    grads = [c for c in z2.calls if c.tensor == "gradients"]
    params = [c for c in z2.calls if c.tensor == "parameters"]
    assert [c.size for c in grads] == [PSI * 4] and [c.size for c in params] == [PSI * 2]


@settings(max_examples=60, deadline=None)
@given(st.floats(1e3, 1e12), st.integers(2, 4096), st.sampled_from([1, 2, 4]))
def test_volumes_follow_the_closed_forms(psi, n, b):
    f = (n - 1) / n
    expected = {"ddp": 2 * psi * b * f, "zero1": 2 * psi * b * f, "zero2": 2 * psi * b * f, "zero3": 3 * psi * b * f}
    for scheme, vol in expected.items():
        st_ = training.step_traffic(scheme, psi, n, param_bytes=b)
        assert math.isclose(st_.send, vol, rel_tol=1e-12)
        # every call is a ring collective of clusterlab.communication.collectives
        assert math.isclose(st_.send, sum(collectives.send_volume(c.op, c.size, n) for c in st_.calls), rel_tol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.floats(1e3, 1e12), st.integers(2, 1024), st.floats(0, 1e-4), st.floats(1e9, 1e12))
def test_step_time_is_the_sum_of_alpha_beta_times(psi, n, alpha, beta):
    z3 = training.step_traffic("zero3", psi, n)
    t = sum(collectives.alpha_beta_time(c.op, c.size, n, alpha, beta) for c in z3.calls)
    c = z3.cost(alpha, beta)
    assert c.time == t  # the calls one after the other, in order: the same sum
    # three calls of N−1 steps each: 3(N−1)α latency
    assert math.isclose(c.latency, 3 * (n - 1) * alpha, rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(c.bandwidth, z3.send / beta, rel_tol=1e-12)


def test_llama2_7b_layer_and_model():
    assert training.swiglu_hidden(4096) == 11008
    assert training.layer_params(4096, 11008) == 4 * 4096**2 + 3 * 4096 * 11008 == 202_375_168
    # 404.75 MB in bf16 (the seed: "KB–MB"); all-gather on 8 ranks at 50 GB/s ≈ 7.08 ms
    layer_bytes = training.LLAMA2_7B.layer_params * 2
    assert layer_bytes / 1e6 == pytest.approx(404.75, abs=1e-3)
    t = collectives.cost("all_gather", layer_bytes, 8, 5e-6, 50e9).bandwidth
    assert t * 1e3 == pytest.approx(7.083, abs=1e-3)
    # the published Llama-2-7B parameter count
    assert training.LLAMA2_7B.params == 6_738_415_616
    assert training.model_params(4096, 11008, 32, 32000) == training.LLAMA2_7B.params


def test_layer_params_variants():
    d, f = 1024, 4096
    assert training.layer_params(d, f, gated=False) == 4 * d * d + 2 * d * f
    assert training.layer_params(d, f, norms=True) == 4 * d * d + 3 * d * f + 2 * d
    # grouped-query attention: k and v project to d_kv < d
    assert training.layer_params(d, f, kv_hidden=256) == 2 * d * d + 2 * d * 256 + 3 * d * f


@pytest.mark.parametrize(("d", "expected"), [(4096, 11008), (5120, 13824), (8192, 22016), (512, 1536)])
def test_swiglu_hidden_matches_llama_sizes(d, expected):
    # 13B: 13824, 65B/70B-shaped d = 8192 without ffn multiplier: 22016 (llama/model.py rule)
    assert training.swiglu_hidden(d) == expected
    assert training.swiglu_hidden(d) % 256 == 0


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="scheme"):
        training.step_traffic("zero4", PSI, 8)
    with pytest.raises(ValueError, match="params"):
        training.step_traffic("ddp", 0, 8)
    with pytest.raises(ValueError, match="ranks"):
        training.step_traffic("ddp", PSI, 1)
    with pytest.raises(ValueError, match="grad_bytes"):
        training.step_traffic("ddp", PSI, 8, grad_bytes=-2)
    with pytest.raises(ValueError, match="hidden"):
        training.layer_params(0, 11008)
    with pytest.raises(ValueError, match="layers"):
        training.ModelShape(4096, 11008, 0, 32000)
