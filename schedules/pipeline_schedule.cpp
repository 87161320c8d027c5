#include "schedules/pipeline_schedule.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>

#include "schedules/stage_op_cursor.hpp"

namespace clustersim {

namespace {

bool known_kind(ScheduleKind k) {
  switch (k) {
    case ScheduleKind::gpipe:
    case ScheduleKind::one_f_one_b:
    case ScheduleKind::interleaved_1f1b:
    case ScheduleKind::zero_bubble_h1:
    case ScheduleKind::dualpipe:
    case ScheduleKind::v_half:
    case ScheduleKind::zero_bubble_1p:
    case ScheduleKind::zero_bubble_2p:
      return true;
  }
  return false;
}

// The automatic zero-bubble search's inputs (AutoScheduleCosts) within the bounds that keep its times and
// memory sums inside int64, and the schedule small enough to search.
bool auto_costs_ok(const ScheduleSpec& s) {
  if (!is_auto_zero_bubble(s.kind)) return true;
  const AutoScheduleCosts& c = s.auto_costs;
  const auto time_ok = [](std::int64_t t, std::int64_t lo) { return t >= lo && t <= kAutoScheduleMaxTime; };
  return time_ok(c.forward, 1) && time_ok(c.backward_input, 1) && time_ok(c.backward_weight, 1) &&
         time_ok(c.p2p, 0) && c.forward_memory >= 1 && c.forward_memory <= kAutoScheduleMaxMemory &&
         c.weight_memory >= 0 && c.weight_memory <= c.forward_memory;
}

bool auto_size_ok(const ScheduleSpec& s) {
  return !is_auto_zero_bubble(s.kind) || s.stages < 1 || s.microbatches < 1 ||
         static_cast<std::int64_t>(s.stages) * s.microbatches <= kAutoScheduleMaxOps;
}

bool chunks_allowed(const ScheduleSpec& s) {
  if (s.kind == ScheduleKind::dualpipe || s.kind == ScheduleKind::v_half) return s.chunks == 2;
  return s.chunks == 1 || s.kind == ScheduleKind::interleaved_1f1b;
}

// DualPipe's reference implementation asserts an even number of ranks and an even number of
// microbatches, at least twice the ranks (dualpipe.py, DualPipe.step).
bool dualpipe_sizes_ok(const ScheduleSpec& s) {
  return s.stages % 2 == 0 && s.microbatches % 2 == 0 &&
         static_cast<std::int64_t>(s.microbatches) >= 2 * static_cast<std::int64_t>(s.stages);
}

// Per-stage op counts and global virtual-stage ids must stay within int.
// V-Half's slot numbers (up to 6(m + p) + vocab_slots) too.
bool fits_int(const ScheduleSpec& s) {
  const std::int64_t v = s.chunks, m = s.microbatches, p = s.stages;
  return 3 * v * m <= INT_MAX && p * v <= INT_MAX && 6 * (m + p) + 12 <= INT_MAX;
}

// The vocabulary slots the authors' V-Half branch reserves: none, 6 (one all-reduce barrier) or 12 (two).
bool vocab_slots_ok(const ScheduleSpec& s) {
  if (s.kind != ScheduleKind::v_half) return s.vocab_slots == 0;
  return s.vocab_slots == 0 || s.vocab_slots == 6 || s.vocab_slots == 12;
}

[[noreturn]] void throw_invalid(const ScheduleSpec& spec) {
  std::string what = "pipeline schedule: ";
  const auto problems = check(spec);
  for (std::size_t i = 0; i < problems.size(); ++i) what += (i ? "; " : "") + problems[i];
  throw std::invalid_argument(what);
}

}  // namespace

std::vector<std::string> check(const ScheduleSpec& spec) {
  std::vector<std::string> problems;
  const std::string name = known_kind(spec.kind) ? std::string(to_string(spec.kind)) : "schedule";
  if (!known_kind(spec.kind)) {
    problems.push_back("unknown schedule kind " + std::to_string(static_cast<int>(spec.kind)) +
                       " (expected gpipe, 1f1b, interleaved-1f1b, zb-h1, dualpipe, v-half, zb-1p or zb-2p)");
  }
  if (spec.stages < 1)
    problems.push_back("stages must be at least 1 (got " + std::to_string(spec.stages) + ")");
  if (spec.microbatches < 1) {
    problems.push_back("microbatches must be at least 1 (got " + std::to_string(spec.microbatches) + ")");
  }
  if (spec.chunks < 1)
    problems.push_back("chunks must be at least 1 (got " + std::to_string(spec.chunks) + ")");
  const bool dualpipe = spec.kind == ScheduleKind::dualpipe;
  if (dualpipe && spec.chunks >= 1 && spec.chunks != 2) {
    problems.push_back("dualpipe holds exactly 2 chunks per stage, one per direction (got chunks = " +
                       std::to_string(spec.chunks) + ")");
  }
  const bool v_half = spec.kind == ScheduleKind::v_half;
  if (v_half && spec.chunks >= 1 && spec.chunks != 2) {
    problems.push_back("v-half holds exactly 2 chunks per stage, in V placement (got chunks = " +
                       std::to_string(spec.chunks) + ")");
  }
  if (!vocab_slots_ok(spec)) {
    problems.push_back(v_half ? "v-half reserves 0, 6 or 12 vocabulary slots (got " +
                                    std::to_string(spec.vocab_slots) + ")"
                              : "vocab_slots is a v-half setting (got " + std::to_string(spec.vocab_slots) +
                                    " with " + name + ")");
  }
  if (!dualpipe && !v_half && spec.chunks > 1 && spec.kind != ScheduleKind::interleaved_1f1b) {
    problems.push_back("chunks > 1 needs interleaved-1f1b (got chunks = " + std::to_string(spec.chunks) +
                       " with " + name + ")");
  }
  if (dualpipe && spec.stages >= 1 && spec.stages % 2 != 0) {
    problems.push_back("dualpipe needs an even number of stages (got " + std::to_string(spec.stages) +
                       "): each stage pairs with stage p-1-s");
  }
  if (dualpipe && spec.stages >= 1 && spec.microbatches >= 1 && spec.stages % 2 == 0 &&
      !dualpipe_sizes_ok(spec)) {
    problems.push_back("dualpipe needs an even number of microbatches, at least 2 x stages = " +
                       std::to_string(2 * static_cast<std::int64_t>(spec.stages)) + " (got " +
                       std::to_string(spec.microbatches) + ")");
  }
  if (spec.kind == ScheduleKind::interleaved_1f1b && spec.stages >= 1 && spec.microbatches >= 1 &&
      spec.microbatches % spec.stages != 0) {
    problems.push_back("interleaved-1f1b needs microbatches (" + std::to_string(spec.microbatches) +
                       ") divisible by stages (" + std::to_string(spec.stages) + ")");
  }
  if (!auto_costs_ok(spec)) {
    const AutoScheduleCosts& c = spec.auto_costs;
    problems.push_back(name + " searches with op times F " + std::to_string(c.forward) + ", B " +
                       std::to_string(c.backward_input) + ", W " + std::to_string(c.backward_weight) +
                       " (each 1 to " + std::to_string(kAutoScheduleMaxTime) + "), p2p " + std::to_string(c.p2p) +
                       " (0 to " + std::to_string(kAutoScheduleMaxTime) + ") and memory F " +
                       std::to_string(c.forward_memory) + " (1 to " + std::to_string(kAutoScheduleMaxMemory) +
                       "), W " + std::to_string(c.weight_memory) + " (0 to F's): out of range");
  }
  if (!auto_size_ok(spec)) {
    problems.push_back(name + " searches stages x microbatches <= " + std::to_string(kAutoScheduleMaxOps) +
                       " ops (got " + std::to_string(spec.stages) + " x " + std::to_string(spec.microbatches) +
                       ")");
  }
  if (!fits_int(spec)) {
    problems.push_back("stages (" + std::to_string(spec.stages) + "), microbatches (" +
                       std::to_string(spec.microbatches) + ") and chunks (" + std::to_string(spec.chunks) +
                       ") give more ops per stage than an int can count");
  }
  return problems;
}

bool is_valid(const ScheduleSpec& spec) {
  return known_kind(spec.kind) && spec.stages >= 1 && spec.microbatches >= 1 && spec.chunks >= 1 &&
         chunks_allowed(spec) &&
         (spec.kind != ScheduleKind::interleaved_1f1b || spec.microbatches % spec.stages == 0) &&
         (spec.kind != ScheduleKind::dualpipe || dualpipe_sizes_ok(spec)) && vocab_slots_ok(spec) &&
         auto_costs_ok(spec) && auto_size_ok(spec) && fits_int(spec);
}

ScheduleSpec schedule_spec(ScheduleKind kind, int stages, int microbatches, int interleaved_chunks,
                           int vocab_slots) {
  if (kind != ScheduleKind::dualpipe && kind != ScheduleKind::v_half) {
    return ScheduleSpec{kind, stages, microbatches, interleaved_chunks, vocab_slots};
  }
  // Saturates instead of overflowing; check() then rejects any count other than 2.
  const std::int64_t chunks =
      std::min<std::int64_t>(2 * static_cast<std::int64_t>(interleaved_chunks), INT_MAX);
  return ScheduleSpec{kind, stages, microbatches, static_cast<int>(chunks), vocab_slots};
}

bool splits_backward(ScheduleKind kind) {
  return kind == ScheduleKind::zero_bubble_h1 || kind == ScheduleKind::dualpipe || kind == ScheduleKind::v_half ||
         is_auto_zero_bubble(kind);
}

int ops_per_stage(const ScheduleSpec& spec) {
  if (!is_valid(spec)) throw_invalid(spec);
  if (spec.kind == ScheduleKind::v_half) return 6 * spec.microbatches;
  if (splits_backward(spec.kind)) return 3 * spec.microbatches;
  return 2 * spec.chunks * spec.microbatches;
}

double ops_per_stage(ScheduleKind kind, double microbatches, double interleaved_chunks) {
  // V-Half: each microbatch passes each stage twice (once per chunk), F, B and W each time.
  if (kind == ScheduleKind::v_half) return 6 * microbatches;
  // ZB-H1, ZB-1p, ZB-2p: F, B and W once; DualPipe: once, through the chunk of the microbatch's direction.
  if (splits_backward(kind)) return 3 * microbatches;
  return 2 * interleaved_chunks * microbatches;
}

std::vector<PipelineOp> build_stage_schedule(const ScheduleSpec& spec, int stage) {
  if (!is_valid(spec)) throw_invalid(spec);
  if (stage < 0 || stage >= spec.stages) {
    throw std::invalid_argument("pipeline schedule: stage " + std::to_string(stage) + " is outside [0, " +
                                std::to_string(spec.stages) + ")");
  }
  StageOpCursor cursor(spec, stage);
  std::vector<PipelineOp> ops;
  ops.reserve(static_cast<std::size_t>(cursor.size()));
  while (!cursor.done()) ops.push_back(cursor.next());
  return ops;
}

std::vector<std::vector<PipelineOp>> build_schedule(const ScheduleSpec& spec) {
  if (!is_valid(spec)) throw_invalid(spec);
  std::vector<std::vector<PipelineOp>> per_stage;
  per_stage.reserve(static_cast<std::size_t>(spec.stages));
  for (int s = 0; s < spec.stages; ++s) per_stage.push_back(build_stage_schedule(spec, s));
  return per_stage;
}

}  // namespace clustersim
