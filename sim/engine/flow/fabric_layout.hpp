// The cluster fabric the flow engine simulates, as plain data: links and routes between devices.
//
// Built from the cluster's two-level description (sim/config/scenario.hpp ClusterSpec): every device has
// a port into its node fabric (NVLink to the NVSwitch) and a share of the node's scale-out NICs; nodes
// are grouped under leaf switch groups of `leaf_nodes` nodes whose uplinks into a non-blocking spine carry
// (NIC bandwidth below the leaf) / network.oversubscription. Bandwidths are per direction and include the
// catalog's protocol efficiency, exactly as sim/graph/op_cost.cpp fabric_of() gives them to the analytic
// engine; latencies are split half per port so a route's latency is one α of the closed form.
//
//           spine (ideal core)
//          /                 \          leafL.up  (one full-duplex aggregate per leaf group)
//      leaf0                 leaf1
//     /  |  \               /  |  \     nN.nicK   (per NIC, full duplex)
//   node0 node1 ...       node32 ...
//   [NVSwitch]                          nN.nvlL   (per device, full duplex)
//   d0 d1 .. d7
//
// Route d0 (node 0, leaf 0) → d264 (node 33, leaf 1): n0.nic0/up, leaf0.up/up, leaf1.up/down,
// n33.nic0/down. Route d0 → d5 (same node): n0.nvl0/up, n0.nvl5/down.
//
// This is the seam for the topology layer: a TopologyGraph-backed layout can provide the same links and
// routes (topologies/route.hpp) without touching the replay.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/scenario.hpp"
#include "sim/core/units.hpp"

namespace clustersim::flow {

enum class LinkClass : std::uint8_t { nvlink, nic, leaf_uplink };
[[nodiscard]] const char* link_class_name(LinkClass c);

struct FabricLink {
  std::string name;  // e.g. "n3.nic2"; directions are "<name>/up" (towards the core) and "<name>/down"
  LinkClass cls = LinkClass::nic;
  BytesPerSecond bandwidth{0};  // per direction, after efficiency and straggler factor
  Seconds latency{0};           // per traversal
  int users = 1;                // devices whose routes start or end on it
  bool straggler = false;       // scaled by scale_link(): routes through it count as shared
};

/// A directed link: 2·link index + (0 up, 1 down).
using DirectedLink = int;

struct FabricRoute {
  std::vector<DirectedLink> links;
  bool intra_node = false;   // uses the node fabric (NVLink endpoints)
  bool shared = false;       // crosses a link other devices' routes also use (leaf uplink or shared NIC), or a
                             // straggler link (so the symmetry reduction keeps every replica's flows on it)
};

class FabricLayout {
 public:
  /// `leaf_nodes` > 0. Throws ConfigError when the cluster needs scale-out but has no NICs.
  FabricLayout(const ClusterSpec& cluster, int leaf_nodes);

  [[nodiscard]] int devices() const { return devices_; }
  [[nodiscard]] int devices_per_node() const { return per_node_; }
  [[nodiscard]] int node_of(int device) const { return device / per_node_; }
  [[nodiscard]] int leaf_of_node(int node) const { return node / leaf_nodes_; }
  [[nodiscard]] int nodes() const { return nodes_; }
  [[nodiscard]] int leaf_nodes() const { return leaf_nodes_; }
  [[nodiscard]] int leaves() const { return (nodes_ + leaf_nodes_ - 1) / leaf_nodes_; }
  [[nodiscard]] const std::vector<FabricLink>& links() const { return links_; }
  [[nodiscard]] int nvlink_of(int device) const { return device; }
  [[nodiscard]] int nic_of(int device) const;
  [[nodiscard]] int uplink_of_leaf(int leaf) const;
  /// Route between two distinct devices.
  [[nodiscard]] FabricRoute route(int src, int dst) const;
  /// Scales a link's bandwidth (straggler); returns false if no link has that name.
  bool scale_link(const std::string& name, double factor);

 private:
  int devices_ = 0, per_node_ = 1, nodes_ = 1, nics_ = 0, leaf_nodes_ = 1;
  int nic_base_ = 0, uplink_base_ = 0;
  std::vector<FabricLink> links_;
};

}  // namespace clustersim::flow
