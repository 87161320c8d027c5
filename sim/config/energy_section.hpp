// The `energy` section of an experiment: power per device state, host, network, storage, PUE,
// carbon intensity, prices and power caps -> Scenario::energy. Keys, units and defaults: docs/energy.md §7.
//
// Defaults come from the energy catalogs (configs/energy/*.json) and from the cluster: the device entry
// whose name or `aliases` match the cluster's device, the node entry matching the cluster's node, NIC
// count from the node, fat-tree switch ports from the cluster size. Every default used is recorded in
// EnergySpec::defaults_used so reports can state it.
//
// Without an `energy` section the experiment still gets energy figures when the device has its own
// entry in configs/energy/device_power.json (a cited TDP and per-state estimates); otherwise
// Scenario::energy stays empty (a TDP-scaled guess is only used when the user asks for energy).
//
// The energy catalogs are found in the `energy/` directory next to the catalog directory the cluster's
// device, node or cluster came from (e.g. configs/devices/ -> configs/energy/), or next to the
// experiment file's directory. An experiment written entirely inline must give the energy values inline.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "models/energy/energy_units.hpp"
#include "sim/config/catalog.hpp"
#include "sim/config/provenance.hpp"
#include "sim/config/section_registry.hpp"

namespace clustersim::config {

/// The section: parse reads `energy`; finish supplies the default section when it is absent.
SectionSpec energy_section();

/// The energy catalog directory for a document read from `origin`, if one exists.
std::optional<std::filesystem::path> energy_catalog_dir(const Provenance& origin);

/// The energy catalog directory of the first catalog root that has one.
std::optional<std::filesystem::path> energy_catalog_dir(const CatalogPaths& paths);

/// A datacenter carbon-intensity entry of carbon_intensity.json.
struct CarbonIntensityEntry {
  std::string name;
  CarbonIntensity gross{0};  // location-based grid mix
  CarbonIntensity net{0};    // after the operator's carbon-free energy purchases
  std::string source;
};

/// Where and when a run drew its electricity, as an energy record states it.
struct Datacenter {
  std::string operator_name, site, date;  // "Google", "Taiwan", "2019-09"
};

/// The entry of `<energy_dir>/carbon_intensity.json` whose operator, site and date equal `where`
/// (exact, case-sensitive). Throws ConfigError (file, pointer) when the file or an entry is malformed or
/// when more than one entry matches.
std::optional<CarbonIntensityEntry> carbon_intensity_for_datacenter(const std::filesystem::path& energy_dir,
                                                                    const Datacenter& where);

}  // namespace clustersim::config
