// An nccl-tests-style size sweep of one collective on one cluster: sizes min, min·factor, ... <= max,
// each with time, algbw, busbw (nccl-tests definitions, collective_algorithm.hpp) and the algorithm
// used (auto's choice when automatic).
#pragma once

#include <string>
#include <vector>

#include "sim/collectives/collective_model.hpp"

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
};

/// Throws std::invalid_argument for a malformed spec (ranks outside the cluster, factor <= 1, ...).
std::vector<CollectiveRow> sweep_collective(const CollectiveModel& m, const CollectiveSweepSpec& spec);

}  // namespace clustersim
