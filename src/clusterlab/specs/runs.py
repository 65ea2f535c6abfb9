"""Published training runs: layout, batch, sequence and what the paper measured, with the FLOP convention it used.

Each entry keeps the paper's own measurement (time, throughput, TFLOP/s per GPU or MFU) and, where the paper also
prints one, its seconds per step (:attr:`~clusterlab.specs.base.PublishedRun.reported_step_time`), so that
:meth:`~clusterlab.specs.base.PublishedRun.step_time` can be checked against the paper. ``notes`` records what the
run does to hide communication, because a cost model that does not do the same will be too slow on it.
"""

from __future__ import annotations

from typing import Final

from . import hardware as hw
from . import models as md
from .base import Measured, ModelSpec, PublishedRun, Source

__all__ = ["RUN_LIST"]

# --- Megatron-LM 2021 (Narayanan et al.), Table 1: weak scaling on Selene ------------------------------------------
_MEG_REF: Final = ("Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters Using "
                   "Megatron-LM, SC'21, arXiv:2104.04473, Table 1")
_MEG_ROWS: Final = (  # params (B), TP, PP, GPUs, batch, TFLOP/s per GPU
    ("1.7", 1, 1, 32, 512, 137), ("3.6", 2, 1, 64, 512, 138), ("7.5", 4, 1, 128, 512, 142),
    ("18.4", 8, 1, 256, 1024, 135), ("39.1", 8, 2, 512, 1536, 138), ("76.1", 8, 4, 1024, 1792, 140),
    ("145.6", 8, 8, 1536, 2304, 148), ("310.1", 8, 16, 1920, 2160, 155), ("529.6", 8, 35, 2520, 2520, 163),
    ("1008.0", 8, 64, 3072, 3072, 163),
)
_MEG_MODELS: Final = {m.name: m for m in md.MEGATRON_GPT}


_MEG_CHECKED: Final = ("Rows 1.7B and 1T read verbatim, 145.6B's 148 TFLOP/s (47 %, 227 PFLOP/s) and every row's "
                       "DP size (32, 32, 32, 32, 32, 32, 24, 15, 9, 6) in secondary copies of Table 1.")


def _megatron(p: str, tp: int, pp: int, gpus: int, batch: int, tflops: int) -> PublishedRun:
    confirmed = p in ("1.7", "145.6", "1008.0")
    src = Source(_MEG_REF, verified=confirmed,
                 note=_MEG_CHECKED + ("" if confirmed else " This row's TFLOP/s is consistent with its aggregate "
                                      "column but was not read again — 需核实."))
    return PublishedRun(
        name=f"Megatron-LM 2021, GPT {p}B, {gpus} GPUs", model=_MEG_MODELS[f"Megatron GPT {p}B"], node=hw.DGX_A100,
        gpus=gpus, tp=tp, pp=pp, dp=gpus // (tp * pp), global_batch=batch, seq_len=2048, zero_stage=0,
        recompute="full", sequence_parallel=False, precision="fp16",
        measured=Measured(kind="flops_per_gpu", value=tflops * 1e12, convention="megatron2021", source=src),
        source=src,
        notes="Interleaved 1F1B schedule where PP > 1 (virtual stages per row not in the table); data-parallel "
              "all-reduce after the backward pass; scatter/gather of pipeline transfers over the 8 NICs of a node.")


MEGATRON_2021: Final = tuple(_megatron(*row) for row in _MEG_ROWS)

# --- Megatron-LM 2021, Table 2: PTD parallelism against ZeRO-3 without model parallelism --------------------------
_MEG2_SRC: Final = Source(
    "Narayanan et al. 2021, arXiv:2104.04473, Table 2 (§5.2)",
    note="174.6B (model-parallel size 96 = TP 8 × PP 12, batch 1,536) and 529.6B (280 = TP 8 × PP 35, batch 2,240) "
         "on 384–2,240 A100 with micro-batch 1, against DeepSpeed ZeRO-3 without model parallelism at the same "
         "batch (micro-batch 4, 2, 1); TFLOP/s per GPU with the paper's count (confirmed in a transcription of "
         "the table). The split of 96 and 280 into TP × PP follows Table 1's TP 8.")
