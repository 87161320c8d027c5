#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <optional>
#include <stdexcept>

#include "commands.hpp"
#include "output.hpp"
#include "paths.hpp"
#include "progress.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/config/scenario_json.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/flow/contention_report.hpp"
#include "sim/engine/flow/scenario_options.hpp"
#include "sim/engine/straggler_effect.hpp"
#include "sim/report/energy_section.hpp"
#include "sim/report/jobs_report.hpp"
#include "sim/report/prediction.hpp"
#include "sim/report/run_section.hpp"
#include "sim/report/trace.hpp"
#include "sim/scenario/work_bounds.hpp"
#include "trial_checkpoint.hpp"
#include "work_limits.hpp"

namespace clustersim::cli {

namespace {

void write_trace(OutputStream& out, const nlohmann::json& trace) {
  out.write(trace.dump() + "\n");
  out.close();
}

// An experiment with a `jobs` section: every job alone and (flow engine) all together on one fabric.
int run_jobs_command(const Scenario& s, const std::string& format, const std::string& fidelity,
                     std::optional<OutputStream>& trace, std::optional<ElapsedLine>& flow_line) {
  flow::FlowOptions fo;
  fo.fidelity = fidelity == "exact" ? flow::Fidelity::exact : flow::Fidelity::phase;
  const JobsRun r = run_jobs(s, fo);
  flow_line.reset();
  if (format == "json") {
    write_stdout(jobs_json(s, r).dump(2) + "\n");
  } else if (format == "csv") {
    write_stdout(jobs_csv(s, r));
  } else {
    write_stdout(jobs_text(s, r));
  }
  if (trace) {
    std::vector<StepGraph> graphs;
    for (const JobSpec& j : s.jobs) {
      graphs.push_back(build_step_graph(j.scenario));
      if (!r.shared) apply_device_stragglers(j.scenario, graphs.back());
    }
    std::vector<TraceJob> jobs;
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      const JobOutcome& o = r.jobs[i];
      jobs.push_back({&s.jobs[i].scenario, &graphs[i], o.shared ? &*o.shared : &o.analytic});
    }
    std::vector<TraceCounter> counters;
    for (const auto& c : r.shared ? r.shared->counters : std::vector<flow::LinkCounter>{})
      counters.push_back({c.link, c.points});
    write_trace(*trace, trace_json(jobs, counters));
  }
  return 0;
}

}  // namespace

