// Framework profiles: declared defaults for what a published-run record (or an experiment) leaves
// unstated, one file per framework era under <catalog root>/profiles/*.json (docs/validation.md).
//
// A profile names the frameworks it covers and a date range ("YYYY-MM", inclusive); a record's
// `framework.name` + `framework.date` choose it. The choice uses only those two declared fields, never
// citation text, notes or record ids. Every default a profile supplies is printed as an assumption.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/catalog.hpp"
#include "sim/config/field.hpp"

namespace clustersim::config {

/// A default that applies only when tensor parallelism is used (tp > 1), or always / never.
enum class WithTp { off, on, with_tp };

struct FrameworkProfile {
  std::string name;                     // file stem, e.g. "megatron-core-2024"
  std::vector<std::string> frameworks;  // framework.name values it covers
  std::string from, to;                 // "YYYY-MM", inclusive
  std::string file;                     // where it was read (for messages)

  // Defaults; nullopt = the profile says nothing (the record must state it, else it is skipped).
  std::optional<std::string> precision;  // fp16 | bf16 | fp8 | tf32 | fp32
  std::optional<std::string> recompute;  // none | selective | full
  std::optional<std::string> selective_recompute;  // attention | op | layer (what "selective" re-runs)
  std::optional<int> selective_layer_interval;     // k of the layer policy
  std::optional<std::string> fp8_scaling;          // delayed | tensorwise | rowwise | blockwise | mxfp8
  std::optional<bool> mxfp8_separate_swizzle;      // with mxfp8: scale swizzles as separate kernels
  std::optional<bool> eager_elementwise;           // torch.compile off by default
  std::optional<std::string> fp8_saved_inputs;     // what FP8 linears keep for the backward (fp8 | fp8-bf16-proj | bf16)
  std::optional<bool> separate_projections;        // unfused Q/K/V and gate/up linears (torchtitan)
  std::optional<std::string> tp_comm_overlap_scope;  // forward-backward | forward
  std::optional<bool> flash_attention;
  std::optional<std::string> attention_kernel;  // native | cudnn | flash-2 | flash-1 | triton-flash (with flash_attention)
  std::optional<WithTp> sequence_parallel;
  std::optional<WithTp> tp_comm_overlap;
  std::optional<int> zero_stage;
  // Data-parallel gradient reduction overlapped with the backward (training.overlap_grad_reduce):
  // "on" | "off" | "with-zero3" (DeepSpeed: overlap_comm defaults to true only for ZeRO stage 3).
  std::optional<std::string> overlap_grad_reduce;
  std::optional<std::string> micro_batch_rule;     // "one" | "global-batch-per-replica" | "pp-micro-batches"
  std::optional<std::string> global_batch_rule;    // "micro-batch-times-dp" (no gradient accumulation)
  std::optional<std::string> dp_collective;        // hierarchical | flat-ring
  std::optional<std::string> dp_collective_zero3;  // used instead when zero_stage is 3
  std::optional<std::string> pipeline_p2p;         // megatron | deepspeed (when pp > 1)
  std::optional<std::string> schedule;             // pipeline schedule when pp > 1 and unstated
  std::optional<int> interleave_max_vp;            // deepest vp <= this when "interleaved" has no vp
  // How the framework spreads layers that do not divide evenly over the pp·vp pipeline chunks:
  // "ends-one-fewer" | "remainder-to-middle" | "deepspeed-transformer[-embedding]" (pipeline_split_layers below).
  std::optional<std::string> pipeline_split;
  std::optional<int> tp, pp, cp;                   // model parallelism when unstated
  nlohmann::json gradient_precision = nlohmann::json::object();  // compute precision -> reduce precision
  // compute precision -> what that reduce precision stands for (printed with the assumption), when stated
  std::map<std::string, std::string> gradient_precision_note;
  nlohmann::json model = nlohmann::json::object();  // architecture defaults (mlp, norm, position, ...)
  std::vector<std::string> sources;                 // one citation per default, as written in the file

