// Pipeline schedules as per-stage op orders: which forward/backward op each pipeline stage runs, in order.
//
// A schedule is a pure function of (kind, p = stages, m = microbatches, v = chunks), and for zb-1p / zb-2p
// of the integer op and p2p times and activation sizes their search takes (ScheduleSpec::auto_costs). Stage s runs its list
// front to back; an op may start once the previous op on the stage has finished and its data dependency
// (schedules/pipeline_deps.hpp) has been produced. Op times and transfers are not part of the schedule.
//
// Schedules (docs/schedules.md gives the op order rules, warm-up counts and memory of each):
//   gpipe             all m forwards, then all m backwards in reverse microbatch order
//                     (Huang et al., "GPipe", NeurIPS 2019, Fig. 2c).
//   1f1b              warm-up of min(p-s-1, m) forwards, then one forward / one backward, then the
//                     remaining backwards (PipeDream-Flush, Narayanan et al., ICML 2021; Megatron-LM
//                     forward_backward_pipelining_without_interleaving).
//   interleaved-1f1b  v model chunks per stage; global virtual stage = chunk * p + stage; microbatches
//                     visit chunks in groups of p; warm-up of min(2(p-s-1) + (v-1)p, v*m) forwards
//                     (Narayanan et al., SC'21, Section 2.2.2; Megatron-LM
//                     forward_backward_pipelining_with_interleaving with microbatch group size p).
//   zb-h1             1F1B with the backward split into B (input gradient) and W (weight gradient);
//                     stage s runs its first s W's late, to fill the drain bubble, keeping 1F1B's
//                     in-flight bound of p microbatches (Qi et al., ICLR 2024, Section 2.1, Fig. 3 top;
//                     sail-sg/zero-bubble-pipeline-parallelism branch zb-h1-quick-start).
//   dualpipe          two directions: microbatches 0..m/2-1 enter at stage 0 and run chunk 0 (model stage
//                     s on stage s), microbatches m/2..m-1 enter at stage p-1 and run chunk 1 (model stage
//                     p-1-s on stage s); backward split into B and W; the op order of the reference
//                     implementation's eight steps, each overlapped F&B pair written as F then B
//                     (DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, Section 3.2.1,
//                     Fig. 5, Table 2; github.com/deepseek-ai/DualPipe dualpipe/dualpipe.py).
//   v-half            V-shape: chunk 0 on stage s is model stage s, chunk 1 is model stage 2p-1-s, so every
//                     microbatch runs down the pipeline and back up, and stage 0 holds the first and the
//                     last layers; backward split into B and W. Op order: the V-Half building block of Qi
//                     et al., "Pipeline Parallelism with Controllable Memory", arXiv:2405.15362 (2024),
//                     repeated every 6 slots, with the W's in the empty slots, as the authors' branch
//                     v-half-vocab runs it (sail-sg/zero-bubble-pipeline-parallelism 92895b9a,
//                     zbv_greedy.py stable_pattern_v_half + put_w, do_reorder=False; docs/schedules.md).
//   zb-1p, zb-2p      the automatic zero-bubble scheduler of Qi et al., "Zero Bubble Pipeline Parallelism",
//                     ICLR 2024, Section 3: a greedy list construction over all stages at once from the F,
//                     B, W and p2p times, under an activation limit of p (zb-1p) or 2p (zb-2p) microbatches'
//                     activations, best of its eight variants (sail-sg/zero-bubble-pipeline-parallelism
//                     f68d3879, megatron/core/pipeline_parallel/auto_schedule.py initial_solution /
//                     manual_order; the ILP there is disabled). schedules/zb_auto_schedule.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedules/pipeline_op.hpp"
#include "schedules/schedule_kind.hpp"

namespace clustersim {

// The inputs of the automatic zero-bubble search (zb-1p, zb-2p) besides p and m, as the authors' runtime
// passes them to auto_schedule.GraphConfig (zb_schedules.py get_zero_bubble_forward_backward_func,
// update_schedule): integer op times (their median over the ranks, in microseconds: ms x 1000, at least 1)
// and the activation memory an F adds and a W frees (34h + 5as and 32h there; a B frees the rest). The
// defaults are auto_schedule.GraphConfig's class defaults (F = B = W = 1, p2p 0, memory 2 and 1), not the
// runtime's first inputs: its first call, update_schedule(scheduler, 1, 1, 1, 0), gives 1000, 1000, 1000
// and p2p 1 (max(int(x * 1000), 1)) with the memory 34h + 5as and 32h.
// Ignored by every other kind.
struct AutoScheduleCosts {
  std::int64_t forward = 1;
  std::int64_t backward_input = 1;
  std::int64_t backward_weight = 1;
  std::int64_t p2p = 0;
  std::int64_t forward_memory = 2;  // added by an F
  std::int64_t weight_memory = 1;   // freed by the W (the B frees forward_memory - weight_memory)

  friend bool operator==(const AutoScheduleCosts&, const AutoScheduleCosts&) = default;
};

/// Largest op time or p2p time check() accepts for zb-1p / zb-2p (10^9 time units, 1000 s in
/// microseconds), and largest stages x microbatches (the search keeps three times per op).
inline constexpr std::int64_t kAutoScheduleMaxTime = 1'000'000'000;
inline constexpr std::int64_t kAutoScheduleMaxOps = std::int64_t{1} << 21;
inline constexpr std::int64_t kAutoScheduleMaxMemory = std::int64_t{1} << 40;

struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::one_f_one_b;
  int stages = 1;        // p, pipeline-parallel degree
  int microbatches = 1;  // m, microbatches per optimizer step
  int chunks = 1;        // v, model chunks per stage (> 1 only for interleaved-1f1b; exactly 2 for dualpipe
                         // and v-half)
  // v-half only: slots the building block reserves for the vocabulary passes between a microbatch's last
  // forward and first backward (0 without vocabulary parallelism; the authors' v-half-vocab branch adds 6
  // with --enable-vocab-parallel and 6 more with --disable-backward-fusion, zbv_greedy.py
  // stable_pattern_v_half). Must be 0 for every other kind.
  int vocab_slots = 0;
  // zb-1p / zb-2p only: the search's op times and memory (ignored by the other kinds).
  AutoScheduleCosts auto_costs{};
};

