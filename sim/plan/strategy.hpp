// One parallelization strategy the planner considers: degrees of parallelism, interleaving, micro-batch,
// recomputation, ZeRO stage, schedule, sequence parallelism and (for device ranges) the node count.
#pragma once

#include <string>

#include "models/training_options.hpp"
#include "schedules/schedule_kind.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim::plan {

struct Strategy {
  int nodes = 1;
  int tp = 1, pp = 1, dp = 1, cp = 1, vp = 1;
  int ep = 1, etp = 1;  // expert parallelism (MoE models only)
  int micro_batch = 1;
  Recompute recompute = Recompute::none;
  int zero_stage = 0;
  ScheduleKind schedule = ScheduleKind::one_f_one_b;
  bool sequence_parallel = false;
};

/// The parallelism fields the strategy sets (every other field default).
ParallelismSpec parallelism_of(const Strategy& st);

/// Writes the strategy into a copy of the experiment's scenario (every other field kept).
void apply(const Strategy& st, Scenario& s);

/// "TP8 PP5 DP128 CP1 VP3 mb1 interleaved-1f1b recompute=selective ZeRO-1 +SP" (plus " EP8 ETP1" for
/// MoE strategies and " nodes=N" when `with_nodes`).
std::string describe(const Strategy& st, bool with_nodes = false);

/// "none", "selective", "full".
const char* recompute_name(Recompute r);

}  // namespace clustersim::plan
