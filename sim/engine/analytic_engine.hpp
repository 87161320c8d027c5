// The analytic engine: earliest-start evaluation of the StepGraph without contention.
//
// Each resource (a stage's compute stream, its data-parallel channel) runs its nodes in the graph's order;
// a node starts at max(resource free, dependency end + transfer delay) and runs for its duration. The
// step time is the latest optimizer end. O(nodes · stages) worst case, microseconds per configuration.
#pragma once

#include "sim/scenario/scenario.hpp"
#include "sim/engine/step_result.hpp"
#include "sim/graph/step_graph.hpp"

namespace clustersim {

/// Start/end of every node of `g`.
std::vector<NodeTiming> evaluate_timeline(const StepGraph& g);

/// Builds the graph, evaluates it and computes every metric of the step.
StepResult run_analytic(const Scenario& s);

/// Memory-model inputs of pipeline stage `stage` of a scenario under schedule `spec` (used by the engines'
/// reports and by the planner's memory pre-filter, so both count memory the same way).
MemoryInputs memory_inputs(const Scenario& s, const ScheduleSpec& spec, int stage);

/// zb-1p / zb-2p: the share of a micro-batch's stored activations (of the stage `in` describes) that a B
/// leaves for its deferred W: layer_weight_grad_kept_bytes over layer_activation_bytes under the run's
/// recompute and flash settings, dense and MoE layers weighted by their counts.
double zero_bubble_weight_share(const Scenario& s, const MemoryInputs& in);

/// Metrics shared by all engines: given a graph and its evaluated timeline, fill a StepResult.
StepResult summarize_step(const Scenario& s, const StepGraph& g, std::vector<NodeTiming> timeline,
                          std::string engine);

}  // namespace clustersim
