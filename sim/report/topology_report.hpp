// Rendering of a TopologySummary (`clustersim topo`): readable text and JSON.
//
// JSON keys (a contract: add, never rename): cluster, description, nodes, devices, nics, switches,
// switches_by_role {role: count}, links_by_kind {kind: {count, total_bandwidth_Bps}},
// bisection_bandwidth_Bps (per direction), diameter_hops, average_hops, hops_exact, hop_sources,
// oversubscription [{role, tier, down_Bps, up_Bps, ratio}]. Bandwidths in bytes per second.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "topologies/topology_summary.hpp"

namespace clustersim {

nlohmann::json topology_json(const std::string& cluster, const TopologyGraph& g, const TopologySummary& s);
std::string topology_text(const std::string& cluster, const TopologyGraph& g, const TopologySummary& s);

}  // namespace clustersim
