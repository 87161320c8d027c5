// One unit of pipeline work on one stage: a forward or backward pass of one microbatch through one model
// chunk.
//
// The backward pass is either fused (`backward` = input gradient + weight gradient, as in GPipe, 1F1B and
// interleaved 1F1B) or split into `backward_input` (B: gradient w.r.t. the chunk's input, on the critical
// path) and `backward_weight` (W: gradient w.r.t. the chunk's weights, free to be delayed), as in the
// zero-bubble schedules (Qi et al., "Zero Bubble (Almost) Pipeline Parallelism", ICLR 2024, Section 2).
#pragma once

#include <string>
#include <string_view>

namespace clustersim {

enum class OpKind {
  forward,          // F
  backward,         // B+W fused
  backward_input,   // B of a split backward
  backward_weight,  // W of a split backward
};

/// Short letter used in op listings: "F", "BW", "B", "W".
std::string_view to_string(OpKind k);

struct PipelineOp {
  OpKind kind = OpKind::forward;
  int microbatch = 0;  // in [0, m)
  int chunk = 0;       // model chunk held by this stage, in [0, v); 0 unless interleaved

  friend bool operator==(const PipelineOp&, const PipelineOp&) = default;
};

/// "F3", "B0", "W2", "BW1"; a chunk other than 0 is appended as ".c1" ("F3.c1").
std::string to_string(const PipelineOp& op);

}  // namespace clustersim