_MEG2_ROWS: Final = (  # scheme, model, batch, GPUs, micro-batch, TFLOP/s
    ("PTD", "Megatron GPT 174.6B", 1536, 384, 1, 153), ("PTD", "Megatron GPT 174.6B", 1536, 768, 1, 149),
    ("PTD", "Megatron GPT 174.6B", 1536, 1536, 1, 141), ("PTD", "Megatron GPT 529.6B", 2240, 560, 1, 171),
    ("PTD", "Megatron GPT 529.6B", 2240, 1120, 1, 167), ("PTD", "Megatron GPT 529.6B", 2240, 2240, 1, 159),
    ("ZeRO-3", "Megatron GPT 174.6B", 1536, 384, 4, 144), ("ZeRO-3", "Megatron GPT 174.6B", 1536, 768, 2, 88),
    ("ZeRO-3", "Megatron GPT 174.6B", 1536, 1536, 1, 44), ("ZeRO-3", "Megatron GPT 529.6B", 2560, 640, 4, 138),
    ("ZeRO-3", "Megatron GPT 529.6B", 2240, 1120, 2, 98), ("ZeRO-3", "Megatron GPT 529.6B", 2240, 2240, 1, 48),
)
_ALL_MEG_MODELS: Final = {**_MEG_MODELS, md.MEGATRON_GPT_175B.name: md.MEGATRON_GPT_175B}


def _megatron_table2(scheme: str, model: str, batch: int, gpus: int, micro: int, tflops: int) -> PublishedRun:
    m = _ALL_MEG_MODELS[model]
    tp, pp = ((8, 12) if m.layers == 96 else (8, 35)) if scheme == "PTD" else (1, 1)
    starred = gpus == 640
    src = Source(_MEG2_SRC.ref,
                 note=_MEG2_SRC.note + (" The 640-GPU row is starred in the paper (560 GPUs did not fit, so more "
                                        "GPUs and a larger batch); the transcription read is garbled there, and the "
                                        "batch of 2,560 is the one that reproduces its 169 days for 300B tokens."
                                        if starred else ""))
    return PublishedRun(
        name=f"Megatron-LM 2021 Table 2, {scheme}, GPT {model.split()[-1]}, {gpus} GPUs", model=m, node=hw.DGX_A100,
        gpus=gpus, tp=tp, pp=pp, dp=gpus // (tp * pp), global_batch=batch, micro_batch=micro, seq_len=2048,
        zero_stage=3 if scheme == "ZeRO-3" else 0, recompute="full", sequence_parallel=False, precision="fp16",
        measured=Measured(kind="flops_per_gpu", value=tflops * 1e12, convention="megatron2021", source=src),
        source=src,
        notes=("ZeRO-3 (DeepSpeed) shards parameters, gradients and optimizer state over all GPUs and gathers "
               "every layer's parameters across nodes in the forward and backward passes: the cross-node traffic "
               "grows with the GPU count at fixed batch." if scheme == "ZeRO-3" else
               "Tensor parallelism inside a node, pipeline across nodes, data parallelism outermost."))


MEGATRON_2021_TABLE2: Final = tuple(_megatron_table2(*row) for row in _MEG2_ROWS)

# --- Korthikanti et al. 2022, Tables 3 and 5 ---------------------------------------------------------------------
_KOR_SRC: Final = Source(
    "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, arXiv:2205.05198, "
    "Table 3 (configurations), Table 5 (end-to-end iteration time, MFU) and §6.3",
    note="TP 8 on DGX A100 (Selene, 8 × 200 Gb/s HDR), sequence 2,048, vocabulary 51,200, no data parallelism; "
         "interleaved schedule with 3 stages for 175B and 530B; iteration time with full recomputation and with "
         "sequence parallelism + selective recomputation; MFU with the paper's Eq. 7 (the megatron-mfu "
         "convention). Confirmed in the paper's text.")
