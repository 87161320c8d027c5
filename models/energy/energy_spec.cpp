#include "models/energy/energy_spec.hpp"

#include <fmt/format.h>

#include <cmath>

#include "models/energy/power_cap.hpp"

namespace clustersim {
namespace {
void append(std::vector<Diagnostic>& out, std::vector<Diagnostic> more) {
  for (auto& d : more) out.push_back(std::move(d));
}
}  // namespace

std::vector<Diagnostic> EnergySpec::validate(const std::string& pointer) const {
  std::vector<Diagnostic> out = device.validate(pointer + "/device");
  append(out, node.validate(pointer + "/node"));
  append(out, network.validate(pointer + "/network"));
  append(out, storage.validate(pointer + "/storage"));
  if (!std::isfinite(pue) || pue < 1.0) {
    out.push_back(
        {"", pointer + "/pue", fmt::format("PUE must be >= 1 (facility energy / IT energy), got {}", pue)});
  }
  if (!std::isfinite(carbon_intensity.value()) || carbon_intensity.value() < 0.0) {
    out.push_back({"", pointer + "/carbon_intensity",
                   fmt::format("carbon intensity must not be negative, got {} gCO2e/kWh",
                               carbon_intensity.value() * kJoulesPerKwh * 1000.0)});
  }
  append(out, pricing.validate(pointer + "/price"));
  if (power_cap) append(out, validate_power_cap(device, *power_cap, pointer + "/power_cap"));
  for (std::size_t i = 0; i < power_cap_sweep.size(); ++i) {
    append(out, validate_power_cap(device, power_cap_sweep[i], fmt::format("{}/power_cap_sweep/{}", pointer, i)));
  }
  return out;
}

}  // namespace clustersim
