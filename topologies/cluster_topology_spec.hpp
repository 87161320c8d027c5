// The whole network of a cluster: node count, the node fabric and one scale-out network.
//
// Plain value type filled by sim/config from the cluster JSON (key names in docs/topologies.md).
// validate() returns every problem found, each with a JSON pointer relative to the cluster document
// ({"", "/network/dims", "torus dims 4x4x4 hold 64 chips but the cluster has 128"}); sim/config fills
// in the file name and the prefix of the cluster object inside the experiment.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "sim/core/diagnostics.hpp"
#include "topologies/dragonfly_spec.hpp"
#include "topologies/fat_tree_spec.hpp"
#include "topologies/node_fabric_spec.hpp"
#include "topologies/torus_spec.hpp"

namespace clustersim {

enum class NetworkKind {
  none,       // "single-node": one NVLink domain (one node, or one NVL72 rack), no scale-out network
  fat_tree,   // "fat-tree"
  torus,      // "torus"
  dragonfly,  // "dragonfly"
};

struct ClusterTopologySpec {
  int nodes = 1;  // > 0
  NodeFabricSpec node;
  NetworkKind network = NetworkKind::none;
  FatTreeSpec fat_tree;     // used when network == fat_tree
  TorusSpec torus;          // used when network == torus
  DragonflySpec dragonfly;  // used when network == dragonfly

  [[nodiscard]] int devices() const { return nodes * node.devices_per_node; }
  [[nodiscard]] std::vector<Diagnostic> validate() const;
};

std::string_view to_string(NetworkKind k);
/// "single-node", "fat-tree", "torus", "dragonfly".
std::optional<NetworkKind> network_kind_from_string(std::string_view s);

}  // namespace clustersim
