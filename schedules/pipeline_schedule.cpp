#include "schedules/pipeline_schedule.hpp"

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
      return true;
  }
  return false;
}

// Per-stage op counts and global virtual-stage ids must stay within int.
bool fits_int(const ScheduleSpec& s) {
  const std::int64_t v = s.chunks, m = s.microbatches, p = s.stages;
  return 3 * v * m <= INT_MAX && p * v <= INT_MAX;
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
                       " (expected gpipe, 1f1b, interleaved-1f1b or zb-h1)");
  }
  if (spec.stages < 1)
    problems.push_back("stages must be at least 1 (got " + std::to_string(spec.stages) + ")");
  if (spec.microbatches < 1) {
    problems.push_back("microbatches must be at least 1 (got " + std::to_string(spec.microbatches) + ")");
  }
  if (spec.chunks < 1)
    problems.push_back("chunks must be at least 1 (got " + std::to_string(spec.chunks) + ")");
  if (spec.chunks > 1 && spec.kind != ScheduleKind::interleaved_1f1b) {
    problems.push_back("chunks > 1 needs interleaved-1f1b (got chunks = " + std::to_string(spec.chunks) +
                       " with " + name + ")");
  }
  if (spec.kind == ScheduleKind::interleaved_1f1b && spec.stages >= 1 && spec.microbatches >= 1 &&
      spec.microbatches % spec.stages != 0) {
    problems.push_back("interleaved-1f1b needs microbatches (" + std::to_string(spec.microbatches) +
                       ") divisible by stages (" + std::to_string(spec.stages) + ")");
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
         (spec.chunks == 1 || spec.kind == ScheduleKind::interleaved_1f1b) &&
         (spec.kind != ScheduleKind::interleaved_1f1b || spec.microbatches % spec.stages == 0) &&
         fits_int(spec);
}

int ops_per_stage(const ScheduleSpec& spec) {
  if (!is_valid(spec)) throw_invalid(spec);
  if (spec.kind == ScheduleKind::zero_bubble_h1) return 3 * spec.microbatches;
  return 2 * spec.chunks * spec.microbatches;
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
