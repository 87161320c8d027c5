// Published whole-run energy records (kind "training_run_energy", configs/reference/energy_runs.json,
// Patterson et al. 2021, arXiv 2104.10350, Table 4) as an arithmetic check (not accuracy: the inputs
// are the record's own power, count, days and PUE).
//
// A record states accelerators, training days, measured average system power per accelerator and PUE;
// the prediction is Patterson's §2.5 estimate (models/energy/training_run_energy.hpp) with the carbon
// intensity of the datacenter the record states (operator, site, YYYY-MM), looked up in
// configs/energy/carbon_intensity.json — never from the record's id nor its own tCO2e. Metrics:
//   energy_mwh   measured.energy_MWh
//   co2e_t       measured.gross_tCO2e (location-based grid mix)
//   co2e_net_t   measured.net_tCO2e   (after the operator's carbon-free energy purchases)
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/energy/training_run_energy.hpp"
#include "sim/config/catalog.hpp"
#include "sim/config/field.hpp"
#include "sim/config/reference_runs.hpp"

namespace clustersim::config {

inline constexpr std::string_view kTrainingRunEnergyKind = "training_run_energy";

/// The declared keys of an energy record (docs/validation.md, "Arithmetic check").
extern const Section kEnergyRecordSection;

/// Reads a JSON array of training_run_energy records with the strict declared-field reader: unknown keys
/// and wrong types are errors (ConfigError listing every problem as file:/pointer). Records without the
/// inputs of the check are appended to `skipped` with the reason.
std::vector<ReferenceCase> read_energy_runs(const std::filesystem::path& file,
                                            std::vector<ReferenceSkip>& skipped);

/// True for cases made by read_energy_runs.
bool is_energy_case(const ReferenceCase& c);

struct EnergyCaseInputs {
  TrainingRunEnergyInput gross;  // carbon_intensity = the datacenter's gross intensity
  CarbonIntensity net{0};        // the datacenter's net intensity
  std::string carbon_entry;      // name of the carbon_intensity.json entry used
};

/// Patterson inputs of an energy case, carbon intensities from the energy catalog under `paths`.
/// Throws ConfigError naming the record when the catalog has no carbon intensity for it.
EnergyCaseInputs energy_case_inputs(const ReferenceCase& c, const CatalogPaths& paths);

}  // namespace clustersim::config
