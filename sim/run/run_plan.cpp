#include "sim/run/run_plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/unit_parse.hpp"
#include "sim/run/straggler_model.hpp"

namespace clustersim::run {
namespace {

// Bounds on the Monte Carlo's work (docs/limits.md): interruptions stepped through over all trials, and the
// checkpoint interval (or restart) over the mean time between interruptions.
constexpr double kMaxRunEvents = 1e8;
constexpr double kMaxIntervalOverMtbi = 30;

std::string fmt_time(Seconds s) {
  return format_quantity(s.value(), Dimension::time, 3);
}

struct Length {
  double steps = 0;  // all steps (double: checked against the 9e15 bound before conversion)
  double tokens = 0;
  std::int64_t ramp_steps = 0;
  double ramp_tokens = 0;
  Seconds ramp_time{0};
  double final_steps = 0;
  [[nodiscard]] Seconds useful(const JobShape& job) const { return ramp_time + job.step_time * final_steps; }
};

// The run's length: the ramp's phases first (JobShape::ramp, which batch_schedule built for this spec),
// then the final batch for the tokens (rounded up to a whole step) or the steps left.
Length resolve_length(const RunSpec& spec, const JobShape& job) {
  Length l;
  for (const RampPhase& r : job.ramp) {
    l.ramp_steps += r.steps;
    l.ramp_tokens += static_cast<double>(r.steps) * r.tokens_per_step;
    l.ramp_time += r.step_time * static_cast<double>(r.steps);
  }
  if (spec.steps) {
    l.final_steps = static_cast<double>(std::max<std::int64_t>(0, *spec.steps - l.ramp_steps));
  } else {
    l.final_steps = std::max(0.0, std::ceil((*spec.tokens - l.ramp_tokens) / job.tokens_per_step));
  }
  l.steps = static_cast<double>(l.ramp_steps) + l.final_steps;
  l.tokens = l.ramp_tokens + l.final_steps * job.tokens_per_step;
  return l;
}

void assert_valid(const JobShape& job) {
  const std::vector<FieldProblem> problems = job.validate();
  if (problems.empty()) return;
  std::string what = "inconsistent job shape from the step model:";
  for (const FieldProblem& p : problems) what += fmt::format(" {}: {};", p.field, p.message);
  fail_assertion("job.validate().empty()", __FILE__, __LINE__, what);
}

}  // namespace

std::vector<FieldProblem> validate_against_job(const RunSpec& spec, const JobShape& job) {
  assert_valid(job);
  std::vector<FieldProblem> out;
  const CheckpointCosts costs = checkpoint_costs(spec.checkpoint, job);
  if (spec.checkpoint.interval) {
    const Seconds interval = *spec.checkpoint.interval;
    if (interval < costs.write) {
      out.push_back({"checkpoint.interval",
                     fmt::format("{} is shorter than the checkpoint write time {} ({} at the configured "
                                 "bandwidth)",
                                 fmt_time(interval), fmt_time(costs.write),
                                 format_quantity(costs.size.value(), Dimension::bytes, 3))});
    }
    if (interval < job.step_time) {
      out.push_back({"checkpoint.interval", fmt::format("{} is shorter than one step ({})",
                                                        fmt_time(interval), fmt_time(job.step_time))});
    }
  }
  const Length length = resolve_length(spec, job);
  const double steps = length.steps;
  if (steps > 9.0e15) {
    out.push_back({spec.steps ? "steps" : "tokens", "the run is longer than 9e15 steps"});
    return out;
  }
  // Work bound of the Monte Carlo (docs/limits.md): every trial steps through each interruption, so
  // trials x interruptions per trial (the run's failure-free time over the mean time between
  // interruptions, planned ones included) is what it costs; the what-if table adds up to 12 variants of
  // what_if_trials each.
  const FailureProcess process(spec.failures, job);
  const double mtbi = process.mean_time_between_interruptions().value();
  const double useful = length.useful(job).value();
  const double per_trial = mtbi > 0 && std::isfinite(mtbi) ? useful / mtbi + 1.0 : 1.0;
  const double events = (static_cast<double>(spec.trials) + 12.0 * spec.what_if_trials) * per_trial;
  if (!(events <= kMaxRunEvents)) {
    out.push_back({"trials", fmt::format("the Monte Carlo would step through {:.3g} interruptions ({} trials and "
                                         "12 x {} what-if trials of {:.3g} interruptions each over {}), over "
                                         "the bound of {:.3g}: use fewer trials or a shorter run",
                                         events, spec.trials, spec.what_if_trials, per_trial - 1.0,
                                         fmt_time(Seconds(useful)), kMaxRunEvents)});
  }
  // A checkpoint interval (plus the restart) many times the mean time between interruptions keeps almost
  // no interval: the expected number of attempts per kept interval grows as e^(interval/MTBI).
  if (spec.checkpoint.interval && mtbi > 0 && std::isfinite(mtbi)) {
    const double ratio = spec.checkpoint.interval->value() / mtbi;
    if (ratio > kMaxIntervalOverMtbi) {
      out.push_back({"checkpoint.interval",
                     fmt::format("{} is {:.3g} times the mean time between interruptions ({}): about e^{:.0f} "
                                 "attempts per kept interval, the run would not finish",
                                 fmt_time(*spec.checkpoint.interval), ratio, fmt_time(Seconds(mtbi)), ratio)});
    }
  }
  const double restart =
      spec.recovery.restart_base.value() + spec.recovery.restart_per_device.value() * job.devices;
  if (mtbi > 0 && std::isfinite(mtbi) && restart / mtbi > kMaxIntervalOverMtbi) {
    out.push_back({"recovery.restart_base",
                   fmt::format("a restart of {} is {:.3g} times the mean time between interruptions ({}): "
                               "about e^{:.0f} attempts per restart, the run would not finish",
                               fmt_time(Seconds(restart)), restart / mtbi, fmt_time(Seconds(mtbi)),
                               restart / mtbi)});
  }
  return out;
}

RunPlan make_run_plan(const RunSpec& spec, const JobShape& job) {
  assert_valid(job);
  std::vector<FieldProblem> problems = spec.validate();
  if (problems.empty()) problems = validate_against_job(spec, job);
  if (!problems.empty()) throw SpecError(std::move(problems));

  RunPlan plan;
  plan.process = FailureProcess(spec.failures, job);
  const Length length = resolve_length(spec, job);
  plan.steps = static_cast<std::int64_t>(length.steps);
  plan.useful_time = length.useful(job);
  plan.tokens = length.tokens;
  plan.ramp_steps = length.ramp_steps;
  plan.ramp_tokens = length.ramp_tokens;
  plan.ramp_time = length.ramp_time;
  plan.straggler_slowdown = expected_step_slowdown(spec.stragglers, job.devices);
  plan.mode = spec.checkpoint.mode;
  plan.tier = spec.checkpoint.tier;
  plan.checkpoint = checkpoint_costs(spec.checkpoint, job);
  plan.optimal_interval = young_daly_interval(plan.checkpoint.stall, plan.process.job_mtbf());
  Seconds interval = spec.checkpoint.interval.value_or(
      max(max(plan.optimal_interval, plan.checkpoint.drain), job.step_time));
  // A run shorter than its interval simply never checkpoints.
  interval = min(interval, plan.useful_time);
  const double interval_steps = std::max(1.0, std::round(interval / job.step_time));
  plan.interval = job.step_time * interval_steps;
  plan.restart = spec.recovery.restart_base + spec.recovery.restart_per_device * job.devices;
  plan.recovery = spec.recovery;
  plan.failures = spec.failures;
  plan.nodes = job.nodes();
  plan.dp = job.dp;
  plan.nodes_per_leaf_switch = job.nodes_per_leaf_switch;
  return plan;
}

}  // namespace clustersim::run
