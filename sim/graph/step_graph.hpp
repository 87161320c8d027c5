// The per-step graph: every op of one training step on one representative data-parallel replica.
//
// DP replicas run identical compute, so one replica's p pipeline stages represent all dp·p·tp·cp devices
// (DESIGN.md "Symmetry makes scale cheap"). Each stage has two resources that execute their nodes in a
// fixed order: the compute stream (forward/backward ops from the pipeline schedule, then the optimizer)
// and the data-parallel channel (gradient synchronisation per model chunk). A node may start when its
// resource is free and its single data dependency has finished (plus a transfer delay). Engines evaluate
// this graph; they never re-derive costs.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <optional>

#include "models/activation_offload.hpp"
#include "models/weight_streaming.hpp"
#include "schedules/pipeline_schedule.hpp"
#include "sim/graph/op_cost.hpp"

namespace clustersim {

enum class NodeKind : std::uint8_t {
  forward,
  backward,         // fused B + W
  backward_input,   // B (zero-bubble)
  backward_weight,  // W (zero-bubble)
  dp_sync,          // gradient reduction of one chunk across data-parallel (and context-parallel) ranks
  optimizer         // optimizer step (+ ZeRO parameter all-gather)
};

enum class Resource : std::uint8_t { compute, dp_channel };

struct StepNode {
  // Times first, then ints, then the one-byte fields: 48 bytes rather than 72 (graphs hold thousands of
  // nodes and every pass over a step walks them).
  Seconds duration{0};
  Seconds dep_delay{0};          // transfer time after `dep` finishes (pipeline send/recv)
  Seconds tail{0};               // with starts_with_dep: ends no earlier than dep's end + tail (last bucket)
  int stage = 0;
  int microbatch = 0;
  int chunk = 0;
  int dep = -1;                  // node whose output this node consumes (-1: none)
  int cost = -1;                 // index into StepGraph::costs (time split by cause), -1 if none
  NodeKind kind = NodeKind::forward;
  Resource resource = Resource::compute;
  bool starts_with_dep = false;  // dp_sync with bucket overlap: may start when `dep` starts
};

/// Weight streaming of a wafer-scale step (models/weight_streaming.hpp): one micro-batch's passes and
/// the step boundary, as the graph's forward/backward ops and its one sync node carry them.
struct StreamingStep {
  StreamedPass forward;   // per micro-batch
  StreamedPass backward;  // per micro-batch
  Seconds boundary{0};    // fill + drain + tree latency, once per step (the graph's dp_sync node)
  int microbatches = 0;
  int systems = 0;
  BytesPerSecond bandwidth{0};
  Bytes weights{0};            // streamed per pass (whole model)
  Bytes gradients{0};          // streamed out per backward pass
  Bytes largest_piece{0};      // weights of the largest piece (SRAM double buffer)
  Bytes largest_piece_grads{0};
};

/// Activation offloading (models/activation_offload.hpp) of a pp = 1 step: per micro-batch figures, as
/// the graph's forward and backward ops carry them (OpCost::offload).
struct OffloadStep {
  int layers = 0;                 // offloaded layers (the model's first)
  Bytes bytes_per_microbatch{0};  // copied out in the forward and back in the backward, per device
  BytesPerSecond bandwidth{0};    // host link per device, per direction, as reached
  OffloadPassTime forward;        // per micro-batch
  OffloadPassTime backward;       // per micro-batch
  Seconds hbm_slowdown{0};        // per micro-batch: kernels slowed by the copies' HBM traffic
  int microbatches = 0;
};

/// The schedule's pipeline ops in an order in which each comes after its dependency and after its
/// predecessor on its stage's compute stream, for evaluate_timeline's straight walk (StepGraph::
/// pipeline_order). Depends on the schedule alone; shared by all graphs of one schedule.
struct PipelinePlan {
  struct Step {
    int id = 0;     // node
    int dep = -1;   // its dependency as built (the walk checks the graph still has it)
    int stage = 0;  // whose compute stream runs it
  };
  std::vector<Step> steps;       // in evaluation order
  std::vector<int> stage_begin;  // stage st's pipeline ops: nodes [stage_begin[st], stage_begin[st + 1]),
                                 // the first ones of order[st][0] in this order
};

struct StepGraph {
  ScheduleSpec schedule;
  std::vector<StepNode> nodes;
  /// Per stage, per resource, node ids in execution order: order[stage][resource].
  std::vector<std::array<std::vector<int>, 2>> order;
  std::vector<OpCost> costs;
  // costs[lone_costs_from..] are DualPipe's lone chunks (ops outside an overlapped F&B pair): their MoE
  // all-to-alls run exposed, after the kernels, whatever moe_overlap says. -1: no such costs.
  int lone_costs_from = -1;
  Seconds p2p_time{0};  // pipeline transfer per micro-batch boundary
  Flops model_flops_per_replica{0};
  Flops hardware_flops_per_replica{0};
  Seconds dp_comm_total{0};  // sum over stages of gradient-sync time (before overlap)
  // Mixture-of-experts: one dispatch (or combine) all-to-all of one layer pass on the busiest EP rank,
  // before overlap, and that rank's token load over the mean (0 and 1 for dense models).
  Seconds moe_all_to_all{0};
  double moe_load = 1.0;
  std::optional<StreamingStep> streaming;  // wafer-scale systems (weight streaming)
  std::optional<OffloadStep> offload;      // training.activation_offload_layers > 0
  /// Set by build_step_graph: nodes [0, pipeline_order->steps.size()) are the schedule's forward/backward
  /// ops, each on its stage's compute stream, and this lists them in an order in which every node comes
  /// after its dependency and after the nodes before it on its stream. Shared by all graphs of one
  /// schedule. Code that changes a node's dependency, stream or place in an order should reset it
  /// (changing durations and delays is fine; evaluate_timeline checks the streams' orders and the
  /// dependencies against it and walks the streams instead when they differ); null: no such order known.
  std::shared_ptr<const PipelinePlan> pipeline_order;
};

/// Builds the step graph of a validated scenario (sim/config has checked that its schedule can be built).
/// The pipeline ops' structure (kinds, order, dependencies) depends on the schedule alone and is kept
/// per thread for the last few schedules built (graph_builder.cpp); only durations and delays are
/// recomputed per scenario.
StepGraph build_step_graph(const Scenario& s);

/// Turns this thread's schedule-skeleton cache on or off (off also empties it, so every build starts
/// from the schedule). Results are the same either way; tests compare the two.
void set_schedule_skeleton_cache(bool on);

}  // namespace clustersim
