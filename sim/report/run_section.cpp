#include "sim/report/run_section.hpp"

#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "sim/config/field_pointer.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/run/run_model.hpp"
#include "sim/run/spot_model.hpp"

namespace clustersim {
namespace {

constexpr double kDay = 86400.0;

nlohmann::json summary_json(const run::Summary<double>& x) {
  return {{"mean", x.mean}, {"p10", x.p10}, {"p50", x.p50}, {"p90", x.p90}, {"ci95", x.ci95_half_width}};
}
nlohmann::json summary_json(const run::Summary<Seconds>& x, double unit = 1.0) {
  return {{"mean", x.mean.value() / unit},
          {"p10", x.p10.value() / unit},
          {"p50", x.p50.value() / unit},
          {"p90", x.p90.value() / unit},
          {"ci95", x.ci95_half_width.value() / unit}};
}

/// A duration for people: seconds, minutes, hours or days, 3 significant digits.
std::string human(Seconds t) {
  const double s = t.value();
  if (!std::isfinite(s)) return "never";
  if (s < 120.0) return fmt::format("{:.3g} s", s);
  if (s < 7200.0) return fmt::format("{:.3g} min", s / 60.0);
  if (s < 2.0 * kDay) return fmt::format("{:.3g} h", s / 3600.0);
  return fmt::format("{:.3g} d", s / kDay);
}

std::string percent(double x) {
  return fmt::format("{:.1f} %", 100.0 * x);
}

nlohmann::json lost_time_json(const run::LostTime& l) {
  const Seconds total =
      l.recompute + l.restart + l.repair_wait + l.restore + l.checkpoint_stall + l.straggler + l.degraded;
  return {{"recompute", l.recompute.value()},
          {"restart", l.restart.value()},
          {"repair_wait", l.repair_wait.value()},
          {"restore", l.restore.value()},
          {"checkpoint_stall", l.checkpoint_stall.value()},
          {"straggler", l.straggler.value()},
          {"degraded", l.degraded.value()},
          {"total", total.value()}};
}

nlohmann::json what_if_json(const std::vector<run::WhatIfRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const run::WhatIfRow& w : rows) {
    out.push_back(
        {{"interval_s", w.interval.value()},
         {"mode", run::to_string(w.mode)},
         {"feasible", w.feasible},
         {"goodput", w.feasible ? nlohmann::json(w.goodput_mean) : nlohmann::json()},
         {"wall_time_s", w.feasible ? nlohmann::json(w.wall_time_mean.value()) : nlohmann::json()}});
  }
  return out;
}

std::string what_if_text(const std::vector<run::WhatIfRow>& rows, Seconds used, int trials) {
  // Rows come sorted by (interval, mode): pair sync and async of one interval on one line.
  std::map<double, std::pair<const run::WhatIfRow*, const run::WhatIfRow*>> by_interval;
  for (const run::WhatIfRow& w : rows) {
    auto& slot = by_interval[w.interval.value()];
    (w.mode == run::CheckpointMode::sync ? slot.first : slot.second) = &w;
  }
  const auto cell = [](const run::WhatIfRow* w) {
    if (w == nullptr || !w->feasible) return fmt::format("{:>10}  {:>9}", "-", "infeasible");
    return fmt::format("{:>10}  {:>9}", percent(w->goodput_mean), human(w->wall_time_mean));
  };
  std::string out = fmt::format("what-if: checkpoint interval and mode ({} trials per row)\n", trials);
  out += fmt::format("  {:<14}{:>10}  {:>9}    {:>10}  {:>9}\n", "interval", "sync", "wall", "async", "wall");
  for (const auto& [interval, pair] : by_interval) {
    const bool is_used = std::abs(interval / used.value() - 1.0) < 1e-9;
    out += fmt::format("  {:<14}{}    {}{}\n", human(Seconds(interval)), cell(pair.first), cell(pair.second),
                       is_used ? "   <- used" : "");
  }
  return out;
}

nlohmann::json spot_json(const run::SpotResult& r) {
  nlohmann::json groups = nlohmann::json::array();
  for (const run::SpotGroupSpec& g : r.inputs.spot.groups) {
    groups.push_back({{"name", g.name},
                      {"nodes", g.nodes},
                      {"mean_time_to_preemption_s", g.mean_time_to_preemption.value()},
                      {"notice_s", g.notice.value()},
                      {"capacity_return_s", g.capacity_return.value()},
                      {"price_usd_per_device_hour", g.price}});
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const run::SpotRow& w : r.rows) {
    rows.push_back({{"capacity", w.capacity},
                    {"checkpoint_on_notice", w.checkpoint_on_notice},
                    {"trials", w.trials},
                    {"wall_time_s", summary_json(w.wall_s)},
                    {"cost_usd", summary_json(w.cost_usd)},
                    {"preemptions", w.preemptions_mean},
                    {"lost_work_s", w.lost_work_s_mean},
                    {"degraded_s", w.degraded_s_mean},
                    {"waiting_s", w.waiting_s_mean}});
  }
  return {{"groups", groups},
          {"on_demand_price_usd_per_device_hour", r.inputs.spot.on_demand_price},
          {"work_s", r.inputs.work.value()},
          {"checkpoint_write_s", r.inputs.notice_write.value()},
          {"restart_s", r.inputs.restart.value()},
          {"rows", rows}};
}

std::string spot_text(const run::SpotResult& r) {
  std::string out = "what-if: spot vs on-demand capacity (hardware failures not included; elastic DP)\n";
  for (const run::SpotGroupSpec& g : r.inputs.spot.groups) {
    out += fmt::format("  group {:<12} {} nodes, preempted every {} per node, notice {}, capacity back in {}, "
                       "{:.2f} USD/device-h\n",
                       g.name.empty() ? "-" : g.name, g.nodes, human(g.mean_time_to_preemption), human(g.notice),
                       human(g.capacity_return), g.price);
  }
  out += fmt::format("  {:<28}{:>10} {:>10}  {:>14} {:>14}  {:>11}  {:>9}\n", "capacity", "wall", "p90 wall",
                     "cost", "p90 cost", "preemptions", "lost work");
  for (const run::SpotRow& w : r.rows) {
    const std::string label =
        w.capacity == "spot" ? fmt::format("spot, {} on notice", w.checkpoint_on_notice ? "checkpoint" : "no checkpoint")
                             : fmt::format("on-demand ({:.2f} USD/device-h)", r.inputs.spot.on_demand_price);
    out += fmt::format("  {:<28}{:>10} {:>10}  {:>14} {:>14}  {:>11.1f}  {:>9}\n", label, human(Seconds(w.wall_s.mean)),
                       human(Seconds(w.wall_s.p90)), fmt::format("{:.4g} USD", w.cost_usd.mean),
                       fmt::format("{:.4g} USD", w.cost_usd.p90), w.preemptions_mean,
                       human(Seconds(w.lost_work_s_mean)));
  }
  return out;
}

}  // namespace

