"""Accelerators and node types, each with its source (dense tensor FLOP/s without sparsity; memory as marketed;
link bandwidths per GPU and per direction — the sources quote NVLink as a bidirectional total, network ports per
direction, and each note says which)."""

from __future__ import annotations

from typing import Final

from .base import AcceleratorSpec, NodeSpec, Source

__all__ = ["ACCELERATOR_LIST", "NODE_LIST"]

_A100_DOC: Final = "NVIDIA A100 Tensor Core GPU datasheet, specifications table (SXM)"
_H100_DOC: Final = "NVIDIA H100 Tensor Core GPU datasheet, specifications table (H100 SXM)"

A100_40GB: Final = AcceleratorSpec(
    name="A100 40GB SXM", architecture="Ampere", memory=40e9, memory_bandwidth=1555e9, peak_bf16=312e12, peak_fp8=None,
    source=Source(_A100_DOC, note="BF16 tensor 312 TFLOP/s dense (624 with sparsity); 40 GB HBM2, 1,555 GB/s "
                  "(secondary copies of the table round it to 1.6 TB/s)."),
)
A100_80GB: Final = AcceleratorSpec(
    name="A100 80GB SXM", architecture="Ampere", memory=80e9, memory_bandwidth=2039e9, peak_bf16=312e12, peak_fp8=None,
    source=Source(_A100_DOC, note="BF16 tensor 312 TFLOP/s dense; 80 GB HBM2e, 2,039 GB/s (both confirmed in "
                  "secondary copies of the table)."),
)
H100_SXM: Final = AcceleratorSpec(
    name="H100 SXM", architecture="Hopper", memory=80e9, memory_bandwidth=3.35e12, peak_bf16=989e12, peak_fp8=1979e12,
    source=Source(_H100_DOC, note="BF16 989 TFLOP/s and FP8 1,979 TFLOP/s dense (the datasheet's 1,979/3,958 are "
                  "with sparsity); 80 GB HBM3, 3.35 TB/s (confirmed in secondary copies); Llama 3 §3.3.1 also "
                  "gives 80 GB HBM3 at 700 W."),
)
H800_SXM: Final = AcceleratorSpec(
    name="H800 SXM", architecture="Hopper", memory=80e9, memory_bandwidth=3.35e12, peak_bf16=989e12, peak_fp8=1979e12,
    source=Source("H800 vs H100 comparison, philisun.com technical analysis (secondary; no NVIDIA H800 datasheet "
                  "among our sources)",
                  note="Same Hopper die, memory and tensor throughput as H100 SXM; NVLink cut to 400 GB/s "
                  "bidirectional and FP64 restricted."),
)
H200_SXM: Final = AcceleratorSpec(
    name="H200 SXM", architecture="Hopper", memory=141e9, memory_bandwidth=4.8e12, peak_bf16=989e12, peak_fp8=1979e12,
    source=Source("NVIDIA H200 announcement (SC23) as summarised by aiminingco.com and lzwjava.github.io (secondary)",
                  note="141 GB HBM3e, 4.8 TB/s; same GH100 tensor cores as H100 (FP8 3,958 TFLOP/s quoted with "
                  "sparsity, so 1,979 dense)."),
)
B200_HGX: Final = AcceleratorSpec(
    name="B200 (HGX, 1000 W)", architecture="Blackwell", memory=180e9, memory_bandwidth=8e12, peak_bf16=2250e12,
    peak_fp8=4500e12,
    source=Source("NVIDIA DGX B200 product page (8 GPUs, 1,440 GB HBM3e, 72 PFLOP/s FP8 training); HGX B200 figures "
                  "as tabulated by G. Lockwood, glennklockwood.com/garden/processors/B200",
                  note="Dense BF16 2,250 and FP8 4,500 TFLOP/s at 1,000 W (HGX; 72 PF sparse FP8 / 8 GPUs / 2); "
                  "8 TB/s; 180 GB per GPU as DGX B200 exposes it (1,440 GB / 8) — the package carries 192 GB."),
)
TPU_V4: Final = AcceleratorSpec(
    name="TPU v4", architecture="TPU v4", memory=32 * 2**30, memory_bandwidth=1200e9, peak_bf16=275e12, peak_fp8=None,
    source=Source("Google Cloud TPU documentation, 'TPU v4', system architecture table",
                  note="275 TFLOP/s bf16 per chip; 32 GiB HBM2 at 1,200 GB/s."),
)