_KOR_ROWS: Final = (  # label, model, PP, GPUs, global batch, micro-batch, virtual stages, MFU, s present, s full
    ("22B", md.KORTHIKANTI_22B, 1, 8, 4, 4, None, 0.415, 1.10, 1.42),
    ("175B", md.MEGATRON_GPT_175B, 8, 64, 64, 1, 3, 0.514, 13.75, 18.13),
    ("530B", md.MT_NLG_530B, 35, 280, 280, 1, 3, 0.560, 37.83, 49.05),
    ("1T", _MEG_MODELS["Megatron GPT 1008.0B"], 64, 512, 512, 1, None, 0.563, 71.49, 94.42),
)


def _korthikanti(label: str, model: ModelSpec, pp: int, gpus: int, batch: int, micro: int, v: int | None,
                 mfu: float, step: float, full: float) -> tuple[PublishedRun, PublishedRun]:
    present = PublishedRun(
        name=f"Korthikanti 2022, {label}, {gpus} GPUs", model=model, node=hw.DGX_A100, gpus=gpus, tp=8, pp=pp, dp=1,
        global_batch=batch, micro_batch=micro, virtual_stages=v, seq_len=2048, zero_stage=0, precision="bf16",
        recompute="selective", sequence_parallel=True, reported_step_time=step,
        measured=Measured(kind="mfu", value=mfu, convention="megatron-mfu", source=_KOR_SRC), source=_KOR_SRC,
        notes="Sequence parallelism with selective recomputation of attention; one model replica (no data "
              "parallelism); TP all-reduce overlapped with the weight-gradient GEMM in the backward pass.",
        hides=("tp-overlap",))
    baseline = PublishedRun(
        name=f"Korthikanti 2022, {label}, {gpus} GPUs, full recompute", model=model, node=hw.DGX_A100, gpus=gpus,
        tp=8, pp=pp, dp=1, global_batch=batch, micro_batch=micro, virtual_stages=v, seq_len=2048, zero_stage=0,
        precision="bf16", recompute="full", sequence_parallel=False,
        measured=Measured(kind="step_time", value=full, convention="none", source=_KOR_SRC), source=_KOR_SRC,
        notes="The paper's baseline: full activation recomputation, no sequence parallelism.")
    return present, baseline


KORTHIKANTI_2022: Final = tuple(run for row in _KOR_ROWS for run in _korthikanti(*row))
KORTHIKANTI_DP8: Final = PublishedRun(
    name="Korthikanti 2022, 530B, 2240 GPUs (DP 8)", model=md.MT_NLG_530B, node=hw.DGX_A100, gpus=2240, tp=8, pp=35,
    dp=8, global_batch=2240, micro_batch=1, virtual_stages=3, seq_len=2048, zero_stage=0, recompute="selective",
    sequence_parallel=True, precision="bf16", reported_step_time=39.15,
    measured=Measured(kind="mfu", value=0.542, convention="megatron-mfu", source=_KOR_SRC), source=_KOR_SRC,
    notes="The 530B configuration scaled to 8-way data parallelism at the same batch per replica: 37.83 s → 39.15 s "
          "because the gradient all-reduce is not overlapped with back-propagation (§6.3).",
    hides=("dp-exposed", "tp-overlap"))

# --- MT-NLG 530B (Smith et al. 2022) -----------------------------------------------------------------------------
_MTNLG_SRC: Final = Source(
    "Smith et al. 2022, Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B, arXiv:2201.11990, §2.4",
    note="Global batch 1,920 on 280, 350 and 420 DGX A100 servers: 60.1, 50.2 and 44.4 s per iteration, 126, 121 "
         "and 113 TFLOP/s per GPU (confirmed in llm-analysis's MT-NLG example). Each replica spans 280 GPUs, "
         "8-way tensor slicing inside a node and 35-way pipeline across nodes. PaLM (Table 3) recomputes the "
         "2,240-GPU row as 65.43K tokens/s, MFU 30.2 % with attention, 29.7 % without.")
