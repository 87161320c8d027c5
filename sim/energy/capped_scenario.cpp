#include "sim/energy/capped_scenario.hpp"

#include "sim/core/diagnostics.hpp"

namespace clustersim {

Scenario capped_scenario(const Scenario& s, const PowerCapEffect& effect) {
  Scenario out = s;
  if (!effect.binding) return out;
  const double compute = effect.slowdown[DeviceState::compute];
  const double memory = effect.slowdown[DeviceState::memory];
  const double comm = effect.slowdown[DeviceState::communication];
  CS_ASSERT(compute >= 1.0 && memory >= 1.0 && comm >= 1.0, "a power cap never speeds a state up");
  DeviceSpec& dev = out.cluster.node.device;
  for (auto& [precision, peak] : dev.peak) peak = peak / compute;
  dev.memory_bandwidth = dev.memory_bandwidth / memory;
  out.cluster.node.intra.bandwidth = out.cluster.node.intra.bandwidth / comm;
  out.cluster.node.nic.bandwidth = out.cluster.node.nic.bandwidth / comm;
  return out;
}

}  // namespace clustersim
