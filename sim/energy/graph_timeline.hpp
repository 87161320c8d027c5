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

#include <array>
#include <cstddef>
#include <cstdint>
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
/// One compute-stream position of a stage as the totals scan reads it (graph_timeline.cpp): the op's
/// times, its pipeline delay and its split fractions. Compared bit for bit with the next call's node.
struct StageScanInput {
  double t0 = 0, t1 = 0, delay = 0, compute = 0, memory = 0;
  std::int32_t id = 0;
  std::int32_t cost = -1;  // the node's index into StepGraph::costs
  std::int32_t mode = 0;   // 0 optimizer, 1 one compute piece, 2 split into compute / memory / communication
};

/// The totals scan of one stage between two positions: everything it carries from one op to the next.
struct StageScanState {
  double total[kDeviceStateCount] = {};
  double oa = 0, ob = 0, cursor = 0, prev_end = 0;
  double seen = 0;  // latest raw time taken so far (before clamping to the step end)
  std::size_t os = 0, j = 0, top_size = 0, position = 0;
  bool open = false;
};

/// A stage's previous scan: its inputs, its data-parallel intervals, and its state every few positions.
struct StageScanMemo {
  bool valid = false;
  double end_of_step = 0;
  std::size_t top_size = 0;  // size of the stage's `top` list when the call finished
  std::array<bool, kDeviceStateCount> is_top{};
  std::vector<StageScanInput> inputs;
  std::vector<std::pair<double, double>> dp;
  std::vector<StageScanState> checkpoints;  // checkpoints[k].position == k * kStageScanCheckpointEvery
};
inline constexpr std::size_t kStageScanCheckpointEvery = 16;

struct TimelineTotals {
  StepActivity activity;
  Watts device_power_peak{0};
  std::vector<std::vector<std::pair<double, double>>> top;  // per stage: segments in a largest-power state
  /// Prefix memo of the previous call (a sweep calls once per point with this same object): a stage whose
  /// scan inputs agree with the last call's up to a position and an instant resumes from the last state
  /// kept before both, so only the part of the step that changed is scanned again. The scan is a
  /// deterministic function of its inputs, so the totals are the same to the bit (tests/energy compare
  /// with `memo_on` false, which scans every stage from its start).
  std::vector<StageScanMemo> memo;
  std::vector<double> memo_splits;  // the op splits the memo's inputs were written with (3 per cost)
  bool memo_on = true;
  std::size_t positions_rescanned = 0;  // positions scanned by the last call (tests read it)
};

/// Fills `out` and returns true; returns false (out unspecified) when a stage's streams are out of order
/// or no instant has every stage at the largest power: the caller then resolves the covers.
bool timeline_totals(const StepGraph& g, const std::vector<NodeTiming>& timing, Seconds step_time,
                     int devices_per_stage, const PerState<Watts>& power, TimelineTotals& out);

}  // namespace clustersim