MT_NLG: Final = tuple(
    PublishedRun(
        name=f"MT-NLG 530B, {nodes * 8} GPUs", model=md.MT_NLG_530B, node=hw.DGX_A100, gpus=nodes * 8, tp=8, pp=35,
        dp=nodes // 35, global_batch=1920, micro_batch=1, seq_len=2048, zero_stage=1, recompute="full",
        sequence_parallel=False, precision="bf16", reported_step_time=step,
        measured=Measured(kind="flops_per_gpu", value=tflops * 1e12, convention="megatron2021", source=_MTNLG_SRC),
        source=_MTNLG_SRC,
        notes="DeepSpeed ZeRO-1 data parallelism over Megatron tensor and pipeline parallelism; gradient "
              "accumulation over the pipeline's micro-batches.")
    for nodes, step, tflops in ((280, 60.1, 126), (350, 50.2, 121), (420, 44.4, 113))
)

# --- Llama 3 405B (Grattafiori et al. 2024), Table 4 ---------------------------------------------------------------
_LLAMA3_SRC: Final = Source(
    "Grattafiori et al. 2024, The Llama 3 Herd of Models, arXiv:2407.21783, Table 4 and §3.3.2",
    note="Layouts, batch per DP rank, tokens per batch, TFLOP/s per GPU and BF16 MFU from Table 4 (also in the "
         "book's §9.6.5.1 references). The paper does not state its FLOP count: the palm convention (model FLOPs "
         "with attention) is assumed — 需核实; 430 TFLOP/s ≈ 43 % of 989 either way. The first arXiv version "
         "prints DP 4 in the 131,072-token row, which gives t·c·p·d = 8,192 GPUs and 8M tokens per batch; DP 8 "
         "matches both the row's 16,384 GPUs and its 16M tokens, and is what copies of later versions print.")
_LLAMA3_NOTES: Final = ("FSDP over DP sharding optimizer states and gradients (parameters kept after the forward "
                        "pass), gradients reduce-scattered in fp32; interleaved schedule with one layer fewer on the "
                        "first and last stage (virtual stages not published); the fabric is a 3-layer Clos, 1:7 "
                        "above 3,072-GPU pods, with DP placed outermost so its traffic crosses pods.")
LLAMA3_405B: Final = tuple(
    PublishedRun(
        name=f"Llama 3 405B, {gpus} GPUs, sequence {seq}", model=md.LLAMA3_405B, node=hw.GRAND_TETON_H100,
        gpus=gpus, tp=8, cp=cp, pp=16, dp=dp, global_batch=per_dp * dp, seq_len=seq, zero_stage=2,
        recompute="unknown", sequence_parallel=True, precision="bf16",
        measured=Measured(kind="flops_per_gpu", value=tflops * 1e12, convention="palm", source=_LLAMA3_SRC),
        source=_LLAMA3_SRC,
        notes=_LLAMA3_NOTES + (" Context parallelism 16 all-gathers K/V inside the CP group." if cp > 1 else ""))
    for gpus, cp, dp, seq, per_dp, tflops in ((8192, 1, 64, 8192, 32, 430), (16384, 1, 128, 8192, 16, 400),
                                              (16384, 16, 8, 131072, 16, 380))
)

# --- BLOOM 176B ------------------------------------------------------------------------------------------------------
_BLOOM_SRC: Final = Source(
    "BigScience 2022, BLOOM, arXiv:2211.05100, §3.4; bigscience-workshop/bigscience train/tr11-176B-ml README.md "
    "(replica setup, throughput, the log line at iteration 85,376) and tr11-176B-ml.slurm",
    note="384 A100 80 GB on 48 nodes; TP 4 × PP 12 × DP 8, micro-batch 2, global batch 2,048 of 2,048 tokens, "
         "bf16 with DeepSpeed's BF16 optimizer (its own ZeRO-1), activation checkpointing; end of the first "
         "epoch: 104.70 s per iteration at 149.77 TFLOP/s per GPU as logged — Megatron-DeepSpeed's logger counts "
         "96·B·s·l·h²(…) (the megatron2021 convention reproduces it), while the README's estimates use 8N.")
