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

/// nodes x 8 GPUs (450 GB/s NVSwitch ports), 8 NICs of 50 GB/s, 2-tier fat-tree of the given radix and
/// leaf oversubscription, rail-optimized.
inline ClusterTopologySpec rail_fat_tree(int nodes, int radix, double oversubscription) {
  ClusterTopologySpec c;
  c.nodes = nodes;
  c.node.kind = NodeFabricKind::nvswitch;
  c.node.devices_per_node = 8;
  c.node.link = link_of(450e9, 3e-6);
  c.node.nics = 8;
  c.node.nic = link_of(50e9, 5e-6);
  c.node.nic_attach = link_of(100e9, 0.0);
  c.network = NetworkKind::fat_tree;
  c.fat_tree.tiers = 2;
  c.fat_tree.radix = radix;
  c.fat_tree.oversubscription = {oversubscription};
  c.fat_tree.rail_optimized = true;
  c.fat_tree.leaf_spine = link_of(50e9, 1e-6);
  return c;
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
