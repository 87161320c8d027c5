// Power-cap what-if: step time, energy per token and cost per token side by side for a list of caps.
//
// APPROXIMATE. Each representative's time in each state is scaled independently by the cap's slowdown
// (models/energy/power_cap.hpp): compute by 1/r, memory and communication much less, waiting and idle
// not at all. The capped step time is the longest scaled representative; shorter ones wait for it
// (their `waiting` grows). Real dependencies (pipeline stages waiting on a slowed stage, overlap of
// communication with slowed compute) can make the true effect larger or smaller; the engine re-runs
// the StepGraph with the slowdown factors for an exact answer.
#pragma once

#include <vector>

#include "models/energy/energy_spec.hpp"
#include "models/energy/power_cap.hpp"
#include "sim/energy/cluster_shape.hpp"
#include "sim/energy/step_activity.hpp"
#include "sim/energy/step_energy.hpp"

namespace clustersim {

struct CapSweepPoint {
  Watts cap{0};
  PowerCapEffect effect;
  double step_time_factor = 1.0;  // capped step time / uncapped step time
  StepEnergy energy;              // per step under the cap (energy.step_time is the capped step time)
  Usd cost_per_token{0};          // electricity + device time, per token
};

/// Scales `activity` by `effect` as described above.
StepActivity apply_cap_to_activity(const StepActivity& activity, const PowerCapEffect& effect);

/// One point per cap, in the given order. spec.power_cap is ignored (each cap replaces it).
/// Preconditions: as compute_step_energy; every cap > 0.
std::vector<CapSweepPoint> sweep_power_caps(const EnergySpec& spec, const ClusterShape& shape,
                                            const StepActivity& uncapped, double tokens_per_step,
                                            const std::vector<Watts>& caps);

}  // namespace clustersim
