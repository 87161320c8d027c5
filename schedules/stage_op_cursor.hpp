// Generates one pipeline stage's op order op by op, without allocating.
//
// build_schedule() copies the ops into vectors; peak_inflight_activations() and other walks that run
// inside sweeps read them straight from the cursor, and the graph builder turns them into nodes. The op
// order rules are those listed in schedules/pipeline_schedule.hpp and derived in docs/schedules.md. The
// fused-backward path of next() is defined here so those per-op loops can inline it; zb-h1, dualpipe and
// v-half are small state machines in stage_op_cursor.cpp; zb-1p and zb-2p read the order their search
// placed (schedules/zb_auto_schedule.hpp), computed once per spec and thread and shared by the cursors.
#pragma once

#include <memory>

#include "schedules/pipeline_op.hpp"
#include "schedules/pipeline_schedule.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim {

struct AutoScheduleResult;

class StageOpCursor {
 public:
  /// Precondition (CS_ASSERT): is_valid(spec) and 0 <= stage < spec.stages.
  StageOpCursor(const ScheduleSpec& spec, int stage);

  [[nodiscard]] bool done() const { return emitted_ == total_; }
  /// The next op of the stage. Precondition (CS_ASSERT): !done().
  PipelineOp next();
  /// Same as next().kind, skipping the microbatch/chunk arithmetic (for walks that only count).
  OpKind next_kind();
  /// Whether the op last returned by next() runs as one half of an overlapped forward/backward pair:
  /// DualPipe's _forward_backward_chunk (steps 4 and 5 of dualpipe.py's DualPipe.step, except the middle
  /// stages' first step-4 pair, which the reference runs unoverlapped), whose all-to-alls hide under the
  /// other chunk's compute. False for every other op and every other schedule.
  [[nodiscard]] bool overlapped() const { return paired_; }

  /// Ops this stage runs in total.
  [[nodiscard]] int size() const { return total_; }
  /// Forwards this stage runs before its first backward (Megatron's num_warmup_microbatches,
  /// counted in (microbatch, chunk) ops).
  [[nodiscard]] int warmup_forwards() const { return warmup_; }

 private:
  // Walks Megatron's schedule table (microbatch group size p) one virtual microbatch at a time, so the
  // k-th forward or backward comes from the (k-1)-th by a carry instead of divisions.
  struct TableWalk {
    int group_first = 0;  // first microbatch of the current group of p
    int in_group = 0;     // microbatch offset inside the group, in [0, p)
    int chunk = 0;        // in [0, v)
  };

  // Megatron's three loops flattened: `warmup_` forwards, then alternating F/B (steady 1F1B), then the
  // remaining backwards (cool-down). With n forward ops the steady phase ends at position 2n - w.
  // Forwards and backwards each come out in table order, so the k-th of either is the k-th table entry.
  [[nodiscard]] bool fused_is_forward(int pos) const {
    const int n = chunks_ * microbatches_;
    return pos < warmup_ || (pos < 2 * n - warmup_ && (pos - warmup_) % 2 == 0);
  }
  // Megatron's schedule table with microbatch group size p: virtual microbatch k belongs to group
  // k / (p v); inside a group the first p ops run chunk 0 for the group's p microbatches, the next p
  // chunk 1, and so on. With v = 1 this is simply microbatch k.
  void advance(TableWalk& w) const {
    if (++w.in_group < stages_) return;
    w.in_group = 0;
    if (++w.chunk < chunks_) return;
    w.chunk = 0;
    w.group_first += stages_;
  }
  PipelineOp next_forward() {
    const PipelineOp op{OpKind::forward, forward_walk_.group_first + forward_walk_.in_group,
                        forward_walk_.chunk};
    advance(forward_walk_);
    return op;
  }
  // Backwards visit the same table with chunks reversed (last chunk first). GPipe runs its backwards in
  // reverse microbatch order, as drawn in Huang et al. 2019, Fig. 2c.
  PipelineOp next_backward() {
    const int k = backwards_++;
    if (kind_ == ScheduleKind::gpipe) return {OpKind::backward, microbatches_ - 1 - k, 0};
    const PipelineOp op{OpKind::backward, backward_walk_.group_first + backward_walk_.in_group,
                        chunks_ - 1 - backward_walk_.chunk};
    advance(backward_walk_);
    return op;
  }
  PipelineOp next_zero_bubble();
  PipelineOp next_dualpipe();
  PipelineOp next_v_half();
  PipelineOp next_auto();
  // DualPipe's op of `kind` for the index-th microbatch of local phase `phase` (0 or 1; the reference's
  // phase, which names the other direction on the second half of the stages).
  [[nodiscard]] PipelineOp dualpipe_op(OpKind kind, int phase, int index) const;
  // The W of the k-th backward_input whose W was deferred (the reference's FIFO WeightGradStore).
  [[nodiscard]] PipelineOp dualpipe_deferred_weight(int k) const;

