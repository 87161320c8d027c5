// Everything the report needs about a training run with failures (report keys in comments).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/scenario/failure_class.hpp"
#include "sim/scenario/run_spec.hpp"
#include "sim/run/sample_summary.hpp"
#include "sim/run/trial.hpp"

namespace clustersim::run {

/// Mean lost wall time per run by kind (run.lost_time_s). `repair_wait` and `degraded` extend the
/// specification: time waiting for a repaired node, and extra time running with fewer DP replicas.
struct LostTime {
  Seconds recompute{0};
  Seconds restart{0};
  Seconds repair_wait{0};
  Seconds restore{0};
  Seconds checkpoint_stall{0};
  Seconds straggler{0};
  Seconds degraded{0};
};

/// run.checkpoint
struct CheckpointReport {
  Bytes size{0};
  Seconds write{0};             // time to make one checkpoint durable
  Seconds stall{0};             // training time lost per checkpoint
  Seconds restore{0};
  Seconds interval{0};          // used (whole steps)
  Seconds optimal_interval{0};  // Young √(2·stall·MTBF)
  CheckpointMode mode = CheckpointMode::sync;
  CheckpointTier tier = CheckpointTier::storage;
};

/// One row of the what-if table: the same run with another checkpoint interval / mode.
struct WhatIfRow {
  Seconds interval{0};
  CheckpointMode mode = CheckpointMode::sync;
  bool feasible = true;  // false if the policy is invalid for this job (e.g. async interval < drain)
  double goodput_mean = 0.0;
  Seconds wall_time_mean{0};
};

struct RunResult {
  std::int64_t steps = 0;
  int trials = 0;
  Seconds useful_time{0};                  // steps × step time: the failure-free, straggler-free wall time
  double tokens = 0;                       // tokens trained (run.tokens)
  std::int64_t ramp_steps = 0;             // steps of the batch ramp (run.batch_ramp), 0 without one
  double ramp_tokens = 0;
  Seconds ramp_time{0};                    // their failure-free time
  Summary<Seconds> wall_time;              // run.wall_time_s
  Summary<double> goodput;                 // run.goodput = useful_time / wall time, per trial
  std::array<double, kComponentClassCount> interruptions_mean{};  // run.interruptions by cause
  double interruptions_total_mean = 0.0;
  LostTime lost_time_mean;                 // run.lost_time_s
  CheckpointReport checkpoint;             // run.checkpoint
  Seconds job_mtbf{0};                     // run.job_mtbf_s (unplanned interruptions)
  Seconds mean_time_between_interruptions{0};  // planned included
  double straggler_slowdown = 1.0;         // expected step-time multiplier from stragglers
  Seconds restart_time{0};                 // restart_base + per_device × devices
  std::vector<TrialOutcome> trial_outcomes;  // per trial, in trial order: state times for energy
  std::vector<WhatIfRow> what_if;          // sorted by (interval, mode)
};

}  // namespace clustersim::run
