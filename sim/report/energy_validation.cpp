#include "sim/report/energy_validation.hpp"

#include <fmt/format.h>

#include "models/energy/training_run_energy.hpp"
#include "sim/config/reference_energy_runs.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim {

void append_energy_arithmetic(const config::ReferenceCase& c, const config::CatalogPaths& paths,
                              ValidationResult& out) {
  config::EnergyCaseInputs in;
  try {
    in = config::energy_case_inputs(c, paths);
  } catch (const ConfigError& e) {
    out.arithmetic_skipped.push_back({c.id, c.group, c.split, e.diagnostics().front().to_string(), {}, {}});
    return;
  }
  const TrainingRunEnergy gross = estimate_training_run_energy(in.gross);
  const KgCo2e net = in.net * gross.facility_energy;
  for (const config::MeasuredMetric& m : c.metrics) {
    double predicted = 0.0;
    if (m.name == "energy_mwh")
      predicted = to_mwh(gross.facility_energy);
    else if (m.name == "co2e_t")
      predicted = to_tonnes(gross.co2e);
    else if (m.name == "co2e_net_t")
      predicted = to_tonnes(net);
    else
      CS_ASSERT(false, "unknown energy validation metric " + m.name);
    out.arithmetic.push_back(
        {c.id, c.group, c.split, m.name, m.value, predicted, (predicted - m.value) / m.value});
  }
}

}  // namespace clustersim
