#include "sim/energy/step_energy.hpp"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "models/energy/power_cap.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/core/sort_runs.hpp"

namespace clustersim {
namespace {

Watts nic_power_per_node(const EnergySpec& spec) {
  return spec.node.nic * static_cast<double>(spec.node.nics);
}

long long total_nics(const EnergySpec& spec, const ClusterShape& shape) {
  return static_cast<long long>(shape.nodes) * spec.node.nics;
}

// Largest board power among the states representative `rep` actually visits.
Watts representative_peak(const RepresentativeActivity& rep, const PerState<Watts>& power) {
  Watts peak{0};
  for (DeviceState s : kAllDeviceStates) {
    if (rep.time[s].value() > 0.0) peak = max(peak, power[s]);
  }
  return peak;
}

// Maximum over time of sum_d m_d * P(state of d at t), by a sweep over the points where some
// representative changes power. `resolved` holds each representative's exclusive, gap-free cover.
Watts timeline_device_power_peak(const ResolvedTimeline& timeline, const PerState<Watts>& power) {
  const auto& resolved = timeline.covers;
  static thread_local std::vector<std::pair<double, double>> changes;  // (time, change of summed watts)
  changes.clear();
  double at_start = 0.0;
  for (std::size_t d = 0; d < resolved.size(); ++d) {
    const double m = timeline.multiplicity[d];
    const auto& segs = resolved[d];
    if (segs.empty()) continue;
    at_start += power[segs.front().state].value() * m;
    for (std::size_t i = 1; i < segs.size(); ++i) {
      const double dw = (power[segs[i].state].value() - power[segs[i - 1].state].value()) * m;
      if (dw != 0.0) changes.emplace_back(segs[i].start.value(), dw);
    }
  }
  sort_runs(changes, std::less<>());  // one sorted run per representative
  double current = at_start;
  double peak = at_start;
  std::size_t i = 0;
  while (i < changes.size()) {
    const double t = changes[i].first;
    while (i < changes.size() && changes[i].first == t) current += changes[i++].second;
    peak = std::max(peak, current);
  }
  return Watts(peak);
}

StepEnergy integrate(const EnergySpec& spec, const ClusterShape& shape, const StepActivity& raw,
                     double tokens, const ResolvedTimeline* timeline) {
  CS_ASSERT(tokens > 0.0, "tokens per step must be positive");
  CS_ASSERT(shape.nodes > 0 && shape.devices_per_node > 0, "cluster shape must be positive");
  CS_ASSERT(raw.device_count() == shape.devices(), "representative multiplicities must cover every device");
  const StepActivity activity = normalized(raw);
  const Seconds T = activity.step_time;
  const double devices = static_cast<double>(shape.devices());

  StepEnergy e;
  e.step_time = T;
  e.tokens = tokens;
  e.state_power = effective_state_power(spec.device, spec.power_cap);

  Watts device_peak{0};
  Watts summed_device_peak{0};
  for (const auto& rep : activity.devices) {
    const double m = rep.multiplicity;
    for (DeviceState s : kAllDeviceStates) {
      e.device_seconds[s] += rep.time[s] * m;
      e.device_joules[s] += e.state_power[s] * rep.time[s] * m;
    }
    const Watts rp = representative_peak(rep, e.state_power);
    device_peak = max(device_peak, rp);
    summed_device_peak += rp * m;
  }
  for (DeviceState s : kAllDeviceStates) e.by_component.devices += e.device_joules[s];
  e.by_component.hosts = spec.node.host * T * static_cast<double>(shape.nodes);
  const Watts network = nic_power_per_node(spec) * static_cast<double>(shape.nodes) +
                        spec.network.for_nics(total_nics(spec, shape));
  e.by_component.network = network * T;
  const Joules it = e.by_component.devices + e.by_component.hosts + e.by_component.network;
  e.by_component.cooling = it * (spec.pue - 1.0);

  e.per_step = e.by_component.total();
  e.per_token = e.per_step / tokens;
  e.per_device = e.per_step / devices;

  const Watts node_static = spec.node.host + nic_power_per_node(spec);
  e.avg_power.device = e.by_component.devices / T / devices;
  e.avg_power.node = e.avg_power.device * static_cast<double>(shape.devices_per_node) + node_static;
  e.avg_power.cluster = e.per_step / T;

  e.peak_power.device = device_peak;
  e.peak_power.node = device_peak * static_cast<double>(shape.devices_per_node) + node_static;
  Watts device_sum_peak = summed_device_peak;
  if (timeline != nullptr) {
    device_sum_peak = timeline_device_power_peak(*timeline, e.state_power);
    e.peak_is_upper_bound = false;
  }
  e.peak_power.cluster = (device_sum_peak + static_it_power(spec, shape)) * spec.pue;
  return e;
}

}  // namespace

Watts static_it_power(const EnergySpec& spec, const ClusterShape& shape) {
  return (spec.node.host + nic_power_per_node(spec)) * static_cast<double>(shape.nodes) +
         spec.network.for_nics(total_nics(spec, shape));
}

StepEnergy compute_step_energy(const EnergySpec& spec, const ClusterShape& shape,
                               const StepActivity& activity, double tokens_per_step) {
  return integrate(spec, shape, activity, tokens_per_step, nullptr);
}

StepEnergy compute_step_energy(const EnergySpec& spec, const ClusterShape& shape,
                               const StepTimeline& timeline, double tokens_per_step) {
  return compute_step_energy(spec, shape, resolve_timeline(timeline), tokens_per_step);
}

StepEnergy compute_step_energy(const EnergySpec& spec, const ClusterShape& shape,
                               const ResolvedTimeline& timeline, double tokens_per_step) {
  return integrate(spec, shape, activity_of(timeline), tokens_per_step, &timeline);
}

StepEnergy compute_step_energy(const EnergySpec& spec, const ClusterShape& shape,
                               const ResolvedTimeline& timeline, const StepActivity& activity,
                               double tokens_per_step) {
  return integrate(spec, shape, activity, tokens_per_step, &timeline);
}

}  // namespace clustersim
