#include "sim/report/run_section.hpp"

#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "sim/config/field_pointer.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/run/batch_ramp.hpp"
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

std::string device_hours_text(double hours) {
  if (hours >= 1e6) return fmt::format("{:.4g} M device-hours", hours / 1e6);
  return fmt::format("{:.4g} device-hours", hours);
}

struct RampReport {
  nlohmann::json json;
  std::string text;
};

// The batch ramp's share of the run: its steps, tokens and failure-free time, and what the same tokens
// would take at the final batch's throughput (the ramp's extra cost: smaller batches leave a larger share
// of pipeline fill and drain and of per-step collectives).
RampReport ramp_report(const Scenario& s, const run::JobShape& job, const run::RunResult& r) {
  const BatchRampup& q = *s.training.batch_rampup;
  const std::vector<run::RampPhase>& batches = job.ramp;
  nlohmann::json rows = nlohmann::json::array();
  for (const run::RampPhase& b : batches) {
    rows.push_back({{"global_batch", b.batch},
                    {"steps", b.steps},
                    {"tokens", static_cast<double>(b.steps) * b.tokens_per_step},
                    {"step_time_s", b.step_time.value()},
                    {"tokens_per_s", b.tokens_per_step / b.step_time.value()}});
  }
  const double final_rate = job.tokens_per_step / job.step_time.value();  // tokens/s at the final batch
  const double at_final = r.ramp_tokens / final_rate;
  const double extra = r.ramp_time.value() - at_final;
  const double token_share = r.tokens > 0 ? r.ramp_tokens / r.tokens : 0.0;
  const double time_share = r.useful_time.value() > 0 ? r.ramp_time.value() / r.useful_time.value() : 0.0;
  std::vector<std::string> assumptions = {
      "batch at each step by Megatron-LM's rampup rule (start + int(consumed / (samples / n)) x increment, "
      "then the final batch; num_microbatches_calculator.py)",
      "the ramp's steps draw the final batch's average power (energy section) and are checkpointed at the "
      "final batch's whole-step interval"};
  nlohmann::json j = {{"start", q.start},
                      {"increment", q.increment},
                      {"samples", q.samples},
                      {"final_batch", s.training.global_batch},
                      {"steps", r.ramp_steps},
                      {"tokens", r.ramp_tokens},
                      {"useful_time_s", r.ramp_time.value()},
                      {"token_share", token_share},
                      {"time_share", time_share},
                      {"final_batch_time_s", at_final},
                      {"extra_time_s", extra},
                      {"batches", rows},
                      {"assumptions", assumptions}};
  std::string t = fmt::format("batch ramp {} -> {} sequences, +{} every {:.4g} sequences over the first {} "
                              "sequences ({} distinct batches before the final one)\n",
                              q.start, s.training.global_batch, q.increment,
                              q.start < s.training.global_batch
                                  ? static_cast<double>(q.samples) * static_cast<double>(q.increment) /
                                        static_cast<double>(s.training.global_batch - q.start)
                                  : 0.0,
                              q.samples, batches.size());
  const auto line = [&t](std::string_view label, const std::string& value) {
    t += fmt::format("  {:<28}{}\n", label, value);
  };
  line("ramp steps", fmt::format("{} of {} steps, {} tokens ({} of the run's)", r.ramp_steps, r.steps,
                                 format_quantity(r.ramp_tokens, Dimension::count, 4), percent(token_share)));
  line("ramp time", fmt::format("{} failure-free ({} of useful time); {} at the final batch's {:.4g} tokens/s: "
                                "the ramp {} {} ({:+.2f} % of useful time)",
                                human(r.ramp_time), percent(time_share), human(Seconds(at_final)), final_rate,
                                extra >= 0 ? "adds" : "saves", human(Seconds(std::abs(extra))),
                                r.useful_time.value() > 0 ? 100.0 * extra / r.useful_time.value() : 0.0));
  for (const std::string& a : assumptions) line("assumed", a);
  return {std::move(j), std::move(t)};
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
  job.shard_copies = std::max(1, s.cluster.network.slices);  // ZeRO/FSDP shards within a slice
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

std::string run_report_text(const run::RunSpec& spec, const run::RunResult& r, int devices) {
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
  if (devices > 0) {
    line("device-hours", fmt::format("{} useful (devices x useful time), {} at the mean wall time",
                                     device_hours_text(devices * r.useful_time.value() / 3600.0),
                                     device_hours_text(devices * r.wall_time.mean.value() / 3600.0)));
  }
  if (!r.what_if.empty()) out += what_if_text(r.what_if, k.interval, spec.what_if_trials);
  return out;
}

void add_run_section(const Scenario& s, Prediction& p, const StepAtBatch& step_at,
                     const std::function<void(std::uint64_t done, std::uint64_t total)>& on_trials,
                     run::TrialStore* trials) {
  if (!s.run) return;
  run::JobShape job = job_shape_of(s, p.step);
  if (s.training.batch_rampup && s.run->validate().empty()) {
    CS_ASSERT(static_cast<bool>(step_at), "a batch ramp needs the step model at other batches");
    // One step prediction per distinct batch (Megatron's rule gives at most n + 1 of them; sim/config
    // bounds n), in the order the run meets them.
    for (const run::BatchSegment& seg : run::batch_schedule(s.training.batch_rampup, s.training.global_batch,
                                                            s.training.seq_len, s.run->tokens, s.run->steps)) {
      if (seg.batch == s.training.global_batch) continue;  // the final batch: the step above
      const StepResult at = step_at(seg.batch);
      job.ramp.push_back({seg.batch, seg.steps, at.tokens_per_step, at.step_time});
    }
  }
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
  p.run_json["tokens"] = result.tokens;
  const double devices = job.devices;
  p.run_json["device_hours"] = {{"useful", devices * result.useful_time.value() / 3600.0},
                                {"wall_mean", devices * result.wall_time.mean.value() / 3600.0}};
  p.run_text = run_report_text(*s.run, result, job.devices);
  if (s.training.batch_rampup) {
    const RampReport ramp = ramp_report(s, job, result);
    p.run_json["batch_ramp"] = ramp.json;
    p.run_text += ramp.text;
  }
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
