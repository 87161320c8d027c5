// Megatron-Core's explicit pipeline layout (`pipeline_model_parallel_layout`), e.g. "Et*3|(tt|)*29m|L":
// E embedding, t transformer (decoder) layer, m multi-token-prediction layer, L loss (output layer),
// '|' a virtual-stage boundary, "x*N" and "(...)*N" repetition, ',' cosmetic.
//
// Grammar and checks as Megatron-LM implements them: megatron/core/transformer/
// pipeline_parallel_layer_layout.py (PipelineParallelLayerLayout.parse_str_to_list, __init__ and
// validate_layer_layout), NVIDIA/Megatron-LM at d98e8a64ddf34856e74b24714e3bedb2f5a39553 (2026-08-22;
// the file last changed in db57c152e6). Stage i of the parsed list is virtual stage i in the engine's
// order: Megatron maps list entry vpp_rank·pp + pp_rank to (pp_rank, vpp_rank), chunk-major, the order of
// parallelism.pipeline_layers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::config {

struct PipelineLayoutStage {
  int decoder = 0;  // 't'
  int mtp = 0;      // 'm'
  bool embedding = false;
  bool loss = false;
};

struct PipelineLayout {
  std::vector<PipelineLayoutStage> stages;  // virtual stages, chunk-major (Megatron's list order)

  int decoder_layers() const;
  int mtp_layers() const;
  /// Transformer layers per virtual stage: the engine's parallelism.pipeline_layers.
  std::vector<int> decoder_per_stage() const;
  /// The virtual stage holding the 'm' layers (Megatron requires them in one stage), or -1.
  int mtp_stage() const;
};

struct PipelineLayoutParse {
  std::optional<PipelineLayout> layout;
  std::string error;  // set when !layout
};

/// `text` in double quotes for a message, cut to its first 60 characters (then "...") so a long input
/// does not flood the report.
std::string quoted_layout(std::string_view text);

/// Parses a layout string with Megatron's grammar and applies the checks of validate_layer_layout that
/// need no parallel sizes: exactly one E, first; exactly one L, last; no t after the first m. The
/// repetitions may expand to at most 1,000,000 layer characters.
PipelineLayoutParse parse_pipeline_layout(std::string_view text);

/// The checks that need the run's sizes, as one message each (empty when consistent): the stage count
/// equals pp·vp, the t count equals the model's layers, the m count equals its multi-token-prediction
/// depth (Megatron asserts all three), all m in one stage.
std::vector<std::string> pipeline_layout_problems(const PipelineLayout& layout, int pp, int vp, long long layers,
                                                  int mtp_depth);

/// The engine's restriction, stricter than Megatron's: multi-token prediction runs on the last virtual
/// stage (graph_builder.cpp), so m layers elsewhere (Megatron-Core's standalone MTP stage, 5247a1f4,
/// 2026-01-14) are not expressible. The reason, or nullopt.
std::optional<std::string> pipeline_layout_unsupported(const PipelineLayout& layout);

}  // namespace clustersim::config
