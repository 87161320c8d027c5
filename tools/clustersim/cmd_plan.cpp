// clustersim plan: searches parallelization strategies of an experiment (sim/plan/planner.hpp).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <thread>

#include "commands.hpp"
#include "fraction_option.hpp"
#include "output.hpp"
#include "paths.hpp"
#include "progress.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/config/reference_runs.hpp"
#include "sim/config/scenario_json.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/plan/plan_report.hpp"
#include "sim/report/validation.hpp"
#include "work_limits.hpp"

namespace clustersim::cli {

Command add_plan_command(CLI::App& app, const GlobalOptions& global) {
  struct Options {
    std::string experiment;
    std::vector<std::string> sets;
    int devices = 0;
    int max_devices = 0;
    int min_devices = 1;
    std::string objective = "time";
    std::string deadline;
    std::size_t top = 10;
    bool pareto = false;
    std::string format = "text";
    int threads = 0;
    bool tp_beyond_node = false;
    int max_cp = 8;
    int max_vp = 64;
    bool explore = false;
    std::string trust_error = "25%";
    std::string memory_limit = "100%";
    double max_cost = 1.0;
    std::string checkpoint;
    bool resume = false;
  };
  auto opt = std::make_shared<Options>();
  app.add_option("experiment", opt->experiment, "experiment file, or a name from configs/experiments")
      ->required();
  app.add_option("--set", opt->sets, "override a field before searching: POINTER=VALUE (repeatable)");
  auto* dev = app.add_option("--devices", opt->devices, "search on exactly this many devices")
                  ->check(CLI::PositiveNumber);
  app.add_option("--max-devices", opt->max_devices,
                 "also search the device count: 1, 2, 4, ... nodes up to this")
      ->excludes(dev)
      ->check(CLI::PositiveNumber);
  app.add_option("--min-devices", opt->min_devices, "lower bound of the device-count search")
      ->check(CLI::PositiveNumber);
  app.add_option("--objective", opt->objective, "rank by time, cost or energy")
      ->check(CLI::IsMember({"time", "cost", "energy"}));
  app.add_option("--deadline", opt->deadline, "keep strategies that finish the run within this (e.g. 60d)");
  app.add_option("--top", opt->top, "strategies to print")->check(CLI::PositiveNumber);
  app.add_flag("--pareto", opt->pareto, "also print the time-cost (or time-energy) Pareto front");
  app.add_option("--format", opt->format, "output format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--threads", opt->threads, "worker threads (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--allow-tp-beyond-node", opt->tp_beyond_node, "let tensor parallelism span nodes");
  app.add_option("--max-cp", opt->max_cp, "largest context-parallel degree searched")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-vp", opt->max_vp, "largest interleaving depth (virtual pipeline stages) searched")
      ->check(CLI::PositiveNumber);
  add_max_cost_option(app, opt->max_cost);
  auto* checkpoint =
      app.add_option("--checkpoint", opt->checkpoint,
                     "append each evaluated strategy to this file, so that a search stopped by a signal keeps "
                     "what it finished (docs/limits.md)");
  app.add_flag("--resume", opt->resume,
               "read the --checkpoint file of an interrupted search and evaluate only the strategies it lacks")
      ->needs(checkpoint);
  app.add_flag("--explore", opt->explore,
               "rank by the objective alone (default: strategies inside the validated region first)");
  app.add_option("--trust-error", opt->trust_error,
                 "a test-split record validates its configuration when predicted within this (default 25%)");
  app.add_option(
      "--memory-limit", opt->memory_limit,
      "share of device memory a strategy's predicted peak may use (default 100%): below 100% keeps a "
      "reserve; above, also ranks strategies the memory model puts over the device's memory (it "
      "over-predicts some published runs: docs/validation.md)");
  return [opt, &global]() {
    std::vector<config::Override> overrides;
    for (const std::string& s : opt->sets) overrides.push_back(config::parse_override(s));
    const Scenario base =
        config::load_scenario({catalog_roots(global.config_dirs)}, opt->experiment, overrides);
    if (!base.cluster.pools.empty()) {
      throw ConfigError(base.source_file, "/cluster/pools",
                        "plan searches strategies on one node type; a cluster with pools is evaluated by run and "
                        "sweep (docs/heterogeneous.md)");
    }
    plan::PlanOptions o;
    o.objective = plan::parse_objective(opt->objective);
    o.bounds.tp_beyond_node = opt->tp_beyond_node;
    o.bounds.max_cp = opt->max_cp;
    o.bounds.max_vp = opt->max_vp;
    const int per_node = base.cluster.node.devices_per_node;
    if (opt->devices > 0) o.bounds.node_counts = plan::node_counts_for(opt->devices, false, per_node);
    if (opt->max_devices > 0) {
      o.bounds.node_counts = plan::node_counts_for(opt->max_devices, true, per_node, opt->min_devices);
    }
    if (!opt->deadline.empty()) {
      try {
        o.deadline = Seconds(parse_quantity(opt->deadline, Dimension::time));
      } catch (const std::invalid_argument& e) {
        throw ConfigError("<command line>", "--deadline", e.what());
      }
      if (!(o.deadline->value() > 0)) {
        throw ConfigError("<command line>", "--deadline",
                          fmt::format("\"{}\" is not a positive duration", opt->deadline));
      }
    }
    o.threads =
        opt->threads > 0 ? opt->threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const double trust_error = parse_fraction_option(opt->trust_error, "--trust-error", "25%");
    o.memory_limit = parse_fraction_option(opt->memory_limit, "--memory-limit", "110%");
    // A progress line on a terminal once the search has run for a second; silent when stderr is piped.
    if (stderr_is_terminal()) {
      o.on_progress = [line = std::make_shared<ProgressLine>(true, "strategies", std::chrono::seconds(1))](
                          std::size_t done, std::size_t total) { (*line)(done, total); };
    }
    o.max_cost = opt->max_cost;
    o.checkpoint = opt->checkpoint;
    o.resume = opt->resume;
    if (!o.checkpoint.empty()) {
      // What decides the evaluated strategies: the scenario as read (experiment and --set) and the search
      // options; a checkpoint written for other ones is refused on --resume.
      std::string key = config::scenario_to_json(base).dump();
      key += fmt::format("|{}|{}|{}|{}|{}|{}", opt->objective, opt->devices, opt->max_devices, opt->min_devices,
                         opt->max_cp, opt->tp_beyond_node);
      if (opt->max_vp != 64) key += fmt::format("|vp{}", opt->max_vp);  // default: as before the option
      if (o.memory_limit != 1.0) key += fmt::format("|ml{}", o.memory_limit);
      std::uint64_t h = 0xcbf29ce484222325ULL;
      for (const char ch : key) {
        h ^= static_cast<unsigned char>(ch);
        h *= 0x100000001b3ULL;
      }
      o.fingerprint = h;
    }
    plan::PlanResult r = plan::plan_strategies(base, o);
    if (r.resumed > 0) {
      std::fprintf(stderr, "resumed %zu of %zu strategies from %s\n", r.resumed, r.enumerated, o.checkpoint.c_str());
    }
    if (const auto corpus = default_reference_file(global.config_dirs)) {
      const config::CatalogPaths paths{catalog_roots(global.config_dirs)};
      const ValidationResult v = run_validation(read_corpus(*corpus, paths, true), paths, "test");
      plan::mark_trusted(r, base, plan::trust_region(v, trust_error), !opt->explore);
    }
    if (opt->format == "json") {
      write_stdout(plan::plan_json(r, opt->top, opt->pareto).dump(2) + "\n");
    } else {
      write_stdout(plan::plan_text(r, opt->top, opt->pareto));
    }
    std::fprintf(stderr, "searched %zu strategies (%zu simulated; estimated cost %.3g operations) in %.3f s on %d threads\n",
                 r.enumerated, r.simulated, r.estimated_operations, r.seconds, o.threads);
    return r.ranked.empty() ? 3 : 0;
  };
}

}  // namespace clustersim::cli
