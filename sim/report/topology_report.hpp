// Rendering of a TopologySummary (`clustersim topo`): readable text and JSON.
//
// JSON keys (a contract: add, never rename): cluster, description, nodes, devices, nics, switches,
// switches_by_role {role: count}, links_by_kind {kind: {count, total_bandwidth_Bps}},
// bisection_bandwidth_Bps (per direction), diameter_hops, average_hops, hops_exact, hop_sources,
// oversubscription [{role, tier, down_Bps, up_Bps, ratio}]. Bandwidths in bytes per second.
// A multi-slice cluster (network.slices > 1; docs/collectives.md "Multi-slice") describes one slice's
// torus with those keys and adds multi_slice {slices, devices, nodes, devices_per_slice, hosts_per_slice,
// dcn_links, dcn_bandwidth_per_host_Bps, dcn_latency_s, dcn_bandwidth_source, dcn_bandwidth_per_slice_Bps,
// dcn_bisection_Bps, dcn_model}.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "topologies/cluster_spec.hpp"
#include "topologies/topology_summary.hpp"

namespace clustersim {

nlohmann::json topology_json(const std::string& cluster, const TopologyGraph& g, const TopologySummary& s);
std::string topology_text(const std::string& cluster, const TopologyGraph& g, const TopologySummary& s);

/// The `multi_slice` block and text lines of a multi-slice cluster whose one slice is `slice` (the slices
/// joined by one DCN link per host of network.dcn bandwidth into a non-blocking DCN, as `run` and the flow
/// engine model it). DCN bisection: the hosts of ⌊n/2⌋ slices sending to the others, per direction.
nlohmann::json multi_slice_topology_json(const ClusterSpec& c, const TopologyGraph& slice);
std::string multi_slice_topology_text(const ClusterSpec& c, const TopologyGraph& slice);

}  // namespace clustersim
