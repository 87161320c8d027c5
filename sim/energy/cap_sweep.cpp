#include "sim/energy/cap_sweep.hpp"

#include "sim/core/diagnostics.hpp"

namespace clustersim {

StepActivity apply_cap_to_activity(const StepActivity& activity, const PowerCapEffect& effect) {
  StepActivity base = normalized(activity);
  StepActivity out;
  out.step_time = Seconds(0);
  for (const auto& rep : base.devices) {
    RepresentativeActivity scaled = rep;
    Seconds busy{0};
    for (DeviceState s : kAllDeviceStates) {
      if (s == DeviceState::waiting) continue;
      scaled.time[s] = rep.time[s] * effect.slowdown[s];
      busy += scaled.time[s];
    }
    // waiting keeps its uncapped duration; normalized() below adds the wait for the slowest device.
    out.step_time = max(out.step_time, busy + rep.time[DeviceState::waiting]);
    out.devices.push_back(std::move(scaled));
  }
  CS_ASSERT(out.step_time.value() > 0.0, "capped step time must be positive");
  return normalized(std::move(out));
}

std::vector<CapSweepPoint> sweep_power_caps(const EnergySpec& spec, const ClusterShape& shape,
                                            const StepActivity& uncapped, double tokens_per_step,
                                            const std::vector<Watts>& caps) {
  std::vector<CapSweepPoint> out;
  out.reserve(caps.size());
  const double devices = static_cast<double>(shape.devices());
  for (Watts cap : caps) {
    CapSweepPoint p;
    p.cap = cap;
    p.effect = apply_power_cap(spec.device, cap);
    const StepActivity capped = apply_cap_to_activity(uncapped, p.effect);
    p.step_time_factor = capped.step_time / uncapped.step_time;
    EnergySpec capped_spec = spec;
    capped_spec.power_cap = cap;
    p.energy = compute_step_energy(capped_spec, shape, capped, tokens_per_step);
    const Usd per_step = spec.pricing.electricity * p.energy.per_step +
                         spec.pricing.device_time_rate() * capped.step_time * devices;
    p.cost_per_token = per_step / tokens_per_step;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace clustersim
