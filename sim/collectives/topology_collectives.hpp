// The training step's collectives costed on the cluster's TopologyGraph: the one collective cost
// model every engine and report uses, for TP, CP, PP, DP, ZeRO/FSDP gathers and compressed syncs.
// The topology is the cluster JSON's explicit fabric (ClusterSpec::comm.topology) or, when the JSON
// leaves it out, the fabric its fields imply (topologies/derived_topology.hpp): the same numbers
// either way for the same fabric. NCCL's hierarchical two-level scheme (reduce-scatter in the node,
// inter-node ring on 1/k of the buffer, all-gather in the node) is the `hierarchical` algorithm of
// algorithm_phases.hpp, one of the candidates `automatic` weighs.
//
// Concurrency: the engine's collectives run as a set of identical groups at once: the tp DP groups
// of a pipeline stage (one per TP rank; each holding the stage's dp·cp ranks), the TP groups of a
// stage, or every rank of a stage sending its slice to the next stage. Their phases are merged (the
// transfers of all groups in one phase), so links shared by several groups (a node's NICs, a leaf's
// up-links on an oversubscribed fat-tree, spine hops of cross-rail traffic, torus links) carry the
// sum, and each phase is costed α–β on its bottleneck link (phase.hpp). Not modelled: contention with
// other traffic (TP, other stages' DP sync, other jobs) — that is the flow engine's job.
//
// Cost: for a fixed algorithm every phase's link loads scale with S, so t(S) = A + B·S; A and B are
// computed once per (op, groups, algorithm choice) and cached; `automatic` takes the fastest
// candidate at each S (CollectiveModel::auto_candidates). The TopologyGraph is built once per
// topology and kept in a small process-wide cache (thread-safe), so sweeps over parallelism on one
// cluster build it once and evaluate each collective as two multiply-adds. Fabrics that differ only in
// link bandwidths (an oversubscription or NIC-bandwidth sweep) share one FabricSkeleton
// (fabric_skeleton.hpp): the graph is not rebuilt, the phases' link loads are expanded once, and each
// fabric re-reads the bottlenecks with its own bandwidths (bit-identical to a fresh build). Such a
// fabric builds its own graph only when model() or schedule() is asked for (the flow engine).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "sim/collectives/cluster_fabric.hpp"
#include "sim/collectives/collective_model.hpp"
#include "sim/collectives/fabric_skeleton.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim {

/// `count` groups of `size` ranks: group k holds first + k·group_stride + j·stride, j = 0..size−1.
struct ConcurrentGroups {
  int size = 1;
  int stride = 1;
  int first = 0;
  int count = 1;
  int group_stride = 1;
  friend auto operator<=>(const ConcurrentGroups&, const ConcurrentGroups&) = default;
};

/// Which algorithm a collective runs: `automatic` (the fastest candidate), or one algorithm with a
/// ring order (parallelism.dp_collective "flat-ring" is ring + RingOrder::flat).
struct CollectiveChoice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  RingOrder ring_order = RingOrder::topology_aware;
  friend auto operator<=>(const CollectiveChoice&, const CollectiveChoice&) = default;
};

class TopologyCollectives {
 public:
  /// The (cached) model of the cluster's topology, explicit or derived (cluster_fabric.hpp); never
  /// nullptr. Throws SpecError when the topology is invalid (sim/config reports that earlier, with file
  /// and pointer).
  static std::shared_ptr<const TopologyCollectives> of(const ClusterSpec& c);

  /// Builds the cluster's graph (never cached, never shares a skeleton).
  explicit TopologyCollectives(const ClusterSpec& c);
  /// A fabric costed on `skeleton` (same structure, its own bandwidths); builds its graph lazily.
  TopologyCollectives(ClusterFabric fabric, std::shared_ptr<FabricSkeleton> skeleton);

  /// Time of `op` on S = `bytes` (the full buffer of one group) with all groups running at once.
  /// Groups of one rank cost 0. A concrete `choice` must be able to run `op` (asserted).
  [[nodiscard]] Seconds time(CollectiveOp op, Bytes bytes, const ConcurrentGroups& g,
                             CollectiveChoice choice = {}) const;

  [[nodiscard]] const CollectiveModel& model() const;
  /// True when this fabric is costed on a skeleton shared with fabrics of other bandwidths.
  [[nodiscard]] bool shares_skeleton() const { return skeleton_ != nullptr; }

  /// The schedule the flow engine replays: `op` on S = `bytes` over every group of `groups` at once
  /// (explicit device lists of one size), the phases of all groups merged index by index, for the
  /// algorithm among CollectiveModel::auto_candidates whose merged schedule costs least (as time()
  /// chooses). Groups of one rank give no phases.
  struct Schedule {
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
    std::vector<Phase> phases;
  };
  [[nodiscard]] Schedule schedule(CollectiveOp op, Bytes bytes,
                                  const std::vector<std::vector<int>>& groups) const;

 private:
  struct Affine {
    CollectiveAlgorithm algorithm;
    Seconds fixed;        // A: latency terms
    double per_byte = 0;  // B: bottleneck seconds per byte of S, summed over phases
  };
  [[nodiscard]] std::vector<Affine> fit(CollectiveOp op, const ConcurrentGroups& g,
                                        CollectiveChoice choice) const;
  /// fit() from the skeleton's cached link loads and this fabric's bandwidths.
  [[nodiscard]] std::vector<Affine> fit_on_skeleton(CollectiveOp op, const ConcurrentGroups& g,
                                                    CollectiveChoice choice) const;
  /// Phases of algorithm `a` for every group, merged index by index (empty if `a` cannot run them).
  [[nodiscard]] static std::vector<Phase> merged_phases(const CollectiveModel& model, CollectiveOp op,
                                                        double bytes,
                                                        const std::vector<std::vector<int>>& groups,
                                                        CollectiveAlgorithm a,
                                                        RingOrder order = RingOrder::topology_aware);

  ClusterFabric fabric_;
  std::shared_ptr<FabricSkeleton> skeleton_;  // null when built in full
  FabricSkeleton::FieldBandwidths field_bandwidth_{};  // with skeleton_: link l's is link_bandwidth(l, ·)
  mutable std::once_flag model_once_;
  mutable std::unique_ptr<const CollectiveModel> model_;  // built at once without skeleton_, else lazily
  mutable std::mutex mutex_;
  mutable std::map<std::tuple<int, ConcurrentGroups, CollectiveChoice>, std::vector<Affine>> cache_;
};

}  // namespace clustersim
