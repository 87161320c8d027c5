// The automatic zero-bubble scheduler (zb-1p, zb-2p) of Qi, Wan, Huang, Lin, "Zero Bubble Pipeline
// Parallelism", ICLR 2024, Section 3, as the authors' code builds it: sail-sg/zero-bubble-pipeline-
// parallelism f68d3879 (the arXiv commit), megatron/core/pipeline_parallel/auto_schedule.py,
// `auto_schedule` -> `initial_solution` -> `Graph.manual_order` (the ILP after it is disabled there:
// `if graph.nnodes < 0`). Read, not copied; docs/schedules.md describes the construction.
//
// The search places the F, B and W ops of all stages together, one iteration per microbatch, keeping a
// completion time per op from the given op and p2p times and an activation-memory account per stage
// (F adds forward_memory, B frees forward_memory - weight_memory, W frees weight_memory) that never
// exceeds limit x forward_memory. W's are put into the gaps where a stage would otherwise wait for its
// next F's or B's input, or when memory requires. It runs with each of the eight combinations of its three
// switches and keeps the one with the shortest longest-stage time (the first of equals, in the
// reference's loop order). Each stage then runs its ops in the order they were placed (the reference's
// ilp_results sorts them by start time, which is that order).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "schedules/pipeline_schedule.hpp"

namespace clustersim {

struct AutoScheduleResult {
  // Per stage, its ops in run order: 'F', 'B' or 'W'; each kind runs its microbatches in order 0..m-1.
  std::vector<std::string> order;
  // The reference's best_time: max over stages of (last W's completion - first F's start), in the time
  // unit of AutoScheduleCosts.
  std::int64_t makespan = 0;
  // Which of the eight variants won: allow_bubble_before_first_b, prioritize_b, no_bubble_greedy.
  bool allow_bubble_before_first_b = false;
  bool prioritize_b = false;
  bool no_bubble_greedy = false;
  // Per stage, the idle time the winning variant counted between its ops after its first F.
  std::vector<std::int64_t> stage_bubble;
};

/// Runs the search for `spec` (zb-1p or zb-2p). Precondition: is_valid(spec) and is_auto_zero_bubble
/// (std::invalid_argument otherwise). Cost: O(8 * 3 * p * m) time, O(p * m) memory.
AutoScheduleResult auto_zero_bubble_schedule(const ScheduleSpec& spec);

/// The same, shared: the last few results computed on this thread are kept (the graph builder, the
/// memory walk and each stage's cursor ask for the same spec in turn). Same precondition.
std::shared_ptr<const AutoScheduleResult> shared_auto_zero_bubble_schedule(const ScheduleSpec& spec);

}  // namespace clustersim
