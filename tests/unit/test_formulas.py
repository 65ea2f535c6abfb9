"""The formula sheet equals the code: every entry's LaTeX, transcribed below as plain Python (:data:`REFERENCE`,
written from the formula on the sheet and nothing else), agrees with the clusterlab function the entry names at
many points of its symbols' ranges (hypothesis); the sheet renders, every entry is numbered once and no formula
appears twice."""

from __future__ import annotations

import importlib
import inspect
import math
import re
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from clusterlab.book import formulas
from clusterlab.cluster import compute, ecmp, ledger, loader, network, pipeline
from clusterlab.communication import chunking, collectives, compression, overlap, schemes
from clusterlab.faults import slowlink, summation

KEYS = [f.key for f in formulas.FORMULAS]
DAY = 86_400.0  # s
K_OPT = 12  # ZeRO's K: fp32 master weights, momentum, variance
ACT = 2  # bytes per bf16 activation element
FIBRE = 2e8  # m/s, the v on the sheet
U32 = 2.0**-24  # float32 unit roundoff, the u on the sheet


def log2_ceil(n: int) -> int:
    return (n - 1).bit_length()


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def ecmp_expected_max(n: int, m: int) -> float:
    """``Σ_{c=0}^{n-1} (1 − n!/mⁿ [xⁿ](Σ_{i≤c} xⁱ/i!)^m)``: the generating function of the sheet, by convolution."""
    total = 0.0
    for c in range(n):
        term = np.array([1.0 / math.factorial(i) for i in range(min(c, n) + 1)])
        power, base, e = np.array([1.0]), term, m
        while e:  # (Σ xⁱ/i!)^m by squaring, every product cut at degree n
            if e & 1:
                power = np.convolve(power, base)[: n + 1]
            base = np.convolve(base, base)[: n + 1]
            e >>= 1
        coef = power[n] if power.size > n else 0.0
        below = math.exp(math.lgamma(n + 1) - n * math.log(m)) * coef
        total += 1.0 - below
        if below >= 1.0 - 1e-15:
            break
    return total


def ledger_step(compute_time, comm, overlap, stages, micro_batches, chunks, stall):
    """``T_步 = T_c + E + B + W`` with ``E = C − min(ρC, T_c)`` and ``B = T_c(p−1)/(vm)``."""
    exposed = comm - min(overlap * comm, compute_time)
    bubble = compute_time * (stages - 1) / (chunks * micro_batches)
    return compute_time + exposed + bubble + stall


def _p(x: int) -> int:
    """``p = 2^⌊log₂N⌋``."""
    return 1 << (x.bit_length() - 1)


