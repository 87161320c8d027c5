#include "schedules/stage_op_cursor.hpp"

#include <algorithm>

#include "sim/core/diagnostics.hpp"

namespace clustersim {

namespace {

// Forwards before the first backward on stage s (Megatron-LM get_pp_rank_microbatches): 1F1B lets the
// p-s-1 downstream stages fill before its first backward returns; interleaving needs a second pass
// through the pipeline for each of the first v-1 chunk groups of p microbatches. Capped at all ops.
int count_warmup_forwards(ScheduleKind kind, int p, int m, int v, int s) {
  const int n = v * m;
  switch (kind) {
    case ScheduleKind::gpipe:
      return n;
    case ScheduleKind::one_f_one_b:
    case ScheduleKind::zero_bubble_h1:
      return std::min(p - s - 1, m);
    case ScheduleKind::interleaved_1f1b:
      return std::min(2 * (p - s - 1) + (v - 1) * p, n);
  }
  return n;
}

}  // namespace

StageOpCursor::StageOpCursor(const ScheduleSpec& spec, int stage)
    : kind_(spec.kind),
      stage_(stage),
      stages_(spec.stages),
      microbatches_(spec.microbatches),
      chunks_(spec.chunks) {
  CS_ASSERT(is_valid(spec), "StageOpCursor needs a spec that passes check()");
  CS_ASSERT(stage >= 0 && stage < spec.stages, "stage out of range");
  warmup_ = count_warmup_forwards(kind_, stages_, microbatches_, chunks_, stage_);
  total_ = ops_per_stage(spec);
}

OpKind StageOpCursor::next_kind() {
  CS_ASSERT(!done(), "StageOpCursor::next_kind() past the end of the stage's op order");
  const int pos = emitted_++;
  if (kind_ == ScheduleKind::zero_bubble_h1) return next_zero_bubble().kind;
  if (fused_is_forward(pos)) {
    advance(forward_walk_);
    return OpKind::forward;
  }
  ++backwards_;
  advance(backward_walk_);
  return OpKind::backward;
}

// ZB-H1 (zb-h1-quick-start): 1F1B's warm-up and steady F,B pairs, where steady iteration i is followed
// by a W only once i >= stage, every cool-down B is followed by a W, and the W's still owed run last.
// W's run in microbatch order (the reference keeps them in a FIFO queue).
PipelineOp StageOpCursor::next_zero_bubble() {
  if (weight_grad_due_) {
    weight_grad_due_ = false;
    return {OpKind::backward_weight, weight_grads_++, 0};
  }
  const int steady = microbatches_ - warmup_;
  if (forwards_ < warmup_) return {OpKind::forward, forwards_++, 0};
  if (input_grads_ < steady) {
    if (forwards_ == warmup_ + input_grads_) return {OpKind::forward, forwards_++, 0};
    const int i = input_grads_++;
    weight_grad_due_ = i >= stage_;
    return {OpKind::backward_input, i, 0};
  }
  if (input_grads_ < microbatches_) {
    weight_grad_due_ = true;
    return {OpKind::backward_input, input_grads_++, 0};
  }
  return {OpKind::backward_weight, weight_grads_++, 0};
}

}  // namespace clustersim
