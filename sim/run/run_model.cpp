#include "sim/run/run_model.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/core/diagnostics.hpp"

namespace clustersim::run {
namespace {

Summary<Seconds> to_seconds(const Summary<double>& s) {
  return {Seconds(s.mean), Seconds(s.p10), Seconds(s.p50), Seconds(s.p90), Seconds(s.ci95_half_width)};
}

}  // namespace

RunResult simulate_run(const RunPlan& plan, std::uint64_t seed, int trials, TrialCounter* counter) {
  CS_ASSERT(trials > 0, "at least one trial");
  RunResult r;
  r.steps = plan.steps;
  r.trials = trials;
  r.useful_time = plan.useful_time;
  r.tokens = plan.tokens;
  r.ramp_steps = plan.ramp_steps;
  r.ramp_tokens = plan.ramp_tokens;
  r.ramp_time = plan.ramp_time;
  r.job_mtbf = plan.process.job_mtbf();
  r.mean_time_between_interruptions = plan.process.mean_time_between_interruptions();
  r.straggler_slowdown = plan.straggler_slowdown;
  r.restart_time = plan.restart;
  r.trial_outcomes.reserve(static_cast<std::size_t>(trials));
  std::vector<double> walls, goodputs;
  walls.reserve(static_cast<std::size_t>(trials));
  goodputs.reserve(static_cast<std::size_t>(trials));
  const double useful = plan.useful_time.value();
  const double kept_full_width = useful * plan.straggler_slowdown;
  LostTime sum;
  for (int i = 0; i < trials; ++i) {
    const auto index = static_cast<std::uint64_t>(i);
    std::optional<TrialOutcome> kept;
    if (counter != nullptr && counter->store != nullptr) kept = counter->store->find(counter->group, index);
    TrialOutcome t = kept ? *kept : simulate_trial(plan, seed, index);
    if (!kept && counter != nullptr && counter->store != nullptr) counter->store->keep(counter->group, index, t);
    const double wall = t.wall().value();
    walls.push_back(wall);
    goodputs.push_back(wall > 0 ? useful / wall : 1.0);
    sum.recompute += t.states.recomputing;
    sum.restart += t.states.restarting;
    sum.repair_wait += t.states.repair_wait;
    sum.restore += t.states.restoring;
    sum.checkpoint_stall += t.states.checkpoint_stall;
    sum.degraded += Seconds(std::max(0.0, t.states.training.value() - kept_full_width));
    for (std::size_t c = 0; c < kComponentClassCount; ++c) r.interruptions_mean[c] += t.interruptions[c];
    r.trial_outcomes.push_back(t);
    if (counter != nullptr) counter->tick();
  }
  const double n = trials;
  r.lost_time_mean = {sum.recompute / n, sum.restart / n,          sum.repair_wait / n,
                      sum.restore / n,   sum.checkpoint_stall / n, Seconds(kept_full_width - useful),
                      sum.degraded / n};
  for (auto& x : r.interruptions_mean) {
    x /= n;
    r.interruptions_total_mean += x;
  }
  r.wall_time = to_seconds(summarize(std::move(walls)));
  r.goodput = summarize(std::move(goodputs));
  r.checkpoint = {plan.checkpoint.size,   plan.checkpoint.write, plan.checkpoint.stall,
                  plan.checkpoint.restore, plan.interval,         plan.optimal_interval,
                  plan.mode,              plan.tier};
  return r;
}

namespace {

// The what-if intervals: {1/4, 1/2, 1, 2, 4} x the sync optimum and the configured interval, sorted, unique.
std::vector<Seconds> what_if_intervals(const RunSpec& spec, const JobShape& job) {
  const RunPlan base = make_run_plan(spec, job);
  RunSpec sync_spec = spec;
  sync_spec.checkpoint.mode = CheckpointMode::sync;
  sync_spec.checkpoint.interval.reset();
  // The grid is centred on the sync optimum (the async optimum is usually "as often as the drain
  // allows", which the grid's small end and the configured interval cover).
  Seconds centre = base.optimal_interval;
  if (sync_spec.checkpoint.tier == CheckpointTier::storage && sync_spec.validate().empty()) {
    centre = make_run_plan(sync_spec, job).optimal_interval;
  }
  std::vector<Seconds> intervals;
  for (const double k : {0.25, 0.5, 1.0, 2.0, 4.0}) {
    if (centre.value() > 0 && std::isfinite(centre.value())) intervals.push_back(centre * k);
  }
  intervals.push_back(base.interval);
  std::sort(intervals.begin(), intervals.end());
  intervals.erase(std::unique(intervals.begin(), intervals.end(),
                              [](Seconds a, Seconds b) { return std::abs(a / b - 1.0) < 1e-9; }),
                  intervals.end());
  return intervals;
}

}  // namespace

std::vector<WhatIfRow> what_if_table(const RunSpec& spec, const JobShape& job, TrialCounter* counter) {
  const std::vector<Seconds> intervals = what_if_intervals(spec, job);
  std::vector<WhatIfRow> rows;
  std::uint32_t group = 0;
  for (const Seconds interval : intervals) {
    for (const CheckpointMode mode : {CheckpointMode::sync, CheckpointMode::async}) {
      ++group;  // the row's trials in a TrialStore: group 1 + row
      if (counter != nullptr) counter->group = group;
      RunSpec s = spec;
      s.checkpoint.interval = interval;
      s.checkpoint.mode = mode;
      WhatIfRow row{interval, mode, false, 0.0, Seconds(0)};
      if (s.validate().empty() && validate_against_job(s, job).empty()) {
        const RunResult r = simulate_run(make_run_plan(s, job), spec.seed, spec.what_if_trials, counter);
        row = {r.checkpoint.interval, mode, true, r.goodput.mean, r.wall_time.mean};
      }
      rows.push_back(row);
    }
  }
  return rows;
}

RunResult evaluate_run(const RunSpec& spec, const JobShape& job,
                       const std::function<void(std::uint64_t done, std::uint64_t total)>& progress,
                       TrialStore* store) {
  const RunPlan plan = make_run_plan(spec, job);
  TrialCounter counter{progress, 0, 0, store, 0};
  if (progress) {
    // Each what-if row is an interval in sync and in async mode (rows whose spec is invalid run none).
    counter.total = static_cast<std::uint64_t>(spec.trials) +
                    2 * what_if_intervals(spec, job).size() * static_cast<std::uint64_t>(spec.what_if_trials);
  }
  TrialCounter* c = progress || store != nullptr ? &counter : nullptr;
  RunResult r = simulate_run(plan, spec.seed, spec.trials, c);
  r.what_if = what_if_table(spec, job, c);
  if (progress) progress(counter.total, counter.total);
  return r;
}

}  // namespace clustersim::run