  /// The overlap_grad_reduce rule (set) applied to a run: "with-zero3" overlaps only under ZeRO-3 without a
  /// pipeline (DeepSpeed's overlap_comm default; its pipeline engine reduces after the last micro-batch).
  [[nodiscard]] bool overlaps_grad_reduce(bool zero3, int stages) const {
    return *overlap_grad_reduce == "on" || (*overlap_grad_reduce == "with-zero3" && zero3 && stages == 1);
  }
};

/// Reads every profiles/*.json under the catalog roots (first root wins per name), strictly: unknown
/// keys and wrong types are ConfigErrors with file and pointer. Sorted by name.
/// The declared keys of a profile file (used by the reader and `clustersim schema --section profile`).
extern const Section kProfileSection;

std::vector<FrameworkProfile> read_framework_profiles(const CatalogPaths& paths);

/// The profile covering `framework` at `date` ("YYYY-MM"); nullptr when none or when `date` is empty.
const FrameworkProfile* select_profile(const std::vector<FrameworkProfile>& profiles,
                                       const std::string& framework, const std::string& date);

/// Fills the keys an experiment document leaves out from profile `p` (training: precision, recompute,
/// flash_attention, micro_batch "one", gradient_precision; parallelism: sequence_parallel,
/// tp_comm_overlap, zero_stage, dp_collective, schedule). Keys the document states win; model defaults
/// are not applied (experiments name a catalog model or state the architecture).
void apply_profile(nlohmann::json& experiment, const FrameworkProfile& p);

/// Layers per virtual pipeline stage (k = chunk·pp + stage, pp·vp entries) under a framework's split
/// rule, or nullopt when the rule cannot split `layers` over `chunks`:
///  - "even": layers / chunks each (layers % chunks == 0);
///  - "ends-one-fewer": Megatron-Core's account_for_embedding_in_pipeline_split +
///    account_for_loss_in_pipeline_split (megatron/core/transformer/transformer_block.py,
///    get_num_layers_to_build / get_transformer_layer_offset): the embedding and the loss each count as
///    one layer, (layers + 2) / chunks per chunk, the first and the last chunk one layer fewer;
///  - "remainder-to-middle": torchtitan's generate_split_points (torchtitan/parallelisms/
///    pipelining_utils.py, 2024): layers // chunks on the first chunk, one more on each of the next
///    layers % chunks chunks, the last chunk the rest;
///  - "deepspeed-transformer" / "deepspeed-transformer-embedding": DeepSpeed's PipelineModule partition_method
///    "type:transformer" (Megatron-DeepSpeed's default) / "type:transformer|embedding" over GPTModelPipe's layer
///    list, DeepSpeed's partition_balanced ported line for line; nullopt when a chunk gets no transformer layer.
std::optional<std::vector<int>> pipeline_split_layers(const std::string& rule, int layers, int chunks);

/// The largest layer or stage count the split rules take (2^20).
inline constexpr int kMaxSplitItems = 1 << 20;

/// Why pipeline_split_layers(rule, layers, chunks) gave nullopt, for a message.
std::string pipeline_split_refusal(const std::string& rule, int layers, int chunks);

/// Layers per chunk that balance the chunks' work when the first chunk also carries `first_extra` and the
/// last `last_extra` layer-equivalents (the embedding, the output layer and loss): each layer goes to the
/// least-loaded chunk. The "balanced" pipeline_split of records (the layer redistribution Yeung et al.
/// 2025 §6 compare against; reference_runs.cpp estimates the extras from the model's FLOPs).
std::vector<int> balanced_pipeline_split(int layers, int chunks, double first_extra, double last_extra);

/// True when `s` is a month "YYYY-MM" with MM in 01..12 (profile dates; record dates use it too).
bool is_month(const std::string& s);

/// The profile named `name`, or nullptr.
const FrameworkProfile* find_profile(const std::vector<FrameworkProfile>& profiles, const std::string& name);

}  // namespace clustersim::config
