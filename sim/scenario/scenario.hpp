// A validated experiment: the value types every engine consumes.
//
// Produced only by sim/config (the one layer that knows JSON key names) after all per-field and
// cross-field checks passed; consumers may rely on the invariants listed per field.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/compression.hpp"
#include "models/energy/energy_spec.hpp"
#include "models/precision.hpp"
#include "models/training_options.hpp"
#include "models/transformer.hpp"
#include "schedules/schedule_kind.hpp"
#include "sim/scenario/straggler_set.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/run_spec.hpp"
#include "topologies/cluster_spec.hpp"
#include "topologies/job_placement.hpp"

namespace clustersim {

/// What the MoE dispatch/combine all-to-alls overlap with: nothing (Megatron-Core's default alltoall
/// dispatcher), the shared experts' compute (`moe_shared_expert_overlap`), or the compute of the op
/// itself (DualPipe's paired forward/backward chunks; Megatron-Core's EP communication overlap).
enum class MoeOverlap { none, shared_expert, compute };

/// How data-parallel replicas combine their gradients (docs/data_parallel_modes.md):
///   allreduce         synchronous all-reduce every step (Megatron/NCCL; the default)
///   parameter_server  synchronous push/pull through sharded servers (Li et al., OSDI'14)
///   async             asynchronous SGD: workers push and pull without waiting for each other
///   ssp               stale-synchronous parallel with a staleness bound (Ho et al., NIPS'13)
///   local_sgd         local SGD / DiLoCo: all-reduce of the parameters every H steps (Douillard et al. 2023)
enum class DpMode : std::uint8_t { allreduce, parameter_server, async, ssp, local_sgd };
/// Where parameter-server shards run: on server nodes of their own, or one shard on a worker device.
enum class ServerPlacement : std::uint8_t { dedicated, colocated };

struct DpModeSpec {
  DpMode mode = DpMode::allreduce;
  int servers = 1;                                      // parameter-server shards (> 0)
  ServerPlacement placement = ServerPlacement::dedicated;
  BytesPerSecond server_nic{0};                         // dedicated: per server, per direction (> 0)
  int staleness = 0;                                    // ssp: bound s in clocks (>= 0)
  double worker_cv = 0;                                 // coefficient of variation of a worker's compute
  int local_steps = 1;                                  // local_sgd: H, steps between averagings (>= 1)
  int datacenters = 1;                                  // local_sgd: sites the DP replicas split over
  BytesPerSecond cross_dc_bandwidth{0};                 // per site, per direction (> 0 when datacenters > 1)
  Seconds cross_dc_latency{0};
  [[nodiscard]] bool uses_servers() const {
    return mode == DpMode::parameter_server || mode == DpMode::async || mode == DpMode::ssp;
  }
};

enum class VocabParallel { none, vocab_1, vocab_2, interlaced };
/// How a heterogeneous cluster's pools share the job (docs/heterogeneous.md):
///   data      every pool runs whole DP replicas (tp·pp·cp devices each); the global batch is split
///   pipeline  every pool runs consecutive pipeline stages (tp·cp·dp devices each); the layers are split
enum class HeteroMode : std::uint8_t { data, pipeline };
/// How the work is split: proportional to each pool's measured rate (Whale's load balancing; HetPipe's
/// capability-proportional layer assignment) or equal per DP replica / per stage.
enum class HeteroSplit : std::uint8_t { proportional, equal };

struct ParallelismSpec {
  int tp = 1, pp = 1, dp = 1, cp = 1;  // tp*pp*dp*cp == devices
  // Expert parallelism (Megatron-Core): inside a pipeline stage's tp·cp·dp ranks the routed experts are
  // laid out etp fastest, then ep, then expert-data-parallel; ep·etp divides tp·cp·dp.
  int ep = 1, etp = 1;
  MoeOverlap moe_overlap = MoeOverlap::none;
  bool moe_overlap_defaulted = false;  // not stated: compute with dualpipe, else none (the planner re-derives it)
  // SMs the MoE dispatch/combine kernels occupy while they run under compute (0 = the generic collective
  // figure of models/roofline.hpp, 16 as NCCL). DeepSeek-V3 §3.2.2: 20 of the H800's 132 SMs.
  int ep_comm_sms = 0;
  // The ep_comm_sms SMs are reserved for the whole MoE layer (a fixed SM partition: the GEMMs are launched
  // on the rest), not only while the all-to-all runs. deepseek-ai/profile-data train.json (DualPipe F&B
  // chunk pair, EP64): every GEMM has 112 blocks on the 132-SM H800, the DeepEP kernels 20.
  bool ep_comm_sms_reserved = false;
  int vp = 1;                                  // interleaved chunks per pipeline rank (>1 only interleaved)
  bool sequence_parallel = false;              // Korthikanti 2022 sequence parallelism (needs tp > 1)
  int zero_stage = 0;                          // 0..3; FSDP is zero_stage 3
  ScheduleKind schedule = ScheduleKind::one_f_one_b;
  bool tp_comm_overlap = false;                // overlap TP collectives with GEMMs (Megatron-Core)
  // Which passes the TP overlap covers: forward and backward (Megatron-Core's userbuffers), or the
  // forward only (`tp_comm_overlap_scope: "forward"`, PyTorch's async TP as measured: docs/model.md).
  bool tp_comm_overlap_backward = true;
  // Data-parallel collectives (gradient sync, ZeRO gathers): hierarchical (default; NCCL: the node's
  // local ranks split the buffer over all its NICs) or one flat ring in which every rank moves the whole
  // buffer through its own NIC (`dp_collective: "flat-ring"`; docs/collectives.md).
  bool dp_flat_ring = false;
  // Pipeline point-to-point (`pipeline_p2p`): Megatron's scatter/gather transfer beside the compute stream
  // (default), or DeepSpeed's PipelineEngine (`"deepspeed"`): blocking two-rank NCCL broadcasts on the
  // compute stream, the activation and the input gradient both partitioned over the TP group (1/tp
  // slices) and all-gathered on receipt and before the backward (DeepSpeed 29bee73
  // deepspeed/runtime/pipe/{p2p,engine}.py, engine.py:131-132; docs/model.md).
  bool pipeline_p2p_blocking = false;
  /// Transformer layers per virtual pipeline stage (pp·vp entries, virtual stage k = chunk·pp + stage,
  /// summing to the model's layers); empty = layers / (pp·vp) each (`pipeline_layers`).
  std::vector<int> pipeline_layers;
  /// Megatron-Core's pipeline_model_parallel_layout as stated (`pipeline_layout`; empty if not): the
  /// reader has set pipeline_layers to its transformer layers per virtual stage.
  std::string pipeline_layout;
  /// A framework's rule for layers that do not divide over the pp·vp stages (`pipeline_split`; empty if not
  /// stated): sim/config derives pipeline_layers from it for each pp·vp (framework_profile.hpp).
  std::string pipeline_split;
  // Vocabulary parallelism (Yeung et al., MLSys 2025, arXiv 2411.05288): the input embedding and the
  // output layer + loss are partitioned over all pp pipeline ranks instead of sitting on the first and
  // last stage. "vocab-1" / "vocab-2" are the paper's overlapped schedules (§4, Alg. 1 / Alg. 2: one or
  // two communication barriers per micro-batch, hidden under transformer work); "interlaced" is the
  // synchronous interlaced pipeline it compares against (its all-reduces block the pipeline).
  VocabParallel vocab_parallel = VocabParallel::none;
  DpModeSpec data_parallel;  // dp_mode and its settings
  HeteroMode hetero = HeteroMode::data;               // cluster.pools only
  HeteroSplit hetero_split = HeteroSplit::proportional;
  bool hetero_defaulted = false;                      // `hetero` not given (printed as an assumption)
  bool hetero_split_defaulted = false;
};

/// Slots the V-Half building block reserves for the vocabulary passes (ScheduleSpec::vocab_slots): the
/// authors' branch adds 6 with vocabulary parallelism (--enable-vocab-parallel) and 6 more with
/// --disable-backward-fusion (sail-sg/zero-bubble-pipeline-parallelism 92895b9a, zbv_greedy.py
/// stable_pattern_v_half); 0 for every other schedule. The paper's vocab-1 (Alg. 1, two all-reduce
/// barriers) is the unfused one: sail-sg/VocabularyParallelism 6191c3bf artifact/quick_exp.sh sets
/// FB_SPLIT=1 for vocab-1 only, which pretrain_gpt.sh turns into --disable-backward-fusion (the README:
/// "2 all-reduce communication barriers (enable using --disable-backward-fusion)"), so vocab-1 gets 12 and
/// vocab-2 (one barrier) 6.
inline int v_half_vocab_slots(const ParallelismSpec& p) {
  if (p.schedule != ScheduleKind::v_half) return 0;
  switch (p.vocab_parallel) {
    case VocabParallel::vocab_1: return 12;
    case VocabParallel::vocab_2: return 6;
    case VocabParallel::none:
    case VocabParallel::interlaced: return 0;  // interlaced with v-half is refused by sim/config
  }
  return 0;
}

/// Megatron-LM's batch-size ramp (--rampup-batch-size <start> <increment> <samples>): the global batch
/// starts at `start` sequences and grows by `increment` every samples / ((global_batch - start) /
/// increment) consumed sequences until `samples` sequences have been consumed, then stays at global_batch
/// (megatron/core/num_microbatches_calculator.py, RampupBatchsizeNumMicroBatchesCalculator, NVIDIA/
/// Megatron-LM 0b9bc2088b6d). Checked by sim/config: 0 < start <= global_batch, increment > 0 divides
/// global_batch - start, samples > 0, every batch of the ramp a multiple of micro_batch·dp.
struct BatchRampup {
  std::int64_t start = 0;      // sequences per step at the start
  std::int64_t increment = 0;  // sequences added per level
  std::int64_t samples = 0;    // sequences consumed over the ramp
};

struct TrainingSpec {
  int micro_batch = 1;        // sequences per micro-batch per DP rank
  int global_batch = 1;       // sequences per optimizer step; micro_batch * dp divides it
  int seq_len = 0;            // tokens per sequence (> 0)
  Precision precision = Precision::bf16;        // compute precision of the GEMMs
  Precision gradient_precision = Precision::fp32;  // precision of the gradient reduction buffers
  bool master_weights_fp32 = true;              // mixed precision keeps fp32 master weights
  Recompute recompute = Recompute::none;
  // With recompute = selective: which ops are recomputed (attention core, torchtitan op-level SAC, or
  // every k-th layer in full with k = selective_layer_interval).
  SelectivePolicy selective_policy = SelectivePolicy::attention;
  int selective_layer_interval = 2;
  Fp8Scaling fp8_scaling = Fp8Scaling::delayed;  // FP8 scaling recipe of the linear layers
  // fp8_scaling mxfp8: each FP8 GEMM swizzles its operands' scales in separate kernels (Transformer
  // Engine before v2.12; models/transformer_cost.hpp LayerShape::mxfp8_separate_swizzle).
  bool mxfp8_separate_swizzle = false;
  // Eager PyTorch (no torch.compile): norms, rotary embedding and the SwiGLU product run as separate
  // element-wise kernels (models/eager_kernels.hpp).
  bool eager_elementwise = false;
  // Q/K/V and SwiGLU gate/up as separate linear layers (torchtitan), not fused (Megatron-Core):
  // models/transformer_cost.hpp LayerShape::separate_projections.
  bool separate_projections = false;
  Optimizer optimizer = Optimizer::adam;
  bool overlap_grad_reduce = true;              // DP gradient buckets overlap the backward pass
  bool flash_attention = true;                  // fused attention (no s^2 activations in HBM)
  AttentionKernel attention_kernel = AttentionKernel::native;  // which fused kernel (training_options.hpp)
  bool fp8_attention = false;                   // with fp8 precision: attention in FP8 too (else BF16)
  // DeepSeek-V3 §3.3.4: the inputs of FP8 linear layers are cached for the backward in FP8 (1 byte per
  // element + a 4-byte scale per 128), and the MoE SwiGLU input likewise with its output recomputed.
  bool fp8_activation_cache = false;
  // FP8 training without that cache: what the linear layers keep of their inputs for the backward
  // (models/training_options.hpp Fp8SavedInputs; memory and the bytes activation offloading moves).
  Fp8SavedInputs fp8_saved_inputs = Fp8SavedInputs::fp8;
  // FP8/FP4 training: the first and last layers the recipe keeps in BF16 (Megatron-Core
  // first_last_layers_bf16, num_layers_at_start_in_bf16, num_layers_at_end_in_bf16).
  int bf16_layers_start = 0;
  int bf16_layers_end = 0;
  /// Of the model's layers [first, last) (of `layers` in all), those that run in BF16 by that rule:
  /// the head [first, head_end) and the tail [tail_from, last).
  struct Bf16Ranges {
    int head_end;
    int tail_from;
  };
  [[nodiscard]] Bf16Ranges bf16_ranges(int layers, int first, int last) const {
    return {std::max(first, std::min(last, bf16_layers_start)),
            std::min(last, std::max(first, std::max(bf16_layers_start, layers - bf16_layers_end)))};
  }
  /// How many of the model's layers [first, last) run in BF16 by that rule.
  [[nodiscard]] int bf16_layers_in(int layers, int first, int last) const {
    const Bf16Ranges r = bf16_ranges(layers, first, last);
    return (r.head_end - first) + (last - r.tail_from);
  }
  // DeepSeek-V3 §3.3.2: FP8 GEMMs with blockwise scaling (1x128 activation tiles, 128x128 weight blocks)
  // and promotion of the tensor-core partial sums to CUDA cores every 128 elements of K (DeepGEMM).
  bool fp8_blockwise = false;
  // DeepSeek-V3 §3.2.3: RMSNorm outputs and MLA up-projections are recomputed in the backward instead
  // of stored.
  bool recompute_norm_mla_up = false;
  // Megatron-Core CPU offloading (cpu_offloading, cpu_offloading_num_layers; Transformer Engine
  // cpu_offload.py DefaultOffloadSynchronizer): the activations of the first n transformer layers are
  // copied to host memory during the forward and reloaded during the backward (docs/model.md).
  int activation_offload_layers = 0;