BLOOM: Final = PublishedRun(
    name="BLOOM 176B, 384 GPUs", model=md.BLOOM_176B, node=hw.JEAN_ZAY_A100, gpus=384, tp=4, pp=12, dp=8,
    global_batch=2048, micro_batch=2, seq_len=2048, zero_stage=1, recompute="full", sequence_parallel=False,
    precision="bf16", reported_step_time=104.70,
    measured=Measured(kind="flops_per_gpu", value=149.77e12, convention="megatron2021", source=_BLOOM_SRC),
    source=_BLOOM_SRC,
    notes="ZeRO-1 over DP with Megatron TP and PP; the embedding counted as a layer for pipeline balance (5 blocks "
          "+ embedding on the end stages, 6 elsewhere); Omni-Path gives each GPU only 6.25 GB/s across nodes, so TP "
          "stays inside a node and the DP gradient traffic is the exposed cross-node traffic.")

# --- OPT-175B --------------------------------------------------------------------------------------------------------
_OPT_SRC: Final = Source(
    "Zhang et al. 2022, OPT: Open Pre-trained Transformer Language Models, arXiv:2205.01068, §2.4; "
    "facebookresearch/metaseq projects/OPT/chronicles/10_percent_update.md",
    verified=False,
    note="992 A100 80 GB, FSDP with 8-way Megatron tensor parallelism, up to 147 TFLOP/s per GPU, batch 2M tokens "
         "(paper summary and the team's chronicle). Not stated: the batch in sequences (992 of 2,048 = 2.03M tokens "
         "is the nearest that splits over DP 124) and the FLOP count — Megatron's (megatron2021) is assumed because "
         "it turns 147 TFLOP/s into the chronicle's planned 33 days for 300B tokens on 1,024 GPUs — 需核实.")
OPT: Final = PublishedRun(
    name="OPT-175B, 992 GPUs", model=md.OPT_175B, node=hw.DGX_A100, gpus=992, tp=8, pp=1, dp=124,
    global_batch=992, seq_len=2048, zero_stage=3, recompute="unknown", sequence_parallel=False, precision="fp16",
    measured=Measured(kind="flops_per_gpu", value=147e12, convention="megatron2021", source=_OPT_SRC),
    source=_OPT_SRC,
    notes="Fully sharded data parallelism (parameters all-gathered per layer) over 8-way tensor parallelism inside "
          "a node; no pipeline; fp32 Adam states sharded, fp16 weights. The cluster's network is not given "
          "(DGX A100-like nodes assumed).")

# --- PaLM 540B -------------------------------------------------------------------------------------------------------
_PALM_SRC: Final = Source(
    "Chowdhery et al. 2022, PaLM: Scaling Language Modeling with Pathways, arXiv:2204.02311, §4, §4.1 and Table 3",
    note="6,144 TPU v4 chips in two pods of 3,072 (1,536 hosts); within a pod 12-way model parallelism and 256-way "
         "fully sharded data parallelism, two-way data parallelism across pods; average 238.3K tokens/s at batch "
         "2,048 of 2,048 tokens (batch raised 512 → 1,024 → 2,048); MFU 46.2 % with attention (45.7 % without), "
         "HFU 57.8 % with rematerialization. Confirmed in the paper's text.")
PALM: Final = PublishedRun(
    name="PaLM 540B, 6144 TPU v4", model=md.PALM_540B, node=hw.TPU_V4_HOST, gpus=6144, tp=12, pp=1, dp=512,
    global_batch=2048, seq_len=2048, zero_stage=3, recompute="full", sequence_parallel=None, precision="bf16",
    measured=Measured(kind="tokens_per_second", value=238.3e3, convention="palm", source=_PALM_SRC),
    source=_PALM_SRC,
    notes="No pipeline. Weights all-gathered over the data-parallel axis in the forward pass; one fully sharded "
          "activation per layer kept, the rest rematerialized. The pods exchange gradients host to host over "
          "the data-centre network (1.3 GB per host pair per step, an 81 Tbps burst), not overlapped with the "
          "backward pass: 1.95× one pod's throughput. Parallel attention/MLP blocks.",
    hides=("hierarchical-dp", "dp-exposed"))

