#include "sim/energy/scenario_energy.hpp"

#include <optional>

#include "sim/core/diagnostics.hpp"
#include "models/energy/power_cap.hpp"
#include "sim/energy/capped_scenario.hpp"
#include "sim/energy/graph_timeline.hpp"
#include "sim/engine/analytic_engine.hpp"

namespace clustersim {
namespace {

// Step energy of `s` run as given (no cap applied to the device here) with state powers of `spec`.
ScenarioStepEnergy evaluate(const Scenario& s, const EnergySpec& spec,
                            const std::vector<NodeTiming>* given = nullptr,
                            const StepGraph* given_graph = nullptr) {
  std::optional<StepGraph> built;
  if (given_graph == nullptr || given == nullptr) built = build_step_graph(s);
  const StepGraph& g = built ? *built : *given_graph;
  // An engine timeline is per node of this same graph; anything else is re-evaluated analytically.
  const bool use_given = given != nullptr && given->size() == g.nodes.size();
  std::vector<NodeTiming> evaluated;
  if (!use_given) evaluated = evaluate_timeline(g);
  const std::vector<NodeTiming>& timing = use_given ? *given : evaluated;
  // Latest end: four running maxima (max is exact in any order, so the same figure to the bit) break the
  // dependency of one maximum on the previous, as summarize_step does.
  Seconds part[4] = {Seconds(0), Seconds(0), Seconds(0), Seconds(0)};
  std::size_t i = 0;
  for (; i + 4 <= timing.size(); i += 4) {
    for (std::size_t k = 0; k < 4; ++k) part[k] = max(part[k], timing[i + k].end);
  }
  for (; i < timing.size(); ++i) part[0] = max(part[0], timing[i].end);
  const Seconds step_time = max(max(part[0], part[1]), max(part[2], part[3]));
  const int pp = s.parallelism.pp;
  CS_ASSERT(s.cluster.devices() % pp == 0, "pipeline stages must split the devices evenly");
  ScenarioStepEnergy out;
  const double tokens = static_cast<double>(s.training.global_batch) * s.training.seq_len;
  const ClusterShape shape = cluster_shape_of(s);
  // Per thread and reused: a sweep reads one timeline per point. The time per state and, in the usual
  // case, the power peak come straight from the merged streams; otherwise the covers are resolved.
  static thread_local TimelineTotals totals;
  if (timeline_totals(g, timing, step_time, s.cluster.devices() / pp,
                      effective_state_power(spec.device, spec.power_cap), totals)) {
    out.activity = totals.activity;
    out.energy = compute_step_energy(spec, shape, out.activity, tokens, totals.device_power_peak);
  } else {
    static thread_local ResolvedTimeline resolved;
    resolved_timeline_into(g, timing, step_time, s.cluster.devices() / pp, resolved);
    out.activity = activity_of(resolved);
    out.energy = compute_step_energy(spec, shape, resolved, out.activity, tokens);
  }
  out.cost_per_step = spec.pricing.electricity * out.energy.per_step +
                      spec.pricing.device_time_rate() * step_time * static_cast<double>(shape.devices());
  return out;
}

}  // namespace

ClusterShape cluster_shape_of(const Scenario& s) {
  return ClusterShape{s.cluster.nodes, s.cluster.node.devices_per_node};
}

ScenarioStepEnergy scenario_step_energy(const Scenario& s, const std::vector<NodeTiming>* engine_timing,
                                        const StepGraph* engine_graph) {
  CS_ASSERT(s.energy.has_value(), "scenario without an energy spec");
  const EnergySpec& spec = *s.energy;
  if (!spec.power_cap) return evaluate(s, spec, engine_timing, engine_graph);
  return evaluate(capped_scenario(s, apply_power_cap(spec.device, *spec.power_cap)), spec);
}

std::vector<CapSweepPoint> sweep_power_caps_through_engine(const Scenario& s) {
  CS_ASSERT(s.energy.has_value(), "scenario without an energy spec");
  EnergySpec uncapped = *s.energy;
  uncapped.power_cap.reset();
  const Seconds base = evaluate(s, uncapped).energy.step_time;
  std::vector<CapSweepPoint> out;
  for (Watts cap : s.energy->power_cap_sweep) {
    CapSweepPoint p;
    p.cap = cap;
    p.effect = apply_power_cap(uncapped.device, cap);
    EnergySpec spec = uncapped;
    spec.power_cap = cap;
    const ScenarioStepEnergy e = evaluate(capped_scenario(s, p.effect), spec);
    p.energy = e.energy;
    p.step_time_factor = e.energy.step_time / base;
    p.cost_per_token = e.cost_per_step / e.energy.tokens;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace clustersim