#: each entry's LaTeX in plain Python, keyed like the sheet
REFERENCE: dict[str, Callable[..., float]] = {
    # ---------------------------------------------------------------- collective communication
    "p2p-time": lambda size, latency, bandwidth: latency + size / bandwidth,
    "msg-crossover": lambda latency, bandwidth: latency * bandwidth,
    "naive-time": lambda size, ranks, latency, bandwidth: 2 * latency + 2 * size * (ranks - 1) / bandwidth,
    "ar-send": lambda size, ranks: 2 * size * (ranks - 1) / ranks,
    "rs-ag-send": lambda size, ranks: size * (ranks - 1) / ranks,
    "ring-total": lambda size, ranks: 2 * (ranks - 1) * size,
    "direct-total": lambda size, ranks: ranks * (ranks - 1) * size,
    "ar-ring-time": lambda size, ranks, latency, bandwidth: 2 * (ranks - 1) * latency
    + 2 * size * (ranks - 1) / (ranks * bandwidth),
    "rs-ag-time": lambda size, ranks, latency, bandwidth: (ranks - 1) * latency
    + size * (ranks - 1) / (ranks * bandwidth),
    "bucketed": lambda size, buckets, ranks, latency, bandwidth: 2 * buckets * (ranks - 1) * latency
    + 2 * size * (ranks - 1) / (ranks * bandwidth),
    "multi-nic": lambda intra_bandwidth, nic_bandwidth, nics: min(intra_bandwidth, nics * nic_bandwidth),
    "swiglu-width": lambda hidden: 256 * ceil_div(8 * hidden // 3, 256),
    "layer-params": lambda hidden, ffn_hidden: 4 * hidden**2 + 3 * hidden * ffn_hidden,
    "busbw": lambda size, ranks, time: size / time * 2 * (ranks - 1) / ranks,
    "chain-time": lambda size, chunks, latency, bandwidth, stages: (chunks + stages - 1)
    * (latency + size / (chunks * bandwidth)),
    "chunked-ring": lambda size, ranks, chunks, latency, bandwidth, stages: (
        2 * (ranks - 1) * max(chunks, stages) + min(chunks, stages) - 1)
    * (latency + size / (ranks * chunks * bandwidth)),
    "chunk-sweet": lambda size, ranks, latency, bandwidth, stages: max(
        stages, math.sqrt((stages - 1) * size / (2 * ranks * (ranks - 1) * latency * bandwidth))),
    "ar-tree-time": lambda size, ranks, latency, bandwidth: 2 * log2_ceil(ranks) * latency + 2 * size / bandwidth,
    "ar-hd-time": lambda size, ranks, latency, bandwidth: 2 * math.log2(_p(ranks)) * latency
    + 2 * size * (_p(ranks) - 1) / (_p(ranks) * bandwidth)
    + (ranks != _p(ranks)) * (2 * latency + 2 * size / bandwidth),
    "tree-ring-crossover": lambda ranks, latency, bandwidth: ranks * latency * bandwidth
    * (ranks - 1 - log2_ceil(ranks)),
    "tree-crossover-e": lambda ranks, latency, bandwidth, tree_efficiency: (
        2 * (ranks - 1) - 2 * log2_ceil(ranks)) * latency * bandwidth
    / (2 / tree_efficiency - 2 * (ranks - 1) / ranks),
    "hier-time": lambda size, gpus, nodes, latency, bandwidth, intra_latency, intra_bandwidth: (
        2 * (gpus - 1) * (intra_latency + size / (gpus * intra_bandwidth))
        + 2 * (nodes - 1) * (latency + size / (gpus * nodes * bandwidth))),
    "nhr-time": lambda size, ranks, latency, bandwidth: 2 * log2_ceil(ranks) * latency
    + 2 * size * (ranks - 1) / (ranks * bandwidth),
    "overlap-step": lambda compute_time, comm_time, overlap_ratio: compute_time + comm_time
    - min(overlap_ratio * comm_time, compute_time),
    "overlap-ratio": lambda compute_time, comm_time, exposed_time: 1 - exposed_time / comm_time,
    "zeropp": lambda params: 0.5 * (2 * params) + 0 + 0.25 * (2 * params),
    # ---------------------------------------------------------------- network
    "fat-tree-2": lambda radix: radix**2 / 2,
    "fat-tree-3": lambda radix: radix**3 / 4,
    "switches-2": lambda hosts, radix, leaf_down: ceil_div(hosts, leaf_down)
    + ceil_div(ceil_div(hosts, leaf_down) * (radix - leaf_down), radix),
    "switches-3": lambda hosts, radix, leaf_down, pod_down: ceil_div(hosts, leaf_down)
    + ceil_div(ceil_div(hosts, leaf_down), pod_down) * (radix - leaf_down)
    + ceil_div(ceil_div(ceil_div(hosts, leaf_down), pod_down) * (radix - leaf_down) * (radix - pod_down), radix),
    "cables-2": lambda hosts, radix, leaf_down: hosts + ceil_div(hosts, leaf_down) * (radix - leaf_down),
    "cables-3": lambda hosts, radix, leaf_down, pod_down: hosts + ceil_div(hosts, leaf_down) * (radix - leaf_down)
    + ceil_div(ceil_div(hosts, leaf_down), pod_down) * (radix - leaf_down) * (radix - pod_down),
    "bisection-2": lambda hosts, radix, leaf_down, link_bandwidth: hosts / 2 * link_bandwidth
    / (leaf_down / (radix - leaf_down)),
    "bisection-3": lambda hosts, radix, leaf_down, pod_down, link_bandwidth: hosts / 2 * link_bandwidth
    / ((leaf_down / (radix - leaf_down)) * (pod_down / (radix - pod_down))),
    "pfc-headroom": lambda link_bandwidth, cable_length, mtu, response_time: 2 * link_bandwidth * cable_length / FIBRE
    + link_bandwidth * response_time + 2 * mtu,
    "go-back-n": lambda loss, link_bandwidth, rtt, mtu: 1 / (1 + loss * math.ceil(link_bandwidth * rtt / mtu)),
    "selective-repeat": lambda loss: 1 / (1 + loss),
    "ecmp-collision": lambda flows, uplinks: 1.0 if flows > uplinks
    else 1 - math.perm(uplinks, flows) / uplinks**flows,
    "ecmp-throughput": lambda flows, uplinks: uplinks * (1 - (1 - 1 / uplinks) ** flows) / min(flows, uplinks),
    "ecmp-slowdown": lambda flows, uplinks: ecmp_expected_max(flows, uplinks) / ceil_div(flows, uplinks),
    # ---------------------------------------------------------------- parallelism
    "dp-zero2": lambda params, ranks, param_bytes: 2 * params * param_bytes * (ranks - 1) / ranks,
    "dp-zero3": lambda params, ranks, param_bytes: 3 * params * param_bytes * (ranks - 1) / ranks,
    "mem-zero1": lambda params, dp: 4 * params + K_OPT * params / dp,
    "mem-zero2": lambda params, dp: 2 * params + (2 + K_OPT) * params / dp,
    "mem-zero3": lambda params, dp: (2 + 2 + K_OPT) * params / dp,
    "act-tp": lambda seq_len, micro_batch, hidden, heads, layers, tp: layers * seq_len * micro_batch * hidden
    * (10 + 24 / tp + 5 * heads * seq_len / (hidden * tp)),
    "act-sp": lambda seq_len, micro_batch, hidden, heads, layers, tp: layers * seq_len * micro_batch * hidden / tp
    * (34 + 5 * heads * seq_len / hidden),
    "act-selective": lambda seq_len, micro_batch, hidden, heads, layers, tp: layers * seq_len * micro_batch * hidden
    * (10 + 24 / tp),
    "act-selective-sp": lambda seq_len, micro_batch, hidden, heads, layers, tp: 34 * layers * seq_len * micro_batch
    * hidden / tp,
    "tp-volume": lambda hidden, seq_len, micro_batch, layers, micro_batches, tp: 4 * layers * micro_batches
    * 2 * (micro_batch * seq_len * hidden * ACT) * (tp - 1) / tp,
    "pp-volume": lambda hidden, seq_len, micro_batch, micro_batches, pp, tp: 2 * micro_batches
    * micro_batch * seq_len * hidden * ACT / tp,
    "ep-volume": lambda hidden, tokens, moe_layers, micro_batches, ep, top_k: 4 * moe_layers * micro_batches
    * (tokens * top_k * hidden * ACT) * (ep - 1) / ep,
    "cp-volume": lambda kv_hidden, seq_len, micro_batch, layers, micro_batches, cp: 3 * (cp - 1) * layers
    * micro_batches * 2 * micro_batch * (seq_len / cp) * kv_hidden * ACT,
    "bubble-total": lambda stages, micro_batches, chunks: (stages - 1) / (chunks * micro_batches + stages - 1),
    "bubble-ideal": lambda stages, micro_batches, chunks: (stages - 1) / (chunks * micro_batches),
    "bubble-split-1f1b": lambda stages, forward_time, input_grad_time, weight_grad_time: (stages - 1)
    * (forward_time + input_grad_time + weight_grad_time),
    "bubble-zb-h1": lambda stages, forward_time, input_grad_time, weight_grad_time: max(
        0.0, (stages - 1) * (forward_time + input_grad_time - weight_grad_time)),
    "bubble-dualpipe": lambda half_stages, forward_time, input_grad_time, weight_grad_time, overlapped_time: max(
        0.0, (half_stages - 1) * (overlapped_time + input_grad_time - 2 * weight_grad_time)),
    "flops-token": lambda params, layers, hidden, seq_len: 6 * params + 12 * layers * hidden * seq_len,
    "mfu": lambda tokens_per_second, flops_per_token, gpus, peak_flops: tokens_per_second * flops_per_token
    / (gpus * peak_flops),
    # ---------------------------------------------------------------- faults
    "mtbf": lambda components, rate: 3600.0 / (components * rate),
    "failure-rate": lambda events, components, hours: events / (components * hours),
    "waste": lambda interval, save_time, mtbf, restart_time: save_time / interval
    + (interval / 2 + restart_time) / mtbf,
    "young": lambda save_time, mtbf: math.sqrt(2 * save_time * mtbf),
    "daly": lambda save_time, mtbf: math.sqrt(2 * save_time * mtbf)
    * (1 + math.sqrt(save_time / (2 * mtbf)) / 3 + save_time / (2 * mtbf) / 9) - save_time,
    "waste-opt": lambda save_time, mtbf, restart_time: math.sqrt(2 * save_time / mtbf) + restart_time / mtbf,
    # e^x − 1 evaluated by expm1 (the same number, without the cancellation of exp(x) − 1 for small x)
    "waste-exact": lambda interval, save_time, mtbf, restart_time: 1 - interval / (
        mtbf * math.exp(restart_time / mtbf) * math.expm1((interval + save_time) / mtbf)),
    "goodput": lambda interval, save_time, mtbf, mttr: (1 - ((interval + save_time) / 2 + mttr) / mtbf)
    * interval / (interval + save_time),
    "slow-ring": lambda size, ranks, latency, bandwidth, slowdown: 2 * (ranks - 1)
    * (latency + slowdown * size / (ranks * bandwidth)),
    "slow-throughput": lambda exposed_fraction, slowdown: 1 / ((1 - exposed_fraction) + slowdown * exposed_fraction),
    "slow-step": lambda compute, communication, overlap, slowdown: compute
    + max(0.0, slowdown * communication - overlap),
    "adam-first-step": lambda grad, lr, eps: -lr * grad / (abs(grad) + eps),
    "sum-error-bound": lambda additions, abs_sum: additions * U32 / (1 - additions * U32) * abs_sum,
    # ---------------------------------------------------------------- data plane
    "lru-shuffled": lambda cache_fraction: 0.0 if cache_fraction == 0 else cache_fraction
    + (1 - cache_fraction) * math.log(1 - cache_fraction),
    "loader-bound": lambda mean_load_time, step_time, workers: step_time + mean_load_time if workers == 0
    else max(step_time, mean_load_time / workers),
    "token-demand": lambda params, gpus, peak_flops, mfu: gpus * peak_flops * mfu / (6 * params),
    # ---------------------------------------------------------------- ledger
    "ledger-compute": lambda flops_per_token, tokens, gpus, peak_flops, efficiency: flops_per_token * tokens
    / (gpus * peak_flops) / efficiency,
    "ledger-exposed": lambda compute_time, send_1, bandwidth_1, overlap_1, send_2, bandwidth_2, overlap_2: (
        send_1 / bandwidth_1 + send_2 / bandwidth_2)
    - min(overlap_1 * send_1 / bandwidth_1 + overlap_2 * send_2 / bandwidth_2, compute_time),
    "ledger-bubble": lambda compute_time, stages, micro_batches, chunks: compute_time * (stages - 1)
    / (chunks * micro_batches),
    "ledger-step": ledger_step,
    "ledger-mfu": lambda ideal, efficiency, comm, overlap, stages, micro_batches, chunks, stall: ideal / ledger_step(
        ideal / efficiency, comm, overlap, stages, micro_batches, chunks, stall),
    "ledger-days": lambda budget, tokens, step: budget / (tokens / step) / DAY,
    "flops-megatron2021": lambda layers, hidden, seq_len, vocab: 96 * layers * hidden**2
    * (1 + seq_len / (6 * hidden) + vocab / (16 * layers * hidden)),
}


def _near_integer(x: float) -> bool:
    return abs(x - round(x)) < 1e-6


#: points where the transcription and the code may round a ceiling differently: ⌈x⌉ of an x within float noise of
#: an integer (the code takes such an x as the integer)
ILL_CONDITIONED: dict[str, Callable[..., bool]] = {
    "go-back-n": lambda loss, link_bandwidth, rtt, mtu: _near_integer(link_bandwidth * rtt / mtu),
}


#: examples per entry where one call of the function takes a good part of a second (ECMP's exact E[max])
EXAMPLES = {"ecmp-collision": 20, "ecmp-throughput": 20, "ecmp-slowdown": 20}


def _strategy(sym: formulas.Symbol) -> st.SearchStrategy:
    if sym.integer:
        lo, hi = int(sym.low), int(sym.high)
        powers = [2**k for k in range(0, 21) if lo <= 2**k <= hi]  # powers of two: halving-doubling, even radix
        return st.one_of(st.integers(lo, hi), st.sampled_from(powers)) if powers else st.integers(lo, hi)
    return st.floats(sym.low, sym.high, allow_nan=False, allow_infinity=False)


@st.composite
def _fabric_values(draw, f: formulas.Formula) -> dict:
    """A fabric inside the entry's range: radix, then ports down, then hosts up to what those ports can serve."""
    sym = {s.arg: s for s in f.symbols}
    k = draw(st.integers(int(sym["radix"].low), int(sym["radix"].high)))
    half = (k + 1) // 2 if f.key.startswith("bisection") else 1
    values = {"radix": k, "leaf_down": draw(st.integers(half, k - 1))}
    cap = k * values["leaf_down"]
    if "pod_down" in sym:
        values["pod_down"] = draw(st.integers(half, k - 1))
        cap *= values["pod_down"]
    low = values["leaf_down"] * values["pod_down"] + 1 if f.key == "bisection-3" else 1
    values["hosts"] = draw(st.integers(low, max(low, cap)))
    if "link_bandwidth" in sym:
        values["link_bandwidth"] = draw(_strategy(sym["link_bandwidth"]))
    return values


def _values(f: formulas.Formula) -> st.SearchStrategy:
    if f.key.startswith(("switches-", "cables-", "bisection-")):
        return _fabric_values(f)
    return st.fixed_dictionaries({s.arg: _strategy(s) for s in f.symbols})


def _resolve(dotted: str) -> object:
    """The object a dotted name names: the longest importable module, then attributes (``network.Fabric.x``)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise AssertionError(f"{dotted} names nothing")


def test_sheet_size_and_unique_keys():
    assert len(formulas.FORMULAS) >= 70
    assert len(set(KEYS)) == len(KEYS)
    assert set(REFERENCE) == set(KEYS), "every entry needs a transcription, and only entries have one"
    assert [f.group for f in formulas.FORMULAS] == sorted((f.group for f in formulas.FORMULAS),
                                                          key=list(formulas.GROUPS).index), "grouped by chapter"
    assert {f.group for f in formulas.FORMULAS} == set(formulas.GROUPS) == set(formulas.GROUP_SOURCES)


def test_no_formula_twice():
    latex = [re.sub(r"\s+", "", f.latex) for f in formulas.FORMULAS]
    assert len(set(latex)) == len(latex)


@pytest.mark.parametrize("key", KEYS)
def test_entry_is_well_formed(key):
    f = formulas.by_key(key)
    assert _resolve(f.function) is not None, f.function
    args = [s.arg for s in f.symbols]
    assert len(set(args)) == len(args)
    assert list(inspect.signature(REFERENCE[key]).parameters) == args
    assert list(inspect.signature(f.compute).parameters) == args
    for s in f.symbols:
        assert s.low <= s.high and s.meaning and s.unit
    assert f.where.startswith("{") and "`" in f.where
    assert f.latex and "|" not in f.latex and "$" not in f.latex


@pytest.mark.parametrize("key", KEYS)
def test_reference_equals_clusterlab(key):
    f = formulas.by_key(key)
    reference = REFERENCE[key]
    skip = ILL_CONDITIONED.get(key)

    @settings(max_examples=EXAMPLES.get(key, 150), deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
    @given(_values(f))
    def check(values):
        assume(f.holds(**values))
        assume(skip is None or not skip(**values))
        got, ref = float(f.compute(**values)), float(reference(**values))
        assert math.isclose(got, ref, rel_tol=1e-9, abs_tol=1e-12), (values, got, ref)

    check()


@settings(max_examples=100, deadline=None)
@given(st.floats(0.0, 1e12), st.integers(2, 4096))
def test_one_entry_two_collectives(size, ranks):
    """``rs-ag-send`` and ``ring-total`` each state one formula for two operations: both equal it."""
    assert collectives.send_volume("all_gather", size, ranks) == pytest.approx(
        REFERENCE["rs-ag-send"](size=size, ranks=ranks), rel=1e-12, abs=1e-12)
    assert schemes.all_reduce_scheme_volume("root", size, ranks).total == pytest.approx(
        REFERENCE["ring-total"](size=size, ranks=ranks), rel=1e-12, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 128), st.integers(1, 512), st.integers(1, 8), st.floats(1.0, 1e12), st.integers(2, 1024),
       st.integers(1, 4096), st.floats(0.0, 1e-3), st.floats(1e6, 1e12))
def test_the_notes_hold(p, m, v, size, ranks, chunks, latency, bandwidth):
    """What the notes under the entries state in formulas is the code's too."""
    b = pipeline.bubble(p, m, chunks=v)
    assert b.of_total == pytest.approx(b.of_ideal / (1 + b.of_ideal), rel=1e-12)  # bubble-ideal: the conversion
    assert collectives.send_volume("all_reduce", size, ranks) == pytest.approx(  # rs-ag-send: AR = RS + AG
        collectives.send_volume("reduce_scatter", size, ranks) + collectives.send_volume("all_gather", size, ranks),
        rel=1e-12)
    one = chunking.pipelined_terms(size, ranks, chunks, latency, bandwidth, stages=1).time  # chunked-ring, h = 1
    assert one == pytest.approx(2 * (ranks - 1) * (chunks * latency + size / (ranks * bandwidth)), rel=1e-12)
    assert summation.longest_chain("ring", ranks) == ranks - 1  # sum-error-bound: k for a chain and a cascade
    assert summation.longest_chain("pairwise", ranks) == math.ceil(math.log2(ranks) - 1e-12)


@settings(max_examples=100, deadline=None)
@given(st.floats(1e9, 1e18), st.floats(1e12, 1e16), st.floats(0.01, 1.0), st.floats(0.0, 100.0), st.floats(0.0, 1.0),
       st.floats(1e6, 1e12), st.integers(1, 100_000), st.floats(0.01, 1.0))
def test_the_notes_hold_for_the_step(flops, peak, eta, comm, rho, params, gpus, mfu):
    """§4's step is §9.6.2's overlap formula with ``t_c = F/(Pη)``; without bubble and stall the ledger's MFU is
    §4's ``η·T_c/T_步``; token demand is the MFU definition with ``F_tok = 6Ψ`` solved for the throughput."""
    st4 = compute.step_time(flops, peak, efficiency=eta, comm=comm, overlap=rho)
    tc = flops / (peak * eta)
    assert st4.total == pytest.approx(overlap.overlap_step(tc, comm, rho).step, rel=1e-12)
    book = ledger.ledger(1.0, 1.0, 1, peak, efficiency=eta, comm=[ledger.comm_line("C", comm, 1.0)], overlap=rho,
                         flops_per_token=flops)
    assert book.mfu == pytest.approx(st4.mfu, rel=1e-12) and book.mfu <= eta * (1 + 1e-12)
    rate = loader.token_rate(params, gpus, peak, mfu)
    assert compute.mfu(rate, 6 * params, gpus, peak) == pytest.approx(mfu, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 24), st.integers(1, 24), st.floats(1e6, 1e11))
