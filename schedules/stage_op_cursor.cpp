#include "schedules/stage_op_cursor.hpp"

#include <algorithm>

#include "schedules/zb_auto_schedule.hpp"
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
    case ScheduleKind::dualpipe:
      // Steps 1 and 2 run p forwards; the two middle stages skip step 3 and start step 4 with one more.
      return std::min(s, p - 1 - s) == p / 2 - 1 ? p + 1 : p;
    case ScheduleKind::v_half:
      return -1;  // set by the constructor from the building block (v_half_warmup)
    case ScheduleKind::zero_bubble_1p:
    case ScheduleKind::zero_bubble_2p:
      return -1;  // set by the constructor from the searched order
  }
  return n;
}

// DualPipe (deepseek-ai/DualPipe, dualpipe.py, DualPipe.step): each step repeats one iteration of
// tokens. Phases are the reference's local ones: on the first half of the stages phase 0 is the forward
// direction (chunk 0) and phase 1 the reverse one (chunk 1); the second half swaps them. An overlapped
// F&B pair is written as its F, then its B. A B that the reference runs without zero bubble computes its
// weight gradient at once: here a B followed by its W.
enum class DualToken : unsigned char {
  f0,           // forward of phase 0
  f1,           // forward of phase 1
  b0_then_w,    // full backward of phase 0: B, then its W
  b1_then_w,    // full backward of phase 1
  b0_deferred,  // B of phase 0 whose W joins the FIFO of deferred W's
  b1_deferred,  // B of phase 1, W deferred
  b1_step6,     // step 6: B of phase 1, W deferred for the last h+1 of the step's 2(h+1) B's
  b0_step6,     // step 6: B of phase 0, likewise
  weight,       // the oldest deferred W
};

struct DualStep {
  int tokens;
  DualToken token[4];
};

// Index = step 1..8 of the reference (entry 0 unused).
constexpr DualStep kDualSteps[9] = {
    {0, {}},
    {1, {DualToken::f0}},                                                             // 1: nF0
    {2, {DualToken::f0, DualToken::f1}},                                              // 2: nF0F1
    {3, {DualToken::b1_deferred, DualToken::weight, DualToken::f1}},                  // 3: nB1W1F1
    {4, {DualToken::f0, DualToken::b1_then_w, DualToken::f1, DualToken::b0_then_w}},  // 4: nF0B1F1B0
    {3, {DualToken::b1_then_w, DualToken::f1, DualToken::b0_then_w}},                 // 5: nB1F1B0
    {2, {DualToken::b1_step6, DualToken::b0_step6}},                                  // 6: nB1B0
    {2, {DualToken::weight, DualToken::b0_deferred}},                                 // 7: nWB0
    {1, {DualToken::weight}},                                                         // 8: nW
};

// Iterations of each step on a stage with half_rank h = min(s, p-1-s), P = p/2, M = m/2 (the loop counts
// of DualPipe.step). m >= 2p keeps step 4's count >= 1.
int dual_iterations(int step, int P, int h, int M) {
  switch (step) {
    case 1:
      return 2 * (P - h - 1);
    case 2:
    case 6:
    case 8:
      return h + 1;
    case 3:
    case 5:
    case 7:
      return P - h - 1;
    case 4:
      return M - 2 * P + h + 1;
    default:
      return 0;
  }
}

// V-Half's building block (Qi et al. 2024, arXiv:2405.15362; read from sail-sg/zero-bubble-pipeline-
// parallelism 92895b9a, zbv_greedy.py stable_pattern_v_half): on stage s microbatch j runs its chunk-0
// forward in slot 2s + 6j, its chunk-1 forward in 3p - s - 2 + 6j, its chunk-1 backward (B) in
// 3p + I + 2s - 1 + 6j and its chunk-0 B in 6p + I - s - 2 + 6j, where I = 3 for even p (0 for odd) plus
// the vocabulary slots. The four first slots differ mod 6 for every p and s, so no two ops share a slot,
// and each op's slot is later than its input's (the same op one stage up- or downstream, or at the turn
// of the V the stage's previous chunk), so the order is a valid schedule for any m >= 1.
void v_half_first_slots(int p, int s, int vocab_slots, int first[4]) {
  const int interval = (p % 2 == 0 ? 3 : 0) + vocab_slots;
  first[0] = 2 * s;
  first[1] = 3 * p - s - 2;
  first[2] = 3 * p + interval + 2 * s - 1;
  first[3] = 6 * p + interval - s - 2;
}

