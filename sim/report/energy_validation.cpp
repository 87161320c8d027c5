#include "sim/report/energy_validation.hpp"

#include <fmt/format.h>

#include "models/energy/training_run_energy.hpp"
#include "sim/config/reference_energy_runs.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim {

void append_energy_validation(const config::ReferenceCase& c, const config::CatalogPaths& paths,
                              ValidationResult& out) {
  config::EnergyCaseInputs in;
  try {
    in = config::energy_case_inputs(c, paths);
  } catch (const ConfigError& e) {
    out.skipped.push_back({c.id, fmt::format("energy record not expressible: {}", e.diagnostics().front().to_string())});
    return;
  }
  const TrainingRunEnergy gross = estimate_training_run_energy(in.gross);
  const KgCo2e net = in.net * gross.facility_energy;
  for (const config::MeasuredMetric& m : c.metrics) {
    double predicted = 0.0;
    if (m.name == "energy_mwh") predicted = to_mwh(gross.facility_energy);
    else if (m.name == "co2e_t") predicted = to_tonnes(gross.co2e);
    else if (m.name == "co2e_net_t") predicted = to_tonnes(net);
    else CS_ASSERT(false, "unknown energy validation metric " + m.name);
    out.rows.push_back({c.id, c.group, m.name, m.value, predicted, (predicted - m.value) / m.value});
  }
  std::vector<std::string> assumptions = c.assumptions;
  assumptions.push_back(fmt::format("carbon intensity: configs/energy/carbon_intensity.json entry {}", in.carbon_entry));
  out.assumptions.emplace_back(c.id, std::move(assumptions));
}

}  // namespace clustersim