# --- Nemotron-4 340B, Table 2 -----------------------------------------------------------------------------------
_NEMO_SRC: Final = Source(
    "NVIDIA 2024, Nemotron-4 340B Technical Report, arXiv:2406.11704, §2.3 and Table 2",
    note="768 DGX H100 nodes (8 × 400 Gb/s HCAs each); TP 8 × PP 12 with interleaving and a distributed optimizer, "
         "DP 16, 32 and 64 as the batch ramps 768 → 1,536 → 2,304 (200B, 200B and 7,600B tokens); MFU 42.4, 42.3 "
         "and 41.0 %, iteration time 10.3, 10.3 and 8.0 s (confirmed in several notes on the report). The FLOP "
         "count is read as PaLM's (input embedding not counted): it reproduces the three iteration times within "
         "their rounding.")
NEMOTRON4: Final = tuple(
    PublishedRun(
        name=f"Nemotron-4 340B, {dp * 96} GPUs", model=md.NEMOTRON4_340B, node=hw.DGX_H100, gpus=dp * 96, tp=8,
        pp=12, dp=dp, global_batch=batch, micro_batch=1, seq_len=4096, zero_stage=1, recompute="unknown",
        sequence_parallel=True, precision="bf16", reported_step_time=step,
        measured=Measured(kind="mfu", value=mfu, convention="palm", source=_NEMO_SRC), source=_NEMO_SRC,
        notes="Megatron-Core with interleaved pipeline (virtual stages not given in the table), distributed "
              "optimizer, data-parallel reduce-scatter overlapped with the backward pass.")
    for dp, batch, mfu, step in ((16, 768, 0.424, 10.3), (32, 1536, 0.423, 10.3), (64, 2304, 0.410, 8.0))
)

# --- MegaScale (Jiang et al., NSDI'24), Table 2: the 175B model from 256 to 12,288 GPUs -----------------------
_MEGASCALE_SRC: Final = Source(
    "Jiang et al. 2024, MegaScale: Scaling Large Language Model Training to More Than 10,000 GPUs, NSDI'24, "
    "arXiv:2402.15627, Tables 1 and 2",
    note="Strong scaling of the 175B model (TP 8 × PP 8) on Ampere GPUs (the MFU is against 312 TFLOP/s): batch "
         "768 on 256–1,024 GPUs, 6,144 on 3,072–12,288; iteration time, tokens/s, MFU and PFLOP/s for "
         "Megatron-LM and MegaScale (confirmed in notes that reproduce Table 2). DP is GPUs/64. The NICs are not "
         "in the tables: DGX A100 (8 × 200 Gb/s) assumed.")
_MEGASCALE_ROWS: Final = (  # system, batch, GPUs, s/iteration, MFU as printed
    ("Megatron-LM", 768, 256, 40.0, 0.530), ("Megatron-LM", 768, 512, 21.2, 0.499),
    ("Megatron-LM", 768, 768, 15.2, 0.467), ("Megatron-LM", 768, 1024, 11.9, 0.447),
    ("Megatron-LM", 6144, 3072, 29.02, 0.487), ("Megatron-LM", 6144, 6144, 14.78, 0.478),
    ("Megatron-LM", 6144, 8192, 12.24, 0.433), ("Megatron-LM", 6144, 12288, 8.57, 0.412),
    ("MegaScale", 768, 256, 32.0, 0.653), ("MegaScale", 768, 512, 16.5, 0.635),
    ("MegaScale", 768, 768, 11.5, 0.613), ("MegaScale", 768, 1024, 8.9, 0.590),
    ("MegaScale", 6144, 3072, 23.66, 0.591), ("MegaScale", 6144, 6144, 12.21, 0.573),
    ("MegaScale", 6144, 8192, 9.56, 0.549), ("MegaScale", 6144, 12288, 6.34, 0.552),
)
_MEGASCALE_NOTES: Final = {
    "Megatron-LM": "Baseline Megatron-LM (interleaved 1F1B, distributed optimizer) on the same cluster; its MFU "
                   "column is PaLM's count with full attention.",
    "MegaScale": "Parallel transformer block and sliding-window attention (fewer attention FLOPs, so its MFU column "
                 "is below PaLM's count of this shape), LAMB; DP all-gather prefetched and reduce-scatter overlapped "
                 "with the first/last micro-batch, PP send/receive decoupled and overlapped, TP/SP communication "
                 "fused into the GEMMs.",
}
MEGASCALE: Final = tuple(
    PublishedRun(
        name=f"{system} (MegaScale Table 2) 175B, {gpus} GPUs", model=md.MEGASCALE_175B, node=hw.DGX_A100,
        gpus=gpus, tp=8, pp=8, dp=gpus // 64, global_batch=batch, seq_len=2048, zero_stage=None,
        recompute="unknown", sequence_parallel=True, precision="bf16",
        measured=Measured(kind="step_time", value=step, convention="none", source=_MEGASCALE_SRC),
        source=_MEGASCALE_SRC, notes=f"MFU printed: {100 * mfu:.1f} %. " + _MEGASCALE_NOTES[system],
        hides=("dp-overlap", "pp-overlap", "tp-overlap") if system == "MegaScale" else ())
    for system, batch, gpus, step, mfu in _MEGASCALE_ROWS
)

