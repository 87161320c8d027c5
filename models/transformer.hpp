// Decoder-only transformer description: dense (GPT, Llama families) or mixture-of-experts (Mixtral,
// DeepSeek-V2/V3, Qwen-MoE), with standard, grouped-query or multi-head latent attention.
//
// Pure value type; the cost model (models/transformer_cost.hpp) derives FLOPs, bytes and memory from it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace clustersim {

enum class MlpKind { gelu, swiglu };
enum class NormKind { layernorm, rmsnorm };
// ALiBi (Press et al. 2022, arXiv 2108.12409): no position table; a per-head linear bias added to the
// attention scores (costed in transformer_cost.cpp).
enum class PositionKind { learned, rotary, alibi };

/// Multi-head latent attention (DeepSeek-V2, arXiv:2405.04434 §2.1; DeepSeek-V3, arXiv:2412.19437 §2.1):
/// queries and keys/values pass through low-rank down-projections (`q_lora_rank`, `kv_lora_rank`) and are
/// expanded per head; each query/key head has a non-positional part (`qk_nope_head_dim`) and a decoupled
/// RoPE part (`qk_rope_head_dim`, one key part shared by all heads); values have `v_head_dim`.
struct MlaSpec {
  int q_lora_rank = 0;  // 0: queries are projected directly from the hidden state
  int kv_lora_rank = 0;  // > 0 when MLA is on
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  [[nodiscard]] bool enabled() const { return kv_lora_rank > 0; }
};

/// Mixture-of-experts feed-forward layers (Shazeer et al. 2017; GShard; Switch; Megatron-Core MoE).
/// A MoE layer replaces the dense MLP by `num_experts` routed experts of inner size `ffn_hidden` (each
/// token goes to `top_k` of them) plus `shared_experts` always-active experts of `shared_ffn_hidden`.
/// Layers 0 .. first_dense_layers-1 stay dense; after them every `layer_freq`-th layer is MoE.
struct MoeSpec {
  int num_experts = 0;  // 0: dense model
  int top_k = 1;
  int ffn_hidden = 0;         // routed expert inner size
  int shared_experts = 0;     // always-active experts
  int shared_ffn_hidden = 0;  // inner size of one shared expert
  int first_dense_layers = 0;
  int layer_freq = 1;
  /// Expert capacity factor: 0 = dropless (every routed token is computed); c > 0 = each expert
  /// computes at most c x its mean load, the rest is dropped.
  double capacity_factor = 0.0;
  /// Token load of the busiest expert-parallel rank over the mean (>= 1; 1 = perfectly balanced).
  double load_imbalance = 1.0;
  /// Zipf exponent of expert popularity (0 = not used; when > 0 it sets load_imbalance, moe_load.hpp).
  double zipf_skew = 0.0;
  /// Node-limited routing (DeepSeek-V3 §2.1.2): each token's experts lie on at most this many nodes
  /// (0 = unlimited). The dispatch crosses the network once per target node and fans out over NVLink.
  int max_nodes_per_token = 0;
  /// Dispatch tokens in FP8 (1 byte per element; DeepSeek-V3 §3.3); the combine stays BF16.
  bool fp8_dispatch = false;
  [[nodiscard]] bool enabled() const { return num_experts > 0; }
  /// Whether layer `i` (0-based) is a MoE layer.
  [[nodiscard]] bool is_moe_layer(int i) const {
    return enabled() && i >= first_dense_layers && (i - first_dense_layers) % layer_freq == 0;
  }
};

struct TransformerSpec {
  std::string name;
  int layers = 0;
  int hidden = 0;      // h
  int heads = 0;       // a (query heads)
  int kv_heads = 0;    // GQA groups; == heads for multi-head attention
  int ffn_hidden = 0;  // MLP inner size (4h for GPT; ~8h/3 rounded for SwiGLU)
  int vocab = 0;       // V (padded as the framework pads it)
  int seq_len = 0;     // default sequence length s
  MlpKind mlp = MlpKind::gelu;
  NormKind norm = NormKind::layernorm;
  PositionKind position = PositionKind::learned;
  bool linear_bias = true;         // biases on QKV/proj/MLP linears (GPT: yes, Llama: no)
  bool tied_embeddings = true;     // LM head shares the input embedding matrix
  int head_dim_override = 0;      // `head_dim` when it is not hidden/heads (PaLM, Gemma); 0 = hidden/heads
  /// Parallel attention+MLP block (GPT-J, GPT-NeoX `use_parallel_residual`, PaLM §2): both branches read
  /// the same normed input and their outputs are summed into the residual, x + attn(ln(x)) + mlp(ln(x)),
  /// so a tensor-parallel layer reduces once per pass instead of twice (docs/model.md).
  bool parallel_block = false;
  MlaSpec mla;                     // multi-head latent attention (off by default)
  MoeSpec moe;                     // mixture-of-experts layers (off by default)
  // Multi-token prediction depth (DeepSeek-V3 §2.2): D sequential modules on the last pipeline stage, each
  // a projection of [norm(h); norm(embedding)] (2h -> h), one transformer block of the model's last-layer
  // kind, and the shared output head with its cross-entropy. 0 = none.
  int mtp_depth = 0;
  double published_params = 0.0;   // parameter count stated by the source (0 = unknown), for checks
  std::vector<std::string> notes;  // how the description was obtained (assumptions, ignored inputs)

  /// Query/key head dimension: `head_dim`, hidden/heads, or for MLA nope + rope.
  [[nodiscard]] int head_dim() const {
    if (mla.enabled()) return mla.qk_nope_head_dim + mla.qk_rope_head_dim;
    return head_dim_override > 0 ? head_dim_override : hidden / heads;
  }
  /// Value head dimension (= head_dim() except with MLA).
  [[nodiscard]] int v_head_dim() const { return mla.enabled() ? mla.v_head_dim : head_dim(); }
  /// Transformer layers in [first, last) that are MoE layers (is_moe_layer), in closed form: O(1) whatever
  /// the layer count (a billion-layer model is refused by the work bounds, not counted layer by layer).
  [[nodiscard]] int moe_layers_in(int first, int last) const {
    if (!moe.enabled() || moe.layer_freq <= 0) return 0;
    // Layers i >= first_dense_layers with (i - first_dense_layers) % layer_freq == 0: multiples of the
    // frequency in [a, b) after the shift.
    const std::int64_t f = moe.layer_freq;
    const std::int64_t a = std::max<std::int64_t>(first, moe.first_dense_layers) - moe.first_dense_layers;
    const std::int64_t b = static_cast<std::int64_t>(last) - moe.first_dense_layers;
    if (b <= a) return 0;
    return static_cast<int>((b + f - 1) / f - (a + f - 1) / f);
  }
};

}  // namespace clustersim
