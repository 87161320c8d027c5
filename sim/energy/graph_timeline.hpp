// Device-state timeline of one step, read off the evaluated StepGraph (one representative per pipeline
// stage; every device of a stage — all its TP, CP and DP ranks — behaves alike: docs/architecture.md, symmetry).
//
// Mapping of graph nodes to DeviceStates (models/energy/device_state.hpp):
//   forward/backward op [start, end] on the compute stream, split in the proportions of its OpCost:
//     compute_bound -> compute, (compute - compute_bound) -> memory, tp + cp + dp comm -> communication
//     (laid out in that order inside the op; the order changes no energy, only the instant of the peak)
//   gap before an op, up to its pipeline transfer delay (pp exposed)       -> communication
//   optimizer step (Adam/SGD update is bandwidth-bound)                     -> memory
//   dp_sync on the data-parallel channel (gradient reduction)               -> communication
//   anything else inside the step (bubble, waiting for the slowest stage)   -> waiting
// Overlaps (dp_sync under backward compute) resolve by precedence in sim/energy/device_timeline.hpp.
#pragma once

#include <utility>
#include <vector>

#include "sim/energy/step_activity.hpp"

#include "sim/energy/device_timeline.hpp"
#include "sim/engine/step_result.hpp"
#include "sim/graph/step_graph.hpp"

namespace clustersim {

/// Preconditions (asserted): timing.size() == g.nodes.size(); step_time > 0; devices_per_stage > 0.
StepTimeline step_timeline_of(const StepGraph& g, const std::vector<NodeTiming>& timing, Seconds step_time,
                              int devices_per_stage);

/// The same step as resolve_timeline(step_timeline_of(...)), computed without materialising the
/// overlapping intervals: each stage's compute stream and data-parallel channel are each in time order, so
/// their exclusive cover is a linear merge (a stage whose streams are not in order is resolved the general
/// way). Identical covers; this is what the energy report uses.
ResolvedTimeline resolved_timeline_of(const StepGraph& g, const std::vector<NodeTiming>& timing,
                                      Seconds step_time, int devices_per_stage);
/// The same into `out`, reusing its storage (sweeps call this once per point).
void resolved_timeline_into(const StepGraph& g, const std::vector<NodeTiming>& timing, Seconds step_time,
                            int devices_per_stage, ResolvedTimeline& out);

/// What the energy report needs of a step's covers without storing them: each stage's time per state
/// (activity_of(resolved_timeline_of(...)) to the bit: the same merged segments summed in the same order)
/// and the peak of the devices' summed power, read off when at one instant every stage is in a state of
/// the largest power (no instant can then exceed Σ_d m_d P_max; the figure is that sum taken in stage
/// order, as timeline_device_power_peak sums an instant). Storage of `out` is reused across calls.
struct TimelineTotals {
  StepActivity activity;
  Watts device_power_peak{0};
  std::vector<std::vector<std::pair<double, double>>> top;  // per stage: segments in a largest-power state
};

/// Fills `out` and returns true; returns false (out unspecified) when a stage's streams are out of order
/// or no instant has every stage at the largest power: the caller then resolves the covers.
bool timeline_totals(const StepGraph& g, const std::vector<NodeTiming>& timing, Seconds step_time,
                     int devices_per_stage, const PerState<Watts>& power, TimelineTotals& out);

}  // namespace clustersim