# --- MegaScale-MoE (Jin et al., EuroSys '26), Table 3: the 352B MoE on H800 ------------------------------------------
_MSMOE_SRC: Final = Source(
    "Jin et al. 2025, MegaScale-MoE: Large-Scale Communication-Efficient Training of Mixture-of-Experts Models in "
    "Production, EuroSys '26, doi:10.1145/3767295.3769325, Table 3 and §6.1",
    note="Strong scaling of the 352B MoE on H800 at a global batch of 720 sequences of 8,192 tokens; PP 15 for "
         "both systems, the rest of a layer inside one node: Megatron-LM with TP 8, MegaScale-MoE with sequence-"
         "parallel attention (stored as cp 8) and EP 8; DP = GPUs/120. Confirmed in the paper's text. The "
         "Megatron-LM row at 240 GPUs prints 39.94 s but 151.1k tokens/s (= 39.0 s). The paper's MFU for "
         "MegaScale-MoE (32.48 % at 240 GPUs, 27.89 % at 1,440) is above PaLM's count of the shape stored here "
         "(26.6 %, 22.9 %): its FLOP count is not given.")
_MSMOE_ROWS: Final = (("Megatron-LM", (39.94, 19.56, 13.70, 10.82, 7.90)),
                      ("MegaScale-MoE", (21.61, 11.83, 7.97, 6.12, 4.19)))
MEGASCALE_MOE: Final = tuple(
    PublishedRun(
        name=f"{system} 352B MoE, {gpus} H800", model=md.MEGASCALE_MOE_352B, node=hw.HGX_H800, gpus=gpus,
        tp=8 if system == "Megatron-LM" else 1, cp=1 if system == "Megatron-LM" else 8, pp=15, dp=gpus // 120,
        ep=1 if system == "Megatron-LM" else 8, global_batch=720, seq_len=8192, zero_stage=None,
        recompute="unknown" if system == "Megatron-LM" else "selective", sequence_parallel=True, precision="bf16",
        measured=Measured(kind="step_time", value=step, convention="none", source=_MSMOE_SRC),
        source=Source(_MSMOE_SRC.ref, verified=system != "Megatron-LM",
                      note=_MSMOE_SRC.note + ("" if system != "Megatron-LM" else
                                              " How Megatron-LM placed the experts (TP-sharded, no EP) is our "
                                              "reading — 需核实.")),
        notes=("Megatron-LM at commit f1f03922 with TP 8 in a node (experts sharded by TP, EP not stated); "
               "MegaScale's DP and PP overlap enabled in both systems, so the exposed traffic is TP inside the node."
               if system == "Megatron-LM" else
               "Attention sequence-parallel and experts expert-parallel inside a node (all-to-all over NVLink); "
               "inter-operator reordering and intra-operator tile overlap (all-gather+scatter+GroupedGEMM, "
               "GroupedGEMM+gather+reduce-scatter) hide the dispatch/combine; BF16 gradient all-to-all instead of "
               "fp32 reduce-scatter halves DP traffic; selective rematerialization."),
        hides=("dp-overlap", "pp-overlap") + (("tp-overlap", "ep-overlap") if system != "Megatron-LM" else ()))
    for system, steps in _MSMOE_ROWS for gpus, step in zip((240, 480, 720, 960, 1440), steps, strict=True)
)

