// Fat-tree (folded Clos) scale-out network with deterministic ECMP routing, plain or rail-optimized.
//
// 3 tiers, radix k = 4, full bisection, one NIC per node (k-ary fat-tree, Al-Fares et al. 2008);
// pods 0 and 1 of 4 shown, 4 cores in k/2 = 2 planes; agg i of every pod joins every core of plane i:
//
//        plane 0:   core0   core1               plane 1:   core2   core3
//                     |  \___/ |___________________________/ |  ___/  |    (agg0, agg2 -> core0, core1;
//                     | ___/ \_|____________                 | /      |     agg1, agg3 -> core2, core3)
//        pod 0:     agg0      agg1          pod 1:   agg2      agg3
//                    |   \   /   |                    |   \   /   |     every leaf -> every agg of
//                    |    \ /    |                    |    \ /    |     its pod (leaf_spine)
//                    |    / \    |                    |    / \    |
//                  leaf0     leaf1                  leaf2     leaf3
//                  /   |     |   |                  /   |     |   |     nic_uplink (from /node/nic)
//              nic0 nic1  nic2 nic3              nic4 nic5  nic6 nic7
//
// Route nic0 -> nic5 (different pods), ECMP hash h: nic0 -> leaf0 (nic_uplink, forward),
// leaf0 -> agg[pod 0, i] (leaf_spine, forward) with i = h mod k/2, agg -> core[plane i, j]
// (spine_core, forward) with j = (h >> 32) mod (cores per plane), core -> agg[pod 1, i] (spine_core,
// backward), agg -> leaf2 (leaf_spine, backward), leaf2 -> nic5 (nic_uplink, backward).
// Same pod: leaf -> agg i -> leaf. Same leaf: leaf only. All such routes are minimal.
//
// 2 tiers: the spines are the top; every leaf joins every spine once (at most k leaves).
// Rail-optimized: leaves come in blocks of `rails` (= NICs per node); NIC j of node n attaches to leaf
// (n / nodes_per_leaf) * rails + j, so rail j of every node shares rail-j leaves (NVIDIA DGX SuperPOD
// reference architecture). Without rails, a node's NICs sit on one leaf (no node straddles two leaves).
// Vertex groups: leaf -> rail (rail-optimized) or pod; spine/agg -> pod; core -> plane; NIC -> rail.
#pragma once

#include <vector>

#include "topologies/fat_tree_spec.hpp"
#include "topologies/router.hpp"
#include "topologies/topology_builder.hpp"

namespace clustersim {

class FatTree final : public Router {
 public:
  /// Adds leaves, spines (and cores), their links and the NIC uplinks to `builder`, and returns the
  /// router. Preconditions: spec.validate(nodes, nics_per_node) is empty; NICs already exist.
  static std::unique_ptr<FatTree> build(const FatTreeSpec& spec, const LinkParams& nic,
                                        TopologyBuilder& builder);

  [[nodiscard]] RouterLevel level() const override { return RouterLevel::nics; }
  void append_route(std::int32_t src_nic, std::int32_t dst_nic, std::uint64_t hash,
                    Route& out) const override;
  /// With adaptive routing: leaf_up paths between leaves of one pod, leaf_up * spine_up between pods;
  /// 1 on one leaf or with ECMP.
  [[nodiscard]] bool adaptive() const override { return adaptive_; }
  [[nodiscard]] int spread_paths(std::int32_t src_nic, std::int32_t dst_nic) const override;
  /// Path k = (spine i = k mod leaf_up, core j = k / leaf_up) in append_route's hash bits.
  [[nodiscard]] std::uint64_t path_hash(int k) const override;
  [[nodiscard]] const FatTreeShape& shape() const { return shape_; }

 private:
  FatTree() = default;
  int tiers_ = 2;
  bool adaptive_ = false;
  FatTreeShape shape_;
  std::vector<std::int32_t> nic_leaf_;  // per NIC: its leaf index
  std::vector<LinkId> nic_link_;        // per NIC: NIC -> leaf (forward)
  std::vector<LinkId> leaf_up_;         // leaf * leaf_up + i: leaf -> spine i of its pod (forward)
  std::vector<LinkId> spine_up_;        // spine * spine_up + j: spine -> core j of its plane (forward)
};

}  // namespace clustersim
