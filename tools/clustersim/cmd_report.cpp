// clustersim report EXPERIMENT -o report.html: one prediction written as a self-contained HTML page
// (tools/clustersim/html_report.hpp).
#include <cstdio>
#include <stdexcept>

#include "commands.hpp"
#include "html_report.hpp"
#include "output.hpp"
#include "work_limits.hpp"
#include "paths.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/engine/flow/contention_report.hpp"
#include "sim/engine/straggler_effect.hpp"
#include "sim/report/prediction.hpp"

namespace clustersim::cli {

Command add_report_command(CLI::App& app, const GlobalOptions& global) {
  struct Options {
    std::string experiment;
    std::vector<std::string> sets;
    std::string engine;
    std::string output;
    double max_cost = 1.0;
  };
  auto opt = std::make_shared<Options>();
  app.add_option("experiment", opt->experiment, "experiment file, or a name from configs/experiments")
      ->required();
  app.add_option("--set", opt->sets, "override a field: POINTER=VALUE (repeatable)");
  app.add_option("--engine", opt->engine, "engine (overrides the experiment's)")
      ->check(CLI::IsMember({"analytic", "flow"}));
  app.add_option("--output,-o", opt->output, "the HTML file to write")->required();
  add_max_cost_option(app, opt->max_cost);
  return [opt, &global]() {
    std::vector<config::Override> overrides;
    for (const std::string& s : opt->sets) overrides.push_back(config::parse_override(s));
    if (!opt->engine.empty()) overrides.push_back({"/engine", opt->engine});
    const Scenario s = config::load_scenario({catalog_roots(global.config_dirs)}, opt->experiment, overrides);
    if (!s.jobs.empty())
      throw ConfigError(opt->experiment, "/jobs",
                        "clustersim report covers one job; use `clustersim run` for an experiment with jobs");
    // Opened once the input is known to be valid (a bad input leaves an existing page alone), before the
    // simulation (an unwritable path costs nothing).
    check_work(s, opt->max_cost);
    OutputStream out(opt->output);
    const Prediction p = predict(s);
    nlohmann::json report = prediction_json(s, p);
    if (p.flow) report["contention"] = flow::contention_json(*p.flow, *p.analytic);
    StepGraph rebuilt;
    const StepGraph* graph = p.step.graph.get();
    if (graph == nullptr) {
      rebuilt = build_step_graph(s);
      if (!p.flow) apply_device_stragglers(s, rebuilt);
      graph = &rebuilt;
    }
    const std::string page =
        html_report(report, timeline_json(*graph, p.step, std::string("clustersim ") + CLUSTERSIM_VERSION));
    out.write(page);
    out.close();
    std::fprintf(stderr, "wrote %s (%zu bytes)\n", opt->output.c_str(), page.size());
    return 0;
  };
}

}  // namespace clustersim::cli
