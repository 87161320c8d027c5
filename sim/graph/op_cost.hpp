// Cost of one pipeline op (a forward or backward of one micro-batch through one model chunk) on one
// device, with its time split by cause. Computed once per (stage class, chunk class) from the cost model
// (models/) and the collective model (sim/collectives/); every engine reads the same numbers.
#pragma once

#include <memory>
#include <vector>

#include "models/transformer_cost.hpp"
#include "models/weight_streaming.hpp"

#include "sim/collectives/topology_collectives.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim {

struct OpCost {
  Seconds compute{0};           // device kernels, including recomputation
  Seconds recompute{0};         // part of `compute` spent re-running forward kernels
  Seconds compute_bound{0};     // part of `compute` limited by FLOP/s (rest is memory-bound)
  Seconds tp_comm{0};           // tensor-parallel collectives not hidden under GEMMs
  Seconds cp_comm{0};           // context-parallel K/V exchange not hidden under attention
  Seconds dp_comm{0};           // per-op ZeRO-3/FSDP parameter gathers and gradient scatters not hidden
  Seconds ep_comm{0};           // MoE dispatch/combine all-to-alls (and expert-TP gathers) not hidden
  Seconds pp_comm{0};           // blocking pipeline sends/receives run on the op's stream (pipeline_p2p deepspeed)
  Seconds overlap_slowdown{0};  // part of `compute`: kernels slowed by collectives running under them
  Seconds offload{0};           // waits for activation offload copies (host link) not hidden under the layers
  Flops model_flops{0};         // counted for MFU (no recomputation)
  Flops hardware_flops{0};      // model FLOPs + recomputed FLOPs (HFU convention)
  double ep_passes = 0;  // MoE layer passes with a dispatch + combine all-to-all (recomputation included)
  // TP / CP / ZeRO-3 collective time hidden under the kernels (not part of duration(); their cost to the
  // op is overlap_slowdown). The flow engine replays it as flows under the kernels (flow_replay.cpp).
  Seconds tp_hidden{0};
  Seconds cp_hidden{0};
  Seconds dp_hidden{0};

  [[nodiscard]] Seconds duration() const { return compute + tp_comm + cp_comm + dp_comm + ep_comm + pp_comm + offload; }
  OpCost& operator+=(const OpCost& o);
  friend OpCost operator*(const OpCost& c, double k);
};

/// Which pieces a chunk holds besides its transformer layers.
struct ChunkRole {
  int layers = 0;
  int moe_layers = 0;          // of `layers`, how many are mixture-of-experts layers
  bool has_embedding = false;  // first virtual stage
  bool has_head = false;       // last virtual stage
  int mtp_modules = 0;         // multi-token-prediction modules (model.mtp_depth) on the last virtual stage
  // Vocabulary parallelism (parallelism.vocab_parallel): the share of the embedding and of the output
  // layer + loss this chunk computes (1/(pp·vp) on every chunk; 0 without vocabulary parallelism).
  double vocab_share = 0;
  // Neighbouring chunks in the pipeline (a previous one feeds this chunk's input, a next one takes its
  // output): the blocking pipeline transfers of pipeline_p2p "deepspeed" are charged to the chunk's own
  // ops. Both false (the default) charges none.
  bool has_prev = false;
  bool has_next = false;
  // Of `layers`, how many the FP8/FP4 recipe keeps in BF16 (training.bf16_layers_at_start/_end), and how
  // many of those are MoE layers.
  int bf16_layers = 0;
  int bf16_moe_layers = 0;
};

/// Sets role.bf16_layers / bf16_moe_layers for a chunk holding the model's layers [first, first + count).
void set_bf16_layers(ChunkRole& role, const Scenario& s, int first, int count);

/// Collectives of one micro-batch under vocabulary parallelism (Yeung, Qi, Lin, Wan, "Balancing Pipeline
/// Parallelism with Vocabulary Parallelism", MLSys 2025, arXiv 2411.05288, §4): the output layer needs
/// the last transformer stage's output broadcast to all pp ranks, all-reduces of per-token softmax
/// statistics (max, sum of exp; §4.1 Alg. 1 keeps two communication barriers in the forward, Alg. 2
/// one), the input-gradient reduced back, and the embedding's partial outputs reduced / its gradient
/// broadcast. The paper's schedules place these so that the activation-sized transfers run under
/// transformer work (§4.2), so "vocab-1" / "vocab-2" charge the statistics barriers as exposed time and
/// the activation-sized transfers as collectives running under the chunk's kernels (the SM and HBM share
/// they take, roofline.hpp overlap_slowdown); the interlaced pipeline it compares against (§6) runs them
/// synchronously, so all are charged there as exposed time.
///
/// The hidden transfers per micro-batch are the ones the authors' implementation issues on its side
/// streams (sail-sg/VocabularyParallelism @6191c3b, megatron/core/pipeline_parallel/
/// vocab_parallel_schedule.py): forward, broadcast_lm_head_input (the last stage's output sent to every
/// pipeline rank in fp32, `output_tensor[0].to(dtype=torch.float32)`, with one more fp32 column for the
/// loss gradient) and input_embedding_forward_step_helper (all-reduce of the embedding's partial output);
/// backward, reduce_lm_head_res_alg1/alg2 (all-reduce of the output layer's input gradient) and
/// input_embedding_backward_step_helper (broadcast of the embedding's output gradient).
struct VocabParallelComm {
  double stat_all_reduces = 0;    // all-reduces of one fp32 per token in the forward, each a barrier
  double activation_exposed = 0;  // 1: broadcast/reduce of the activations charged, 0: hidden
  double activation_hidden = 0;   // 1: the same transfers run under the chunk's kernels (overlap slowdown)
};
[[nodiscard]] VocabParallelComm vocab_parallel_comm(VocabParallel mode);

