// clustersim report EXPERIMENT -o report.html: one prediction written as a self-contained HTML page
// (tools/clustersim/html_report.hpp). clustersim report --sweep ROWS.csv | --plan PLAN.json -o page.html:
// the what-if page (heat map and Pareto front) of a sweep or a plan (tools/clustersim/whatif_page.hpp).
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "commands.hpp"
#include "html_report.hpp"
#include "whatif_page.hpp"
#include "output.hpp"
#include "work_limits.hpp"
#include "paths.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/engine/flow/contention_report.hpp"
#include "sim/engine/straggler_effect.hpp"
#include "sim/plan/row_format.hpp"
#include "sim/report/prediction.hpp"

namespace clustersim::cli {

Command add_report_command(CLI::App& app, const GlobalOptions& global) {
  struct Options {
    std::string experiment;
    std::vector<std::string> sets;
    std::string engine;
    std::string output;
    std::string sweep, plan;
    WhatIfOptions whatif;
    double max_cost = 1.0;
  };
  auto opt = std::make_shared<Options>();
  auto* experiment =
      app.add_option("experiment", opt->experiment, "experiment file, or a name from configs/experiments");
  auto* sweep = app.add_option("--sweep", opt->sweep,
                               "instead of an experiment: the CSV or JSON Lines of `clustersim sweep` (heat map, "
                               "Pareto front)")
                    ->excludes(experiment)
                    ->check(CLI::ExistingFile);
  app.add_option("--plan", opt->plan,
                 "instead of an experiment: the JSON of `clustersim plan --format json [--pareto] [--top K]`")
      ->excludes(experiment)
      ->excludes(sweep)
      ->check(CLI::ExistingFile);
  app.add_option("--set", opt->sets, "override a field: POINTER=VALUE (repeatable)");
  app.add_option("--engine", opt->engine, "engine (overrides the experiment's)")
      ->check(CLI::IsMember({"analytic", "flow"}));
  app.add_option("--x", opt->whatif.x,
                 "heat map: horizontal axis (a varied pointer of the sweep, default the first; a strategy field "
                 "of the plan, default tp)");
  app.add_option("--y", opt->whatif.y, "heat map: vertical axis (default the second varied pointer; plan: pp)");
  app.add_option("--z", opt->whatif.z,
                 "heat map: the metric in the cells (default step_time_s; plan: objective)");
  app.add_option("--pareto-x", opt->whatif.pareto_x,
                 "Pareto front: first metric, minimised (default step_time_s; plan: run or step time)");
  app.add_option("--pareto-y", opt->whatif.pareto_y,
                 "Pareto front: second metric, minimised (default a cost, else an energy, else memory.total_bytes "
                 "column; plan: cost_usd, device_hours or energy_j)");
  app.add_option("--output,-o", opt->output, "the HTML file to write")->required();
  add_max_cost_option(app, opt->max_cost);
  return [opt, &global]() {
    if (!opt->sweep.empty() || !opt->plan.empty()) {
      const bool is_sweep = !opt->sweep.empty();
      const std::string& source = is_sweep ? opt->sweep : opt->plan;
      if (!opt->sets.empty() || !opt->engine.empty()) {
        throw std::invalid_argument("--set and --engine apply to an experiment, not to --sweep or --plan");
      }
      std::ifstream in(source, std::ios::binary);
      std::stringstream buffer;
      buffer << in.rdbuf();
      if (!in) throw std::invalid_argument("cannot read " + source);
      opt->whatif.generator = std::string("clustersim ") + CLUSTERSIM_VERSION;
      nlohmann::json data;
      if (is_sweep) {
        data = sweep_page_data(buffer.str(), plan::format_of_path(source) == plan::RowFormat::jsonl, source,
                               opt->whatif);
      } else {
        const nlohmann::json plan_doc = nlohmann::json::parse(buffer.str(), nullptr, false);
        if (plan_doc.is_discarded()) throw ConfigError(source, "", "not JSON: write it with plan --format json");
        data = plan_page_data(plan_doc, source, opt->whatif);
      }
      const std::string page = whatif_html(data);
      std::FILE* f = std::fopen(opt->output.c_str(), "wb");
      if (f == nullptr) throw std::invalid_argument("cannot write " + opt->output);
      const bool ok = std::fwrite(page.data(), 1, page.size(), f) == page.size();
      if (std::fclose(f) != 0 || !ok) throw std::invalid_argument("cannot write " + opt->output);
      std::fprintf(stderr, "wrote %s (%zu bytes)\n", opt->output.c_str(), page.size());
      return 0;
    }
    if (opt->experiment.empty()) {
      throw std::invalid_argument("clustersim report needs an experiment, --sweep FILE or --plan FILE");
    }
    for (const std::string* o : {&opt->whatif.x, &opt->whatif.y, &opt->whatif.z, &opt->whatif.pareto_x,
                                 &opt->whatif.pareto_y}) {
      if (!o->empty()) throw std::invalid_argument("--x, --y, --z and --pareto-x/-y apply to --sweep and --plan");
    }
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
    const Prediction p = [&] {
      try {
        return predict(s);
      } catch (const ConfigError& e) {
        throw naming_set_values(e, s, overrides);
      }
    }();
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
