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


def _megatron(p: str, tp: int, pp: int, gpus: int, batch: int, tflops: int) -> PublishedRun:
    confirmed = p == "1008.0"
    src = Source(_MEG_REF, verified=confirmed,
                 note=("Aggregate 502 PFLOP/s on 3,072 GPUs and the (6 × 8 × 64) layout confirmed in secondary "
                       "copies." if confirmed else
                       "Row internally consistent (TFLOP/s per GPU × GPUs = the aggregate column); the table was "
                       "not re-read this time — 需核实."))
    return PublishedRun(
        name=f"Megatron-LM 2021, GPT {p}B, {gpus} GPUs", model=_MEG_MODELS[f"Megatron GPT {p}B"], node=hw.DGX_A100,
        gpus=gpus, tp=tp, pp=pp, dp=gpus // (tp * pp), global_batch=batch, seq_len=2048, zero_stage=0,
        recompute="full", sequence_parallel=False, precision="fp16",
        measured=Measured(kind="flops_per_gpu", value=tflops * 1e12, convention="megatron2021", source=src),
        source=src,
        notes="Interleaved 1F1B schedule where PP > 1 (virtual stages per row not in the table); data-parallel "
              "all-reduce after the backward pass; scatter/gather of pipeline transfers over the 8 NICs of a node.")


MEGATRON_2021: Final = tuple(_megatron(*row) for row in _MEG_ROWS)

# --- Korthikanti et al. 2022, Tables 3 and 5 ---------------------------------------------------------------------
_KOR_REF: Final = ("Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, "
                   "arXiv:2205.05198, Table 3 (configurations) and Table 5 (end-to-end iteration time, MFU)")
_KOR_SRC: Final = Source(_KOR_REF, verified=False,
                         note="Tables not re-read this time — 需核实. Check: each iteration time reproduces the MFU "
                         "column with the paper's model-FLOP formula (the megatron-mfu convention) to 0.5 %, and "
                         "175B's 51.4 % MFU / 52.8 % HFU also appears in a secondary source.")
_KOR_ROWS: Final = (  # model, TP, PP, GPUs, batch, MFU (sequence parallel + selective), s/iteration
    (md.KORTHIKANTI_22B, 8, 1, 8, 4, 0.415, 1.10),
    (md.GPT3_175B, 8, 8, 64, 64, 0.514, 13.75),
    (md.MT_NLG_530B, 8, 35, 280, 280, 0.560, 37.83),
    (_MEG_MODELS["Megatron GPT 1008.0B"], 8, 64, 512, 512, 0.563, 71.49),
)


def _korthikanti(model: ModelSpec, tp: int, pp: int, gpus: int, batch: int, mfu: float,
                 step: float) -> PublishedRun:
    label = {"Korthikanti 22B": "22B", "GPT-3 175B": "175B", "MT-NLG 530B": "530B"}.get(model.name, "1T")
    return PublishedRun(
        name=f"Korthikanti 2022, {label}, {gpus} GPUs", model=model, node=hw.DGX_A100, gpus=gpus, tp=tp, pp=pp,
        dp=gpus // (tp * pp), global_batch=batch, micro_batch=1, seq_len=2048, zero_stage=0, recompute="selective",
        sequence_parallel=True, precision="bf16", reported_step_time=step,
        measured=Measured(kind="mfu", value=mfu, convention="megatron-mfu", source=_KOR_SRC), source=_KOR_SRC,
        notes="Sequence parallelism with selective recomputation of attention; one data-parallel replica (the "
              "configuration is one model replica per row), interleaved pipeline schedule.")


KORTHIKANTI_2022: Final = tuple(_korthikanti(*row) for row in _KOR_ROWS)

# --- MT-NLG 530B (Smith et al. 2022) -----------------------------------------------------------------------------
_MTNLG_SRC: Final = Source(
    "Smith et al. 2022, Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B, arXiv:2201.11990, §2.4",
    note="Global batch 1,920 on 280, 350 and 420 DGX A100 servers: 60.1, 50.2 and 44.4 s per iteration, 126, 121 "
         "and 113 TFLOP/s per GPU (confirmed in llm-analysis's MT-NLG example). Each replica spans 280 GPUs, "
         "8-way tensor slicing inside a node and 35-way pipeline across nodes.")
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
         "with attention) is assumed — 需核实; 430 TFLOP/s ≈ 43 % of 989 either way.")
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
    "BigScience 2022, BLOOM, arXiv:2211.05100, §3.4–3.5; BigScience 176B model page (training throughput)",
    verified=False,
    note="384 A100 80 GB, one replica on 48 GPUs (TP 4 × PP 12, so DP 8), global batch 2,048 of 2,048 tokens, "
         "about 150 TFLOP/s per GPU (model page; the paper quotes 156 in its fastest configuration) — the figure "
         "is approximate (需核实). Megatron-DeepSpeed logs TFLOP/s as 8N per token (the 8n convention).")
BLOOM: Final = PublishedRun(
    name="BLOOM 176B, 384 GPUs", model=md.BLOOM_176B, node=hw.JEAN_ZAY_A100, gpus=384, tp=4, pp=12, dp=8,
    global_batch=2048, micro_batch=2, seq_len=2048, zero_stage=1, recompute="full", sequence_parallel=False,
    precision="bf16", measured=Measured(kind="flops_per_gpu", value=150e12, convention="8n", source=_BLOOM_SRC),
    source=_BLOOM_SRC,
    notes="ZeRO-1 over DP with Megatron TP and PP; Omni-Path gives each GPU only 6.25 GB/s across nodes, so TP "
          "stays inside a node and the DP all-reduce is the exposed traffic. Micro-batch 2 from the training "
          "README, not the paper (需核实).")