/// Costs of the op kinds of one chunk.
struct ChunkCosts {
  OpCost forward;
  OpCost backward;         // fused B + W (includes recomputation)
  OpCost backward_input;   // B (includes recomputation)
  OpCost backward_weight;  // W
};

/// Everything the graph builder needs that depends only on the scenario, computed once.
class OpCostModel {
 public:
  explicit OpCostModel(const Scenario& s);

  [[nodiscard]] ChunkCosts chunk_costs(const ChunkRole& role) const;
  [[nodiscard]] const LayerShape& shape() const { return shape_; }
  /// Bandwidth a data-parallel collective moves per device (for the slowdown of the compute under it).
  [[nodiscard]] BytesPerSecond dp_bandwidth() const { return dp_bandwidth_; }
  /// Time to hand one micro-batch's boundary activation (or its gradient) to the next stage.
  [[nodiscard]] Seconds p2p_time() const { return p2p_; }
  /// One collective of S = `bytes` on a stage's data-parallel group (dp·cp ranks, stride tp) on the
  /// cluster's topology, the stage's tp DP groups running at once, with the scenario's DP collective
  /// (parallelism.dp_collective).
  [[nodiscard]] Seconds dp_collective_time(CollectiveOp op, Bytes bytes) const;
  /// The same on the stage's expert data-parallel groups (ranks holding the same experts: tp·cp·dp /
  /// (ep·etp) ranks, stride ep·etp), which reduce the routed experts' gradients.
  [[nodiscard]] Seconds expert_dp_collective_time(CollectiveOp op, Bytes bytes) const;
  /// All-to-all time of one MoE dispatch (or combine) per layer pass, before overlap, on the busiest
  /// EP rank (moe_load x the mean); 0 for dense models.
  [[nodiscard]] Seconds moe_dispatch_time() const { return moe_dispatch_; }
  /// Token load of the busiest expert-parallel rank over the mean (1 for dense models).
  [[nodiscard]] double moe_load() const { return shape_.moe_load; }
  /// Weight streaming (wafer-scale systems): the model's pieces in forward order — the embedding, the
  /// dense and MoE layers, the head — with their compute per micro-batch and the bytes streamed per
  /// pass (weights at `weight_bytes` per parameter in, gradients at `gradient_bytes` out).
  [[nodiscard]] std::vector<StreamedPiece> streamed_pieces(double weight_bytes, double gradient_bytes) const;
  /// The collective model of the cluster's topology (explicit or derived; topology_collectives.hpp).
  [[nodiscard]] const TopologyCollectives& topology() const { return *topo_; }

 private:
  const Scenario& s_;
  LayerShape shape_;
  struct LayerCosts {
    OpCost fwd, bwd, bwd_input, bwd_weight;
  };
  [[nodiscard]] LayerCosts layer_costs(LayerKind kind, const LayerShape& shape) const;
  /// The cost of re-running `again` before a layer's backward under a policy that saves no TP-collective
  /// output (torchtitan's op-level SAC, JAX's dots policy: models/selective_recompute.hpp), with the TP
  /// collectives it issues again (`regather`: the TP collectives whose outputs are not saved).
  [[nodiscard]] OpCost recompute_cost(const LayerKernels& again, bool regather = true) const;

  ConcurrentGroups tp_groups_, cp_groups_, dp_groups_, ep_groups_, etp_groups_, edp_groups_;
  CollectiveChoice dp_choice_;
  // TP collectives a recomputation re-runs under op-level SAC (all-gathers/all-reduces; reduce-scatter
  // outputs are saved).
  Seconds tp_regather_{0};
  Seconds tp_layer_{0}, cp_layer_{0}, fsdp_gather_{0}, fsdp_scatter_{0}, fsdp_moe_gather_{0},
      fsdp_moe_scatter_{0}, moe_dispatch_{0}, moe_etp_{0};
  BytesPerSecond tp_bw_{0}, cp_bw_{0}, ep_bw_{0};
  LayerCosts dense_, moe_;
  LayerCosts dense_bf16_, moe_bf16_;  // the same layers in BF16 (training.bf16_layers_at_start/_end)
  OpCost embed_fwd_, embed_bwd_, head_fwd_, head_bwd_input_, head_bwd_weight_;
  // Vocabulary parallelism: the collectives over the pp ranks of one micro-batch's forward and backward
  // (vocab_parallel_comm() in op_cost.cpp) charged to each device.
  Seconds vocab_fwd_comm_{0}, vocab_bwd_comm_{0};
  // ... and those that run under the chunk's kernels (vocab-1 / vocab-2), with the per-device rate at
  // which they move data through HBM.
  Seconds vocab_fwd_hidden_{0}, vocab_bwd_hidden_{0};
  BytesPerSecond vocab_bw_{0};
  LayerCosts mtp_;  // one multi-token-prediction module (its block, projection, embedding and head)
  Seconds p2p_{0};
  // pipeline_p2p "deepspeed": one activation slice and one gradient slice (1/tp of each per TP rank),
  // and the TP all-gather that rebuilds a partitioned activation or gradient.
  Seconds ds_act_{0}, ds_grad_{0}, ds_gather_{0};
  BytesPerSecond dp_bandwidth_{0};
  std::shared_ptr<const TopologyCollectives> topo_;
};

}  // namespace clustersim
