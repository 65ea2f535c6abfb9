"""clusterlab.specs: every entry sourced, units sane, layouts that multiply out, step times that reproduce what the
papers print, and bad data refused with a ValueError naming the field."""

from __future__ import annotations

import dataclasses
import math

import pytest

from clusterlab import specs
from clusterlab.cluster import network
from clusterlab.specs import base

ALL = [*specs.ACCELERATORS.values(), *specs.NODES.values(), *specs.MODELS.values(), *specs.RUNS.values()]


def _name(x: object) -> str:
    return str(getattr(x, "name", x))


@pytest.mark.parametrize("entry", ALL, ids=_name)
def test_every_entry_has_a_source(entry) -> None:
    assert entry.source.ref.strip()
    assert isinstance(entry.source.verified, bool)
    if not entry.source.verified:
        assert entry.source.note.strip(), "an unverified entry says what is unconfirmed"


@pytest.mark.parametrize("run", specs.RUNS.values(), ids=_name)
def test_every_measurement_has_a_source(run) -> None:
    assert run.measured.source.ref.strip()


def test_unverified_entries_are_listed() -> None:
    listed = set(specs.unverified())
    expected = {f"{kind}: {e.name}" for kind, table in (("accelerator", specs.ACCELERATORS), ("node", specs.NODES),
                                                        ("model", specs.MODELS), ("run", specs.RUNS))
                for e in table.values() if not e.source.verified}
    assert listed == expected
    assert "run: Llama 3 405B, 8192 GPUs, sequence 8192" not in listed
    assert "run: OPT-175B, 992 GPUs" in listed


def test_mappings_are_read_only_and_keyed_by_name() -> None:
    for table in (specs.ACCELERATORS, specs.NODES, specs.MODELS, specs.RUNS):
        for key, value in table.items():
            assert key == value.name
        with pytest.raises(TypeError):
            table["x"] = None  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        specs.ACCELERATORS["H100 SXM"].peak_bf16 = 1.0  # type: ignore[misc]


def test_catalogue_size() -> None:
    assert len(specs.RUNS) >= 16
    generations = {r.node.accelerator.name.split()[0] for r in specs.RUNS.values()}
    assert {"A100", "H100", "H800", "TPU"} <= generations
    assert sum(r.model.experts > 1 for r in specs.RUNS.values()) >= 10  # MoE runs with and without EP


@pytest.mark.parametrize("acc", specs.ACCELERATORS.values(), ids=_name)
def test_accelerator_units_are_sane(acc) -> None:
    assert 1e10 <= acc.memory <= 1e12  # B
    assert 1e11 <= acc.memory_bandwidth <= 2e13  # B/s
    assert 1e14 <= acc.peak_bf16 <= 1e16  # FLOP/s, dense
    assert acc.peak_fp8 is None or acc.peak_fp8 == pytest.approx(2 * acc.peak_bf16, rel=0.01)


@pytest.mark.parametrize("node", specs.NODES.values(), ids=_name)
def test_node_units_are_sane(node) -> None:
    assert 1e9 <= node.nic_bandwidth <= node.intra_bandwidth <= 2e12  # B/s per GPU per direction
    if node.nics is not None and node.nic_line_rate is not None:
        assert node.nic_bandwidth == pytest.approx(node.nic_line_rate / 8 * node.nics / node.gpus_per_node)


def test_known_hardware_values() -> None:
    h100, a100 = specs.ACCELERATORS["H100 SXM"], specs.ACCELERATORS["A100 80GB SXM"]
    assert (h100.peak_bf16, h100.peak_fp8, a100.peak_bf16) == (989e12, 1979e12, 312e12)
    assert specs.NODES["DGX H100"].intra_bandwidth == 450e9  # 900 GB/s bidirectional
    assert specs.NODES["HGX H800 (DeepSeek-V3)"].intra_bandwidth == 200e9  # 400 GB/s bidirectional
    assert specs.ACCELERATORS["TPU v4"].memory == 32 * 2**30


