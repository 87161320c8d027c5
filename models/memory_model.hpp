// Memory per device: weights, gradients, optimizer states, activations and buffers.
//
// Activations follow Korthikanti et al. 2022 §4 (Eq. 1–6 and Table 2), generalised to GQA and SwiGLU by
// summing the stored tensors of one layer per token:
//   replicated across TP unless sequence parallel: two norm inputs, QKV input, MLP input (e·h each) and two
//     dropout masks (1 byte·h each)                             -> (4e + 2)·h   (= 10h for e = 2)
//   sharded by TP: Q, K, V, attention output, MLP inner tensors -> e·(2h + 2·kv + w_in + f)   (= 24h)
//   attention scores (only without flash/selective):            -> (2e + 1)·a·s              (= 5as)
// so that for GPT (kv = h, f = 4h, e = 2) one layer stores s·b·h·(10 + 24/t + 5as/(ht)) bytes (Eq. 2),
// s·b·h/t·(34 + 5as/h) with sequence parallelism (Eq. 4), 34·s·b·h/t with selective recomputation (Eq. 6),
// and 2·s·b·h (÷t with SP) with full recomputation (only the layer input is kept).
// The number of micro-batches in flight on a stage comes from the pipeline schedule.
// Mixture-of-experts: routed-expert weights are sharded over ep·etp ranks and their gradients and
// optimizer states over the expert data-parallel group (ZeRO), like Megatron-Core's distributed
// optimizer with expert parallelism.
#pragma once

#include "models/precision.hpp"
#include "models/training_options.hpp"
#include "models/transformer_cost.hpp"
#include "sim/core/units.hpp"

namespace clustersim {

struct MemoryInputs {
  LayerShape shape;                 // micro-batch shape on one TP rank
  int layers_on_stage = 1;          // transformer layers held by this pipeline rank (all chunks)
  int chunks = 1;                   // interleaved chunks per rank
  double inflight_chunk_microbatches = 1;  // peak (chunk, micro-batch) activation sets held (schedule)
  bool first_stage = true;
  bool last_stage = true;
  int pp = 1;
  int moe_layers_on_stage = 0;      // of layers_on_stage, how many are MoE layers
  int bf16_layers_on_stage = 0;     // of layers_on_stage, those fp8/fp4 training keeps in BF16
  int bf16_moe_layers_on_stage = 0; // of those, MoE layers (training.bf16_layers_at_start/_end)
  double extra_parameters = 0;      // TP-sharded parameters outside the layers (multi-token prediction)
  int dp = 1;                       // data-parallel degree (ZeRO sharding)
  int ep = 1;                       // expert-parallel degree (routed experts sharded by ep·etp)
  int etp = 1;                      // expert-tensor-parallel degree
  int expert_dp = 1;                // expert data-parallel degree (ZeRO sharding of expert states)
  int zero_stage = 0;
  Recompute recompute = Recompute::none;
  // Selective recomputation by layer (SelectivePolicy::layer: torchtitan's selective_ac_option k, every
  // k-th block recomputed in full): of layers_on_stage, the recomputed blocks keep only their input (what
  // full recomputation keeps), the others every activation (no recomputation). Off: every layer keeps what
  // `recompute` keeps.
  bool recompute_by_layer = false;
  int recomputed_layers_on_stage = 0;      // of layers_on_stage, the blocks recomputed in full
  int recomputed_moe_layers_on_stage = 0;  // of those, MoE layers
  Optimizer optimizer = Optimizer::adam;
  bool master_weights_fp32 = true;
  Precision gradient_precision = Precision::fp32;
  // Activation offloading (models/activation_offload.hpp): of layers_on_stage, the first
  // offload_layers' activations live in host memory (offload_moe_layers of them MoE layers).
  int offload_layers = 0;
  int offload_moe_layers = 0;
};

struct MemoryBreakdown {
  Bytes weights{0};
  Bytes gradients{0};
  Bytes optimizer{0};
  Bytes activations{0};
  Bytes other{0};  // runtime context, communication buffers, transient logits / gathered parameters
  Bytes offloaded{0};  // activations held in host memory instead (not part of total())
  [[nodiscard]] Bytes total() const { return weights + gradients + optimizer + activations + other; }
};

/// Stored activation bytes of one transformer layer for one micro-batch on one TP rank. A MoE layer
/// stores, instead of the MLP's inner tensors, the tokens its experts compute (T/t · top_k · etp on
/// average, times LayerShape::moe_load on the busiest rank) at the expert input, FC1 output and
/// activation output, the routing weights and indices, and the shared experts' inner tensors.
Bytes layer_activation_bytes(const TransformerSpec& m, const LayerShape& s, Recompute r,
                             LayerKind kind = LayerKind::dense);

/// Activation bytes the stage's transformer layers store for one micro-batch, all chunks together:
/// layer_activation_bytes() of each dense and MoE layer under in.recompute, or with recompute_by_layer the
/// recomputed blocks' inputs (Recompute::full) and the other blocks' whole activations (Recompute::none).
Bytes stage_layer_activation_bytes(const TransformerSpec& m, const MemoryInputs& in);

/// Bytes one layer keeps per micro-batch between a split backward's input pass (B) and its deferred
/// weight pass (W) in a zero-bubble schedule: the share M_W / M_F = 32h / 34h of Qi et al. 2024
/// (Section 2.3; 32h = the linear layers' inputs and output gradients on the 34h scale of Korthikanti et
/// al. 2022) applied to this model's own stored non-score terms: layer_activation_bytes() with no
/// recompute and no attention scores (the scores and softmax never feed a weight gradient). It does not
/// depend on the run's recompute setting: under full recompute the B re-materialises the layer, and a
/// deferred W keeps the recomputed inputs, more than the forward stored.
Bytes layer_weight_grad_kept_bytes(const TransformerSpec& m, const LayerShape& s,
                                   LayerKind kind = LayerKind::dense);

/// Parameters held by one rank of a stage before ZeRO sharding: everything but the routed experts is
/// TP-sharded; routed experts are sharded over ep·etp ranks.
double stage_parameters(const TransformerSpec& m, const MemoryInputs& in);
/// The routed-expert part of stage_parameters().
double stage_expert_parameters(const TransformerSpec& m, const MemoryInputs& in);

MemoryBreakdown memory_per_device(const TransformerSpec& m, const MemoryInputs& in);

/// Fixed runtime reserve per device (CUDA context, NCCL channels, allocator slack): 1.5 GiB.
/// An approximation stated in docs/model.md; not calibrated per run.
inline constexpr double kRuntimeReserveBytes = 1.5 * 1073741824.0;

}  // namespace clustersim
