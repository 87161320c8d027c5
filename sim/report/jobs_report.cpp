#include "sim/report/jobs_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/diagnostics.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/flow/contention_report.hpp"
#include "sim/engine/flow/scenario_options.hpp"

namespace clustersim {
namespace {

const char* placement_name(Placement p) {
  switch (p) {
    case Placement::contiguous: return "contiguous";
    case Placement::rail_aligned: return "rail-aligned";
    case Placement::scattered: return "scattered";
    case Placement::explicit_nodes: return "explicit";
  }
  return "?";
}

constexpr const char* kAnalyticNote =
    "analytic engine: each job alone, no contention between jobs; run with --engine flow for shared step times";

nlohmann::json or_null(const std::optional<StepResult>& r, double (*get)(const StepResult&)) {
  return r ? nlohmann::json(get(*r)) : nlohmann::json(nullptr);
}

}  // namespace

JobsRun run_jobs(const Scenario& s, const flow::FlowOptions& options) {
  CS_ASSERT(!s.jobs.empty(), "run_jobs needs a jobs section");
  JobsRun r;
  r.engine = s.engine;
  for (const JobSpec& j : s.jobs) r.jobs.push_back({run_analytic(j.scenario), std::nullopt, std::nullopt});
  if (s.engine != "flow") return r;
  const flow::FlowOptions o = flow::flow_options_for(s, options);
  std::vector<std::vector<int>> devices;
  for (const JobSpec& j : s.jobs) devices.push_back(j.devices());
  std::vector<flow::FlowJob> all;
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const flow::FlowJob fj{&s.jobs[i].scenario, devices[i]};
    r.jobs[i].solo = flow::run_flow_jobs(s.cluster, {fj}, o).steps.front();
    all.push_back(fj);
  }
  r.shared = flow::run_flow_jobs(s.cluster, all, o);
  for (std::size_t i = 0; i < s.jobs.size(); ++i) r.jobs[i].shared = r.shared->steps[i];
  return r;
}

nlohmann::json jobs_json(const Scenario& s, const JobsRun& r) {
  nlohmann::json jobs = nlohmann::json::array();
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const JobSpec& j = s.jobs[i];
    const JobOutcome& o = r.jobs[i];
    nlohmann::json e = {
        {"name", j.name},
        {"placement", placement_name(j.placement)},
        {"nodes", j.nodes},
        {"devices", j.scenario.cluster.devices()},
        {"parallelism", {{"tp", j.scenario.parallelism.tp}, {"pp", j.scenario.parallelism.pp},
                         {"dp", j.scenario.parallelism.dp}, {"cp", j.scenario.parallelism.cp}}},
        {"analytic_step_time_s", o.analytic.step_time.value()},
        {"solo_step_time_s", or_null(o.solo, [](const StepResult& x) { return x.step_time.value(); })},
        {"shared_step_time_s", or_null(o.shared, [](const StepResult& x) { return x.step_time.value(); })},
        {"solo_mfu", or_null(o.solo, [](const StepResult& x) { return x.mfu; })},
        {"shared_mfu", or_null(o.shared, [](const StepResult& x) { return x.mfu; })},
        {"shared_tokens_per_s", or_null(o.shared, [](const StepResult& x) { return x.tokens_per_s; })},
        {"slowdown", o.solo && o.shared ? nlohmann::json(o.shared->step_time / o.solo->step_time) : nlohmann::json(nullptr)},
    };
    if (r.shared) e["contention"] = flow::contention_json(*r.shared, o.analytic, i);
    jobs.push_back(std::move(e));
  }
  return {{"name", s.name},
          {"engine", r.engine},
          {"cluster", s.cluster.name},
          {"nodes", s.cluster.nodes},
          {"devices", s.cluster.devices()},
          {"jobs", std::move(jobs)},
          {"contention_note", r.shared ? nlohmann::json(nullptr) : nlohmann::json(kAnalyticNote)}};
}

std::string jobs_text(const Scenario& s, const JobsRun& r) {
  std::string out = fmt::format("{}: {} jobs on {} ({} nodes, {} devices), engine {}\n", s.name, s.jobs.size(),
                                s.cluster.name, s.cluster.nodes, s.cluster.devices(), r.engine);
  out += fmt::format("  {:<12} {:<13} {:>6} {:>11} {:>11} {:>11} {:>9}\n", "job", "placement", "nodes", "analytic s",
                     "solo s", "shared s", "slowdown");
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const JobSpec& j = s.jobs[i];
    const JobOutcome& o = r.jobs[i];
    out += fmt::format("  {:<12} {:<13} {:>6} {:>11.4f} {:>11} {:>11} {:>9}\n", j.name, placement_name(j.placement),
                       j.nodes.size(), o.analytic.step_time.value(),
                       o.solo ? fmt::format("{:.4f}", o.solo->step_time.value()) : "-",
                       o.shared ? fmt::format("{:.4f}", o.shared->step_time.value()) : "-",
                       o.solo && o.shared ? fmt::format("x{:.4f}", o.shared->step_time / o.solo->step_time) : "-");
    out += fmt::format("  {:<12} nodes {}\n", "", fmt::join(j.nodes, ","));
  }
  if (r.shared) {
    out += flow::contention_text(*r.shared, r.jobs.front().analytic, 0);
  } else {
    out += fmt::format("  {}\n", kAnalyticNote);
  }
  return out;
}

std::string jobs_csv(const Scenario& s, const JobsRun& r) {
  std::string out = "experiment,job,placement,nodes,devices,analytic_step_time_s,solo_step_time_s,shared_step_time_s,slowdown\n";
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const JobSpec& j = s.jobs[i];
    const JobOutcome& o = r.jobs[i];
    out += fmt::format("{},{},{},{},{},{:.9g},{},{},{}\n", s.name, j.name, placement_name(j.placement), j.nodes.size(),
                       j.scenario.cluster.devices(), o.analytic.step_time.value(),
                       o.solo ? fmt::format("{:.9g}", o.solo->step_time.value()) : "",
                       o.shared ? fmt::format("{:.9g}", o.shared->step_time.value()) : "",
                       o.solo && o.shared ? fmt::format("{:.9g}", o.shared->step_time / o.solo->step_time) : "");
  }
  return out;
}

}  // namespace clustersim
