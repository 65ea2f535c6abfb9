"""Model shapes of published runs, each with its source (the paper's architecture table or the released
``config.json``). GPT-style models of Megatron-LM (MLP 4h, multi-head attention, vocabulary 51,200 after padding,
sequence 2,048, tied embeddings) are built by :func:`megatron_gpt`."""

from __future__ import annotations

from typing import Final

from .base import ModelSpec, Source

__all__ = ["MODEL_LIST", "megatron_gpt"]

_MEGATRON: Final = ("Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters Using "
                    "Megatron-LM, SC'21, arXiv:2104.04473, Table 1")
_KORTHIKANTI: Final = ("Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, "
                       "arXiv:2205.05198, Table 3")


def megatron_gpt(name: str, layers: int, hidden: int, heads: int, source: Source, *, vocab: int = 51200,
                 seq_len: int = 2048, published_params: float | None = None) -> ModelSpec:
    """A GPT shape as Megatron-LM trains it: MLP ``4h`` (GeLU, two matrices), multi-head attention, tied
    embeddings."""
    return ModelSpec(name=name, layers=layers, hidden=hidden, ffn_hidden=4 * hidden, heads=heads, kv_heads=heads,
                     vocab=vocab, seq_len=seq_len, gated_mlp=False, tied_embeddings=True, attention="mha",
                     source=source, published_params=published_params)


_MEG_NOTE: Final = ("Heads, hidden size and layers of the row; the parameter column agrees with the paper's "
                    "P = 12·l·h²(1 + 13/(12h) + (V + s)/(12·l·h)).")
_MEG_CONFIRMED: Final = ("1.7", "145.6", "529.6", "1008.0")  # shapes confirmed (Table 1 copies; 529.6B = MT-NLG)

LLAMA2_7B: Final = ModelSpec(
    name="Llama 2 7B", layers=32, hidden=4096, ffn_hidden=11008, heads=32, kv_heads=32, vocab=32000, seq_len=4096,
    attention="mha", published_params=7e9,
    source=Source("Touvron et al. 2023, Llama 2, arXiv:2307.09288, Table 1; meta-llama/Llama-2-7b-hf config.json",
                  note="Shape confirmed in copies of the released config (hidden 4096, intermediate 11008, 32 "
                  "heads and KV heads, vocabulary 32,000, 4,096 positions)."),
)
LLAMA2_70B: Final = ModelSpec(
    name="Llama 2 70B", layers=80, hidden=8192, ffn_hidden=28672, heads=64, kv_heads=8, vocab=32000, seq_len=4096,
    attention="gqa", published_params=70e9,
    source=Source("Touvron et al. 2023, Llama 2, arXiv:2307.09288, Table 1 (GQA for 34B/70B); "
                  "meta-llama/Llama-2-70b-hf config.json",
                  note="Confirmed in copies of the released config: hidden 8,192, intermediate 28,672, 80 layers, "
                  "64 heads, 8 K/V heads, vocabulary 32,000, 4,096 positions, untied embeddings."),
)
_LLAMA3: Final = "Grattafiori et al. 2024, The Llama 3 Herd of Models, arXiv:2407.21783, Table 3"
_LLAMA3_NOTE: Final = ("Table 3 gives vocabulary 128,000; the released tokenizer has 128,256 entries, used here. "
                       "Shape also in secondary copies (aarnphm.xyz, the scaling-book chapter on Llama 3).")
LLAMA3_8B: Final = ModelSpec(
    name="Llama 3 8B", layers=32, hidden=4096, ffn_hidden=14336, heads=32, kv_heads=8, vocab=128256, seq_len=8192,
    attention="gqa", published_params=8e9, source=Source(_LLAMA3, note=_LLAMA3_NOTE),
)
LLAMA3_70B: Final = ModelSpec(
    name="Llama 3 70B", layers=80, hidden=8192, ffn_hidden=28672, heads=64, kv_heads=8, vocab=128256, seq_len=8192,
    attention="gqa", published_params=70e9, source=Source(_LLAMA3, note=_LLAMA3_NOTE),
)
LLAMA3_405B: Final = ModelSpec(
    name="Llama 3 405B", layers=126, hidden=16384, ffn_hidden=53248, heads=128, kv_heads=8, vocab=128256,
    seq_len=8192, attention="gqa", published_params=405e9, source=Source(_LLAMA3, note=_LLAMA3_NOTE),
)
GPT3_175B: Final = ModelSpec(
    name="GPT-3 175B", layers=96, hidden=12288, ffn_hidden=4 * 12288, heads=96, kv_heads=96, vocab=50257,
    seq_len=2048, gated_mlp=False, tied_embeddings=True, attention="mha", published_params=175e9,
    source=Source("Brown et al. 2020, Language Models are Few-Shot Learners, arXiv:2005.14165, Table 2.1",
                  note="96 layers, d_model 12,288, 96 heads of 128, context 2,048 (also Korthikanti et al. 2022 "
                  "§5: a = 96, s = 2,048, h = 12,288); the GPT-2 byte-level BPE of 50,257 tokens."),
)
MEGATRON_GPT: Final = tuple(
    megatron_gpt(f"Megatron GPT {p}B", layers, hidden, heads,
                 Source(_MEGATRON, verified=p in _MEG_CONFIRMED,
                        note=_MEG_NOTE + ("" if p in _MEG_CONFIRMED else " Row not re-read this time — 需核实.")),
                 published_params=float(p) * 1e9)
    for p, heads, hidden, layers in (
        ("1.7", 24, 2304, 24), ("3.6", 32, 3072, 30), ("7.5", 32, 4096, 36), ("18.4", 48, 6144, 40),
        ("39.1", 64, 8192, 48), ("76.1", 80, 10240, 60), ("145.6", 96, 12288, 80), ("310.1", 128, 16384, 96),
        ("529.6", 128, 20480, 105), ("1008.0", 160, 25600, 128),
    )
)
KORTHIKANTI_22B: Final = megatron_gpt(
    "Korthikanti 22B", 48, 6144, 64,
    Source(_KORTHIKANTI, note="64 heads, hidden 6,144, 48 layers; sequence 2,048, vocabulary 51,200 (§6)."),
    published_params=22e9)
