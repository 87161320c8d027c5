// Rendering of a plan: a text table of the top-k strategies with a one-line "why it wins", the Pareto
// front, and the same as JSON (deterministic: no timings).
//
// JSON keys: objective, objective_unit, strategies_enumerated, pruned_by_memory, simulated,
// over_memory_after_simulation, invalid, invalid_reasons[{pointer, count, example{strategy,
// message}}] (by count, most first), past_deadline, feasible, top[{rank, strategy{nodes, devices, tp,
// pp, dp, cp, vp, micro_batch, schedule, recompute, zero_stage, sequence_parallel}, step_time_s,
// tokens_per_s, mfu, bubble_fraction, memory_total_bytes, memory_headroom_bytes, comm_exposed_s,
// recompute_s, run_time_s?, device_hours, cost_usd?, energy_j?, objective, why}], pareto[same entries].
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/plan/planner.hpp"

namespace clustersim::plan {

/// One line saying why `ranked[i]` places where it does, against #2 for the winner and #1 otherwise
/// (which time component it saves or loses: bubble, exposed communication, recomputation, compute; and
/// its memory headroom).
std::string why_it_ranks(const PlanResult& r, std::size_t i);

nlohmann::json plan_json(const PlanResult& r, std::size_t top_k, bool pareto);
std::string plan_text(const PlanResult& r, std::size_t top_k, bool pareto);

}  // namespace clustersim::plan