run::JobShape job_shape_of(const Scenario& s, const StepResult& step) {
  const ParallelismSpec& par = s.parallelism;
  run::JobShape job;
  job.step_time = step.step_time;
  job.tokens_per_step = step.tokens_per_step;
  job.devices = step.devices;
  job.devices_per_node = s.cluster.node.devices_per_node;
  job.nics_per_node = s.cluster.node.nics;
  job.nodes_per_leaf_switch = 1;
  job.dp = par.dp;
  job.weights_sharded_across_dp = par.zero_stage >= 3;
  job.optimizer_sharded_across_dp = par.zero_stage >= 1;
  double weights = 0.0;
  double optimizer = 0.0;
  for (const StageSummary& st : step.stages) {
    weights += st.memory.weights.value();
    optimizer += st.memory.optimizer.value();
  }
  const double stages = step.stages.empty() ? 1.0 : static_cast<double>(step.stages.size());
  const double cp = par.cp;
  job.weights_bytes_per_rank = Bytes(weights / stages / (job.weights_sharded_across_dp ? 1.0 : cp));
  job.optimizer_bytes_per_rank = Bytes(optimizer / stages / (job.optimizer_sharded_across_dp ? 1.0 : cp));
  return job;
}

nlohmann::json run_report_json(const run::RunSpec& spec, const run::RunResult& r) {
  nlohmann::json j;
  j["steps"] = r.steps;
  j["trials"] = r.trials;
  j["seed"] = spec.seed;
  j["useful_time_s"] = r.useful_time.value();
  j["wall_time_s"] = summary_json(r.wall_time);
  nlohmann::json days = summary_json(r.wall_time, kDay);
  days.erase("ci95");
  j["wall_time_days"] = days;
  j["goodput"] = summary_json(r.goodput);
  nlohmann::json interruptions;
  for (const run::ComponentClass c : run::kAllComponentClasses) {
    interruptions[std::string(run::to_string(c))] = r.interruptions_mean[run::index_of(c)];
  }
  interruptions["total"] = r.interruptions_total_mean;
  j["interruptions"] = interruptions;
  j["lost_time_s"] = lost_time_json(r.lost_time_mean);
  const run::CheckpointReport& k = r.checkpoint;
  j["checkpoint"] = {{"size_bytes", k.size.value()},
                     {"write_s", k.write.value()},
                     {"stall_s", k.stall.value()},
                     {"restore_s", k.restore.value()},
                     {"interval_s", k.interval.value()},
                     {"optimal_interval_s", k.optimal_interval.value()},
                     {"interval_policy", spec.checkpoint.interval ? "fixed" : "auto"},
                     {"mode", run::to_string(k.mode)},
                     {"tier", run::to_string(k.tier)}};
  j["job_mtbf_s"] = r.job_mtbf.value();
  j["mean_time_between_interruptions_s"] = r.mean_time_between_interruptions.value();
  j["restart_s"] = r.restart_time.value();
  j["straggler_slowdown"] = r.straggler_slowdown;
  j["recovery_policy"] = run::to_string(spec.recovery.policy);
  j["what_if"] = what_if_json(r.what_if);
  return j;
}

