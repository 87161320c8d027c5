// `clustersim plan`: searches the strategy space of an experiment for the strategies that fit memory and
// ranks them by an objective.
//
// Each strategy is written into a copy of the experiment's Scenario (no JSON), pruned when the memory
// estimate (memory_estimate.hpp) exceeds the device memory, and otherwise run through the analytic engine
// (run_analytic), or predict() when the objective needs the energy section. Strategies are evaluated on
// `threads` threads into a vector indexed like the enumeration, so the ranking does not depend on the
// thread count. Ties are broken by step time, then by memory headroom, then by enumeration order.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/step_result.hpp"
#include "sim/plan/strategy.hpp"
#include "sim/plan/strategy_space.hpp"
#include "sim/plan/trust_region.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim::plan {

enum class Objective { time, cost, energy };
/// "time", "cost" or "energy"; throws ConfigError (file "<command line>", pointer "--objective").
Objective parse_objective(std::string_view text);
const char* to_string(Objective o);

struct PlanOptions {
  SearchBounds bounds;
  Objective objective = Objective::time;
  std::optional<Seconds> deadline;  // keep strategies whose run time (needs run tokens/steps) fits
  int threads = 1;
  /// Called on the calling thread after each strategy it evaluates (done, total), and once with
  /// done == total at the end; may be empty (progress lines: tools/clustersim/progress.hpp).
  std::function<void(std::size_t done, std::size_t total)> on_progress = {};
  double max_cost = 1.0;  // scales kMaxPlanOperations (the CLI's --max-cost)
  /// The share of a device's memory a strategy's predicted peak may use (the CLI's --memory-limit): below 1
  /// keeps a reserve, above 1 also ranks strategies the memory model puts over the device's memory (it
  /// over-predicts some published runs that ran: docs/validation.md). Not applied on weight-streaming
  /// nodes, whose SRAM and MemoryX checks stay exact.
  double memory_limit = 1.0;
  /// A checkpoint file (empty: none): each evaluated strategy is appended to it as a line (batched, a
  /// write at least every 0.2 s), so a search stopped by a signal keeps what it finished. With `resume`
  /// its complete lines are read first and only the other strategies are evaluated; the result is the
  /// same as one uninterrupted search. `fingerprint` identifies the input (experiment, options): a
  /// checkpoint of another input is refused (exit 2).
  std::string checkpoint;
  bool resume = false;
  std::uint64_t fingerprint = 0;
};

/// Figures of one simulated, memory-feasible strategy.
struct PlanCandidate {
  Strategy strategy;
  std::size_t order = 0;  // position in the enumeration
  int devices = 0;
  Seconds step_time{0};
  double tokens_per_s = 0;
  double mfu = 0;
  double bubble_fraction = 0;
  Bytes memory{0};                    // largest stage total
  Bytes headroom{0};                  // capacity − memory
  Seconds comm_exposed{0};            // tp + pp + dp + cp of the critical stage
  Seconds recompute{0};               // recomputation on the critical stage
  std::optional<Seconds> run_time;    // tokens (or steps) of the run section / throughput, failure-free
  double device_hours = 0;            // devices × run time (or × step time when no run length is known)
  std::optional<double> cost_usd;     // from the energy section's run cost, when reported
  std::optional<double> energy_j;     // energy of the run (or of one step) from the energy section
  double objective = 0;               // the ranked value (lower is better)
  std::optional<TrustVerdict> trust;  // inside the validated region? (set by mark_trusted)
};

/// Why strategies were invalid, grouped by the JSON pointer of the first problem the config checks
/// found ("" when the step model refused the strategy), with the first such strategy in search order
/// and its message as the example.
struct InvalidReason {
  std::string pointer;
  std::size_t count = 0;
  std::string example;        // the example strategy's message
  Strategy example_strategy;
};

struct PlanResult {
  Objective objective = Objective::time;
  std::string objective_unit;         // "s/step", "s", "USD", "device-hours", "J", "J/step"
  std::size_t enumerated = 0;         // strategies in the space
  std::size_t pruned_memory = 0;      // discarded by the memory estimate before simulation
  std::size_t simulated = 0;          // run through the engine
  std::size_t over_memory = 0;        // simulated, but a stage does not fit
  std::size_t invalid = 0;            // refused by the config checks or the graph builder
  std::vector<InvalidReason> invalid_reasons;  // by count, most first (ties in search order)
  std::size_t past_deadline = 0;      // feasible but slower than the deadline
  std::vector<PlanCandidate> ranked;  // feasible strategies, best first
  std::optional<double> trust_error;  // the region's error bound, when mark_trusted ran
  bool trusted_first = false;         // trusted strategies ranked before the others
  double seconds = 0;                 // wall time of the search (not part of JSON output: not deterministic)
  double estimated_operations = 0;    // the search-cost estimate checked against its bound (--max-cost)
  std::size_t resumed = 0;            // strategies read from the checkpoint instead of evaluated
  double memory_limit = 1.0;          // PlanOptions::memory_limit the search used
  /// Settings of the experiment the search does not keep, said with the result (a stated pipeline split).
  std::vector<std::string> notes;
};

/// Throws ConfigError when the objective needs data the experiment lacks (energy without an energy
/// section, a deadline without run tokens/steps) or the space is empty.
PlanResult plan_strategies(const Scenario& base, const PlanOptions& options);

/// Marks every ranked candidate inside or outside `region` (trust_region.hpp). With `trusted_first`, moves
/// the trusted candidates ahead of the others, each group keeping its order (`--explore` leaves the
/// ranking by objective alone).
void mark_trusted(PlanResult& r, const Scenario& base, const TrustRegion& region, bool trusted_first);

/// The non-dominated candidates in (step or run time, cost) or (time, energy) for the energy objective,
/// sorted by time.
std::vector<PlanCandidate> pareto_front(const PlanResult& r);

}  // namespace clustersim::plan
