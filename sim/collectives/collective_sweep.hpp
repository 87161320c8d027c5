// An nccl-tests-style size sweep of one collective on one cluster: sizes min, min·factor, ... <= max,
// each with time, algbw, busbw (nccl-tests definitions, collective_algorithm.hpp) and the algorithm
// used (auto's choice when automatic).
#pragma once

#include <string>
#include <vector>

#include "sim/collectives/collective_model.hpp"
#include "topologies/cluster_spec.hpp"

namespace clustersim {

struct CollectiveSweepSpec {
  CollectiveOp op = CollectiveOp::all_reduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  RingOrder ring_order = RingOrder::topology_aware;
  int ranks = 8;               // ranks 0..ranks-1 (the first nodes), >= 2
  Bytes min{8};                // > 0
  Bytes max{8.0 * (1 << 30)};  // >= min
  double factor = 2.0;         // > 1
  Bytes element{4};            // "float", as nccl-tests' default type
};

struct CollectiveRow {
  Bytes size{0};
  long long count = 0;  // elements
  CollectiveEstimate estimate;
  // Multi-slice all-reduce (sweep_multislice_all_reduce): the ICI parts (reduce-scatter + all-gather on
  // one slice's torus) and the DCN all-reduce of the shard; both 0 otherwise.
  Seconds ici{0};
  Seconds dcn{0};
};

/// Throws std::invalid_argument for a malformed spec (ranks outside the cluster, factor <= 1, ...).
std::vector<CollectiveRow> sweep_collective(const CollectiveModel& m, const CollectiveSweepSpec& spec);

/// An all-reduce over every chip of a multi-slice cluster (network.slices = n > 1; docs/collectives.md
/// "Multi-slice"), as the engines cost a multi-slice job's gradient sync (sim/graph/graph_builder.cpp):
/// reduce-scatter of S over each slice's D chips on its ICI torus (`slice`: the model of one slice's
/// torus; all slices at once on their own tori), the ring all-reduce of each chip's S/D shard with the
/// chips at its position in the other slices over the DCN (dcn_all_reduce_time), and the all-gather of
/// S on the torus. time = ici + dcn; algbw = S / time; busbw = algbw · 2(N−1)/N with N = n·D ranks
/// (nccl-tests' all-reduce factor). `spec.op` must be all_reduce and `spec.ranks` n·D; `spec.algorithm`
/// applies to the ICI parts. The estimate's phases are the reduce-scatter's then the all-gather's.
std::vector<CollectiveRow> sweep_multislice_all_reduce(const CollectiveModel& slice, const ClusterSpec& cluster,
                                                       const CollectiveSweepSpec& spec);

}  // namespace clustersim
