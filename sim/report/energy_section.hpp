// The energy section of a prediction (per-step energy and power; per-run MWh, CO2e and cost).
#pragma once

#include "sim/report/prediction.hpp"

namespace clustersim {

/// Fills p.energy_json and p.energy_text when s.energy is present (using p.run when present).
void add_energy_section(const Scenario& s, Prediction& p);

}  // namespace clustersim
