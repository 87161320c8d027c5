// Topology-aware collective cost model: a TopologyGraph, the links' protocol efficiencies, and the
// algorithms of algorithm_phases.hpp, costed phase by phase with α–β on each phase's bottleneck link
// (phase.hpp). `automatic` evaluates the NCCL-style candidates for the operation and keeps the fastest,
// as NCCL's tuner does with its own per-algorithm time model (NCCL src/graph/tuning.cc): on an NVSwitch
// node NVLS or tree win for small sizes (fewer α steps), NVLS or ring for large sizes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/collectives/algorithm_phases.hpp"
#include "topologies/cluster_topology_spec.hpp"

namespace clustersim {

struct CollectiveRequest {
  CollectiveOp op = CollectiveOp::all_reduce;
  Bytes bytes{0};          // S: the full buffer (nccl-tests "size")
  std::vector<int> ranks;  // the group (device ids == global ranks)
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  RingOrder ring_order = RingOrder::topology_aware;
  int root = 0;  // broadcast / reduce: index into ranks
};

struct PhaseEstimate {
  std::string name;
  PhaseCost cost;
};

struct CollectiveEstimate {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;  // the one costed (auto's choice)
  Seconds time{0};
  std::vector<PhaseEstimate> phases;
  /// nccl-tests figures: algbw = S / t, busbw = algbw · bus_bandwidth_factor(op, n), bytes per second.
  double algbw = 0.0;
  double busbw = 0.0;
};

struct CollectiveModelOptions {
  LinkEfficiency efficiency;
  bool sharp_network = false;  // scale-out switches reduce in-network (InfiniBand SHARP)
  bool nvls = false;           // NVSwitches reduce in-network (NVLink SHARP)
  /// NICs of a node one communicator's inter-node traffic leaves through (the node catalog's
  /// nics_per_communicator); 0: every NIC its ranks sit next to (hierarchical_phases).
  int communicator_nics = 0;
};

class CollectiveModel {
 public:
  /// Builds the TopologyGraph of `spec` (throws SpecError on an invalid spec).
  CollectiveModel(const ClusterTopologySpec& spec, CollectiveModelOptions options);

  [[nodiscard]] const TopologyGraph& graph() const { return graph_; }
  [[nodiscard]] const CollectiveModelOptions& options() const { return options_; }

  /// Cost of the request. Throws std::invalid_argument naming the problem if the requested algorithm
  /// cannot run this operation on this group (automatic always finds one for >= 2 ranks).
  [[nodiscard]] CollectiveEstimate estimate(const CollectiveRequest& r) const;

  /// True when algorithm `a` (not automatic) can run the request's operation on its group.
  [[nodiscard]] bool applicable(const CollectiveRequest& r, CollectiveAlgorithm a) const;

  /// The phases of a concrete algorithm (for inspection and tests).
  [[nodiscard]] std::vector<Phase> phases(const CollectiveRequest& r, CollectiveAlgorithm a) const;

  /// The algorithms `automatic` considers for `op`, in tie-break order.
  static std::vector<CollectiveAlgorithm> auto_candidates(CollectiveOp op);

 private:
  [[nodiscard]] PhaseRequest phase_request(const CollectiveRequest& r) const;
  [[nodiscard]] CollectiveEstimate cost(const CollectiveRequest& r, CollectiveAlgorithm a) const;

  TopologyGraph graph_;
  CollectiveModelOptions options_;
  std::vector<int> torus_dims_;
};

}  // namespace clustersim
