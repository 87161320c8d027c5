// One published-run record (format v2, docs/validation.md) as read, before any default is applied.
// Every optional is "not stated by the source" (the key is absent or null).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/field.hpp"
#include "sim/config/read_context.hpp"

namespace clustersim::config {

struct ReferenceRecord {
  std::string id, kind, source_group, split, citation;
  std::string framework, framework_version, framework_date;
  // model
  std::string model_name;
  std::optional<std::string> catalog, catalog_hint;
  std::optional<std::int64_t> layers, hidden, heads, kv_heads, head_dim, ffn_hidden, vocab, seq_len;
  std::optional<std::string> mlp, norm, position;
  std::optional<bool> linear_bias, tied_embeddings, parallel_block;
  bool moe = false;
  // mixture-of-experts block (model.moe), when `moe`
  std::optional<std::int64_t> num_experts, top_k, shared_experts, moe_ffn_hidden, first_k_dense,
      moe_layer_freq, max_nodes_per_token, mtp_depth;
  std::optional<double> capacity_factor;
  // hardware
  std::string accelerator;
  std::int64_t count = 0;
  std::optional<std::int64_t> gpus_per_node;
  std::optional<std::string> cluster;  // hardware.cluster as stated (matched exactly, never by substring)
  std::optional<std::int64_t> slices;  // TPU multi-slice job: slices joined over DCN
  // parallelism
  std::optional<std::int64_t> tp, pp, dp, cp, ep, etp, vp, zero_stage, micro_batch, global_batch,
      global_batch_tokens, local_batch;
  std::optional<std::string> fsdp;  // "false" | "full_shard" | "hybrid_shard" | "shard_grad_op"
  std::optional<bool> sequence_parallel, tp_comm_overlap, flash_attention, torch_compile;
  std::optional<bool> dp_overlap;  // data-parallel gradient reduction overlapped with the backward, as stated
  std::optional<std::string> recompute, schedule, pipeline_split, vocab_parallel;
  // Megatron-Core's pipeline_model_parallel_layout as stated (sim/config/pipeline_layout.hpp); the reader
  // has checked its grammar and, against the record's own pp, vp and layers, its counts.
  std::optional<std::string> pipeline_layout;
  std::optional<std::string> selective_recompute;  // attention | op | layer
  std::optional<std::int64_t> selective_layer_interval;
  std::optional<std::string> attention_kernel;
  std::optional<std::string> optimizer;  // adam | adamw | lamb | sgd | muon | adam-8bit, as stated
  std::optional<std::string> moe_overlap;  // none | shared-expert | compute (MoE records)
  // Megatron-Core cpu_offloading_num_layers as the source's recipe sets it (null: not stated, no offload).
  std::optional<std::int64_t> activation_offload_layers;
  // precision
  std::optional<std::string> compute, fp8_recipe;
  std::optional<std::string> gradient_reduce;  // fp32 | bf16 | fp16: the DP gradient reduction's precision
  std::optional<bool> fp8_attention;
  // measured, in the order of preference for the primary metric
  std::vector<std::pair<std::string, double>> measured;
  std::optional<double> peak_tflops_used;
};

/// Reads record `index` of the array strictly into `out`; problems go to `ctx` (pointer /index/...).
/// The declared keys of a record (used by the reader and `clustersim schema --section record`).
extern const Section kReferenceRecordSection;
/// The declared keys of a record's `source` (shared with the energy records).
extern const Section kReferenceSourceSection;

void read_reference_record(const nlohmann::json& value, std::size_t index, ReadContext& ctx,
                           ReferenceRecord& out);

}  // namespace clustersim::config