def test_the_notes_hold_elsewhere(flows, uplinks, params):
    """ECMP's idle uplinks, a healthy step is ``k = 1`` of the slow one, ZeRO++ off is ZeRO-3's ``3M``."""
    col = ecmp.ecmp_collisions(flows, uplinks)
    assert col.expected_idle == pytest.approx(uplinks * (1 - 1 / uplinks) ** flows, rel=1e-12, abs=1e-12)
    slow = slowlink.step_with_slow_link(2.0, 1.5, 0.5, 1.0)
    assert slow.healthy_step == slow.slow_step == 2.0 + 1.0
    assert compression.zeropp_volume(params, 8).cross_node == pytest.approx(3 * 2 * params, rel=1e-12)


@pytest.mark.parametrize("radix", [4, 6, 8, 16])
def test_bisection_formula_is_the_min_cut_on_boundaries(radix):
    """Where the halves fall on leaf (two tiers) or pod (three tiers) boundaries and no tier is better than 1:1, the
    topology's min cut (``Fabric.min_bisection``) is the sheet's formula."""
    b = 25e9
    for d1 in range((radix + 1) // 2, radix):
        for j in (1, 2):
            if 2 * j * d1 <= radix * d1:
                f = network.leaf_spine(2 * j * d1, radix, b, oversubscription=d1 / (radix - d1))
                ref = REFERENCE["bisection-2"](hosts=2 * j * d1, radix=radix, leaf_down=d1, link_bandwidth=b)
                assert f.min_bisection() == pytest.approx(ref, rel=1e-12)
        for d2 in range((radix + 1) // 2, radix):
            pod = d1 * d2
            for j in (1, 2):
                if 2 * j * pod <= radix * pod:
                    f = network.fat_tree(2 * j * pod, radix, b, oversubscription=d1 / (radix - d1),
                                         pod_oversubscription=d2 / (radix - d2))
                    ref = REFERENCE["bisection-3"](hosts=2 * j * pod, radix=radix, leaf_down=d1, pod_down=d2,
                                                   link_bandwidth=b)
                    assert f.min_bisection() == pytest.approx(ref, rel=1e-12)


def test_bisection_formula_is_not_the_min_cut_off_boundaries():
    """§3's 1:7 fabric: pods of 1,792 + 1,792 + 512 hosts, so no even split falls on pod boundaries."""
    f = network.fat_tree(4096, 64, 25e9, pod_oversubscription=7)
    assert f.bisection_bandwidth == pytest.approx(REFERENCE["bisection-3"](
        hosts=4096, radix=64, leaf_down=f.hosts_per_leaf, pod_down=f.leaves_per_pod, link_bandwidth=25e9))
    assert f.min_bisection() > 1.5 * f.bisection_bandwidth


@pytest.mark.parametrize(
    ("key", "values", "expected"),
    [
        ("ar-send", {"size": 14e9, "ranks": 8}, 24.5e9),  # example 9.6.1 of the original
        ("rs-ag-send", {"size": 14e9, "ranks": 8}, 12.25e9),
        ("dp-zero2", {"params": 7e9, "ranks": 8, "param_bytes": 2}, 24.5e9),  # ZeRO-2 = DDP (erratum 4)
        ("mem-zero2", {"params": 7e9, "dp": 8}, 26.25e9),
        ("mem-zero3", {"params": 7e9, "dp": 1}, 112e9),
        ("bubble-total", {"stages": 8, "micro_batches": 64, "chunks": 1}, 7 / 71),
        ("fat-tree-2", {"radix": 64}, 2048),
        ("fat-tree-3", {"radix": 64}, 65536),
        ("mtbf", {"components": 16384, "rate": 419 / (16384 * 54 * 24)}, 54 * 24 / 419 * 3600),
        ("overlap-ratio", {"compute_time": 30, "comm_time": 12, "exposed_time": 4.8}, 0.6),
        ("swiglu-width", {"hidden": 4096}, 11008),  # Llama 2 7B
        ("layer-params", {"hidden": 4096, "ffn_hidden": 11008}, 202_375_168),
        ("selective-repeat", {"loss": 0.01}, 1 / 1.01),
        ("ecmp-slowdown", {"flows": 2, "uplinks": 2}, 1.5),  # two flows, two links: max is 2 half the time
        ("zeropp", {"params": 7e9}, 0.75 * 14e9),
    ],
)
def test_anchor_values(key, values, expected):
    f = formulas.by_key(key)
    got, ref = float(f.compute(**values)), float(REFERENCE[key](**values))
    assert got == pytest.approx(expected, rel=1e-9) and ref == pytest.approx(expected, rel=1e-9)


def test_a_wrong_reference_is_caught():
    """The comparison can fail: the seed's halved ZeRO-2 volume is not what the code computes."""
    f = formulas.by_key("dp-zero2")
    got = f.compute(params=7e9, ranks=8, param_bytes=2)
    assert not math.isclose(got, 7e9 * 2 * 7 / 8, rel_tol=1e-6)


def test_sheet_markdown():
    labels = []
    for name in formulas.GROUPS:
        md = formulas.group_markdown(name)
        assert md.startswith("出自 " + formulas.GROUP_SOURCES[name])
        items = [line for line in md.splitlines() if line.startswith("- **")]
        assert len(items) == len(formulas.group(name))
        assert md.count("计算：`") == len(items) and md.count("推导：{") == len(items)
        labels += re.findall(r"^  \$\$.+\$\$ \((eq-c08-[a-z0-9-]+)\)$", md, flags=re.M)
    assert labels == [f.label for f in formulas.FORMULAS], "one numbered equation per entry, in sheet order"
    referenced = re.findall(r"\{eq\}`([^`]+)`", "".join(f.note for f in formulas.FORMULAS))
    assert referenced and set(referenced) <= set(labels)
    assert "{ref}" not in formulas.sheet_markdown(formulas.group("data"), links=False)
    with pytest.raises(ValueError, match="formulas"):
        formulas.sheet_markdown([])
    with pytest.raises(ValueError, match="name must be one of"):
        formulas.group("nope")
    with pytest.raises(ValueError, match="key must be one of"):
        formulas.by_key("nope")