MEGATRON_GPT_175B: Final = megatron_gpt(
    "Megatron GPT 174.6B", 96, 12288, 96,
    Source(_KORTHIKANTI + "; Narayanan et al. 2021, arXiv:2104.04473, Table 2",
           note="GPT-3's shape (96 heads, hidden 12,288, 96 layers) as Megatron-LM trains it: vocabulary 51,200, "
                "sequence 2,048, tied embeddings."),
    published_params=174.6e9)
BLOOM_176B: Final = ModelSpec(
    name="BLOOM 176B", layers=70, hidden=14336, ffn_hidden=4 * 14336, heads=112, kv_heads=112, vocab=250880,
    seq_len=2048, gated_mlp=False, tied_embeddings=True, attention="mha", published_params=176.247e9,
    source=Source("BigScience 2022, BLOOM, arXiv:2211.05100, §3.2 and Table 3",
                  note="70 layers, hidden 14,336, 112 heads, sequence 2,048, ALiBi, GeLU, tied embeddings; the "
                  "paper's vocabulary is 250,680, padded to 250,880 in the released model (used here)."),
)
OPT_175B: Final = ModelSpec(
    name="OPT-175B", layers=96, hidden=12288, ffn_hidden=4 * 12288, heads=96, kv_heads=96, vocab=50272,
    seq_len=2048, gated_mlp=False, tied_embeddings=True, attention="mha", published_params=175e9,
    source=Source("Zhang et al. 2022, OPT, arXiv:2205.01068, Table 1",
                  note="96 layers, 96 heads, hidden 12,288, sequence 2,048 (confirmed in a summary of the paper); "
                  "vocabulary 50,272 from the released config, not re-read."),
)
MT_NLG_530B: Final = megatron_gpt(
    "MT-NLG 530B", 105, 20480, 128,
    Source("Smith et al. 2022, Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B, arXiv:2201.11990, "
           "§3 (model configuration)",
           note="105 layers, hidden 20,480, 128 heads, sequence 2,048 (confirmed in llm-analysis's MT-NLG example); "
           "GPT-2 BPE padded to 51,200 as Megatron does."),
    published_params=530e9)