_ASCEND_910B_DOC: Final = ("A. Chiao, 'GPU Performance (Data Sheets) Quick Reference (2023)' and "
                           "'GPU 进阶笔记（二）：华为昇腾 910B GPU 相关（2023）', arthurchiao.art "
                           "(secondary; no Huawei datasheet among our sources)")
ASCEND_910B: Final = AcceleratorSpec(
    name="Ascend 910B", architecture="Da Vinci", memory=64e9, memory_bandwidth=1.6e12, peak_bf16=320e12, peak_fp8=None,
    source=Source(_ASCEND_910B_DOC, verified=False,
                  note="64 GB HBM2e (npu-smi on a 910B1 shows 65,536 MB, i.e. 64 GiB — which one the vendor means is "
                  "not stated); FP16 320 TFLOP/s as tabulated there, bf16 taken as equal — 需核实; memory bandwidth "
                  "1.6 TB/s from secondary spec tables only — 需核实. No fp8."),
)

#: every accelerator of the catalogue
ACCELERATOR_LIST: Final = (A100_40GB, A100_80GB, H100_SXM, H800_SXM, H200_SXM, B200_HGX, TPU_V4, ASCEND_910B)

_DGX_A100_DOC: Final = "NVIDIA DGX A100 user guide (hardware overview) and A100 datasheet (NVLink)"

DGX_A100: Final = NodeSpec(
    name="DGX A100", accelerator=A100_80GB, gpus_per_node=8, intra_bandwidth=300e9, nic_bandwidth=25e9,
    nics=8, nic_line_rate=200e9, nvlink_links=12,
    source=Source(_DGX_A100_DOC, note="NVLink 3: 12 links, 600 GB/s bidirectional = 300 GB/s per direction per "
                  "GPU; eight 200 Gb/s HDR InfiniBand compute NICs, one per GPU (25 GB/s per direction). Selene, "
                  "on which Megatron-LM and MT-NLG ran, is built of these."),
)
DGX_H100: Final = NodeSpec(
    name="DGX H100", accelerator=H100_SXM, gpus_per_node=8, intra_bandwidth=450e9, nic_bandwidth=50e9,
    nics=8, nic_line_rate=400e9, nvlink_links=18,
    source=Source("NVIDIA DGX H100 user guide (hardware overview) and H100 datasheet (NVLink)",
                  note="NVLink 4: 18 links, 900 GB/s bidirectional = 450 GB/s per direction per GPU; eight "
                  "400 Gb/s compute NICs, one per GPU (50 GB/s per direction)."),
)
GRAND_TETON_H100: Final = NodeSpec(
    name="Grand Teton H100 (Llama 3)", accelerator=H100_SXM, gpus_per_node=8, intra_bandwidth=450e9,
    nic_bandwidth=50e9, nics=8, nic_line_rate=400e9,
    source=Source("Grattafiori et al. 2024, The Llama 3 Herd of Models, arXiv:2407.21783, §3.3.1",
                  note="8 H100 (80 GB HBM3, 700 W) per Grand Teton server with NVLink inside; RoCE fabric with "
                  "400 Gb/s between GPUs (per direction); 24K-GPU three-layer Clos, 3,072-GPU pods at full "
                  "bisection, 1:7 above. NVLink per direction as for H100 SXM."),
)
HGX_H800: Final = NodeSpec(
    name="HGX H800 (DeepSeek-V3)", accelerator=H800_SXM, gpus_per_node=8, intra_bandwidth=200e9,
    nic_bandwidth=50e9, nics=8, nic_line_rate=400e9,
    source=Source("DeepSeek-AI 2024, DeepSeek-V3 Technical Report, arXiv:2412.19437, §3.1 and §3.2.2; H800 NVLink "
                  "limit from the H800 comparison above",
                  note="8 GPUs per node on NVLink/NVSwitch, InfiniBand across nodes: the report gives IB 50 GB/s "
                  "per GPU and NVLink 160 GB/s (about 3.2×) as achieved; the H800's NVLink limit is 400 GB/s "
                  "bidirectional = 200 GB/s per direction, stored here as the link rate."),
)
HGX_H200: Final = NodeSpec(
    name="HGX H200", accelerator=H200_SXM, gpus_per_node=8, intra_bandwidth=450e9, nic_bandwidth=50e9,
    nics=8, nic_line_rate=400e9, nvlink_links=18,
    source=Source("NVIDIA HGX H200 as summarised by aiminingco.com (secondary)", verified=False,
                  note="NVLink 4 at 900 GB/s bidirectional (450 per direction) is confirmed; eight 400 Gb/s NICs "
                  "is the HGX reference design, not confirmed — 需核实."),
)
DGX_B200: Final = NodeSpec(
    name="DGX B200", accelerator=B200_HGX, gpus_per_node=8, intra_bandwidth=900e9, nic_bandwidth=50e9,
    nics=8, nic_line_rate=400e9, nvlink_links=18,
    source=Source("NVIDIA DGX B200 product page; Vultr, NVIDIA HGX B200 hardware overview (nvidia-smi topology NV18)",
                  note="NVLink 5: 18 links, 1.8 TB/s bidirectional = 900 GB/s per direction per GPU (14.4 TB/s "
                  "aggregate); 400 Gb/s InfiniBand per GPU (confirmed in secondary spec tables)."),
)
TPU_V4_HOST: Final = NodeSpec(
    name="TPU v4 host", accelerator=TPU_V4, gpus_per_node=4, intra_bandwidth=1.1e15 / 4096,
    nic_bandwidth=1.1e15 / 4096,
    source=Source("Google Cloud TPU documentation, 'TPU v4' (pod: 4,096 chips, 3D mesh/torus ICI, all-reduce "
                  "bandwidth 1.1 PB/s); Chowdhery et al. 2022 §4 (3,072 chips on 768 hosts per pod)",
                  verified=False,
                  note="Four chips per host. ICI joins every chip of a pod, so inside and across hosts use the same "
                  "figure: the pod's all-reduce bandwidth per chip, 1.1 PB/s / 4,096 = 269 GB/s, direction not "
                  "stated by the source — 需核实. Pods talk over the data-centre network (not modelled)."),
)
JEAN_ZAY_A100: Final = NodeSpec(
    name="Jean Zay A100 (BLOOM)", accelerator=A100_80GB, gpus_per_node=8, intra_bandwidth=300e9,
    nic_bandwidth=100e9 / 8 * 4 / 8, nics=4, nic_line_rate=100e9,
    source=Source("BigScience 2022, BLOOM, arXiv:2211.05100, §3.4 (hardware); BigScience 176B model page",
                  verified=False,
                  note="48 nodes of 8 A100 80 GB, 4 NVLink GPU-to-GPU links, four Omni-Path 100 Gb/s links per "
                  "node (6.25 GB/s per GPU per direction). The NVLink figure (300 GB/s per direction, as in DGX "
                  "A100) is not stated by the source — 需核实."),
)
HGX_A100_40GB_NEOX: Final = NodeSpec(
    name="Supermicro AS-4124GO-NART (GPT-NeoX-20B)", accelerator=A100_40GB, gpus_per_node=8,
    intra_bandwidth=300e9, nic_bandwidth=200e9 / 8 * 4 / 8, nics=4, nic_line_rate=200e9,
    source=Source("Black et al. 2022, GPT-NeoX-20B, arXiv:2204.06745, §3 (training hardware)",
                  note="8 A100-SXM4-40GB per server (HGX board: NVLink 3 at 300 GB/s per direction); four "
                  "ConnectX-6 HCAs per server on an HDR (200 Gb/s, MQM8700) spine: 12.5 GB/s per GPU per "
                  "direction."),
)

