// Test-only list-scheduling evaluator for pipeline schedules.
//
// Each stage runs its op list in order; an op starts when the stage is free, its data dependency
// (schedules/pipeline_deps.hpp) has finished (plus `p2p_latency` if it crosses stages) and, for a
// backward, the same stage's forward of that (microbatch, chunk) has finished. Integer time units keep
// the bubble checks exact. A schedule that cannot make progress is reported as a deadlock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedules/pipeline_schedule.hpp"

namespace clustersim::test {

struct OpTimes {
  std::int64_t forward = 1;
  std::int64_t backward = 2;  // fused B+W
  std::int64_t backward_input = 1;
  std::int64_t backward_weight = 1;
  std::int64_t p2p_latency = 0;
};

struct Timeline {
  bool deadlock = false;
  std::int64_t makespan = 0;
  std::vector<std::int64_t> busy;                 // per stage: sum of its op times
  std::vector<std::vector<std::int64_t>> start;   // [stage][position in the stage's op list]
  std::vector<std::vector<std::int64_t>> finish;  // [stage][position]

  [[nodiscard]] std::int64_t idle(int stage) const {
    return makespan - busy[static_cast<std::size_t>(stage)];
  }
};

Timeline run_list_schedule(const ScheduleSpec& spec, const std::vector<std::vector<PipelineOp>>& schedule,
                           const OpTimes& times = {});

/// A stage's op list as space-separated to_string(op) tokens, for comparing orders in tests.
std::string op_listing(const std::vector<PipelineOp>& ops);

}  // namespace clustersim::test