PALM_540B: Final = ModelSpec(
    name="PaLM 540B", layers=118, hidden=18432, ffn_hidden=4 * 18432, heads=48, kv_heads=1, head_dim=256,
    vocab=256000, seq_len=2048, gated_mlp=True, tied_embeddings=True, attention="mqa", published_params=540.35e9,
    source=Source("Chowdhery et al. 2022, PaLM, arXiv:2204.02311, Table 1 and §2",
                  note="118 layers, d_model 18,432, 48 heads of 256 (so 48·256 ≠ d_model), MLP 4·d_model with "
                  "SwiGLU, multi-query attention (one K/V head), shared input/output embeddings, 256k vocabulary. "
                  "Parallel attention+MLP blocks are not modelled."),
)
NEMOTRON4_340B: Final = ModelSpec(
    name="Nemotron-4 340B", layers=96, hidden=18432, ffn_hidden=4 * 18432, heads=96, kv_heads=8, vocab=256000,
    seq_len=4096, gated_mlp=False, tied_embeddings=False, attention="gqa", published_params=341e9,
    source=Source("NVIDIA 2024, Nemotron-4 340B Technical Report, arXiv:2406.11704, §2.2 and Table 1",
                  note="96 layers, hidden 18,432, 96 heads, 8 KV heads (GQA), squared-ReLU MLP (not gated), no "
                  "bias, untied embeddings, sequence 4,096, 256,000-token vocabulary; 9.4B embedding + 331.6B "
                  "non-embedding parameters."),
)
DEEPSEEK_V3: Final = ModelSpec(
    name="DeepSeek-V3", layers=61, hidden=7168, ffn_hidden=18432, heads=128, kv_heads=128, vocab=129280,
    seq_len=4096, experts=256, top_k=8, shared_experts=1, moe_ffn_hidden=2048, dense_layers=3, gated_mlp=True,
    tied_embeddings=False, attention="mla", head_dim=128, q_lora_rank=1536, kv_lora_rank=512, rope_head_dim=64,
    v_head_dim=128, published_params=671e9,
    source=Source("DeepSeek-AI 2024, DeepSeek-V3 Technical Report, arXiv:2412.19437, §4.2; "
                  "deepseek-ai/DeepSeek-V3 config.json",
                  note="61 layers, hidden 7,168, 128 heads, MLA (q rank 1,536, kv rank 512, 128 + 64 RoPE per "
                  "query/key head, 128 per value head), first 3 layers dense (MLP 18,432), then 1 shared + 256 "
                  "routed experts of 2,048 with 8 routed per token; 671B parameters, 37B active; pre-training "
                  "sequence 4,096. The multi-token-prediction module (14B) is not included."),
)
MIXTRAL_8X22B: Final = ModelSpec(
    name="Mixtral 8x22B", layers=56, hidden=6144, ffn_hidden=16384, heads=48, kv_heads=8, vocab=32000,
    seq_len=65536, experts=8, top_k=2, attention="gqa", published_params=141e9,
    source=Source("Mistral AI, Mixtral-8x22B-v0.1 config.json; Jin et al. 2025, MegaScale-MoE, EuroSys '26, "
                  "doi:10.1145/3767295.3769325, Table 2",
                  note="56 layers, hidden 6,144, 48 heads with 6 per K/V head (8 K/V heads), experts of 16,384, 8 "
                  "experts top-2 (MegaScale-MoE Table 2); 141B parameters, 39B active, 64K context (model "
                  "summary). Vocabulary: v0.1 has 32,000 tokens, later releases 32,768."),
)
MEGASCALE_175B: Final = ModelSpec(
    name="MegaScale 175B", layers=96, hidden=12288, ffn_hidden=4 * 12288, heads=128, kv_heads=128, vocab=50257,
    seq_len=2048, gated_mlp=False, tied_embeddings=True, attention="mha", published_params=175e9,
    source=Source("Jiang et al. 2024, MegaScale, NSDI'24, arXiv:2402.15627, Table 1",
                  note="96 layers, hidden 12,288, 128 heads (of 96), TP 8 × PP 8 (Table 1, confirmed in notes on "
                  "the paper). MLP 4h, tied embeddings and GPT-3's 50,257-token vocabulary assumed (not in the "
                  "table); sequence 2,048 follows from Table 2's tokens/s. MegaScale itself runs it with "
                  "parallel blocks and sliding-window attention."),
)
MEGASCALE_MOE_352B: Final = ModelSpec(
    name="MegaScale-MoE internal 352B", layers=60, hidden=4096, ffn_hidden=14336, heads=32, kv_heads=8,
    vocab=65536, seq_len=8192, experts=32, top_k=3, attention="gqa", published_params=352e9,
    source=Source("Jin et al. 2025, MegaScale-MoE: Large-Scale Communication-Efficient Training of "
                  "Mixture-of-Experts Models in Production, EuroSys '26, doi:10.1145/3767295.3769325, Table 2 and §6.1",
                  note="60 layers, hidden 4,096, 32 heads with 4 per K/V head (8 K/V heads), 32 experts of 14,336, "
                  "top-3; sequence 8,192, vocabulary 65,536 (§6.1). SwiGLU experts assumed; our count (341B) is "
                  "3 % under the name."),
)
GPT_NEOX_20B: Final = ModelSpec(
    name="GPT-NeoX-20B", layers=44, hidden=6144, ffn_hidden=4 * 6144, heads=64, kv_heads=64, vocab=50432,
    seq_len=2048, gated_mlp=False, tied_embeddings=False, attention="mha", published_params=20.55e9,
    source=Source("Black et al. 2022, GPT-NeoX-20B, arXiv:2204.06745, Table 1; EleutherAI/gpt-neox configs/20B.yml",
                  note="44 layers, hidden 6,144, 64 heads, sequence 2,048, untied embeddings (no-weight-tying), "
                  "rotary on 25 % of each head; vocabulary 50,257 padded to 50,432 in the release."),
)

#: every model shape of the catalogue
MODEL_LIST: Final = (LLAMA2_7B, LLAMA2_70B, LLAMA3_8B, LLAMA3_70B, LLAMA3_405B, GPT3_175B, *MEGATRON_GPT,
                     KORTHIKANTI_22B, MEGATRON_GPT_175B, BLOOM_176B, OPT_175B, MT_NLG_530B, PALM_540B,
                     NEMOTRON4_340B, DEEPSEEK_V3, MIXTRAL_8X22B, MEGASCALE_175B, MEGASCALE_MOE_352B, GPT_NEOX_20B)
