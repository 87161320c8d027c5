// A run spec resolved against one job: every figure the Monte Carlo needs, computed once.
//
//   steps          = steps, or ceil(tokens / tokens_per_step)
//   useful_time    = steps × step_time                           (failure-free, straggler-free)
// With a batch ramp (JobShape::ramp, sim/run/batch_ramp.hpp) the ramp's steps come first at their own
// step times and tokens: steps = ramp steps + the final batch's steps (ceil of the tokens left, or the
// steps left), useful_time = sum of ramp steps × their step times + final steps × step_time.
//   slowdown       = E[max over devices] (straggler_model.hpp)
//   interval       = the configured interval, or auto = max(Young √(2·stall·MTBF), drain, 1 step),
//                    rounded to whole steps (frameworks checkpoint every N steps)
//   restart        = restart_base + restart_per_device × devices
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/diagnostics.hpp"
#include "sim/core/units.hpp"
#include "sim/run/checkpoint_model.hpp"
#include "sim/run/failure_process.hpp"
#include "sim/run/job_shape.hpp"
#include "sim/scenario/run_spec.hpp"

namespace clustersim::run {

struct RunPlan {
  std::int64_t steps = 0;
  Seconds useful_time{0};
  double tokens = 0;               // tokens trained (steps × their tokens per step)
  std::int64_t ramp_steps = 0;     // of which in the batch ramp (JobShape::ramp)
  double ramp_tokens = 0;
  Seconds ramp_time{0};
  double straggler_slowdown = 1.0;
  Seconds interval{0};          // progress between checkpoints (whole steps)
  Seconds optimal_interval{0};  // Young's √(2·stall·MTBF), before rounding and clamping
  CheckpointMode mode = CheckpointMode::sync;
  CheckpointTier tier = CheckpointTier::storage;
  CheckpointCosts checkpoint;
  Seconds restart{0};
  RecoverySpec recovery;
  FailureModelSpec failures;
  int nodes = 1;
  int dp = 1;
  int nodes_per_leaf_switch = 1;
  FailureProcess process;
};

/// Cross-field checks that need the step-level figures (interval vs write time and step time, run
/// length). Fields of the RunSpec: checkpoint.interval, steps, tokens. Preconditions: spec.validate()
/// and job.validate() are empty.
std::vector<FieldProblem> validate_against_job(const RunSpec& spec, const JobShape& job);

/// Validates spec (both levels) and resolves the plan. Throws SpecError with every problem of the spec
/// (RunSpec member paths); a job that fails job.validate() is a bug upstream (InternalError).
RunPlan make_run_plan(const RunSpec& spec, const JobShape& job);

}  // namespace clustersim::run
