#include "sim/engine/straggler_effect.hpp"

#include <algorithm>
#include <set>

namespace clustersim {

std::vector<double> stage_speeds(const Scenario& s) {
  const ParallelismSpec& par = s.parallelism;
  std::vector<double> speed(static_cast<std::size_t>(par.pp), 1.0);
  const int per_stage = par.tp * par.cp * par.dp;
  for (const DeviceSlowdown& d : s.stragglers.devices) {
    const int stage = d.device / per_stage;
    if (stage < par.pp) speed[static_cast<std::size_t>(stage)] = std::min(speed[static_cast<std::size_t>(stage)], d.speed);
  }
  return speed;
}

void apply_device_stragglers(const Scenario& s, StepGraph& g) {
  if (s.stragglers.devices.empty()) return;
  const std::vector<double> speed = stage_speeds(s);
  std::set<int> scaled;  // cost entries are per (stage, chunk): scale each once
  for (StepNode& n : g.nodes) {
    const double v = speed[static_cast<std::size_t>(n.stage)];
    if (v >= 1.0 || n.resource != Resource::compute) continue;
    if (n.kind == NodeKind::optimizer) {
      n.duration = n.duration / v;
      continue;
    }
    if (n.cost < 0) continue;
    OpCost& c = g.costs[static_cast<std::size_t>(n.cost)];
    if (scaled.insert(n.cost).second) {
      c.compute = c.compute / v;
      c.recompute = c.recompute / v;
      c.compute_bound = c.compute_bound / v;
    }
  }
  for (StepNode& n : g.nodes) {
    if (n.resource == Resource::compute && n.kind != NodeKind::optimizer && n.cost >= 0) {
      n.duration = g.costs[static_cast<std::size_t>(n.cost)].duration();
    }
  }
}

}  // namespace clustersim