def test_ascend_910b_node_is_a_full_mesh_and_marked_unverified() -> None:
    node = specs.NODES["Atlas 800T A2"]
    assert node.accelerator is specs.ACCELERATORS["Ascend 910B"]
    assert node.gpus_per_node - 1 == node.nvlink_links == 7  # one HCCS link to every other NPU, no switch
    assert node.intra_bandwidth == pytest.approx(392e9 / 2)  # 392 GB/s = 7 × 56 GB/s, bidirectional (secondary)
    assert node.intra_bandwidth / node.nvlink_links == pytest.approx(28e9)  # one pair: 56 GB/s bidirectional
    assert node.nic_bandwidth == pytest.approx(200e9 / 8)  # one 200 GE port per NPU
    assert not node.source.verified and not node.accelerator.source.verified
    assert {"node: Atlas 800T A2", "accelerator: Ascend 910B"} <= set(specs.unverified())


def test_network_nodes_come_from_the_catalogue_unchanged() -> None:
    assert network.NODES["A100"] == network.NodeSpec("DGX A100", 8, 300e9, 12, 8, 200e9)
    assert network.NODES["H100"] == network.NodeSpec("DGX H100", 8, 450e9, 18, 8, 400e9)
    assert network.node_bandwidth("H100").inter == specs.NODES["DGX H100"].nic_bandwidth


@pytest.mark.parametrize("model", [m for m in specs.MODELS.values() if m.published_params], ids=_name)
def test_parameter_counts_match_the_sources(model) -> None:
    # the counts leave out biases and position embeddings; 4 % covers those and the names' rounding (7B for 6.74B)
    assert model.params == pytest.approx(model.published_params, rel=0.04)


def test_moe_and_mla_counts() -> None:
    ds = specs.MODELS["DeepSeek-V3"]
    assert ds.params == pytest.approx(671e9, rel=0.005)
    assert ds.active_params == pytest.approx(37e9, rel=0.02)
    assert ds.moe_layers == 58 and ds.qk_head_dim == 192
    mix = specs.MODELS["Mixtral 8x22B"]
    assert mix.active_params == pytest.approx(39e9, rel=0.01)
    palm = specs.MODELS["PaLM 540B"]
    assert palm.heads * palm.head_size == 12288 != palm.hidden  # 48 heads of 256


@pytest.mark.parametrize("run", specs.RUNS.values(), ids=_name)
def test_layout_multiplies_to_the_gpus_and_the_batch_divides(run) -> None:
    assert run.tp * run.cp * run.pp * run.dp == run.gpus
    assert run.global_batch % (run.dp * (run.micro_batch or 1)) == 0
    assert (run.dp * run.cp) % run.ep == 0
    assert run.seq_len % run.cp == 0
    assert run.gpus % run.node.gpus_per_node == 0


@pytest.mark.parametrize("run", specs.RUNS.values(), ids=_name)
def test_step_time_is_positive_and_mfu_plausible(run) -> None:
    assert 0.5 < run.step_time() < 300  # 529.6B on 560 GPUs: 206 s
    assert 0.1 < run.mfu("palm") < 0.7  # Megatron-LM on the 352B MoE: 14 %


#: the measurement and the seconds per step exactly as each paper prints them (percent MFU or TFLOP/s per GPU)
PRINTED = {
    "MT-NLG 530B, 2240 GPUs": ("126", "60.1"),
    "MT-NLG 530B, 2800 GPUs": ("121", "50.2"),
    "MT-NLG 530B, 3360 GPUs": ("113", "44.4"),
    "Korthikanti 2022, 22B, 8 GPUs": ("41.5", "1.10"),
    "Korthikanti 2022, 175B, 64 GPUs": ("51.4", "13.75"),
    "Korthikanti 2022, 530B, 280 GPUs": ("56.0", "37.83"),
    "Korthikanti 2022, 1T, 512 GPUs": ("56.3", "71.49"),
    "Korthikanti 2022, 530B, 2240 GPUs (DP 8)": ("54.2", "39.15"),
    "BLOOM 176B, 384 GPUs": ("149.77", "104.70"),
    "Nemotron-4 340B, 1536 GPUs": ("42.4", "10.3"),
    "Nemotron-4 340B, 3072 GPUs": ("42.3", "10.3"),
    "Nemotron-4 340B, 6144 GPUs": ("41.0", "8.0"),
}


