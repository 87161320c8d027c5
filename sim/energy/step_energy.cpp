#include "sim/energy/step_energy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "models/energy/power_cap.hpp"
#include "sim/core/diagnostics.hpp"

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

// Maximum over time of sum_d m_d * P(state of d at t). `resolved` holds each representative's exclusive,
// gap-free cover of [0, T], so the maximum is reached at the start of some segment. The summed power at an
// instant is evaluated directly, sum_d m_d * P(state of d), in representative order (not as a running sum
// of changes): the figure is the same whatever the order of the instants, and carries no accumulated
// rounding. Without a sort of every change: the step is cut into windows; a window's bound is the sum over
// representatives of the largest power each has in it; windows are evaluated instant by instant only while
// their bound exceeds the best instant found (floating-point addition is monotone, so a bound not above the
// best cannot hide a larger instant). In a pipeline step every stage computes at once somewhere, so the
// first window evaluated usually reaches every other window's bound.
Watts timeline_device_power_peak(const ResolvedTimeline& timeline, const PerState<Watts>& power) {
  const auto& covers = timeline.covers;
  const std::size_t reps = covers.size();
  const double T = timeline.step_time.value();
  std::size_t segments = 0;
  for (const auto& c : covers) segments += c.size();
  if (segments == 0 || !(T > 0.0)) return Watts(0);
  const std::size_t windows = std::clamp<std::size_t>(segments / 16, 1, 1 << 16);
  // Window w holds the instants t with edge[w] <= t < edge[w + 1] (the last one up to the end).
  static thread_local std::vector<double> edge;
  edge.resize(windows + 1);
  for (std::size_t w = 0; w < windows; ++w) edge[w] = T * static_cast<double>(w) / static_cast<double>(windows);
  edge[windows] = std::numeric_limits<double>::infinity();
  // Largest state power of each representative in each window its segments reach (0 elsewhere): a
  // segment [a, b) reaches the windows from a's to the last one starting before b.
  static thread_local std::vector<double> most;
  most.assign(reps * windows, 0.0);
  for (std::size_t d = 0; d < reps; ++d) {
    double* row = most.data() + d * windows;
    std::size_t w = 0;
    for (const StateInterval& seg : covers[d]) {
      const double p = power[seg.state].value();
      while (edge[w + 1] <= seg.start.value()) ++w;
      row[w] = std::max(row[w], p);
      for (std::size_t v = w + 1; edge[v] < seg.end.value(); ++v) row[v] = std::max(row[v], p);
    }
  }
  static thread_local std::vector<double> bound;
  bound.assign(windows, 0.0);
  for (std::size_t w = 0; w < windows; ++w) {
    double b = 0.0;
    for (std::size_t d = 0; d < reps; ++d) b += most[d * windows + w] * timeline.multiplicity[d];
    bound[w] = b;
  }
  static thread_local std::vector<double> instants;
  static thread_local std::vector<std::size_t> cursor;
  cursor.resize(reps);
  double best = -1.0;
  // The summed power at every segment start inside window w.
  const auto evaluate = [&](std::size_t w) {
    instants.clear();
    for (std::size_t d = 0; d < reps; ++d) {
      const auto& c = covers[d];
      // First segment starting in window w or later; the one before it is current on entry.
      const auto it = std::partition_point(c.begin(), c.end(),
                                           [&](const StateInterval& x) { return x.start.value() < edge[w]; });
      cursor[d] = static_cast<std::size_t>(it - c.begin());
      for (auto j = it; j != c.end() && j->start.value() < edge[w + 1]; ++j) instants.push_back(j->start.value());
    }
    std::sort(instants.begin(), instants.end());
    instants.erase(std::unique(instants.begin(), instants.end()), instants.end());
    for (double t : instants) {
      double sum = 0.0;
      for (std::size_t d = 0; d < reps; ++d) {
        const auto& c = covers[d];
        if (c.empty()) continue;
        std::size_t& j = cursor[d];
        while (j < c.size() && c[j].start.value() <= t) ++j;
        sum += power[c[j == 0 ? 0 : j - 1].state].value() * timeline.multiplicity[d];
      }
      best = std::max(best, sum);
    }
  };
  evaluate(static_cast<std::size_t>(std::max_element(bound.begin(), bound.end()) - bound.begin()));
  for (std::size_t w = 0; w < windows; ++w) {
    if (bound[w] > best) evaluate(w);
  }
  return Watts(std::max(best, 0.0));
}

StepEnergy integrate(const EnergySpec& spec, const ClusterShape& shape, const StepActivity& raw,
                     double tokens, const ResolvedTimeline* timeline, const Watts* timeline_peak = nullptr) {
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
  if (timeline_peak != nullptr) {
    device_sum_peak = *timeline_peak;
    e.peak_is_upper_bound = false;
  } else if (timeline != nullptr) {
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

StepEnergy compute_step_energy(const EnergySpec& spec, const ClusterShape& shape, const StepActivity& activity,
                               double tokens_per_step, Watts timeline_device_power_peak) {
  return integrate(spec, shape, activity, tokens_per_step, nullptr, &timeline_device_power_peak);
}

}  // namespace clustersim
