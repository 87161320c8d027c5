// Placement helpers for a collective's group on a TopologyGraph: which node and NVLink domain each rank
// is on, and the topology-aware ring orders NCCL builds on rail-optimized clusters.
//
// Ring orders (`rings`): a group spread evenly over N >= 2 nodes with k >= 2 ranks per node gets k rings
// (NCCL channels), each carrying 1/k of the buffer, ring c entering every node at local member c:
//   topology_aware: node j visits its members c, c+1, ..., c-1 when j is even and in reverse when j is
//     odd, so every node-to-node hop joins two ranks with the same local index: the same NIC rail
//     (leaf-only traffic on a rail-optimized fat-tree); every ring crosses each node boundary once.
//   rank_order: every node visits c, c+1, ..., c-1 (the naive rank order), so every node-to-node hop
//     joins local c-1 to local c of the next node: cross-rail, through the spines, where the fat-tree's
//     oversubscription bites.
//   flat: only the first topology-aware ring, carrying the whole buffer (parallelism.dp_collective
//     "flat-ring"): every node-to-node hop moves (n-1)/n·S through one rank's NIC, on its own rail.
// Other groups (one node, uneven spread, one rank per node) get a single ring in node-grouped order.
#pragma once

#include <algorithm>
#include <vector>

#include "topologies/topology_graph.hpp"

namespace clustersim {

enum class RingOrder { topology_aware, rank_order, flat };

/// The group's ranks grouped by node (nodes in order of first appearance, ranks in given order). A node
/// here is the NVLink domain: the physical node, or an NVL72-style domain spanning several nodes.
std::vector<std::vector<int>> ranks_by_node(const TopologyGraph& g, const std::vector<int>& ranks);

/// Devices that reach each other without a NIC: a node, or an NVLink domain over several nodes (NVL72: trays
/// of 4 in a 72-GPU domain), the unit ranks_by_node groups by. A transfer between two such units crosses a
/// NIC (nics_per_communicator counts those).
inline int nic_free_unit(const TopologyGraph& g) { return std::max(g.devices_per_node(), g.domain_devices()); }

/// k if every node of the group holds exactly k of its ranks, else 0.
int ranks_per_node(const std::vector<std::vector<int>>& by_node);

/// Rings over the group (each a permutation of `ranks`); see the header comment.
std::vector<std::vector<int>> rings(const TopologyGraph& g, const std::vector<int>& ranks, RingOrder order);

/// True when all ranks share one NVSwitch domain (a DGX node, an NVL72 rack): the precondition of NVLS.
bool in_one_nvswitch_domain(const TopologyGraph& g, const std::vector<int>& ranks);

/// ranks = first, first + stride, ... (n of them), e.g. a data-parallel group with stride tp.
std::vector<int> strided_group(int n, int first = 0, int stride = 1);

}  // namespace clustersim