  [[nodiscard]] int microbatches(int dp) const { return global_batch / (micro_batch * dp); }
  /// Selective recomputation as Megatron-Core's core_attn checkpoint (models/transformer_cost.hpp
  /// LayerShape::core_attn_recomputed).
  [[nodiscard]] bool core_attn_recomputed() const {
    return recompute == Recompute::selective && selective_policy == SelectivePolicy::core_attn;
  }
  /// Selective recomputation under JAX's checkpoint_dots_with_no_batch_dims (LayerShape::saves_dots_only).
  [[nodiscard]] bool saves_dots_only() const {
    return recompute == Recompute::selective && selective_policy == SelectivePolicy::dots;
  }
  GradientCompression compression;              // DP gradient compression (`compression` section)
  // Batch-size ramp (`training.batch_rampup`, Megatron-LM's --rampup-batch-size): replayed by the run
  // section (sim/run/batch_ramp.hpp); the step itself is predicted at global_batch, the final batch.
  std::optional<BatchRampup> batch_rampup;
};

/// Flow-engine knobs an experiment may set (the `flow` section); the CLI's --fidelity stays a flag.
struct FlowSettings {
  /// Nodes under one leaf switch group of the two-level fat-tree (a DGX SuperPOD scalable unit is 32
  /// nodes: NVIDIA DGX SuperPOD reference architecture, H100 edition, "Scalable Unit"). > 0.
  int leaf_nodes = 32;
  bool symmetry_reduction = true;
  bool flow_classes = true;  // flow-class solver instead of one SimGrid flow per flow (topology mode)
};

/// The transformer layers [first, first + count) of virtual pipeline stage k (k = chunk·pp + stage;
/// schedules/pipeline_deps.hpp virtual_stage() for dualpipe and v-half). V-Half splits the layers over
/// 2·pp virtual stages (two chunks per rank).
struct LayerRange {
  int first = 0;
  int count = 0;
};
inline LayerRange virtual_stage_layers(const ParallelismSpec& p, int layers, int k) {
  if (p.pipeline_layers.empty()) {
    const int per = layers / (p.pp * p.vp * (p.schedule == ScheduleKind::v_half ? 2 : 1));
    return {k * per, per};
  }
  int first = 0;
  for (int i = 0; i < k; ++i) first += p.pipeline_layers[static_cast<std::size_t>(i)];
  return {first, p.pipeline_layers[static_cast<std::size_t>(k)]};
}

struct JobSpec;  // one job of a multi-job experiment (below)

struct Scenario {
  std::string name;
  std::string source_file;  // where the experiment came from ("" for built-in)
  ClusterSpec cluster;
  TransformerSpec model;
  ParallelismSpec parallelism;
  TrainingSpec training;
  std::string engine = "analytic";
  std::optional<run::RunSpec> run;   // the `run` section (failures, checkpoints) when present
  std::optional<EnergySpec> energy;  // the `energy` section (power, PUE, carbon, prices) when present
  StragglerSet stragglers;           // the `stragglers` section (empty when absent)
  FlowSettings flow;                 // the `flow` section (flow-engine fabric shape and reduction)
  /// The rules of the experiment's framework profile for keys it leaves unstated and whose value depends on
  /// tp, pp or the ZeRO stage. They hold for this scenario's values; the planner, which changes those per
  /// strategy, applies them again (sim/plan/strategy.cpp). -1: the experiment states the key (or the profile
  /// has no rule for it).
  struct ProfileRules {
    bool sequence_parallel = false;       // "with-tp"/"on": sequence parallelism whenever tp > 1
    bool tp_comm_overlap = false;         // "with-tp"/"on": TP-comm overlap whenever tp > 1
    int pipeline_p2p_blocking = -1;       // pipeline_p2p with pp > 1: 1 deepspeed, 0 megatron
    int overlap_grad_reduce = -1;         // 0 off, 1 on, 2 with-zero3 (on under ZeRO-3 without a pipeline)
    int dp_flat_ring = -1;                // dp_collective flat-ring (1) or hierarchical (0), not ZeRO-3
    int dp_flat_ring_zero3 = -1;          // the same under ZeRO-3
    // What "selective" recomputation re-runs, and the layer policy's interval (with recompute selective).
    std::optional<SelectivePolicy> selective_policy;
    int selective_layer_interval = -1;
  } profile_rules;
  /// The `jobs` section: several jobs sharing this scenario's cluster (empty: the scenario is one job on
  /// the whole cluster). Placements are disjoint and inside the cluster.
  std::vector<JobSpec> jobs;
};

struct JobSpec {
  std::string name;
  Placement placement = Placement::contiguous;
  int node_count = 0;      // nodes requested (> 0)
  std::vector<int> nodes;  // global node indices of the experiment's cluster; job node k is nodes[k]
  /// The job alone: the experiment's cluster cut to nodes.size() nodes, the job's model, parallelism and
  /// training (validated like an experiment), device stragglers on its nodes renumbered to job devices.
  Scenario scenario;
  /// Global device of each job rank (rank r on node nodes[r / devices_per_node], same local index).
  [[nodiscard]] std::vector<int> devices() const {
    const int per = scenario.cluster.node.devices_per_node;
    std::vector<int> d;
    d.reserve(nodes.size() * static_cast<std::size_t>(per));
    for (int n : nodes) {
      for (int l = 0; l < per; ++l) d.push_back(n * per + l);
    }
    return d;
  }
};

}  // namespace clustersim
