#include "models/energy/dvfs.hpp"

#include <fmt/format.h>

#include <cmath>

namespace clustersim {

std::vector<FieldProblem> DvfsSpec::validate() const {
  std::vector<FieldProblem> out;
  if (!(exponent >= 1.0 && exponent <= 3.0)) {
    out.push_back(
        {"exponent", fmt::format("DVFS power exponent must be in [1, 3] (P ~ f for fixed voltage, f^3 when "
                                 "voltage scales with the clock), got {}",
                                 exponent)});
  }
  // At least 1 % of nominal: GPUs expose no lower application clock (≈ 0.1–0.15 of nominal on A100/H100),
  // and a tiny ratio makes a capped state's duration factor 1 − σ + σ/r overflow (1e-320 gave infinite
  // times and 0 B/s links in the power-cap what-if).
  if (!(min_clock_ratio >= 0.01 && min_clock_ratio <= 1.0)) {
    out.push_back(
        {"min_clock_ratio", fmt::format("minimum clock ratio must be in [0.01, 1], got {}", min_clock_ratio)});
  }
  for (DeviceState s : kAllDeviceStates) {
    const double k = clock_power_fraction[s];
    if (!(k >= 0.0 && k <= 1.0)) {
      out.push_back(
          {fmt::format("clock_power_fraction[{}]", to_string(s)),
           fmt::format("fraction of dynamic power on the core clock must be in [0, 1], got {}", k)});
    }
    const double sigma = clock_time_fraction[s];
    if (!(sigma >= 0.0 && sigma <= 1.0)) {
      out.push_back(
          {fmt::format("clock_time_fraction[{}]", to_string(s)),
           fmt::format("fraction of time that scales with the core clock must be in [0, 1], got {}", sigma)});
    }
  }
  return out;
}

double dynamic_power_factor(const DvfsSpec& dvfs, DeviceState s, double clock_ratio) {
  CS_ASSERT(clock_ratio > 0.0 && clock_ratio <= 1.0, "clock ratio out of (0, 1]");
  const double k = dvfs.clock_power_fraction[s];
  return (1.0 - k) + k * std::pow(clock_ratio, dvfs.exponent);
}

double duration_factor(const DvfsSpec& dvfs, DeviceState s, double clock_ratio) {
  CS_ASSERT(clock_ratio > 0.0 && clock_ratio <= 1.0, "clock ratio out of (0, 1]");
  const double sigma = dvfs.clock_time_fraction[s];
  return (1.0 - sigma) + sigma / clock_ratio;
}

}  // namespace clustersim
