"""The shape of a decoder-only transformer, and what one token costs in each kind of layer (集群篇 §4, §9.6.5.1).

Parameters per layer (bias-free, as Llama and most models after 2022):

* attention: ``Q`` and ``O`` are ``h×h``; ``K`` and ``V`` are ``h×h_kv`` with ``h_kv = n_kv·d_head`` (grouped-query
  attention, Ainslie et al. 2023, arXiv:2305.13245; multi-query attention is ``n_kv = 1``, Shazeer 2019,
  arXiv:1911.02150) — ``2h² + 2h·h_kv``, plus two norm vectors ``2h``;
* MLP: ``3·h·f`` for a gated MLP (SwiGLU, Shazeer 2020, arXiv:2002.05202; Llama), ``2·h·f`` for GPT's;
* mixture of experts: ``E`` routed experts of width ``f_e`` and ``E_s`` shared experts, a router ``h·E``; only
  ``top_k`` routed experts and the shared ones run per token (DeepSeek-V3, arXiv:2412.19437, §2.1.2, three leading
  dense layers: ``dense_layers``);
* embeddings ``V·h`` in and out (one matrix when tied).

Forward FLOPs per token of a layer: ``2`` per multiply-add of every weight the token goes through, plus the
attention core ``4·s·h`` (scores ``QKᵀ`` and the weighted sum, ``2·s·h`` each, PaLM App. B counts the full square;
a causal kernel computes half of it). Training multiplies the forward by 3 (backward = 2× forward).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...validate import int_in_range

__all__ = ["Shape"]


@dataclass(frozen=True)
class Shape:
    """A decoder-only transformer. ``ffn_hidden``: the dense MLP width; for a mixture of experts ``experts`` > 1
    routed experts of width ``moe_ffn_hidden`` (default ``ffn_hidden``), ``top_k`` of them per token, plus
    ``shared_experts`` that every token goes through, in every layer after the first ``dense_layers``."""

    layers: int
    hidden: int
    ffn_hidden: int
    heads: int
    kv_heads: int
    vocab: int
    seq_len: int
    experts: int = 1
    top_k: int = 1
    shared_experts: int = 0
    moe_ffn_hidden: int | None = None
    dense_layers: int = 0
    gated_mlp: bool = True
    tied_embeddings: bool = False
    head_dim: int | None = None
    v_head_dim: int | None = None
    attention_weights: float | None = None
    name: str = ""

    def __post_init__(self) -> None:
        for key in ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq_len", "experts"):
            int_in_range(key, getattr(self, key), 1)
        int_in_range("kv_heads", self.kv_heads, 1, self.heads)
        int_in_range("top_k", self.top_k, 1, self.experts)
        int_in_range("shared_experts", self.shared_experts, 0)
        int_in_range("dense_layers", self.dense_layers, 0, self.layers - (self.experts > 1))
        if self.moe_ffn_hidden is not None:
            int_in_range("moe_ffn_hidden", self.moe_ffn_hidden, 1)
        for key in ("head_dim", "v_head_dim"):
            if getattr(self, key) is not None:
                int_in_range(key, getattr(self, key), 1)
        if self.attention_weights is not None and not self.attention_weights > 0:
            raise ValueError(f"attention_weights must be > 0 parameters, got {self.attention_weights!r}")
        if (self.head_dim is None and self.hidden % self.heads) or self.heads % self.kv_heads:
            raise ValueError(f"hidden must be a multiple of heads (unless head_dim is given) and heads of kv_heads, "
                             f"got hidden={self.hidden}, heads={self.heads}, kv_heads={self.kv_heads}")

    @classmethod
    def of(cls, spec: Any) -> Shape:
        """A shape from a catalogue entry (:class:`clusterlab.specs.ModelSpec`): its widths per head and, for
        multi-head latent attention, its projection parameters; a Shape is returned as is."""
        if isinstance(spec, Shape):
            return spec
        keep = ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq_len", "experts", "top_k",
                "shared_experts", "moe_ffn_hidden", "dense_layers", "gated_mlp", "tied_embeddings", "name")
        kw: dict[str, Any] = {f: getattr(spec, f) for f in keep if hasattr(spec, f)}
        if hasattr(spec, "qk_head_dim"):
            kw["head_dim"], kw["v_head_dim"] = spec.qk_head_dim, spec.value_head_dim
        if getattr(spec, "attention", "") == "mla":
            kw["attention_weights"] = spec.attention_params - 2.0 * spec.hidden
        return cls(**kw)

    # --- sizes -------------------------------------------------------------------------------------------------
    @property
    def qk_dim(self) -> int:
        """Width of one query/key head."""
        return self.head_dim if self.head_dim is not None else self.hidden // self.heads

    @property
    def v_dim(self) -> int:
        """Width of one value head."""
        return self.v_head_dim if self.v_head_dim is not None else self.qk_dim

    @property
    def kv_hidden(self) -> int:
        """Width of K (and of V): ``n_kv·d_head``."""
        return self.kv_heads * self.qk_dim

    @property
    def attention_out(self) -> int:
        """Width of the attention output before the output projection, ``a·d_v``."""
        return self.heads * self.v_dim

    @property
    def is_moe(self) -> bool:
        return self.experts > 1

    @property
    def moe_layers(self) -> int:
        return self.layers - self.dense_layers if self.is_moe else 0

    @property
    def expert_width(self) -> int:
        return self.moe_ffn_hidden or self.ffn_hidden

    @property
    def mlp_matrices(self) -> int:
        return 3 if self.gated_mlp else 2

    @property
    def attention_params(self) -> float:
        """Q, K, V, O and the two norms of one layer (``attention_weights`` + norms when given, e.g. MLA)."""
        if self.attention_weights is not None:
            return self.attention_weights + 2.0 * self.hidden
        q_o = self.hidden * self.heads * (self.qk_dim + self.v_dim)
        return q_o + self.hidden * self.kv_heads * (self.qk_dim + self.v_dim) + 2.0 * self.hidden

    @property
    def dense_mlp_params(self) -> float:
        return float(self.mlp_matrices * self.hidden * self.ffn_hidden)

    @property
    def expert_params(self) -> float:
        """One routed (or shared) expert of one layer."""
        return float(self.mlp_matrices * self.hidden * self.expert_width)

    @property
    def embedding_params(self) -> float:
        return self.vocab * self.hidden * (1.0 if self.tied_embeddings else 2.0)

    @property
    def routed_params(self) -> float:
        """The routed experts of all MoE layers (sharded by expert parallelism); 0 for a dense model."""
        return self.moe_layers * self.experts * self.expert_params

    def layer_params(self, moe: bool) -> float:
        """Everything of one layer but its routed experts (those are :attr:`routed_params`)."""
        if not moe:
            return self.attention_params + self.dense_mlp_params
        return self.attention_params + self.shared_experts * self.expert_params + self.hidden * self.experts

    @property
    def params(self) -> float:
        dense = (self.layers - self.moe_layers) * self.layer_params(False) + self.moe_layers * self.layer_params(True)
        return dense + self.routed_params + self.embedding_params

    @property
    def active_params(self) -> float:
        """The parameters one token goes through (``top_k`` routed experts per MoE layer)."""
        return self.params - self.moe_layers * (self.experts - self.top_k) * self.expert_params

    def is_moe_layer(self, index: int) -> bool:
        return self.is_moe and index >= self.dense_layers

    # --- FLOPs per token, forward ------------------------------------------------------------------------------
    def gemm_flops(self, moe: bool) -> float:
        """Forward matrix-multiply FLOPs of one token in one layer (``2`` per weight it meets)."""
        if not moe:
            return 2.0 * (self.attention_params - 2 * self.hidden + self.dense_mlp_params)
        experts = (self.top_k + self.shared_experts) * self.expert_params + self.hidden * self.experts
        return 2.0 * (self.attention_params - 2 * self.hidden + experts)

    @property
    def attention_core_flops(self) -> float:
        """Forward FLOPs of the attention core per token and layer over the full square, ``2·s·a·(d_qk + d_v)``
        (``4·s·h`` for ordinary attention, PaLM App. B)."""
        return 2.0 * self.seq_len * self.heads * (self.qk_dim + self.v_dim)

    @property
    def head_flops(self) -> float:
        """Forward FLOPs per token of the output layer, ``2·V·h``."""
        return 2.0 * self.vocab * self.hidden

    def model_flops_per_token(self) -> float:
        """PaLM's model FLOPs per token of training, ``6N_active + 12·L·h·s`` with the embedding lookup left out
        (PaLM App. B counts ``N`` without the input embedding; the output layer's ``V·h`` stays)."""
        n = self.active_params - self.vocab * self.hidden * (0.0 if self.tied_embeddings else 1.0)
        return 6.0 * n + 3.0 * self.layers * self.attention_core_flops
