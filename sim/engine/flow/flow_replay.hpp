// Replays StepGraphs on a SimGrid platform: compute as executions on device hosts, pipeline transfers
// and gradient collectives as flows that share link bandwidth max-min (CM02 model).
//
// The replay follows the analytic engine's rules exactly (analytic_engine.hpp): a node starts when the
// previous node of its resource ended and its data dependency ended (after the pipeline transfer) or,
// for overlapped gradient sync, started; an overlapped sync ends no earlier than its dependency's end +
// tail. Activities are created lazily from Activity::on_completion (docs/flow_engine.md, SimGrid notes) and kept
// alive until they complete.
//
// Symmetry reduction (FlowOptions::symmetry_reduction): compute runs for one representative replica and
// TP rank per stage (the slowest device's speed when stragglers are given); pipeline flows of every other
// replica/TP rank whose route crosses a shared link are sent alongside and the transfer waits for all of
// them; gradient collectives always send every rank's flows. Without the reduction every replica is
// simulated on all its TP devices and a gradient collective starts when all replicas reached it.
//
// Flow classes (FlowOptions::flow_classes, with the symmetry reduction in topology mode): instead of
// SimGrid, the replay runs on FluidNet (fluid_net.hpp), which simulates each send's flows as classes of
// equal flows with their multiplicity charged to the links they share; waits and kernels are its timers.
//
// Several jobs may be replayed together on one fabric (multi-job runs); each has its own placement.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/engine/flow/fabric_layout.hpp"
#include "sim/engine/flow/flow_options.hpp"
#include "sim/engine/flow/rank_layout.hpp"
#include "sim/engine/flow/simgrid_platform.hpp"
#include "sim/engine/step_result.hpp"
#include "sim/graph/step_graph.hpp"

namespace clustersim::flow {

struct ReplayJob {
  const Scenario* scenario = nullptr;
  const StepGraph* graph = nullptr;
  RankLayout layout;
  int server_base = -1;  // first dedicated parameter-server endpoint of the FabricLayout (-1: none)
};

/// One flow as it ran (for link utilisation and counter tracks).
struct FlowRecord {
  int src = 0, dst = 0;                  // global devices
  double bytes = 0, start = 0, end = 0;  // B, s, s
};

struct ReplayOutput {
  std::vector<std::vector<NodeTiming>> timelines;  // per job, per graph node
  std::vector<FlowRecord> flows;
  std::vector<double> link_bytes;  // per directed link (FabricLayout), B
  double end_time = 0;             // s
};

class FlowReplay {
 public:
  FlowReplay(const FabricLayout& fabric, std::vector<ReplayJob> jobs, const FlowOptions& options);
  ~FlowReplay();
  FlowReplay(const FlowReplay&) = delete;
  FlowReplay& operator=(const FlowReplay&) = delete;

  /// Every (src, dst) device pair the replay may send a flow between, sorted and unique (what a
  /// topology-mode SimgridPlatform needs before it is sealed).
  [[nodiscard]] std::vector<std::pair<int, int>> flow_pairs() const;

  /// False when the replay runs on the flow-class solver (fluid_net.hpp: FlowOptions::flow_classes with
  /// the symmetry reduction in topology mode), which needs no SimGrid platform.
  [[nodiscard]] bool uses_simgrid() const;

  /// Runs until every node of every job finished: the SimGrid engine on `platform` (built from the same
  /// fabric; may be null when !uses_simgrid()), or the flow-class solver. Call once.
  ReplayOutput run(const SimgridPlatform* platform);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clustersim::flow
