// The run-level model: Monte Carlo over whole training runs with failures, checkpoints, recovery and
// stragglers, on top of the step-level figures (JobShape). Pure: no I/O, deterministic per seed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "sim/run/job_shape.hpp"
#include "sim/run/run_plan.hpp"
#include "sim/run/run_result.hpp"
#include "sim/run/trial.hpp"
#include "sim/scenario/run_spec.hpp"

namespace clustersim::run {

/// Finished trials kept outside the model (a checkpoint file, so that an interrupted run resumes without
/// simulating them again). A trial is named by (group, trial): group 0 is the run's own trials, group 1 + k
/// the trials of the k-th what-if row (interval by mode, in table order, rows that run none included).
/// `find` returns a trial kept earlier (its outcome bit for bit), `keep` is given every trial simulated.
class TrialStore {
 public:
  virtual ~TrialStore() = default;
  virtual std::optional<TrialOutcome> find(std::uint32_t group, std::uint64_t trial) = 0;
  virtual void keep(std::uint32_t group, std::uint64_t trial, const TrialOutcome& outcome) = 0;
};

/// Counts Monte Carlo trials as they finish and reports (done, total) to `report` (may be empty); with a
/// `store`, trials of `group` are looked up there before they are simulated, and kept there after.
struct TrialCounter {
  std::function<void(std::uint64_t done, std::uint64_t total)> report;
  std::uint64_t done = 0;
  std::uint64_t total = 0;
  TrialStore* store = nullptr;
  std::uint32_t group = 0;
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
/// trials done and their total, and once at the end with done == total. `store`, when given, supplies
/// trials finished by an earlier, interrupted evaluation of the same spec and keeps the others. Neither
/// changes a figure.
RunResult evaluate_run(const RunSpec& spec, const JobShape& job,
                       const std::function<void(std::uint64_t done, std::uint64_t total)>& progress = {},
                       TrialStore* store = nullptr);

/// The what-if table alone.
std::vector<WhatIfRow> what_if_table(const RunSpec& spec, const JobShape& job, TrialCounter* counter = nullptr);

}  // namespace clustersim::run
