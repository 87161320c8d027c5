// Expansion of each collective algorithm into phases (phase.hpp). S = `bytes` is the full buffer
// (nccl-tests' size); n = ranks.size(). Per-link bytes of the contention-free schedules:
//   ring all-reduce            reduce-scatter + all-gather phases, (n−1) steps each, every ring hop
//                              carries (n−1)/n·S/R (R rings): t = 2(n−1)α + 2(n−1)/n·S/B
//                              (Patarasuk & Yuan 2009; Thakur, Rabenseifner & Gropp 2005)
//   double binary tree         two trees (each S/2), complementary leaves, reduce up + broadcast down,
//                              pipelined: t = 2⌊log2 n⌋α + (bytes on the busiest port)/B
//                              (Sanders, Speck & Träff 2009; NCCL 2.4 "double binary trees")
//   recursive halving-doubling log2 n exchange steps each way, step j moves S/2^(j+1):
//                              t = 2 log2(n)α + 2(n−1)/n·S/B (Thakur et al. 2005, Rabenseifner 2004);
//                              non powers of two fold the extra ranks in first (one more step each way)
//   direct / pairwise          all pairs at once (1 step) / n−1 rounds of rank i → i+k, S/n each
//   hierarchical               one ring reduce-scatter per dimension (node-local then inter-node, or
//                              torus x, y, z), buffer shrinking by each dimension size, then all-gathers
//                              back; torus dimensions with wrap use two counter-rotating rings, and a
//                              sub-torus group (whole dimensions) splits S in D parts that walk the
//                              dimensions in rotated order, all dimensions at once: busbw = 2·D·B on a
//                              k^D torus (Jouppi et al. 2023 for TPU v4; Sergeev & Del Balso 2018)
//   nvls                       every rank's NVSwitch port carries S up and S down (all-reduce), the
//                              switch reduces and multicasts: t = 2α + S/(B·nvls_efficiency)
//   sharp                      node-local reduce-scatter, in-network all-reduce of S/k per rail on the
//                              union of the rail's routes to its root, node-local all-gather
// Preconditions are checked by `applicable`; builders assert them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/collectives/collective_algorithm.hpp"
#include "sim/collectives/collective_group.hpp"
#include "sim/collectives/phase.hpp"

namespace clustersim {

struct PhaseRequest {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0.0;      // S, the full buffer
  std::vector<int> ranks;  // the group, >= 1 device ids, distinct
  int root = 0;            // broadcast / reduce root: index into ranks
  RingOrder ring_order = RingOrder::topology_aware;
  std::vector<int> torus_dims;  // the cluster's torus dims when the network is a torus, else empty
  bool sharp_network = false;    // the scale-out switches reduce in-network (InfiniBand SHARP)
  bool nvls_switch = true;       // the NVSwitches reduce in-network (NVLink SHARP, NVSwitch 3+)
  int communicator_nics = 0;     // NICs of a node one communicator's inter-node traffic uses; 0: all
};

/// Why `a` cannot run `r.op` on this group and graph, or nullopt if it can (automatic: never).
std::optional<std::string> not_applicable(const TopologyGraph& g, const PhaseRequest& r, CollectiveAlgorithm a);

/// The phases of algorithm `a` (not automatic); precondition: not_applicable(g, r, a) is nullopt.
std::vector<Phase> expand(const TopologyGraph& g, const PhaseRequest& r, CollectiveAlgorithm a);

// Per family (used by expand):
std::vector<Phase> ring_phases(const TopologyGraph& g, const PhaseRequest& r);
std::vector<Phase> tree_phases(const TopologyGraph& g, const PhaseRequest& r);
std::vector<Phase> halving_doubling_phases(const TopologyGraph& g, const PhaseRequest& r);
std::vector<Phase> direct_phases(const PhaseRequest& r);
std::vector<Phase> pairwise_phases(const PhaseRequest& r);
std::vector<Phase> hierarchical_phases(const TopologyGraph& g, const PhaseRequest& r);
std::vector<Phase> nvls_phases(const TopologyGraph& g, const PhaseRequest& r);
std::vector<Phase> sharp_phases(const TopologyGraph& g, const PhaseRequest& r);

/// Dimensions the hierarchical algorithm walks (a sub-torus: its whole torus dimensions, x fastest; else
/// node-local then inter-node over the node-grouped rank order), and
/// whether each is a torus ring with wrap (bidirectional). Empty when not applicable.
struct Dimensions {
  std::vector<int> sizes;
  std::vector<int> order;  // the group's ranks in mixed-radix order (dimension 0 fastest)
  bool bidirectional = false;
};
Dimensions hierarchy_dimensions(const TopologyGraph& g, const PhaseRequest& r);

/// Ring reduce-scatter (or all-gather) phase over every ring in `rings` at once, each ring reducing
/// (gathering) a buffer of `bytes_per_ring`; bidirectional: half of it in each direction.
Phase ring_pass(const std::vector<std::vector<int>>& rings, double bytes_per_ring, std::string name, bool bidirectional = false);

}  // namespace clustersim
