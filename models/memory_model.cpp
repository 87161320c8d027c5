#include "models/memory_model.hpp"

#include <algorithm>

namespace clustersim {
namespace {
double activation_element_bytes(Precision p) {
  // Activations other than FP8 linear layers' cached inputs are BF16 under FP8 recipes; fp32 stays fp32.
  return p == Precision::fp32 || p == Precision::tf32 ? 4.0 : 2.0;
}

// Scale bytes per element of an FP8 tensor: MXFP8 one E8M0 byte per 32 elements, blockwise one FP32 per
// 1 x 128 tile; per-tensor and per-row scales are negligible.
double fp8_scale_bytes_per_element(Fp8Scaling r) {
  switch (r) {
    case Fp8Scaling::mxfp8: return 1.0 / 32.0;
    case Fp8Scaling::blockwise: return 4.0 / 128.0;
    default: return 0.0;
  }
}
}  // namespace

Bytes layer_activation_bytes(const TransformerSpec& m, const LayerShape& s, Recompute r, LayerKind kind) {
  const double e = activation_element_bytes(s.precision);
  const double t = s.tp;
  const double tokens = static_cast<double>(s.micro_batch) * s.seq_len / s.cp;
  const double h = m.hidden;
  const double sp_div = s.sequence_parallel ? t : 1.0;
  if (r == Recompute::full) return Bytes(tokens * e * h / sp_div);

  // Unsharded widths: Q and the attention output, K and V (GQA groups replicate when t > kv_heads).
  const double kv_heads = std::max(1.0, static_cast<double>(m.kv_heads) / t) * t;
  const double q = static_cast<double>(m.heads) * m.head_dim();
  const double o = static_cast<double>(m.heads) * m.v_head_dim();
  const double k = kv_heads * m.head_dim(), v = kv_heads * m.v_head_dim();
  const bool swiglu = m.mlp == MlpKind::swiglu;
  if (r == Recompute::selective && s.saves_dots_only) {
    // JAX's checkpoint_dots_with_no_batch_dims (training_options.hpp SelectivePolicy::dots): the layer's input
    // (the scanned carry) and those outputs of its weight matmuls the backward reads, in the activation dtype.
    // JAX saves a saveable value only if it is a residual of the backward (remat_partial_eval prunes the
    // others, jax/_src/ad_checkpoint.py): the query, key and value projections and the MLP input GEMM(s)
    // (their consumers' backward needs them), and in a sequential block the output projection's result (the
    // mid-layer residual the second norm's backward needs is rebuilt from it); the MLP output, and in a
    // parallel block the output projection's result too, only feed adds and are not kept. The h-wide
    // tensors follow the activation sharding (sequence_parallel); nothing else is kept: norms, activation
    // functions, dropout masks and the attention core (flash or not, with its log-sum-exp) are recomputed.
    // Dense, non-MLA layers (cross_checks.cpp refuses the others).
    const double w_in = swiglu ? 2.0 * m.ffn_hidden : m.ffn_hidden;
    const double h_wide = (m.parallel_block ? 1.0 : 2.0) * h / sp_div;
    return Bytes(tokens * e * (h_wide + (q + k + v + w_in) / t));
  }
  // DeepSeek-V3 §3.3.4: with an FP8 activation cache the inputs of FP8 linear layers are kept in FP8
  // with one FP32 scale per 1 x 128 tile (1 + 4/128 bytes per element), the attention output (input of
  // the output projection, also read by the attention backward) in E5M6 (12 bits), and the MoE SwiGLU
  // keeps its FP8 input and recomputes its output. §3.2.3: RMSNorm outputs (the inputs of the attention
  // and MLP projections) and MLA's up-projected queries, keys and values are recomputed, not stored.
  const bool fp8 = s.fp8_activation_cache && s.precision == Precision::fp8;
  // Without that cache (docs/model.md, "What FP8 layers keep"), Transformer Engine's FP8 linear layers keep
  // the FP8 copy of their input for the weight-gradient GEMM and the BF16 tensor it was cast from is freed
  // unless something else holds it (TE v1.9 module/linear.py, layernorm_linear.py, layernorm_mlp.py save the
  // FP8 inputmat/ln_out/gelu_out; from v2.2, GroupedLinear v2.3, one usage of the quantised tensor): 1 byte per element
  // plus the recipe's scales. torchao's Float8Linear from v0.9 keeps the BF16 input (Fp8SavedInputs::bf16).
  const bool te8 = !fp8 && s.precision == Precision::fp8 && s.fp8_saved_inputs != Fp8SavedInputs::bf16;
  const double e8 = 1.0 + fp8_scale_bytes_per_element(s.fp8_scaling);
  const double e_lin = fp8 ? 1.0 + 4.0 / 128.0 : te8 ? e8 : e;  // a cached linear-layer input
  // The attention output: the fused attention kernel keeps it in BF16 for its own backward unless the core
  // is recomputed as a checkpoint (core-attn) or unfused; the output projection keeps its FP8 copy besides,
  // or the same BF16 tensor (BF16 training; Megatron-Core from 0.15 under recipes other than delayed).
  const bool kernel_keeps_out = s.flash_attention && !(r == Recompute::selective && s.core_attn_recomputed);
  const bool proj_original =
      s.fp8_saved_inputs == Fp8SavedInputs::fp8_bf16_proj && s.fp8_scaling != Fp8Scaling::delayed;
  const double e_out = fp8                     ? 1.5  // E5M6
                       : te8 && !proj_original ? e8 + (kernel_keeps_out ? e : 0.0)
                                               : e;
  const bool norms = s.recompute_norm_mla_up;
  const bool mla_up = norms && m.mla.enabled();
  const bool moe_layer = kind == LayerKind::moe && m.moe.enabled();
  // The attention and MLP inputs (norm outputs). Under TE FP8 (Megatron-Core layer specs): MLA's input norm
  // is a standalone norm feeding two linear layers (the query and key/value down-projections), each with
  // its own FP8 copy; a MoE layer's pre-MLP norm is standalone too and the router keeps its BF16 output
  // (moe_utils.py RouterGatingLinearFunction), the shared experts' FC1 its FP8 copy.
  double norm_outputs = 0.0;
  if (!norms) {
    norm_outputs += te8 && m.mla.enabled() ? 2.0 * e8 : e_lin;
    norm_outputs += te8 && moe_layer ? e + (m.moe.shared_experts > 0 ? e8 : 0.0) : e_lin;
  }
  // Norm inputs (the residual stream, 2e·h), the norm outputs and two dropout masks (2h).
  double replicated = (2.0 * e + 2.0 + norm_outputs) * h / sp_div;
  // MLA: the down-projected query and key/value latents (replicated on every TP rank). Without the FP8
  // cache the up-projections' fused norms keep their input (BF16) and, unless recomputed, their output (the
  // FP8 copy under TE FP8); the rotary part of the key latent stays BF16.
  if (m.mla.enabled()) {
    const double lora = static_cast<double>(m.mla.q_lora_rank) + m.mla.kv_lora_rank;
    replicated += fp8 ? e_lin * (lora + m.mla.qk_rope_head_dim)
                      : (e + (norms ? 0.0 : e_lin)) * lora + e * m.mla.qk_rope_head_dim;
  }
  double sharded = (e_out * o + (mla_up ? 0.0 : e * (q + k + v))) / t;
  if (kind == LayerKind::moe && m.moe.enabled()) {
    const MoeSpec& x = m.moe;
    const double f = x.ffn_hidden, w_in = swiglu ? 2.0 * f : f;
    const double load = std::max(1.0, s.moe_load);
    // Per token of the layer: T/t tokens routed by this rank, top_k copies, gathered over etp: the
    // expert input, FC1 output (activation input) and activation output (FC2 input).
    const double act = fp8 ? e_lin * w_in : e * w_in + e_lin * f;
    sharded += x.top_k * load * (e_lin * s.etp * h + act) / t + (4.0 + 8.0) * x.top_k / t;
    if (x.shared_experts > 0) {
      const double fs = static_cast<double>(x.shared_experts) * x.shared_ffn_hidden;
      const double ws = swiglu ? 2.0 * fs : fs;
      sharded += (fp8 ? e_lin * ws : e * ws + e_lin * fs) / t;
    }
  } else {
    const double w_in = swiglu ? 2.0 * m.ffn_hidden : m.ffn_hidden;
    sharded += (e * w_in + e_lin * m.ffn_hidden) / t;
  }
  double scores = 0.0;
  if (s.flash_attention) {
    scores = 4.0 * m.heads / t;  // fp32 log-sum-exp per head per token
  } else if (r == Recompute::none) {
    scores = (2.0 * e + 1.0) * m.heads * static_cast<double>(s.seq_len) / t;
  }
  return Bytes(tokens * (replicated + sharded + scores));
}

Bytes layer_weight_grad_kept_bytes(const TransformerSpec& m, const LayerShape& s, LayerKind kind) {
  // The stored terms without scores: with flash attention off, selective recompute differs from none
  // only by the scores (layer_activation_bytes above).
  LayerShape no_scores = s;
  no_scores.flash_attention = false;
  no_scores.saves_dots_only = false;  // the terms above, whatever the recomputation policy
  return layer_activation_bytes(m, no_scores, Recompute::selective, kind) * (32.0 / 34.0);
}

Bytes stage_layer_activation_bytes(const TransformerSpec& m, const MemoryInputs& in) {
  const int moe = in.moe_layers_on_stage, dense = in.layers_on_stage - moe;
  const bool by_layer = in.recompute_by_layer && in.recompute == Recompute::selective;
  const Recompute kept = by_layer ? Recompute::none : in.recompute;
  const int re_moe = by_layer ? in.recomputed_moe_layers_on_stage : 0;
  const int re_dense = by_layer ? in.recomputed_layers_on_stage - re_moe : 0;
  double bytes = layer_activation_bytes(m, in.shape, kept).value() * (dense - re_dense);
  if (moe > 0) bytes += layer_activation_bytes(m, in.shape, kept, LayerKind::moe).value() * (moe - re_moe);
  // A block recomputed in full keeps its input only (the same for dense and MoE blocks).
  const int recomputed = re_dense + re_moe;
  if (recomputed > 0) bytes += layer_activation_bytes(m, in.shape, Recompute::full).value() * recomputed;
  return Bytes(bytes);
}

double stage_expert_parameters(const TransformerSpec& m, const MemoryInputs& in) {
  const ParameterCount pc = parameter_count(m);
  return pc.moe_layer_experts * in.moe_layers_on_stage / (std::max(1, in.ep) * std::max(1, in.etp));
}

double stage_parameters(const TransformerSpec& m, const MemoryInputs& in) {
  const ParameterCount pc = parameter_count(m);
  const int moe = in.moe_layers_on_stage;
  double p = pc.per_layer * (in.layers_on_stage - moe) + pc.moe_layer_shared * moe + in.extra_parameters;
  if (in.first_stage) p += pc.embedding - pc.position_table;
  if (in.last_stage) {
    p += pc.head;
    // A tied LM head on a separate last stage keeps its own copy of the embedding (Megatron).
    if (m.tied_embeddings && in.pp > 1) p += static_cast<double>(m.vocab) * m.hidden;
  }
  // The learned position table is whole on every TP rank.
  const double replicated = in.first_stage ? pc.position_table : 0.0;
  return p / in.shape.tp + replicated + stage_expert_parameters(m, in);
}

MemoryBreakdown memory_per_device(const TransformerSpec& m, const MemoryInputs& in) {
  const double params = stage_parameters(m, in);
  const double experts = stage_expert_parameters(m, in);
  const double dense = params - experts;
  const double dp = std::max(1, in.dp);
  const double edp = std::max(1, in.expert_dp);
  // Bytes per rank of `per_param` bytes per parameter, ZeRO-sharded from `stage` on.
  const auto sharded = [&](double per_param, int stage) {
    return Bytes(per_param * (in.zero_stage >= stage ? dense / dp + experts / edp : dense + experts));
  };
  const double weight_elem = std::max(2.0, bytes_per_element(in.shape.precision));
  const bool mixed = in.shape.precision != Precision::fp32 && in.shape.precision != Precision::tf32;
  const double master = (mixed && in.master_weights_fp32) ? 4.0 : 0.0;
  const double states = in.optimizer == Optimizer::adam ? 8.0 : 4.0;

  MemoryBreakdown mb;
  mb.weights = sharded(weight_elem, 3);
  if (in.shape.precision == Precision::fp4) {
    // NVFP4 training also holds each quantised weight's copies through the step (Transformer Engine caches
    // them over the micro-batches): row-wise and column-wise E2M1 values (0.5 B each) with one E4M3 scale
    // per 16x16 block (NVFP4BlockScaling's 2D weight quantisation). Only the layers' linear weights are
    // quantised: not the embedding or LM head, and not the layers kept in BF16 (bf16_layers_at_*); a
    // layer's norm weights are counted with its linears (under 0.01 % of them). FP8's cached copies are
    // not counted.
    const ParameterCount pc = parameter_count(m);
    const int moe_q = std::max(0, in.moe_layers_on_stage - in.bf16_moe_layers_on_stage);
    const int dense_q = std::max(0, (in.layers_on_stage - in.moe_layers_on_stage) -
                                        (in.bf16_layers_on_stage - in.bf16_moe_layers_on_stage));
    const double q_dense =
        (pc.per_layer * dense_q + pc.moe_layer_shared * moe_q + in.extra_parameters) / in.shape.tp;
    const double q_experts = pc.moe_layer_experts * moe_q / (std::max(1, in.ep) * std::max(1, in.etp));
    const double copies = 2.0 * (0.5 + 1.0 / 256.0);
    mb.weights += Bytes(copies * (in.zero_stage >= 3 ? q_dense / dp + q_experts / edp : q_dense + q_experts));
  }
  mb.gradients = sharded(bytes_per_element(in.gradient_precision), 2);
  mb.optimizer = sharded(master + states, 1);

  const double per_chunk = stage_layer_activation_bytes(m, in).value() / in.chunks;
  double act = per_chunk * in.inflight_chunk_microbatches;
  if (in.offload_layers > 0) {
    // Transformer Engine keeps at most layers - n layers' activations on the device, the copies in flight
    // included (activation_offload.hpp): the n offloaded layers' activations leave it.
    const double dense_layer = layer_activation_bytes(m, in.shape, in.recompute).value();
    const double moe_layer =
        in.offload_moe_layers > 0 ? layer_activation_bytes(m, in.shape, in.recompute, LayerKind::moe).value() : 0.0;
    const double off = (dense_layer * (in.offload_layers - in.offload_moe_layers) +
                        moe_layer * in.offload_moe_layers) / in.chunks * in.inflight_chunk_microbatches;
    act -= off;
    mb.offloaded = Bytes(off);
  }
  const double tokens = static_cast<double>(in.shape.micro_batch) * in.shape.seq_len / in.shape.cp;
  const double sp_div = in.shape.sequence_parallel ? in.shape.tp : 1.0;
  if (in.first_stage) act += tokens * m.hidden / sp_div * in.inflight_chunk_microbatches;  // embedding dropout mask
  double transient = 0.0;
  if (in.last_stage) {
    // fp32 logits kept for the cross-entropy backward of the micro-batch in flight on the last stage.
    transient = tokens * (static_cast<double>(m.vocab) / in.shape.tp) * 4.0;
  }
  if (in.recompute == Recompute::full) {
    // Recomputing one layer materialises its full activations transiently.
    const LayerKind kind = in.moe_layers_on_stage > 0 ? LayerKind::moe : LayerKind::dense;
    transient = std::max(transient, layer_activation_bytes(m, in.shape, Recompute::none, kind).value());
  } else if (in.recompute == Recompute::selective && in.recompute_by_layer && in.recomputed_layers_on_stage > 0) {
    // So does recomputing one of the blocks the layer policy recomputes in full.
    const LayerKind kind = in.recomputed_moe_layers_on_stage > 0 ? LayerKind::moe : LayerKind::dense;
    transient = std::max(transient, layer_activation_bytes(m, in.shape, Recompute::none, kind).value());
  }
  if (in.zero_stage >= 3) {
    // Two layers of gathered parameters (current + prefetched).
    const ParameterCount pc = parameter_count(m);
    const double layer =
        in.moe_layers_on_stage > 0
            ? pc.moe_layer_shared / in.shape.tp +
                  pc.moe_layer_experts / (std::max(1, in.ep) * std::max(1, in.etp))
            : pc.per_layer / in.shape.tp;
    transient += 2.0 * layer * weight_elem;
  }
  mb.activations = Bytes(act);
  mb.other = Bytes(kRuntimeReserveBytes + transient);
  return mb;
}

}  // namespace clustersim
