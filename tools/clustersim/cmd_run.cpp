#include <fmt/format.h>

#include <cstdio>

#include "commands.hpp"
#include "paths.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/report/prediction.hpp"

namespace clustersim::cli {

Command add_run_command(CLI::App& app, const GlobalOptions& global) {
  struct Options {
    std::string experiment;
    std::string format = "text";
    std::vector<std::string> sets;
    std::string engine;
  };
  auto opt = std::make_shared<Options>();
  app.add_option("experiment", opt->experiment, "experiment file, or a name from configs/experiments")->required();
  app.add_option("--format", opt->format, "output format")->check(CLI::IsMember({"text", "json", "csv"}));
  app.add_option("--set", opt->sets, "override a field: POINTER=VALUE, e.g. /parallelism/tp=4 (repeatable)");
  app.add_option("--engine", opt->engine, "engine (overrides the experiment's)")->check(CLI::IsMember({"analytic"}));
  return [opt, &global]() {
    std::vector<config::Override> overrides;
    for (const std::string& s : opt->sets) overrides.push_back(config::parse_override(s));
    if (!opt->engine.empty()) overrides.push_back({"/engine", opt->engine});
    const Scenario s = config::load_scenario({catalog_roots(global.config_dirs)}, opt->experiment, overrides);
    const Prediction p = predict(s);
    if (opt->format == "json") {
      std::fputs((prediction_json(s, p).dump(2) + "\n").c_str(), stdout);
    } else if (opt->format == "csv") {
      std::fputs(prediction_csv(s, p).c_str(), stdout);
    } else {
      std::fputs(prediction_text(s, p).c_str(), stdout);
    }
    return 0;
  };
}

}  // namespace clustersim::cli
