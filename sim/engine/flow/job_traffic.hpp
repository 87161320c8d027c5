// What the flow engine sends for one job's StepGraph: bytes of pipeline transfers and gradient
// collectives, and the analytic time of exactly those parts, so the rest of each graph delay (e.g. the
// TP all-gather after a pipeline receive, the tied-embedding all-reduce) is kept as a timed wait.
//
// Bytes follow sim/graph/op_cost.cpp and graph_builder.cpp: a pipeline send moves one micro-batch's
// boundary activation b·(s/cp)·h elements split over the tp ranks (scatter/gather, Narayanan et al. SC'21
// §4.1); a chunk's gradient reduction moves its TP-sharded parameters × gradient element size over the
// dp·cp group (all-reduce, or reduce-scatter under ZeRO-1/2; ZeRO-3 gathers stay inside the ops).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/collectives/collective_algorithm.hpp"
#include "sim/collectives/parameter_server.hpp"
#include "sim/engine/flow/collective_phases.hpp"
#include "sim/graph/step_graph.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim::flow {

struct GradientSync {
  bool flows = false;  // false: no DP flows (dp·cp = 1 or ZeRO-3), whole duration is a timed wait
  CollectiveOp op = CollectiveOp::all_reduce;
  Bytes bytes{0};       // full (unsharded) buffer of the chunk
  Seconds analytic{0};  // the analytic engine's time of that collective (OpCostModel::dp_collective_time)
  bool ps = false;      // parameter-server push/pull (ps_phases.hpp) instead of a collective
  // Multi-slice (network.slices > 1): the hierarchical sync of multislice_phases (collective_phases.hpp):
  // in-slice reduce-scatter (ZeRO < 3), the DCN all-reduce of the shard, in-slice all-gather (ZeRO 0).
  bool multislice = false;
  bool slice_reduce_scatter = false, slice_all_gather = false;
};

/// MoE dispatch + combine all-to-alls of one pipeline op (all MoE layer passes of its chunk, the
/// recomputation's included), per EP rank; bytes of one layer pass (dispatch + combine) × `passes`.
struct MoeExchange {
  bool flows = false;   // false: no EP traffic (dense chunk, ep = 1); the op's ep part stays a timed wait
  double passes = 0;    // OpCost::ep_passes
  Seconds analytic{0};  // passes × 2 × StepGraph::moe_all_to_all (before overlap, ETP gathers excluded)
};

/// Per-pass bytes of the MoE all-to-all of one EP rank (busiest rank: moe_load × the mean), as
/// sim/graph/op_cost.cpp costs it: uniform over the EP group, or with node-limited routing one copy per
/// target node over the network (to the same-index GPU) plus an NVLink fan-out inside the node.
struct MoeTraffic {
  int ep = 1, etp = 1;
  int devices_per_node = 1;
  bool node_limited = false;
  Bytes to_rank{0};  // uniform: to each EP group member (self included in the count)
  Bytes to_node{0};  // node-limited: to each other node of the EP group
  Bytes fan_out{0};  // node-limited: to each other EP member of the same node
};

/// The TP, CP and ZeRO-3/FSDP collectives inside the pipeline ops, replayed as flows on a torus (the
/// TPU ICI torus, explicit or derived; docs/flow_engine.md "Collectives inside the ops on a torus").
/// Each kind has a unit collective, the one sim/graph/op_cost.cpp costs per layer pass: TP an all-reduce
/// of the micro-batch's activation over every TP group of the stage (a torus all-reduce is a
/// reduce-scatter and an all-gather: the same link loads as the all-gather/reduce-scatter pairs of
/// sequence parallelism), CP one K/V ring step (send/recv of one block) over every CP ring, FSDP the
/// all-gather of one layer's TP shard over every data-parallel group of the slice. An op whose exposed
/// time of that kind is E replays the unit's flows and α waits scaled by E / `analytic` (the unit's
/// analytic time), so without contention the flows take E, and links shared with other traffic stretch
/// it; the parts the analytic engine hid under the kernels are not flows (their cost stays in the
/// kernels' overlap slowdown).
enum class OpCommKind : std::uint8_t { tp, cp, fsdp };
inline constexpr int kOpCommKinds = 3;
struct OpCommUnit {
  bool flows = false;
  CollectiveOp op = CollectiveOp::all_reduce;
  Bytes bytes{0};
  std::vector<std::vector<int>> groups;  // job ranks of stage 0 inside slice 0 (rank = t + tp·replica)
  Seconds analytic{0};                   // topology time on the groups op_cost.cpp uses
};

class JobTraffic {
 public:
  JobTraffic(const Scenario& s, const StepGraph& g);

  [[nodiscard]] Bytes p2p_bytes_per_rank() const { return p2p_bytes_; }
  /// Analytic time of the send/recv part of a pipeline transfer (≤ graph.p2p_time).
  [[nodiscard]] Seconds p2p_analytic() const { return p2p_analytic_; }
  /// Gradient synchronisation of a dp_sync node.
  [[nodiscard]] const GradientSync& gradient_sync(int node) const {
    return sync_[static_cast<std::size_t>(node)];
  }
  /// The job's DP group on the flow engine's two-level fabric (two-level mode).
  [[nodiscard]] const TwoLevelRing& two_level() const { return two_level_; }
  /// MoE all-to-alls of a pipeline op node.
  [[nodiscard]] const MoeExchange& moe_exchange(int node) const {
    return moe_[static_cast<std::size_t>(node)];
  }
  [[nodiscard]] const MoeTraffic& moe_traffic() const { return moe_traffic_; }
  /// Push/pull shape of a dp_mode with servers (workers' whole-model gradient and weights).
  [[nodiscard]] const PsShape& ps_shape() const { return ps_; }
  /// The unit collective of an op-level kind (flows false: not a torus, or the kind is absent).
  [[nodiscard]] const OpCommUnit& op_comm(OpCommKind k) const { return op_comm_[static_cast<std::size_t>(k)]; }

 private:
  Bytes p2p_bytes_{0};
  Seconds p2p_analytic_{0};
  TwoLevelRing two_level_;
  std::vector<GradientSync> sync_;  // per graph node (default for non-dp_sync nodes)
  MoeTraffic moe_traffic_;
  std::vector<MoeExchange> moe_;  // per graph node
  PsShape ps_;
  std::array<OpCommUnit, kOpCommKinds> op_comm_;
};

}  // namespace clustersim::flow