// Forwards (of either chunk) before the stage's first B: those whose slot precedes the first B's.
int v_half_warmup(int p, int m, int s, int vocab_slots) {
  int first[4];
  v_half_first_slots(p, s, vocab_slots, first);
  const int first_b = std::min(first[2], first[3]);
  int n = 0;
  for (int t = 0; t < 2; ++t) {
    if (first[t] < first_b) n += std::min(m, (first_b - first[t] - 1) / 6 + 1);
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
  if (kind_ == ScheduleKind::dualpipe) {
    half_stages_ = stages_ / 2;
    half_rank_ = std::min(stage_, stages_ - 1 - stage_);
    half_microbatches_ = microbatches_ / 2;
    second_half_ = stage_ >= half_stages_ ? 1 : 0;
  }
  if (kind_ == ScheduleKind::v_half) {
    v_half_first_slots(stages_, stage_, spec.vocab_slots, vh_first_);
    warmup_ = v_half_warmup(stages_, microbatches_, stage_, spec.vocab_slots);
  }
  if (is_auto_zero_bubble(kind_)) {
    auto_ = shared_auto_zero_bubble_schedule(spec);
    const std::string& order = auto_->order[static_cast<std::size_t>(stage_)];
    CS_ASSERT(static_cast<int>(order.size()) == total_, "zb search placed every op of the stage once");
    auto_order_ = order.c_str();
    warmup_ = static_cast<int>(order.find('B'));
  }
}

OpKind StageOpCursor::next_kind() {
  CS_ASSERT(!done(), "StageOpCursor::next_kind() past the end of the stage's op order");
  const int pos = emitted_++;
  if (kind_ == ScheduleKind::zero_bubble_h1) return next_zero_bubble().kind;
  if (kind_ == ScheduleKind::dualpipe) return next_dualpipe().kind;
  if (kind_ == ScheduleKind::v_half) return next_v_half().kind;
  if (auto_order_ != nullptr) return next_auto().kind;
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

// zb-1p / zb-2p: the op the search placed at this position; each kind runs its microbatches in order.
PipelineOp StageOpCursor::next_auto() {
  switch (auto_order_[emitted_ - 1]) {
    case 'F':
      return {OpKind::forward, forwards_++, 0};
    case 'B':
      return {OpKind::backward_input, input_grads_++, 0};
    default:
      return {OpKind::backward_weight, weight_grads_++, 0};
  }
}

PipelineOp StageOpCursor::dualpipe_op(OpKind kind, int phase, int index) const {
  const int chunk = phase ^ second_half_;
  return {kind, chunk * half_microbatches_ + index, chunk};
}

// The reference pushes a W into its FIFO for every B run with zero bubble: the P-h-1 B's of phase 1 in
// step 3 (each popped right away), the last h+1 B's of step 6 (which alternates phase 1, phase 0 and
// starts at phase-1 index M-h-1 and phase-0 index M-P), then step 7's phase-0 B's from index M-P+h+1.
PipelineOp StageOpCursor::dualpipe_deferred_weight(int k) const {
  const int P = half_stages_, h = half_rank_, M = half_microbatches_;
  const int step3 = P - h - 1;
  if (k < step3) return dualpipe_op(OpKind::backward_weight, 1, k);
  if (k < P) {
    const int j = h + 1 + (k - step3);  // position among step 6's B's
    if (j % 2 == 0) return dualpipe_op(OpKind::backward_weight, 1, M - h - 1 + j / 2);
    return dualpipe_op(OpKind::backward_weight, 0, M - P + j / 2);
  }
  return dualpipe_op(OpKind::backward_weight, 0, M - P + h + 1 + (k - P));
}

PipelineOp StageOpCursor::next_dualpipe() {
  if (weight_grad_due_) {
    weight_grad_due_ = false;
    paired_ = due_paired_;
    return due_weight_;
  }
  const int P = half_stages_, h = half_rank_, M = half_microbatches_;
  while (dp_iteration_ >= dual_iterations(dp_step_, P, h, M)) {
    CS_ASSERT(dp_step_ < 8, "dualpipe cursor ran past step 8");
    ++dp_step_;
    dp_iteration_ = 0;
  }
  const DualStep& step = kDualSteps[dp_step_];
  const DualToken token = step.token[dp_token_];
  const int position = 2 * dp_iteration_ + dp_token_;  // in step 6: which of its 2(h+1) B's
  // Overlapped pairs (dualpipe.py's _forward_backward_chunk): every step-4 token but the middle stages'
  // first pair (run unoverlapped "to further reduce bubble size"), and step 5's F1B0 (its B1 runs alone).
  paired_ = (dp_step_ == 4 && !(dp_iteration_ == 0 && dp_token_ < 2 && h == P - 1)) ||
            (dp_step_ == 5 && dp_token_ > 0);
  if (++dp_token_ == step.tokens) {
    dp_token_ = 0;
    ++dp_iteration_;
  }
  const auto input_grad = [this](int phase, bool weight_now) {
    const PipelineOp op = dualpipe_op(OpKind::backward_input, phase, dp_input_grads_[phase]++);
    if (weight_now) {
      due_weight_ = {OpKind::backward_weight, op.microbatch, op.chunk};
      due_paired_ = paired_;
      weight_grad_due_ = true;
    }
    return op;
  };
  switch (token) {
    case DualToken::f0:
      return dualpipe_op(OpKind::forward, 0, dp_forwards_[0]++);
    case DualToken::f1:
      return dualpipe_op(OpKind::forward, 1, dp_forwards_[1]++);
    case DualToken::b0_then_w:
      return input_grad(0, true);
    case DualToken::b1_then_w:
      return input_grad(1, true);
    case DualToken::b0_deferred:
      return input_grad(0, false);
    case DualToken::b1_deferred:
      return input_grad(1, false);
    case DualToken::b1_step6:
      return input_grad(1, position < h + 1);
    case DualToken::b0_step6:
      return input_grad(0, position < h + 1);
    case DualToken::weight:
      return dualpipe_deferred_weight(dp_deferred_weights_++);
  }
  CS_ASSERT(false, "unknown dualpipe token");
  return {};
}

// V-Half as the authors' branch orders it (zbv_greedy.py with do_reorder=False: put_w(split_w=True), then
// the ops sorted by slot): walk the slots of the building block (v_half_first_slots); a slot that holds
// an F or B runs it (a B owes its W); an empty slot runs the oldest owed W, chunk 1's before chunk 0's;
// once the four lists are done the W's still owed run, chunk 1's first. Amortised O(1) per op: the walk
// visits at most 6(m + p) + 12 slots in all.
PipelineOp StageOpCursor::next_v_half() {
  static constexpr OpKind kKind[4] = {OpKind::forward, OpKind::forward, OpKind::backward_input,
                                      OpKind::backward_input};
  static constexpr int kChunk[4] = {0, 1, 1, 0};
  const auto owed_weight = [this](int w) {
    --vh_weights_owed_[w];
    return PipelineOp{OpKind::backward_weight, vh_weights_done_[w]++, w == 0 ? 1 : 0};
  };
  for (;;) {
    bool lists_left = false;
    for (int t = 0; t < 4; ++t) {
      if (vh_emitted_[t] >= microbatches_) continue;
      lists_left = true;
      if (vh_first_[t] + 6 * vh_emitted_[t] != vh_slot_) continue;
      ++vh_slot_;
      if (t >= 2) ++vh_weights_owed_[t - 2];
      return {kKind[t], vh_emitted_[t]++, kChunk[t]};
    }
    if (!lists_left) break;
    ++vh_slot_;
    for (int w = 0; w < 2; ++w) {
      if (vh_weights_owed_[w] > 0) return owed_weight(w);
    }
  }
  for (int w = 0; w < 2; ++w) {
    if (vh_weights_owed_[w] > 0) return owed_weight(w);
  }
  CS_ASSERT(false, "v-half cursor ran past its ops");
  return {};
}

}  // namespace clustersim