# --- DeepSeek-V3 ----------------------------------------------------------------------------------------------------
_DSV3_SRC: Final = Source(
    "DeepSeek-AI 2024, DeepSeek-V3 Technical Report, arXiv:2412.19437, §1 (Table 1, cost), §3.1–3.2 (cluster, "
    "parallelism) and §4.2 (batch schedule)",
    note="2,048 H800; 16-way pipeline parallelism (DualPipe), 64-way expert parallelism spanning 8 nodes, ZeRO-1 "
         "data parallelism, no tensor parallelism; each trillion tokens takes 180K H800 GPU hours (3.7 days on "
         "2,048 GPUs); batch raised from 3,072 to 15,360 sequences over the first 469B tokens, then constant "
         "(15,360 used here), sequence 4,096. Confirmed in copies of the report's text.")
DEEPSEEK_V3: Final = PublishedRun(
    name="DeepSeek-V3, 2048 H800", model=md.DEEPSEEK_V3, node=hw.HGX_H800, gpus=2048, tp=1, pp=16, dp=128, ep=64,
    global_batch=15360, seq_len=4096, zero_stage=1, recompute="selective", sequence_parallel=False,
    precision="fp8",
    measured=Measured(kind="tokens_per_second", value=2048 * 1e12 / (180e3 * 3600), convention="none",
                      source=_DSV3_SRC),
    source=_DSV3_SRC,
    notes="DualPipe overlaps the forward and backward chunks of two micro-batches so that the expert-parallel "
          "all-to-all (dispatch and combine) and the PP transfers hide under compute; routing limited to 4 nodes "
          "per token, IB to the node then NVLink forwarding; 20 of 132 SMs run communication; recomputes RMSNorm "
          "and MLA up-projections; FP8 GEMMs. Throughput = 2,048 GPUs · 10¹² tokens / 180K GPU-hours.",
    hides=("dualpipe", "ep-overlap", "pp-overlap", "node-limited-routing"))

# --- GPT-NeoX-20B ---------------------------------------------------------------------------------------------------
_NEOX_SRC: Final = Source(
    "Black et al. 2022, GPT-NeoX-20B, arXiv:2204.06745, §3; EleutherAI/gpt-neox configs/20B.yml and "
    "megatron/logging.py (get_flops)",
    note="96 A100 40 GB; TP 2, PP 4 (so DP 12), ZeRO-1, micro-batch 4 and 32 accumulation steps (1,536 "
         "sequences; the paper says about 3.15M tokens, 1,538 contexts), full activation checkpointing, fp16 — "
         "from the released config; 117 TFLOP/s per GPU (confirmed in notes on the paper). The code base counts "
         "FLOPs with Megatron's 96·B·s·l·h²(…) formula (factor 4 with checkpointing); that the paper's figure "
         "was counted so is our reading.")
GPT_NEOX: Final = PublishedRun(
    name="GPT-NeoX-20B, 96 GPUs", model=md.GPT_NEOX_20B, node=hw.HGX_A100_40GB_NEOX, gpus=96, tp=2, pp=4, dp=12,
    global_batch=1536, micro_batch=4, seq_len=2048, zero_stage=1, recompute="full", sequence_parallel=False,
    precision="fp16",
    measured=Measured(kind="flops_per_gpu", value=117e12, convention="megatron2021", source=_NEOX_SRC),
    source=_NEOX_SRC,
    notes="Pipeline stages scheduled across node boundaries, TP inside a node; only four HDR NICs per 8 GPUs, so "
          "the ZeRO-1 gradient traffic (DeepSpeed overlap_comm, 1.26 GB buckets) crosses a 12.5 GB/s link.",
    hides=("dp-overlap",))

#: every published run of the catalogue
RUN_LIST: Final = (*MEGATRON_2021, *MEGATRON_2021_TABLE2, *KORTHIKANTI_2022, KORTHIKANTI_DP8, *MT_NLG,
                   *LLAMA3_405B, BLOOM, OPT, PALM, *NEMOTRON4, *MEGASCALE, *MEGASCALE_MOE, DEEPSEEK_V3, GPT_NEOX)
