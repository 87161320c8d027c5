// The run-level section of a prediction: failures, checkpoints and goodput over a whole run.
//
// The step prediction gives the run model its JobShape (job_shape_of); run::evaluate_run replays the
// run (Monte Carlo, seeded); the result is rendered as the report's "run" keys and a text block.
//
// JSON keys under "run" (a contract: add keys, never rename; units in the key names):
//   steps, tokens, trials, seed, useful_time_s (failure-free, straggler-free time = steps × step time),
//   wall_time_s {mean, p10, p50, p90, ci95}, wall_time_days {mean, p10, p50, p90},
//   goodput {mean, p10, p50, p90, ci95} (useful_time / wall time per trial),
//   interruptions {<class>..., total} (mean count per run by cause),
//   lost_time_s {recompute, restart, repair_wait, restore, checkpoint_stall, straggler, degraded, total},
//   checkpoint {size_bytes, write_s, stall_s, restore_s, interval_s, optimal_interval_s, interval_policy,
//               mode, tier},
//   job_mtbf_s (unplanned), mean_time_between_interruptions_s (planned included), restart_s,
//   straggler_slowdown (expected step-time multiplier), recovery_policy,
//   what_if [ {interval_s, mode, feasible, goodput, wall_time_s} ] (goodput/wall time null if infeasible),
//   device_hours {useful, wall_mean} (devices × useful time, devices × mean wall time, in hours),
//   batch_ramp {start, increment, samples, final_batch, steps, tokens, useful_time_s, token_share,
//               time_share, final_batch_time_s, extra_time_s, batches [ {global_batch, steps, tokens,
//               step_time_s, tokens_per_s} ], assumptions [..]} (only with training.batch_rampup).
// docs/reliability.md explains every figure.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/scenario/scenario.hpp"
#include "sim/engine/step_result.hpp"
#include "sim/report/prediction.hpp"
#include "sim/run/job_shape.hpp"
#include "sim/run/run_model.hpp"
#include "sim/run/run_result.hpp"
#include "sim/scenario/run_spec.hpp"

namespace clustersim {

/// The step-level figures the run model needs, from a scenario and its step prediction:
/// step time and tokens per step from `step`; devices, devices and NICs per node, DP degree from `s`;
/// checkpointed state per rank = mean over pipeline stages of the weights and optimizer bytes of
/// StepResult::stages[i].memory (models/memory_model.hpp: already divided by dp·cp where ZeRO shards
/// them: optimizer from stage 1, weights from stage 3; gradients are not checkpointed). State that is
/// not sharded is replicated over dp·cp ranks: the per-rank figure is divided by cp so that
/// JobShape::checkpoint_bytes() (which divides by dp) counts each byte once.
/// nodes_per_leaf_switch is 1 (the Scenario carries no leaf radix yet; it only matters when the
/// network_switch class is enabled).
run::JobShape job_shape_of(const Scenario& s, const StepResult& step);

/// The "run" JSON object (keys above) of a computed run.
nlohmann::json run_report_json(const run::RunSpec& spec, const run::RunResult& r);

/// The readable "run" block of the text report, with the what-if table.
/// With devices > 0 it also prints the device-hours (devices × useful time, devices × mean wall time).
std::string run_report_text(const run::RunSpec& spec, const run::RunResult& r, int devices = 0);

/// Fills p.run, p.run_json and p.run_text when s.run is present; does nothing otherwise.
/// Throws ConfigError when the run spec does not fit the job (checkpoint interval shorter than the
/// checkpoint write or than one step), naming the experiment file and the JSON pointer.
/// `on_trials` (may be empty) sees the Monte Carlo trials as they finish (run::evaluate_run); `trials`
/// (may be null) keeps finished trials and supplies those of an interrupted evaluation (run::TrialStore).
/// The step model at another global batch (the batch ramp's steps; the scenario's engine and power cap).
using StepAtBatch = std::function<StepResult(std::int64_t global_batch)>;

/// With training.batch_rampup, `step_at` is called once per distinct batch of the ramp
/// (sim/run/batch_ramp.hpp) and the run replays the ramp's steps at their own step times.
void add_run_section(const Scenario& s, Prediction& p, const StepAtBatch& step_at,
                     const std::function<void(std::uint64_t done, std::uint64_t total)>& on_trials = {},
                     run::TrialStore* trials = nullptr);

}  // namespace clustersim
