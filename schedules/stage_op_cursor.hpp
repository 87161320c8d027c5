// Generates one pipeline stage's op order op by op, without allocating.
//
// build_schedule() copies the ops into vectors; peak_inflight_activations() and other walks that run
// inside sweeps read them straight from the cursor. The op order rules are those listed in
// schedules/pipeline_schedule.hpp and derived in docs/schedules.md.
#pragma once

#include "schedules/pipeline_op.hpp"
#include "schedules/pipeline_schedule.hpp"

namespace clustersim {

class StageOpCursor {
 public:
  /// Precondition (CS_ASSERT): is_valid(spec) and 0 <= stage < spec.stages.
  StageOpCursor(const ScheduleSpec& spec, int stage);

  [[nodiscard]] bool done() const { return emitted_ == total_; }
  /// The next op of the stage. Precondition (CS_ASSERT): !done().
  PipelineOp next();
  /// Same as next().kind, skipping the microbatch/chunk arithmetic (for walks that only count).
  OpKind next_kind();

  /// Ops this stage runs in total.
  [[nodiscard]] int size() const { return total_; }
  /// Forwards this stage runs before its first backward (Megatron's num_warmup_microbatches,
  /// counted in (microbatch, chunk) ops).
  [[nodiscard]] int warmup_forwards() const { return warmup_; }

 private:
  [[nodiscard]] PipelineOp fused_op_at(int pos) const;
  [[nodiscard]] bool fused_is_forward(int pos) const;
  [[nodiscard]] PipelineOp forward_at(int k) const;
  [[nodiscard]] PipelineOp backward_at(int k) const;
  PipelineOp next_zero_bubble();

  ScheduleKind kind_;
  int stage_;
  int stages_;
  int microbatches_;
  int chunks_;
  int warmup_ = 0;
  int total_ = 0;
  int emitted_ = 0;
  // zb-h1 progress: forwards, input-gradient backwards and weight-gradient backwards emitted so far,
  // and whether the op just emitted was a B whose W runs right after it.
  int forwards_ = 0;
  int input_grads_ = 0;
  int weight_grads_ = 0;
  bool weight_grad_due_ = false;
};

}  // namespace clustersim
