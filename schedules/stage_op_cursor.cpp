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

PipelineOp StageOpCursor::next() {
  CS_ASSERT(!done(), "StageOpCursor::next() past the end of the stage's op order");
  const int pos = emitted_++;
  if (kind_ == ScheduleKind::zero_bubble_h1) return next_zero_bubble();
  return fused_op_at(pos);
}

OpKind StageOpCursor::next_kind() {
  CS_ASSERT(!done(), "StageOpCursor::next_kind() past the end of the stage's op order");
  const int pos = emitted_++;
  if (kind_ == ScheduleKind::zero_bubble_h1) return next_zero_bubble().kind;
  return fused_is_forward(pos) ? OpKind::forward : OpKind::backward;
}

bool StageOpCursor::fused_is_forward(int pos) const {
  const int n = chunks_ * microbatches_;
  return pos < warmup_ || (pos < 2 * n - warmup_ && (pos - warmup_) % 2 == 0);
}

// Megatron's three loops flattened: `warmup_` forwards, then alternating F/B (steady 1F1B), then the
// remaining backwards (cool-down). With n forward ops the steady phase ends at position 2n - w.
PipelineOp StageOpCursor::fused_op_at(int pos) const {
  const int n = chunks_ * microbatches_;
  if (pos < warmup_) return forward_at(pos);
  if (pos < 2 * n - warmup_) {
    const int j = pos - warmup_;
    return j % 2 == 0 ? forward_at(warmup_ + j / 2) : backward_at(j / 2);
  }
  return backward_at(pos - n);
}

// Megatron's schedule table with microbatch group size p: virtual microbatch k belongs to group
// k / (p v); inside a group the first p ops run chunk 0 for the group's p microbatches, the next p
// chunk 1, and so on. With v = 1 this is simply microbatch k.
PipelineOp StageOpCursor::forward_at(int k) const {
  const int group_ops = stages_ * chunks_;
  const int in_group = k % group_ops;
  return {OpKind::forward, (k / group_ops) * stages_ + in_group % stages_, in_group / stages_};
}

// Backwards visit the same table with chunks reversed (last chunk first). GPipe runs its backwards in
// reverse microbatch order, as drawn in Huang et al. 2019, Fig. 2c.
PipelineOp StageOpCursor::backward_at(int k) const {
  if (kind_ == ScheduleKind::gpipe) return {OpKind::backward, microbatches_ - 1 - k, 0};
  const PipelineOp f = forward_at(k);
  return {OpKind::backward, f.microbatch, chunks_ - 1 - f.chunk};
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
