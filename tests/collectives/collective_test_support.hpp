// Small clusters for the collective tests (efficiency 1 unless a test says otherwise).
#pragma once

#include "sim/collectives/collective_model.hpp"

namespace clustersim::test {

inline LinkParams link_of(double bytes_per_second, double latency) {
  return LinkParams{BytesPerSecond(bytes_per_second), Seconds(latency), Duplex::full};
}

/// One NVSwitch node of g devices: port bandwidth B, latency alpha.
inline ClusterTopologySpec nvswitch_node(int g, double bandwidth, double alpha) {
  ClusterTopologySpec c;
  c.nodes = 1;
  c.node.kind = NodeFabricKind::nvswitch;
  c.node.devices_per_node = g;
  c.node.link = link_of(bandwidth, alpha);
  c.node.nics = 0;
  c.network = NetworkKind::none;
  return c;
}

/// nodes x 8 GPUs on NVSwitch (`port` per direction), `nics` NICs of `nic` bytes/s each (device j uses NIC
/// j·nics/8; PCIe attach at twice the NIC rate), 2-tier fat-tree of the given radix and leaf
/// oversubscription, rail-optimized when every GPU has its own NIC.
inline ClusterTopologySpec nvswitch_fat_tree(int nodes, int nics, double port, double nic, int radix,
                                             double oversubscription) {
  ClusterTopologySpec c;
  c.nodes = nodes;
  c.node.kind = NodeFabricKind::nvswitch;
  c.node.devices_per_node = 8;
  c.node.link = link_of(port, 3e-6);
  c.node.nics = nics;
  c.node.nic = link_of(nic, 5e-6);
  c.node.nic_attach = link_of(2.0 * nic, 0.0);
  c.network = NetworkKind::fat_tree;
  c.fat_tree.tiers = 2;
  c.fat_tree.radix = radix;
  c.fat_tree.oversubscription = {oversubscription};
  c.fat_tree.rail_optimized = nics == 8;
  c.fat_tree.leaf_spine = link_of(nic, 1e-6);
  return c;
}

/// nodes x 8 GPUs (450 GB/s NVSwitch ports), 8 NICs of 50 GB/s, 2-tier fat-tree of the given radix and
/// leaf oversubscription, rail-optimized.
inline ClusterTopologySpec rail_fat_tree(int nodes, int radix, double oversubscription) {
  return nvswitch_fat_tree(nodes, 8, 450e9, 50e9, radix, oversubscription);
}

inline CollectiveRequest request(CollectiveOp op, double bytes, int n, CollectiveAlgorithm a) {
  CollectiveRequest r;
  r.op = op;
  r.bytes = Bytes(bytes);
  r.ranks = strided_group(n);
  r.algorithm = a;
  return r;
}

}  // namespace clustersim::test
