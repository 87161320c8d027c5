#include "models/memory_model.hpp"

#include <algorithm>

namespace clustersim {
namespace {
double activation_element_bytes(Precision p) {
  // FP8 recipes keep activations for backward in bf16 (Transformer Engine); fp32 stays fp32.
  return p == Precision::fp32 || p == Precision::tf32 ? 4.0 : 2.0;
}
}  // namespace

Bytes layer_activation_bytes(const TransformerSpec& m, const LayerShape& s, Recompute r) {
  const double e = activation_element_bytes(s.precision);
  const double t = s.tp;
  const double tokens = static_cast<double>(s.micro_batch) * s.seq_len / s.cp;
  const double h = m.hidden;
  const double sp_div = s.sequence_parallel ? t : 1.0;
  if (r == Recompute::full) return Bytes(tokens * e * h / sp_div);

  const double kv = std::max(1.0, static_cast<double>(m.kv_heads) / t) * m.head_dim() * t;  // unsharded width
  const double w_in = m.mlp == MlpKind::swiglu ? 2.0 * m.ffn_hidden : m.ffn_hidden;
  const double replicated = (4.0 * e + 2.0) * h / sp_div;
  const double sharded = e * (2.0 * h + 2.0 * kv + w_in + m.ffn_hidden) / t;
  double scores = 0.0;
  if (s.flash_attention) {
    scores = 4.0 * m.heads / t;  // fp32 log-sum-exp per head per token
  } else if (r == Recompute::none) {
    scores = (2.0 * e + 1.0) * m.heads * static_cast<double>(s.seq_len) / t;
  }
  return Bytes(tokens * (replicated + sharded + scores));
}

double stage_parameters(const TransformerSpec& m, const MemoryInputs& in) {
  const ParameterCount pc = parameter_count(m);
  double p = pc.per_layer * in.layers_on_stage;
  if (in.first_stage) p += pc.embedding;
  if (in.last_stage) {
    p += pc.head;
    // A tied LM head on a separate last stage keeps its own copy of the embedding (Megatron).
    if (m.tied_embeddings && in.pp > 1) p += static_cast<double>(m.vocab) * m.hidden;
  }
  return p / in.shape.tp;
}

MemoryBreakdown memory_per_device(const TransformerSpec& m, const MemoryInputs& in) {
  const double params = stage_parameters(m, in);
  const double dp = std::max(1, in.dp);
  const double weight_elem = std::max(2.0, bytes_per_element(in.shape.precision));
  const bool mixed = in.shape.precision != Precision::fp32 && in.shape.precision != Precision::tf32;
  const double master = (mixed && in.master_weights_fp32) ? 4.0 : 0.0;
  const double states = in.optimizer == Optimizer::adam ? 8.0 : 4.0;

  MemoryBreakdown mb;
  mb.weights = Bytes(params * weight_elem / (in.zero_stage >= 3 ? dp : 1.0));
  mb.gradients = Bytes(params * bytes_per_element(in.gradient_precision) / (in.zero_stage >= 2 ? dp : 1.0));
  mb.optimizer = Bytes(params * (master + states) / (in.zero_stage >= 1 ? dp : 1.0));

  const double per_layer = layer_activation_bytes(m, in.shape, in.recompute).value();
  const double layers_per_chunk = static_cast<double>(in.layers_on_stage) / in.chunks;
  double act = per_layer * layers_per_chunk * in.inflight_chunk_microbatches;
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
    transient = std::max(transient, layer_activation_bytes(m, in.shape, Recompute::none).value());
  }
  if (in.zero_stage >= 3) {
    // Two layers of gathered parameters (current + prefetched).
    transient += 2.0 * parameter_count(m).per_layer / in.shape.tp * weight_elem;
  }
  mb.activations = Bytes(act);
  mb.other = Bytes(kRuntimeReserveBytes + transient);
  return mb;
}

}  // namespace clustersim
