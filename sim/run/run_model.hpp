// The run-level model: Monte Carlo over whole training runs with failures, checkpoints, recovery and
// stragglers, on top of the step-level figures (JobShape). Pure: no I/O, deterministic per seed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/run/job_shape.hpp"
#include "sim/run/run_plan.hpp"
#include "sim/run/run_result.hpp"
#include "sim/scenario/run_spec.hpp"

namespace clustersim::run {

/// Counts Monte Carlo trials as they finish and reports (done, total) to `report` (may be empty).
struct TrialCounter {
  std::function<void(std::uint64_t done, std::uint64_t total)> report;
  std::uint64_t done = 0;
  std::uint64_t total = 0;
  void tick() {
    ++done;
    if (report) report(std::min(done, total), total);
  }
};

/// Runs `trials` trials of a resolved plan (trial i uses RngStream(seed, i)) and summarises them.
/// The checkpoint/what-if fields of the result are filled by evaluate_run.
RunResult simulate_run(const RunPlan& plan, std::uint64_t seed, int trials, TrialCounter* counter = nullptr);

/// Validates, resolves, simulates spec.trials trials and the what-if table (goodput and wall time vs
/// interval at {¼, ½, 1, 2, 4} × the sync Young–Daly optimum and the configured interval, sync and
/// async, spec.what_if_trials each, common random numbers). Throws SpecError (make_run_plan) on a bad spec.
/// `progress`, when given, is called after every trial (the run's and the what-if rows') with the
/// trials done and their total, and once at the end with done == total. It changes no figure.
RunResult evaluate_run(const RunSpec& spec, const JobShape& job,
                       const std::function<void(std::uint64_t done, std::uint64_t total)>& progress = {});

/// The what-if table alone.
std::vector<WhatIfRow> what_if_table(const RunSpec& spec, const JobShape& job, TrialCounter* counter = nullptr);

}  // namespace clustersim::run
