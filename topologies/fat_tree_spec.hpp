// Description of a 2- or 3-tier fat-tree (folded Clos) scale-out network, and the shape it implies.
//
// JSON keys (relative to the cluster document; see docs/topologies.md): /network/topology = "fat-tree",
// /network/tiers, /network/radix, /network/oversubscription (array, one ratio per tier below the top),
// /network/rail_optimized, /network/leaf_spine/{bandwidth,latency,duplex},
// /network/spine_core/{bandwidth,latency,duplex}. NIC links come from /node/nic.
//
// Port split: a tier-t switch of radix k with oversubscription r (down:up) has
//   down = k * r / (r + 1) and up = k - down ports   (r = 1: k/2 and k/2, Al-Fares et al. 2008).
// 3 tiers, full bisection (r = 1 everywhere): k pods of k/2 leaves and k/2 aggregation switches,
// (k/2)^2 cores, k^3/4 NIC ports (Al-Fares, Loukissas & Vahdat, SIGCOMM 2008, Sec. 3.2).
// 2 tiers: up_leaf spines, each joined once to every leaf, at most k leaves: k * down_leaf NIC ports.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/diagnostics.hpp"
#include "topologies/link.hpp"

namespace clustersim {

struct FatTreeSpec {
  int tiers = 2;                         // 2 (leaf-spine) or 3 (leaf-spine-core)
  int radix = 64;                        // ports per switch, every tier
  std::vector<double> oversubscription;  // tiers - 1 ratios (down:up ports) for leaf[, spine]; empty = all 1
  bool rail_optimized = false;           // NIC j of every node goes to rail-j leaves (NVIDIA SuperPOD)
  LinkParams leaf_spine;                 // one leaf <-> spine link
  LinkParams spine_core;                 // one spine <-> core link (3 tiers)
  bool adaptive_routing = false;         // spread every flow evenly over its equal-cost up-paths (else ECMP hash)

  /// Oversubscription of tier t (1 = leaf, 2 = spine); 1 when not given.
  [[nodiscard]] double ratio(int tier) const;
  /// Problems for a cluster of `nodes` nodes with `nics_per_node` NICs each. Fields: tiers, radix,
  /// oversubscription, oversubscription[i] (tier i + 1), leaf_spine.*, spine_core.*, and the argument
  /// "nics_per_node" when there is no NIC.
  [[nodiscard]] std::vector<FieldProblem> validate(int nodes, int nics_per_node) const;
};

/// Switch counts and port use implied by a FatTreeSpec for a given cluster (see FatTree for wiring).
struct FatTreeShape {
  int leaf_down = 0, leaf_up = 0;    // leaf ports towards NICs / towards spines
  int spine_down = 0, spine_up = 0;  // spine ports towards leaves / towards cores (3 tiers)
  int rails = 1;                     // rail-optimized: NICs per node; otherwise 1
  int nodes_per_leaf = 0;            // nodes attached to one leaf (per rail when rail-optimized)
  int leaves = 0;
  int leaves_per_pod = 0;  // 3 tiers: spine_down; 2 tiers: all leaves
  int pods = 1;
  int spines_per_pod = 0;          // == leaf_up
  int spines = 0;                  // pods * spines_per_pod
  int cores = 0;                   // 3 tiers: leaf_up * spine_up, in leaf_up planes of spine_up cores
  std::int64_t max_nic_ports = 0;  // NIC ports the radix can serve at these ratios

  /// Computes the shape; `ok` is false (and the shape partial) when the spec cannot hold the cluster.
  static FatTreeShape of(const FatTreeSpec& spec, int nodes, int nics_per_node, bool* ok = nullptr);
};

/// Splits a radix into (down, up) ports for an oversubscription ratio; false if not a whole split.
bool split_ports(int radix, double ratio, int* down, int* up);

}  // namespace clustersim