def _half_ulp(printed: str) -> float:
    """Relative half unit in the last printed digit: ``"8.0"`` → 0.05/8.0."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return 0.5 * 10.0**-decimals / float(printed)


@pytest.mark.parametrize("name", sorted(PRINTED))
def test_step_time_reproduces_the_printed_seconds(name: str) -> None:
    """MT-NLG and BLOOM (TFLOP/s, Megatron's count), Korthikanti (MFU, model FLOPs), Nemotron-4 (MFU, PaLM's count):
    the step time implied by the measurement equals the printed one within the rounding of both numbers."""
    run = specs.RUNS[name]
    measured, seconds = PRINTED[name]
    as_printed = run.measured.value * 100 if run.measured.kind == "mfu" else run.measured.value / 1e12
    assert as_printed == pytest.approx(float(measured))
    assert run.reported_step_time == float(seconds)
    assert run.step_time() == pytest.approx(float(seconds), rel=_half_ulp(measured) + _half_ulp(seconds))


#: MegaScale Table 2 (batch 768 or 6,144 of 2,048 tokens) and MegaScale-MoE Table 3 (720 of 8,192): tokens/s
THROUGHPUT = {
    "Megatron-LM (MegaScale Table 2) 175B, 256 GPUs": ("40.0", "39.3"),
    "Megatron-LM (MegaScale Table 2) 175B, 3072 GPUs": ("29.02", "433.6"),
    "Megatron-LM (MegaScale Table 2) 175B, 12288 GPUs": ("8.57", "1466.8"),
    "MegaScale (MegaScale Table 2) 175B, 1024 GPUs": ("8.9", "176.9"),
    "MegaScale (MegaScale Table 2) 175B, 12288 GPUs": ("6.34", "1984.0"),
    "MegaScale-MoE 352B MoE, 240 H800": ("21.61", "272.9"),
    "MegaScale-MoE 352B MoE, 1440 H800": ("4.19", "1407.7"),
    "Megatron-LM 352B MoE, 1440 H800": ("7.90", "746.6"),
}


@pytest.mark.parametrize("name", sorted(THROUGHPUT))
def test_batch_and_sequence_reproduce_the_printed_throughput(name: str) -> None:
    run = specs.RUNS[name]
    seconds, ktokens = THROUGHPUT[name]
    assert run.step_time() == float(seconds)
    # the papers average iteration time and throughput separately: they agree to 0.2 %, not always to the last digit
    assert run.tokens_per_step / run.step_time() == pytest.approx(float(ktokens) * 1e3, rel=0.002)


#: Megatron-LM rows of MegaScale's Table 2: GPUs → (tokens/s, MFU %) as printed
MEGASCALE_BASELINE = {256: ("39.3", "53.0"), 512: ("74.1", "49.9"), 768: ("103.8", "46.7"), 1024: ("132.7", "44.7"),
                      3072: ("433.6", "48.7"), 6144: ("851.6", "47.8"), 8192: ("1027.9", "43.3"),
                      12288: ("1466.8", "41.2")}


@pytest.mark.parametrize("gpus", sorted(MEGASCALE_BASELINE))
def test_megascale_baseline_mfu_is_palms_count(gpus: int) -> None:
    """The Megatron-LM rows of MegaScale's Table 2 print the MFU that PaLM's count gives for the 175B shape at the
    printed throughput (MegaScale's own rows count fewer FLOPs: sliding-window attention)."""
    run = specs.RUNS[f"Megatron-LM (MegaScale Table 2) 175B, {gpus} GPUs"]
    ktokens, mfu = MEGASCALE_BASELINE[gpus]
    assert f"MFU printed: {mfu} %" in run.notes
    flops = float(ktokens) * 1e3 * specs.model_flops_per_token(run.model, "palm")
    got = 100 * flops / (gpus * run.node.accelerator.peak_bf16)
    assert got == pytest.approx(float(mfu), abs=0.05 + float(mfu) * _half_ulp(ktokens))


def test_three_papers_are_checked_against_printed_step_times() -> None:
    with_seconds = {n for n, r in specs.RUNS.items() if r.reported_step_time is not None}
    assert with_seconds == set(PRINTED)
    assert {n.split(",")[0] for n in PRINTED} == {"MT-NLG 530B", "Korthikanti 2022", "Nemotron-4 340B", "BLOOM 176B"}


def test_megatron_training_time_estimate() -> None:
    """Narayanan et al. §5.1: 1T on 3,072 GPUs at 163 TFLOP/s and 450B tokens takes about 84 days with their
    8·T·P/(n·X); the exact FLOP count (with s/6h and V/16lh) is 1.3 % more."""
    run = specs.RUNS["Megatron-LM 2021, GPT 1008.0B, 3072 GPUs"]
    days = 450e9 / run.tokens_per_step * run.step_time() / 86400
    approx = 8 * 450e9 * 1008e9 / (3072 * 163e12) / 86400
    assert round(approx) == 84
    assert days == pytest.approx(approx * 1.013, rel=0.002)


#: Narayanan et al. 2021 Table 2: (scheme, model, GPUs) → (TFLOP/s per GPU, days for 300B tokens) as printed
MEGATRON_TABLE2_DAYS = {
    ("PTD", "174.6B", 384): (153, 84), ("PTD", "174.6B", 768): (149, 43), ("PTD", "174.6B", 1536): (141, 23),
    ("PTD", "529.6B", 560): (171, 156), ("PTD", "529.6B", 1120): (167, 80), ("PTD", "529.6B", 2240): (159, 42),
    ("ZeRO-3", "174.6B", 384): (144, 90), ("ZeRO-3", "174.6B", 768): (88, 74), ("ZeRO-3", "174.6B", 1536): (44, 74),
    ("ZeRO-3", "529.6B", 640): (138, 169), ("ZeRO-3", "529.6B", 1120): (98, 137), ("ZeRO-3", "529.6B", 2240): (48, 140),
}


@pytest.mark.parametrize("key", sorted(MEGATRON_TABLE2_DAYS))
def test_megatron_table2_training_days(key: tuple[str, str, int]) -> None:
    """Each row's TFLOP/s with the paper's count, batch and GPUs gives the printed days for 300B tokens, within the
    rounding of both (the starred 529.6B ZeRO-3 row only with its larger batch of 2,560)."""
    scheme, size, gpus = key
    run = specs.RUNS[f"Megatron-LM 2021 Table 2, {scheme}, GPT {size}, {gpus} GPUs"]
    tflops, days = MEGATRON_TABLE2_DAYS[key]
    assert run.measured.value == tflops * 1e12
    got = 300e9 / run.tokens_per_step * run.step_time() / 86400
    assert got == pytest.approx(days, abs=0.5 + days * 0.5 / tflops)


def test_opt_count_matches_the_planned_days() -> None:
    """OPT's chronicle plans 33 days for 300B tokens on 1,024 A100; 147 TFLOP/s gives that only with Megatron's
    count (the reason the entry assumes it)."""
    run = specs.RUNS["OPT-175B, 992 GPUs"]
    seconds_per_token = run.step_time() / run.tokens_per_step * run.gpus / 1024
    assert 300e9 * seconds_per_token / 86400 == pytest.approx(33, abs=0.5)
    six_n = 300e9 * specs.model_flops_per_token(run.model, "6n") / (1024 * 147e12) / 86400
    assert six_n < 25  # 6N would have planned about 24 days


def test_llama3_table4_mfu() -> None:
    """430/400/380 TFLOP/s per GPU against the 989 TFLOP/s peak: the 43/41/38 % of Table 4 (rounded)."""
    got = [round(100 * specs.RUNS[n].mfu()) for n in ("Llama 3 405B, 8192 GPUs, sequence 8192",
                                                      "Llama 3 405B, 16384 GPUs, sequence 8192",
                                                      "Llama 3 405B, 16384 GPUs, sequence 131072")]
    assert got == [43, 40, 38]  # the paper prints 41 for the middle row (400/989 = 40.4 %)


def test_palm_mfu_with_and_without_attention() -> None:
    """PaLM §4.1: 238.3K tokens/s at batch 2,048 is 46.2 % MFU with attention, 45.7 % without; Table 3's MT-NLG
    (2,240 A100, 60.1 s per step) is 30.2 % with attention, 29.7 % without."""
    palm = specs.RUNS["PaLM 540B, 6144 TPU v4"]
    assert palm.step_time() == pytest.approx(2048 * 2048 / 238.3e3)
    assert palm.mfu("palm") == pytest.approx(0.462, abs=0.0005)
    assert palm.mfu("6n") == pytest.approx(0.457, abs=0.0005)
    mtnlg = specs.RUNS["MT-NLG 530B, 2240 GPUs"]
    assert mtnlg.mfu("palm") == pytest.approx(0.302, abs=0.0015)  # 126 TFLOP/s ± 0.5 → ± 0.12 points
    assert mtnlg.mfu("6n") == pytest.approx(0.297, abs=0.0015)


def test_hiding_is_tagged() -> None:
    assert set(specs.RUNS["DeepSeek-V3, 2048 H800"].hides) >= {"dualpipe", "ep-overlap"}
    assert "hierarchical-dp" in specs.RUNS["PaLM 540B, 6144 TPU v4"].hides
    assert "dp-exposed" in specs.RUNS["Korthikanti 2022, 530B, 2240 GPUs (DP 8)"].hides
    assert "ep-overlap" not in specs.RUNS["Megatron-LM 352B MoE, 240 H800"].hides
    assert all(tag in specs.HIDES for r in specs.RUNS.values() for tag in r.hides)


def test_deepseek_throughput_from_gpu_hours() -> None:
    run = specs.RUNS["DeepSeek-V3, 2048 H800"]
    # 180K GPU-hours per 10¹² tokens → 3.7 days on 2,048 GPUs
    assert 1e12 / (run.measured.value * 86400) == pytest.approx(3.66, abs=0.01)
    assert run.step_time() == pytest.approx(15360 * 4096 / run.measured.value)
    assert (run.tp, run.pp, run.ep, run.zero_stage) == (1, 16, 64, 1)
    assert "DualPipe" in run.notes


def test_flop_conventions() -> None:
    gpt = specs.MODELS["GPT-3 175B"]
    n_l, h, s, v = gpt.layers, gpt.hidden, gpt.seq_len, gpt.vocab
    assert specs.model_flops_per_token(gpt, "megatron2021") == pytest.approx(
        96 * n_l * h * h * (1 + s / (6 * h) + v / (16 * n_l * h)))
    assert specs.model_flops_per_token(gpt, "megatron-mfu") == pytest.approx(
        72 * n_l * h * h * (1 + s / (6 * h) + v / (12 * n_l * h)))
    assert specs.model_flops_per_token(gpt, "palm") == pytest.approx(6 * gpt.params + 12 * n_l * h * s)  # tied
    llama = specs.MODELS["Llama 3 405B"]
    assert specs.model_flops_per_token(llama, "6n") == pytest.approx(6 * (llama.params - llama.vocab * llama.hidden))
    assert specs.model_flops_per_token(llama, "8n") == pytest.approx(8 * llama.params)
    long = specs.model_flops_per_token(llama, "palm", seq_len=131072) - specs.model_flops_per_token(llama, "palm")
    assert long == pytest.approx(12 * 126 * 16384 * (131072 - 8192))
    with pytest.raises(ValueError, match="paper-other"):
        specs.model_flops_per_token(gpt, "paper-other")
    with pytest.raises(ValueError, match="convention"):
        specs.model_flops_per_token(gpt, "6N")


def test_paper_other_uses_the_papers_count() -> None:
    run = specs.RUNS["Korthikanti 2022, 175B, 64 GPUs"]
    own = dataclasses.replace(run.measured, convention="paper-other", flops_per_token=2e12)
    r = dataclasses.replace(run, measured=own)
    assert r.step_time() == pytest.approx(r.tokens_per_step * 2e12 / (64 * run.measured.value * 312e12))


# --- bad data ------------------------------------------------------------------------------------------------------
RUN = specs.RUNS["Nemotron-4 340B, 6144 GPUs"]
MODEL = specs.MODELS["Llama 3 405B"]


@pytest.mark.parametrize(("changes", "field"), [
    (dict(dp=63), "gpus"),
    (dict(tp=0), "tp"),
    (dict(global_batch=2300), "global_batch"),
    (dict(micro_batch=5), "global_batch"),
    (dict(ep=2), "ep"),
    (dict(cp=7, gpus=8 * 7 * 12 * 64), "seq_len"),
    (dict(recompute="partial"), "recompute"),
    (dict(precision="fp32"), "precision"),
    (dict(zero_stage=4), "zero_stage"),
    (dict(virtual_stages=0), "virtual_stages"),
    (dict(reported_step_time=-1.0), "reported_step_time"),
    (dict(pp=192, dp=4), "pp"),
    (dict(hides=("fast",)), "hides"),
    (dict(hides=["dp-overlap"]), "hides"),
    (dict(hides=("dp-overlap", "dp-exposed")), "hides"),
])
def test_bad_runs_are_refused(changes, field) -> None:
    with pytest.raises(ValueError, match=field):
        dataclasses.replace(RUN, **changes)


def test_bad_measurements_are_refused() -> None:
    src = RUN.source
    with pytest.raises(ValueError, match="value"):
        specs.Measured(kind="mfu", value=1.5, convention="palm", source=src)
    with pytest.raises(ValueError, match="kind"):
        specs.Measured(kind="hfu", value=0.5, convention="palm", source=src)
    with pytest.raises(ValueError, match="convention"):
        specs.Measured(kind="flops_per_gpu", value=1e14, convention="none", source=src)
    with pytest.raises(ValueError, match="flops_per_token"):
        specs.Measured(kind="mfu", value=0.4, convention="paper-other", source=src)
    too_fast = specs.Measured(kind="flops_per_gpu", value=2e15, convention="palm", source=src)
    with pytest.raises(ValueError, match=r"measured\.value"):
        dataclasses.replace(RUN, measured=too_fast)


@pytest.mark.parametrize(("changes", "field"), [
    (dict(layers=0), "layers"),
    (dict(kv_heads=3), "heads"),
    (dict(kv_heads=256), "kv_heads"),
    (dict(attention="mha"), "attention"),
    (dict(top_k=2), "top_k"),
    (dict(dense_layers=3), "experts"),
    (dict(hidden=16385), "hidden"),
    (dict(q_lora_rank=1536), "mla"),
])
def test_bad_models_are_refused(changes, field) -> None:
    with pytest.raises(ValueError, match=field):
        dataclasses.replace(MODEL, **changes)


def test_bad_hardware_and_sources_are_refused() -> None:
    acc = specs.ACCELERATORS["H100 SXM"]
    with pytest.raises(ValueError, match="memory"):
        dataclasses.replace(acc, memory=0.0)
    with pytest.raises(ValueError, match="peak_bf16"):
        dataclasses.replace(acc, peak_bf16=math.nan)
    with pytest.raises(ValueError, match="fp8"):
        specs.ACCELERATORS["A100 80GB SXM"].peak("fp8")
    node = specs.NODES["DGX H100"]
    with pytest.raises(ValueError, match="nic_bandwidth"):
        dataclasses.replace(node, nic_bandwidth=25e9)
    with pytest.raises(ValueError, match="gpus_per_node"):
        dataclasses.replace(node, gpus_per_node=0)
    with pytest.raises(ValueError, match="ref"):
        specs.Source("  ")
    with pytest.raises(ValueError, match="verified"):
        specs.Source("x", verified="yes")  # type: ignore[arg-type]


def test_names_are_unique() -> None:
    with pytest.raises(ValueError, match="twice"):
        specs._by_name([MODEL, MODEL])


def test_conventions_are_documented() -> None:
    doc = base.__doc__ or ""
    for c in specs.CONVENTIONS:
        assert f"``{c}``" in doc