/// zb-1p or zb-2p: the op order comes from the automatic search and depends on spec.auto_costs.
inline bool is_auto_zero_bubble(ScheduleKind kind) {
  return kind == ScheduleKind::zero_bubble_1p || kind == ScheduleKind::zero_bubble_2p;
}

/// Microbatches' activations the automatic search may hold on a stage: p for zb-1p, 2p for zb-2p (the
/// reference's --zero-bubble-max-pending-backward, README "1 x number of pipelines ... ZB1P, 2x ... ZB2P";
/// its max_mem = that x the forward's memory). 0 for the other kinds.
inline std::int64_t auto_activation_limit(const ScheduleSpec& spec) {
  if (spec.kind == ScheduleKind::zero_bubble_1p) return spec.stages;
  if (spec.kind == ScheduleKind::zero_bubble_2p) return 2 * static_cast<std::int64_t>(spec.stages);
  return 0;
}

/// The spec of a schedule as a configuration states it: `interleaved_chunks` is the interleaved
/// schedule's vp (1 otherwise). DualPipe holds two chunks per stage by construction (one per direction),
/// so for it chunks = 2 * interleaved_chunks, which check() accepts only for interleaved_chunks = 1.
/// Callers that build a spec from a configuration use this rather than setting `chunks` themselves.
/// V-Half likewise holds two chunks per stage (chunks = 2 * interleaved_chunks); `vocab_slots` is
/// ScheduleSpec::vocab_slots (v-half only).
ScheduleSpec schedule_spec(ScheduleKind kind, int stages, int microbatches, int interleaved_chunks = 1,
                           int vocab_slots = 0);

/// Microbatches that each (stage, chunk) runs a forward and a backward for: m, or m/2 for dualpipe
/// (a chunk serves one direction's half). No checks. O(1).
inline int chunk_microbatches(const ScheduleSpec& spec) {
  return spec.kind == ScheduleKind::dualpipe ? spec.microbatches / 2 : spec.microbatches;
}

/// Whether the schedule splits each backward into backward_input (B) and backward_weight (W) ops
/// (zb-h1, dualpipe, v-half, zb-1p, zb-2p) rather than running fused backwards.
bool splits_backward(ScheduleKind kind);

/// Checks the preconditions of every function in schedules/. Returns one human-readable sentence per
/// problem (empty if the spec is valid), e.g. "interleaved-1f1b needs microbatches (6) divisible by
/// stages (4)". Requirements: p, m, v >= 1; v > 1 only with interleaved-1f1b or dualpipe;
/// interleaved-1f1b needs m divisible by p (Megatron-LM raises the same error when m % p != 0 with
/// microbatch group size p); dualpipe needs v = 2, an even p and an even m >= 2p (the reference
/// implementation asserts the last two); v-half needs v = 2 and vocab_slots 0, 6 or 12 (the values of the
/// authors' branch); p * v, 3 * v * m and v-half's slot count 6(m + p) + 12 fit in an int; zb-1p and zb-2p
/// need op times in [1, kAutoScheduleMaxTime], a p2p time in [0, kAutoScheduleMaxTime], a forward memory
/// in [1, kAutoScheduleMaxMemory], a weight memory in [0, forward memory] and p * m <= kAutoScheduleMaxOps.
std::vector<std::string> check(const ScheduleSpec& spec);

/// True when check(spec) would be empty; allocation-free.
bool is_valid(const ScheduleSpec& spec);

/// Number of ops every stage runs: 2*v*m with a fused backward, 3*m for zb-h1, zb-1p, zb-2p and dualpipe (in dualpipe
/// each microbatch passes each stage once, through the chunk of its direction), 6*m for v-half (each
/// microbatch passes each stage twice, once per chunk).
/// Precondition: is_valid(spec) (throws std::invalid_argument otherwise).
int ops_per_stage(const ScheduleSpec& spec);

/// The same count from a configuration's values, in floating point and without checks, for estimates made
/// before a step is known to fit an int (sim/scenario/work_bounds.cpp): 6m for v-half, 3m for zb-h1 and
/// dualpipe, 2·vp·m otherwise (`interleaved_chunks` is the configuration's vp, as for schedule_spec).
/// Equals ops_per_stage(schedule_spec(kind, p, m, interleaved_chunks)) whenever that spec is valid
/// (tests/schedules/pipeline_schedule_test.cpp checks it against the built op lists).
double ops_per_stage(ScheduleKind kind, double microbatches, double interleaved_chunks);

/// Per-stage op order, index = pipeline stage 0..p-1. Each stage holds, for every (microbatch, chunk),
/// exactly one forward and one backward (or one backward_input and one backward_weight); in dualpipe
/// only the pairs where the chunk is the microbatch's direction (chunk = microbatch / (m/2)).
/// Throws std::invalid_argument, with the sentences of check(), if the spec is invalid.
/// Cost: O(p * m * v); allocates only the result.
std::vector<std::vector<PipelineOp>> build_schedule(const ScheduleSpec& spec);

/// The op order of a single stage (row `stage` of build_schedule). Same preconditions, plus
/// 0 <= stage < p.
std::vector<PipelineOp> build_stage_schedule(const ScheduleSpec& spec, int stage);

}  // namespace clustersim
