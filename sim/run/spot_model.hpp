// Spot / preemptible capacity over a whole run (docs/reliability.md, "Spot capacity").
//
// Each node of a spot group is preempted after an exponential time (mean mean_time_to_preemption), with
// `notice` of warning. With checkpoint_on_notice and a checkpoint write that fits in the notice, the job
// saves its state and loses no work; otherwise it loses the progress since the last periodic checkpoint.
// It then restarts (restart + restore) with the data-parallel replicas whose nodes are all present (a
// replica is a contiguous block of devices/dp devices; a node takes down every replica it touches), so
// progress runs at up/dp of the full rate. A preempted node's capacity returns after an exponential time
// (mean capacity_return, 0 = at once); the job rejoins it with a checkpoint and a restart. With no
// replica left the job waits for capacity. Spot nodes are billed while held; other nodes at the
// on-demand price for the whole wall time.
//
// Closed forms the tests check (W = work, τ = checkpoint interval of progress, Λ = Σ nodes/MTTP):
//   no notice, zero-cost checkpoints and restarts, capacity back at once:
//     E[T] = Σ_segments (e^{Λ·w_k} − 1)/Λ   (w_k = τ, …, the last one W − ⌊W/τ⌋τ)
//          ≈ W·(1 + Λ·τ/2) for Λτ ≪ 1 (each preemption loses τ/2 of work on average)
//   checkpoint on notice (no lost work), each preemption costing b = 2·(C + R) of stalled time
//   (checkpoint + restart on preemption and again on rejoin), capacity back at once:
//     E[T] = W' / (1 − Λ·b),  W' = W + (⌈W/τ⌉ − 1)·C_periodic
// Hardware failures are not part of these trials (the failure model's run section covers them); the
// comparison is spot vs on-demand capacity under the same checkpoint policy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/run/job_shape.hpp"
#include "sim/run/run_plan.hpp"
#include "sim/run/sample_summary.hpp"
#include "sim/scenario/run_spec.hpp"

namespace clustersim::run {

/// What one spot trial needs, resolved once.
struct SpotInputs {
  Seconds work{0};             // failure-free wall time at full rate (useful time × straggler slowdown)
  Seconds interval{0};         // progress between periodic checkpoints
  Seconds periodic_stall{0};   // training stall of a periodic checkpoint
  Seconds notice_write{0};     // time to make a checkpoint durable (what must fit in the notice)
  Seconds restart{0};          // restart + restore after a preemption or to rejoin capacity
  int nodes = 1;
  int devices_per_node = 1;
  int dp = 1;
  SpotSpec spot;
};

struct SpotTrial {
  Seconds wall{0};
  double cost_usd = 0;
  int preemptions = 0;
  Seconds lost_work{0};   // progress redone
  Seconds degraded{0};    // wall time running with fewer than dp replicas
  Seconds waiting{0};     // wall time with no complete replica
};

/// One trial. `use_spot` false: every node on demand, no preemptions (deterministic).
SpotTrial simulate_spot_trial(const SpotInputs& in, bool use_spot, bool checkpoint_on_notice,
                              std::uint64_t seed, std::uint64_t trial);

struct SpotRow {
  std::string capacity;  // "on-demand", "spot"
  bool checkpoint_on_notice = false;
  int trials = 0;
  Summary<double> wall_s;
  Summary<double> cost_usd;
  double preemptions_mean = 0;
  double lost_work_s_mean = 0;
  double degraded_s_mean = 0;
  double waiting_s_mean = 0;
};

struct SpotResult {
  SpotInputs inputs;
  std::vector<SpotRow> rows;  // on-demand, spot as configured, spot with checkpoint_on_notice flipped
};

/// Resolves the inputs from the run plan and evaluates the rows (spec.what_if_trials trials per spot
/// row, common random numbers between the spot rows). Precondition: spec.spot and a valid plan.
SpotResult evaluate_spot(const RunSpec& spec, const JobShape& job, const RunPlan& plan);

/// Checks that need the job: the groups' nodes fit in the job and the run stays tractable. Fields are
/// RunSpec paths ("spot.groups[0].nodes").
std::vector<FieldProblem> validate_spot_against_job(const RunSpec& spec, const JobShape& job,
                                                    const RunPlan& plan);

}  // namespace clustersim::run