std::string run_report_text(const run::RunSpec& spec, const run::RunResult& r) {
  std::string out;
  const auto line = [&out](std::string_view label, const std::string& value) {
    out += fmt::format("  {:<28}{}\n", label, value);
  };
  out += fmt::format("run ({} steps, {} trials, seed {})\n", r.steps, r.trials, spec.seed);
  const auto& w = r.wall_time;
  line("wall time", fmt::format("{} mean (p10 {}, p50 {}, p90 {}; 95 % CI of the mean ± {})", human(w.mean),
                                human(w.p10), human(w.p50), human(w.p90), human(w.ci95_half_width)));
  line("useful time", fmt::format("{} (steps x step time, no failures)", human(r.useful_time)));
  line("goodput", fmt::format("{} mean (p10 {}, p90 {})", percent(r.goodput.mean), percent(r.goodput.p10),
                              percent(r.goodput.p90)));
  line("job MTBF", fmt::format("{} unplanned; {} between any interruptions", human(r.job_mtbf),
                               human(r.mean_time_between_interruptions)));
  std::string causes;
  for (const run::ComponentClass c : run::kAllComponentClasses) {
    const double n = r.interruptions_mean[run::index_of(c)];
    if (n > 0.0) causes += fmt::format("{}{} {:.1f}", causes.empty() ? "" : ", ", run::to_string(c), n);
  }
  line("interruptions per run", fmt::format("{:.1f}{}", r.interruptions_total_mean,
                                            causes.empty() ? std::string() : " (" + causes + ")"));
  const run::LostTime& l = r.lost_time_mean;
  line("lost time", fmt::format("recompute {}, restart {}, repair wait {}, restore {}", human(l.recompute),
                                human(l.restart), human(l.repair_wait), human(l.restore)));
  line("", fmt::format("checkpoint stalls {}, stragglers {}, degraded (elastic) {}",
                       human(l.checkpoint_stall), human(l.straggler), human(l.degraded)));
  const run::CheckpointReport& k = r.checkpoint;
  line("checkpoint", fmt::format("{} {} to {}: write {}, stall {}, restore {}",
                                 format_quantity(k.size.value(), Dimension::bytes, 3), run::to_string(k.mode),
                                 run::to_string(k.tier), human(k.write), human(k.stall), human(k.restore)));
  line("checkpoint interval",
       fmt::format("{} ({}; Young-Daly sqrt(2 C M) = {})", human(k.interval),
                   spec.checkpoint.interval ? "fixed" : "auto", human(k.optimal_interval)));
  line("recovery",
       fmt::format("{}, job restart {}", run::to_string(spec.recovery.policy), human(r.restart_time)));
  line("stragglers", fmt::format("step time x{:.4f}", r.straggler_slowdown));
  if (!r.what_if.empty()) out += what_if_text(r.what_if, k.interval, spec.what_if_trials);
  return out;
}

void add_run_section(const Scenario& s, Prediction& p,
                     const std::function<void(std::uint64_t done, std::uint64_t total)>& on_trials,
                     run::TrialStore* trials) {
  if (!s.run) return;
  const run::JobShape job = job_shape_of(s, p.step);
  run::RunResult result;
  try {
    result = run::evaluate_run(*s.run, job, on_trials, trials);
  } catch (const SpecError& e) {
    // The run model names RunSpec members; the checks it makes here (interval vs checkpoint write and
    // step time) concern the experiment's own run section.
    throw ConfigError(
        config::run_diagnostics(e.problems(), s.source_file.empty() ? "<experiment>" : s.source_file));
  }
  p.run_json = run_report_json(*s.run, result);
  p.run_json["tokens"] = static_cast<double>(result.steps) * job.tokens_per_step;
  p.run_text = run_report_text(*s.run, result);
  if (s.run->spot) {
    const run::RunPlan plan = run::make_run_plan(*s.run, job);
    const std::vector<FieldProblem> problems = run::validate_spot_against_job(*s.run, job, plan);
    if (!problems.empty()) {
      throw ConfigError(
          config::run_diagnostics(problems, s.source_file.empty() ? "<experiment>" : s.source_file));
    }
    const run::SpotResult spot = run::evaluate_spot(*s.run, job, plan);
    p.run_json["spot"] = spot_json(spot);
    p.run_text += spot_text(spot);
  }
  p.run = std::move(result);
}

}  // namespace clustersim