ATLAS_800T_A2: Final = NodeSpec(
    name="Atlas 800T A2", accelerator=ASCEND_910B, gpus_per_node=8, intra_bandwidth=392e9 / 2, nic_bandwidth=25e9,
    nics=8, nic_line_rate=200e9, nvlink_links=7,
    source=Source(_ASCEND_910B_DOC + "; Huawei MindCluster / Ascend Deployer docs (8 NPU ports of the parameter "
                  "plane per Atlas 800T A2, one subnet)", verified=False,
                  note="8 NPUs joined pairwise by HCCS, no switch chip (npu-smi info -t topo lists HCCS between every "
                  "pair): a full mesh, 7 links per NPU. The secondary source gives 56 GB/s per pair and 392 GB/s "
                  "per NPU in all (= 7 × 56), calling them bidirectional; stored here as 392/2 = 196 GB/s per "
                  "direction, 28 GB/s per link — the direction is 需核实. NICs: one 200 GE RoCE port per NPU "
                  "(200 Gb/s per direction), from product listings — 需核实. ``nvlink_links`` holds the HCCS links."),
)

#: every node type of the catalogue
NODE_LIST: Final = (DGX_A100, DGX_H100, GRAND_TETON_H100, HGX_H800, HGX_H200, DGX_B200, TPU_V4_HOST, JEAN_ZAY_A100,
                    HGX_A100_40GB_NEOX, ATLAS_800T_A2)