Command add_run_command(CLI::App& app, const GlobalOptions& global) {
  struct Options {
    std::string experiment;
    std::string format = "text";
    std::vector<std::string> sets;
    std::string engine;
    std::string trace;
    std::string fidelity = "phase";
    double max_cost = 1.0;
    bool estimate = false;
    std::string checkpoint;
    bool resume = false;
  };
  auto opt = std::make_shared<Options>();
  app.add_option("experiment", opt->experiment, "experiment file, or a name from configs/experiments")
      ->required();
  app.add_option("--format", opt->format, "output format")->check(CLI::IsMember({"text", "json", "csv"}));
  app.add_option("--set", opt->sets, "override a field: POINTER=VALUE, e.g. /parallelism/tp=4 (repeatable)");
  app.add_option("--engine", opt->engine, "engine (overrides the experiment's)")
      ->check(CLI::IsMember({"analytic", "flow"}));
  app.add_option("--trace", opt->trace, "write the step timeline as a Chrome/Perfetto trace-event JSON file");
  app.add_option("--fidelity", opt->fidelity,
                 "flow engine: collectives as one flow per phase, or every ring step")
      ->check(CLI::IsMember({"phase", "exact"}));
  app.add_flag("--estimate", opt->estimate,
               "print roughly how long the run would take (CPU time) and its peak memory, from the cost "
               "model of docs/limits.md, and exit without running it");
  add_max_cost_option(app, opt->max_cost);
  auto* checkpoint = app.add_option(
      "--checkpoint", opt->checkpoint,
      "append each finished Monte Carlo trial of the run section to this file, so that a run stopped by a "
      "signal keeps them (docs/limits.md)");
  app.add_flag("--resume", opt->resume,
               "read the --checkpoint file of an interrupted run and simulate only the trials it lacks")
      ->needs(checkpoint);
  return [opt, &global]() {
    std::optional<OutputStream> trace;  // opened before the simulation: a bad path costs nothing
    if (!opt->trace.empty()) trace.emplace(opt->trace);
    std::vector<config::Override> overrides;
    for (const std::string& s : opt->sets) overrides.push_back(config::parse_override(s));
    if (!opt->engine.empty()) overrides.push_back({"/engine", opt->engine});
    const Scenario s = config::load_scenario({catalog_roots(global.config_dirs)}, opt->experiment, overrides);
    const WorkEstimate work = estimate_work(s, s.engine == "flow");
    if (opt->estimate) {
      const RunEstimate e = estimate_run(work);
      write_stdout(fmt::format("estimate: about {:.2g} s of CPU time{} and {:.0f} MiB peak memory for {} devices and "
                               "{:.3g} graph operations ({} cost model, docs/limits.md); not run\n",
                               e.cpu_seconds, e.cpu_seconds >= 60 ? " (" + clock_text(e.cpu_seconds) + ")" : "",
                               e.peak_bytes / 1048576.0, work.devices, work.graph_operations, e.path));
      if (auto over = work_over_bounds(work, opt->max_cost)) {
        write_stdout(fmt::format("over the work bounds (the run would be refused): {}\n", *over));
      }
      return 0;
    }
    check_work(s, opt->max_cost);
    // The Monte Carlo's trial checkpoint, opened (and, with --resume, its fingerprint checked and its
    // complete lines rewritten) before any work; its first kept trial of each group is checked against the
    // model when the Monte Carlo reaches it (trial_checkpoint.hpp), after the step prediction.
    std::optional<TrialCheckpoint> trials;
    if (!opt->checkpoint.empty()) {
      if (!s.run || !s.jobs.empty()) {
        throw ConfigError("<command line>", "--checkpoint",
                          !s.run ? "the experiment has no run section: there are no Monte Carlo trials to keep"
                                 : "an experiment with jobs runs no Monte Carlo: there are no trials to keep");
      }
      // What decides the trials: the scenario as read, the experiment file's text (its run section), every
      // --set, the engine and its fidelity. A checkpoint written for other ones is refused at --resume.
      std::string key = config::scenario_to_json(s).dump();
      if (!s.source_file.empty()) {
        std::ifstream in(s.source_file, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        key += "|" + text.str();
      }
      for (const std::string& set : opt->sets) key += "|" + set;
      key += "|" + s.engine + "|" + opt->fidelity;
      trials.emplace(opt->checkpoint, opt->resume, fingerprint_of(key));
    }
    // A flow-engine step has no count to report: on a terminal, elapsed time against the estimate.
    std::optional<ElapsedLine> flow_line;
    if (s.engine == "flow" || (!s.jobs.empty() && work.flow)) {
      flow_line.emplace(stderr_is_terminal(), "flow engine", estimate_run(work).cpu_seconds,
                        std::chrono::milliseconds(500));
    }
    if (!s.jobs.empty()) return run_jobs_command(s, opt->format, opt->fidelity, trace, flow_line);
    PredictOptions po;
    po.fidelity = opt->fidelity == "exact" ? flow::Fidelity::exact : flow::Fidelity::phase;
    if (trials) po.trials = &*trials;
    // The run section's Monte Carlo: a progress line on a terminal once it has run for a second;
    // silent when stderr is piped.
    if (s.run && stderr_is_terminal()) {
      po.on_trials = [line = std::make_shared<ProgressLine>(true, "trials", std::chrono::seconds(1))](
                         std::uint64_t done, std::uint64_t total) { (*line)(done, total); };
    }
    const Prediction p = [&] {
      try {
        return predict(s, po);
      } catch (const ConfigError& e) {
        throw naming_set_values(e, s, overrides);
      }
    }();
    flow_line.reset();
    if (trials) {
      trials->finish();
      if (opt->resume) {
        std::fprintf(stderr, "resumed %zu finished trials from %s\n", trials->reused(), opt->checkpoint.c_str());
      }
    }
    const std::optional<flow::FlowRun>& fr = p.flow;
    if (opt->format == "json") {
      nlohmann::json j = prediction_json(s, p);
      if (fr) j["contention"] = flow::contention_json(*fr, *p.analytic);
      write_stdout(j.dump(2) + "\n");
    } else if (opt->format == "csv") {
      write_stdout(prediction_csv(s, p));
    } else {
      write_stdout(prediction_text(s, p) + (fr ? flow::contention_text(*fr, *p.analytic) : ""));
    }
    if (trace) {
      StepGraph g = build_step_graph(s);
      if (!fr) apply_device_stragglers(s, g);  // the graph the analytic engine evaluated
      std::vector<TraceCounter> counters;
      for (const auto& c : fr ? fr->counters : std::vector<flow::LinkCounter>{})
        counters.push_back({c.link, c.points});
      write_trace(*trace, trace_json({TraceJob{&s, &g, &p.step}}, counters));
    }
    return 0;
  };
}

}  // namespace clustersim::cli