# --- OPT-175B --------------------------------------------------------------------------------------------------------
_OPT_SRC: Final = Source(
    "Zhang et al. 2022, OPT: Open Pre-trained Transformer Language Models, arXiv:2205.01068, §2.4",
    verified=False,
    note="992 A100 80 GB, FSDP with Megatron tensor parallelism, up to 147 TFLOP/s per GPU, batch 2M tokens "
         "(confirmed in a summary). The TP degree (8), the batch in sequences (992 of 2,048 = 2.03M tokens) and "
         "the FLOP count (6N assumed) are not stated there — 需核实.")
OPT: Final = PublishedRun(
    name="OPT-175B, 992 GPUs", model=md.OPT_175B, node=hw.DGX_A100, gpus=992, tp=8, pp=1, dp=124,
    global_batch=992, seq_len=2048, zero_stage=3, recompute="unknown", sequence_parallel=False, precision="fp16",
    measured=Measured(kind="flops_per_gpu", value=147e12, convention="6n", source=_OPT_SRC), source=_OPT_SRC,
    notes="Fully sharded data parallelism (parameters all-gathered per layer, overlapped with compute) over 8-way "
          "tensor parallelism inside a node; no pipeline. The network of the cluster is not given (DGX A100 "
          "assumed).")

# --- PaLM 540B -------------------------------------------------------------------------------------------------------
_PALM_SRC: Final = Source(
    "Chowdhery et al. 2022, PaLM: Scaling Language Modeling with Pathways, arXiv:2204.02311, §4 and Table 3",
    note="6,144 TPU v4 chips in two pods of 3,072; within a pod 12-way model parallelism and 256-way fully sharded "
         "data parallelism, data parallelism across pods; MFU 46.2 % (HFU 57.8 %) with the PaLM FLOP count; "
         "batch raised from 512 to 1,024 to 2,048 sequences of 2,048 tokens (the last used here).")
PALM: Final = PublishedRun(
    name="PaLM 540B, 6144 TPU v4", model=md.PALM_540B, node=hw.TPU_V4_HOST, gpus=6144, tp=12, pp=1, dp=512,
    global_batch=2048, seq_len=2048, zero_stage=3, recompute="unknown", sequence_parallel=None, precision="bf16",
    measured=Measured(kind="mfu", value=0.462, convention="palm", source=_PALM_SRC), source=_PALM_SRC,
    notes="No pipeline. The two pods exchange gradients over the data-centre network once per step, overlapped "
          "with the next step's compute (Pathways); inside a pod ICI carries the sharded all-gathers. Parallel "
          "attention/MLP blocks. HFU/MFU = 1.25 implies rematerialization, not detailed.")

# --- Nemotron-4 340B, Table 2 -----------------------------------------------------------------------------------
_NEMO_SRC: Final = Source(
    "NVIDIA 2024, Nemotron-4 340B Technical Report, arXiv:2406.11704, Table 2",
    note="768 DGX H100 nodes; TP 8 × PP 12 with DP 16, 32 and 64 as the batch ramps 768 → 1,536 → 2,304; MFU "
         "42.4, 42.3 and 41.0 %, iteration time 10.3, 10.3 and 8.0 s. The last row is confirmed in a secondary "
         "source (epoch.ai's notes: 6,144 GPUs, batch 2,304, 8.0 s, 41–42 % MFU); the first two rows "
         "from the same table, not re-read. FLOP count read as PaLM's (input embedding not counted): it "
         "reproduces the three iteration times within their rounding.")
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

# --- MegaScale (Jiang et al., NSDI'24) ------------------------------------------------------------------------------
_MEGASCALE_SRC: Final = Source(
    "Jiang et al. 2024, MegaScale: Scaling Large Language Model Training to More Than 10,000 GPUs, NSDI'24, "
    "arXiv:2402.15627, Table 2", verified=False,
    note="55.2 % MFU for the 175B model on 12,288 GPUs (1.34× Megatron-LM) is confirmed from the abstract; the "
         "layout (TP 8 × PP 8, DP 192), batch 6,144 and the node's NICs are not confirmed — 需核实. Ampere GPUs "
         "(A100 assumed) on a three-layer Clos of Tomahawk 4 switches.")
MEGASCALE: Final = PublishedRun(
    name="MegaScale 175B, 12288 GPUs", model=md.GPT3_175B, node=hw.DGX_A100, gpus=12288, tp=8, pp=8, dp=192,
    global_batch=6144, seq_len=2048, zero_stage=1, recompute="selective", sequence_parallel=True, precision="bf16",
    measured=Measured(kind="mfu", value=0.552, convention="palm", source=_MEGASCALE_SRC), source=_MEGASCALE_SRC,
    notes="Parallel transformer block and sliding-window attention; DP all-gather/reduce-scatter prefetched and "
          "overlapped with the first/last micro-batch, PP send/receive decoupled and overlapped, TP/SP "
          "communication fused with the GEMMs; LAMB allows the larger batch.")

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
          "and MLA up-projections; FP8 GEMMs. Throughput = 2,048 GPUs · 10¹² tokens / 180K GPU-hours.")

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
          "the ZeRO-1 gradient traffic (DeepSpeed overlap_comm, 1.26 GB buckets) crosses a 12.5 GB/s link.")

#: every published run of the catalogue
RUN_LIST: Final = (*MEGATRON_2021, *KORTHIKANTI_2022, *MT_NLG, *LLAMA3_405B, BLOOM, OPT, PALM, *NEMOTRON4, MEGASCALE,
                   DEEPSEEK_V3, GPT_NEOX)