  ScheduleKind kind_;
  int stage_;
  int stages_;
  int microbatches_;
  int chunks_;
  int warmup_ = 0;
  int total_ = 0;
  int emitted_ = 0;
  // Fused schedules: where the next forward and the next backward sit in the table, and how many
  // backwards have been emitted (GPipe runs them in reverse microbatch order).
  TableWalk forward_walk_;
  TableWalk backward_walk_;
  int backwards_ = 0;
  // zb-h1 progress: forwards, input-gradient backwards and weight-gradient backwards emitted so far,
  // and whether the op just emitted was a B whose W runs right after it.
  int forwards_ = 0;
  int input_grads_ = 0;
  int weight_grads_ = 0;
  bool weight_grad_due_ = false;
  // dualpipe progress: step (1..8) of the reference's loop, iteration inside it and token inside the
  // iteration; forwards and B's emitted per local phase; deferred W's emitted; the W due right after a
  // B that is not deferred.
  int half_stages_ = 0;        // p/2
  int half_rank_ = 0;          // min(s, p-1-s)
  int half_microbatches_ = 0;  // m/2, the microbatches of each direction
  int second_half_ = 0;        // 1 on stages p/2 .. p-1, where the local phases swap directions
  int dp_step_ = 1;
  int dp_iteration_ = 0;
  int dp_token_ = 0;
  int dp_forwards_[2] = {0, 0};
  int dp_input_grads_[2] = {0, 0};
  int dp_deferred_weights_ = 0;
  PipelineOp due_weight_;
  bool due_paired_ = false;  // the due W belongs to an overlapped pair
  bool paired_ = false;      // the op last returned runs inside an overlapped F&B pair
  // v-half progress: the next slot of the building-block timeline; the first slot of each of the four
  // op lists (F chunk 0, F chunk 1, B chunk 1, B chunk 0), each repeating every 6 slots; ops emitted per
  // list; W's owed and emitted per chunk (index 0: chunk 1's W, which the reference prefers; 1: chunk 0's).
  int vh_slot_ = 0;
  int vh_first_[4] = {0, 0, 0, 0};
  int vh_emitted_[4] = {0, 0, 0, 0};
  int vh_weights_owed_[2] = {0, 0};
  int vh_weights_done_[2] = {0, 0};
  // zb-1p / zb-2p: the searched order ('F', 'B', 'W' per op of this stage; forwards_, input_grads_ and
  // weight_grads_ count the microbatches emitted of each kind).
  std::shared_ptr<const AutoScheduleResult> auto_;
  const char* auto_order_ = nullptr;
};

inline PipelineOp StageOpCursor::next() {
  CS_ASSERT(!done(), "StageOpCursor::next() past the end of the stage's op order");
  const int pos = emitted_++;
  if (kind_ == ScheduleKind::zero_bubble_h1) return next_zero_bubble();
  if (kind_ == ScheduleKind::dualpipe) return next_dualpipe();
  if (kind_ == ScheduleKind::v_half) return next_v_half();
  if (auto_order_ != nullptr) return next_auto();
  return fused_is_forward(pos) ? next_forward() : next_backward();
}

}  // namespace clustersim
