// Test helper: reads the catalogs in configs/energy/ into the energy spec structs.
//
// Stands in for the config layer (which will own JSON parsing of the `energy` section) so that every
// catalog file is loaded and checked by a test.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "models/energy/energy_spec.hpp"

namespace clustersim::test {

nlohmann::json read_json(const std::string& path_from_repo_root);

Watts watts(const nlohmann::json& value);
DevicePower device_power_from_json(const std::string& name, const nlohmann::json& entry);
NodePower node_power_from_json(const nlohmann::json& entry);
NetworkPower network_power_from_json(const nlohmann::json& entry);

/// A complete spec from the catalogs: H100 in DGX H100 nodes on a 3-tier NDR fat tree, one storage
/// appliance, PUE 1.10, US-average carbon intensity, US industrial electricity, H100 capital.
EnergySpec h100_reference_spec();

}  // namespace clustersim::test
