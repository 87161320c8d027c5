#include "schedules/pipeline_deps.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "schedules/stage_op_cursor.hpp"

namespace clustersim {

namespace {

void require_valid(const ScheduleSpec& spec, int stage, const char* fn) {
  if (!is_valid(spec)) {
    const auto problems = check(spec);
    throw std::invalid_argument(std::string(fn) + ": " +
                                (problems.empty() ? "invalid spec" : problems.front()));
  }
  if (stage < 0 || stage >= spec.stages) {
    throw std::invalid_argument(std::string(fn) + ": stage " + std::to_string(stage) + " is outside [0, " +
                                std::to_string(spec.stages) + ")");
  }
}

void require_op(const ScheduleSpec& spec, const PipelineOp& op) {
  if (op.microbatch < 0 || op.microbatch >= spec.microbatches || op.chunk < 0 || op.chunk >= spec.chunks) {
    throw std::invalid_argument("data_dependency: op " + to_string(op) + " is outside microbatches [0, " +
                                std::to_string(spec.microbatches) + ") or chunks [0, " +
                                std::to_string(spec.chunks) + ")");
  }
  if (spec.kind == ScheduleKind::dualpipe && op.chunk != op.microbatch / (spec.microbatches / 2)) {
    throw std::invalid_argument("data_dependency: dualpipe runs microbatch " + std::to_string(op.microbatch) +
                                " on chunk " + std::to_string(op.microbatch / (spec.microbatches / 2)) +
                                " only (op " + to_string(op) + ")");
  }
  const bool split = splits_backward(spec.kind);
  const bool split_kind = op.kind == OpKind::backward_input || op.kind == OpKind::backward_weight;
  if (op.kind != OpKind::forward && split != split_kind) {
    throw std::invalid_argument("data_dependency: " + std::string(to_string(spec.kind)) + " has no " +
                                std::string(to_string(op.kind)) + " ops");
  }
}

}  // namespace

std::optional<OpRef> data_dependency(const ScheduleSpec& spec, int stage, const PipelineOp& op) {
  require_valid(spec, stage, "data_dependency");
  require_op(spec, op);
  return unchecked_data_dependency(spec, stage, op);
}

int peak_inflight_activations(const ScheduleSpec& spec, int stage) {
  require_valid(spec, stage, "peak_inflight_activations");
  StageOpCursor cursor(spec, stage);
  if (!splits_backward(spec.kind)) {
    // Fused backwards: the warm-up forwards, then steady F/B pairs, each forward holding one more set
    // until its backward; the cool-down only releases. Same count as the walk below, in O(1).
    const int warmup = cursor.warmup_forwards();
    return warmup < spec.chunks * spec.microbatches ? warmup + 1 : warmup;
  }
  if (spec.kind == ScheduleKind::zero_bubble_h1) {
    // ZB-H1 (StageOpCursor::next_zero_bubble): only a W releases a set. Steady iteration i runs F, B and,
    // once i >= stage, a W, so its F finds warmup + i - max(0, i - stage) sets held; the cool-down only
    // releases. Same count as the walk below, in O(1) (10^7 microbatches no longer walk 3·10^7 ops).
    const int warmup = cursor.warmup_forwards();
    const int steady = spec.microbatches - warmup;
    return steady > 0 ? warmup + 1 + std::min(steady - 1, stage) : warmup;
  }
  int held = 0, peak = 0;
  while (!cursor.done()) {
    switch (cursor.next_kind()) {
      case OpKind::forward:
        peak = std::max(peak, ++held);
        break;
      case OpKind::backward:
      case OpKind::backward_weight:
        --held;
        break;
      case OpKind::backward_input:
        break;
    }
  }
  return peak;
}

Bytes peak_activation_memory(const ScheduleSpec& spec, int stage, Bytes per_forward,
                             Bytes kept_for_weight_grad) {
  require_valid(spec, stage, "peak_activation_memory");
  if (per_forward < Bytes(0) || kept_for_weight_grad < Bytes(0)) {
    throw std::invalid_argument("peak_activation_memory: activation sizes must be >= 0 bytes");
  }
  StageOpCursor cursor(spec, stage);
  Bytes held(0), peak(0);
  while (!cursor.done()) {
    switch (cursor.next_kind()) {
      case OpKind::forward:
        held += per_forward;
        break;
      case OpKind::backward:
        held -= per_forward;
        break;
      case OpKind::backward_input:
        held += kept_for_weight_grad - per_forward;
        break;
      case OpKind::backward_weight:
        held -= kept_for_weight_grad;
        break;
    }
    peak = max(peak, held);
  }
  return peak;
}

}  // namespace clustersim
