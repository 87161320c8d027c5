// Expansion of a hierarchical ring collective into flow phases (the flow engine's fidelity knob).
//
// Two-level mode (a fabric the cluster JSON leaves out, fabric_layout.hpp): NCCL's hierarchical ring
// across DGX nodes (the `hierarchical` algorithm of sim/collectives/algorithm_phases.hpp): reduce-scatter
// inside the node over k ranks, the inter-node ring over n nodes on 1/k of the buffer by every local rank in
// parallel, all-gather inside the node. A ring phase over k ranks moves (k−1)/k·S per rank in k−1 steps of
// S/k (Thakur, Rabenseifner & Gropp 2005, §4). Phase fidelity sends one flow per rank per phase (its route
// adds one α) and then waits the other (steps−1)·α; exact fidelity sends every step.
#pragma once

#include <vector>

#include "sim/collectives/collective_algorithm.hpp"
#include "sim/engine/flow/fabric_layout.hpp"
#include "sim/engine/flow/flow_options.hpp"
#include "sim/engine/flow/rank_layout.hpp"

namespace clustersim::flow {

struct FlowSpec {
  int src = 0;  // global devices
  int dst = 0;
  Bytes bytes{0};
};

struct FlowPhase {
  std::vector<FlowSpec> flows;
  Seconds extra_latency{0};  // waited after the phase's flows complete
};

/// A dp·cp group on the two-level fabric: k = ranks per node on n nodes (Megatron rank order, stride
/// tp), and the α of a hop inside the node (node link latency) and between nodes (NIC latency).
struct TwoLevelRing {
  int per_node = 1;
  int nodes = 1;
  Seconds intra_alpha{0};
  Seconds inter_alpha{0};
};
TwoLevelRing two_level_ring(const ClusterSpec& cluster, const ParallelismSpec& par);

/// Two-level mode: phases of `op` over the dp·cp group of `stage` (every TP rank's group runs in
/// parallel) as hierarchical rings.
std::vector<FlowPhase> collective_phases(CollectiveOp op, Bytes bytes, const RankLayout& layout, int stage,
                                         const TwoLevelRing& ring, Fidelity fidelity);

/// Topology mode (fabric.topology() set): the schedule the analytic engine costs on the TopologyGraph
/// (TopologyCollectives::schedule: the algorithm `automatic` picks, every TP rank's DP group at once),
/// one flow per transfer per phase, then latency_steps · α (α = the phase's largest route latency).
/// In-network phases (NVLS, SHARP) are not flows: they become timed waits of their closed-form cost.
/// `exact` splits each phase into its latency_steps message steps, each moving 1/latency_steps of it.
std::vector<FlowPhase> topology_phases(CollectiveOp op, Bytes bytes, const RankLayout& layout, int stage,
                                       const FabricLayout& fabric, Fidelity fidelity);
/// The same for explicit groups of devices (all of one size), every group at once. On a fabric of several
/// slices each slice's groups are scheduled on its copy of the torus and the phases merged; a group that
/// spans slices has no schedule: the result is empty and `*crossed` (if given) is set.
std::vector<FlowPhase> group_phases(CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups,
                                    const FabricLayout& fabric, Fidelity fidelity, bool* crossed = nullptr);

/// A multi-slice job's hierarchical gradient sync of `bytes` per chip (docs/collectives.md "Multi-slice"):
/// the in-slice reduce-scatter (if `reduce_scatter`), the DCN ring all-reduce of each chip's shard with the
/// chips at its position in the other slices (flows over the hosts' DCN links: 2(n−1)/n · shard each, then
/// 2(n−1) · `dcn_latency`; the closed form of sim/collectives/multislice.hpp), the in-slice all-gather (if
/// `all_gather`). Every slice's flows.
std::vector<FlowPhase> multislice_phases(bool reduce_scatter, bool all_gather, Bytes bytes, Seconds dcn_latency,
                                         const RankLayout& layout, int stage, const FabricLayout& fabric,
                                         Fidelity fidelity);

}  // namespace clustersim::flow
