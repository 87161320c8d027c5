#include "models/energy/energy_spec.hpp"

#include <fmt/format.h>

#include <cmath>

#include "models/energy/power_cap.hpp"

namespace clustersim {
std::vector<FieldProblem> EnergySpec::validate() const {
  std::vector<FieldProblem> out;
  append_under(out, "device", device.validate());
  append_under(out, "node", node.validate());
  append_under(out, "network", network.validate());
  append_under(out, "storage", storage.validate());
  // Upper bounds keep every figure finite (a PUE of 1e308 made the cluster's power infinite): no
  // facility is near them (PUE 1.1-2; grid intensity up to ~1,000 gCO2e/kWh for coal).
  constexpr double kMaxPue = 10.0;
  constexpr double kMaxGramsPerKwh = 1e5;
  if (!std::isfinite(pue) || pue < 1.0) {
    out.push_back({"pue", fmt::format("PUE must be >= 1 (facility energy / IT energy), got {}", pue)});
  } else if (pue > kMaxPue) {
    out.push_back({"pue", fmt::format("PUE {:g} is over the bound of {:g} (facility energy / IT energy)", pue, kMaxPue)});
  }
  const double grams_per_kwh = carbon_intensity.value() * kJoulesPerKwh * 1000.0;
  if (!std::isfinite(carbon_intensity.value()) || carbon_intensity.value() < 0.0) {
    out.push_back({"carbon_intensity",
                   fmt::format("carbon intensity must not be negative, got {} gCO2e/kWh", grams_per_kwh)});
  } else if (!(grams_per_kwh <= kMaxGramsPerKwh)) {
    out.push_back({"carbon_intensity", fmt::format("carbon intensity {:.3g} gCO2e/kWh is over the bound of {:g}",
                                                   grams_per_kwh, kMaxGramsPerKwh)});
  }
  append_under(out, "pricing", pricing.validate());
  if (power_cap) append_under(out, "power_cap", validate_power_cap(device, *power_cap));
  for (std::size_t i = 0; i < power_cap_sweep.size(); ++i) {
    append_under(out, fmt::format("power_cap_sweep[{}]", i), validate_power_cap(device, power_cap_sweep[i]));
  }
  return out;
}

}  // namespace clustersim
