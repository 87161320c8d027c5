#include <fmt/format.h>

#include <cstdio>

#include "commands.hpp"
#include "fraction_option.hpp"
#include "output.hpp"
#include "paths.hpp"
#include "sim/config/json_file.hpp"
#include "sim/config/reference_runs.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/report/validation.hpp"

namespace clustersim::cli {

namespace {

// `validate --experiment ID`: the experiment document of one record, so a user can run it, change it and see
// what validate simulated. The record's node overrides (jobs smaller than a node, an NVL72 domain the job
// only partly spans) are printed as the --set options `clustersim run` needs to reproduce the prediction.
int print_record_experiment(const config::ReferenceSet& set, const std::string& id) {
  const config::ReferenceCase& c = find_case(set, id, "<command line>", "--experiment");
  write_stdout(c.experiment.dump(2) + "\n");
  for (const std::string& a : c.assumptions) std::fprintf(stderr, "assumption: %s\n", a.c_str());
  std::string sets;
  for (const config::Override& o : case_overrides(c)) sets += fmt::format(" --set {}={}", o.pointer, o.value);
  if (!sets.empty()) std::fprintf(stderr, "run it with: clustersim run FILE%s\n", sets.c_str());
  // The quantity validate compares, when it is not read straight off the report.
  if (!c.metrics.empty()) {
    const config::MeasuredMetric& m = c.metrics.front();
    if ((m.name == "mfu" || m.name == "hfu") && m.peak_tflops) {
      std::fprintf(stderr,
                   "compared: %s = %s TFLOP/s per device / %g TFLOP/s, the peak the record divides by (the "
                   "report's %s divides by the device's own peak)\n",
                   m.name.c_str(), m.name == "mfu" ? "model" : "hardware", *m.peak_tflops,
                   m.name == "mfu" ? "MFU" : "HFU");
    } else {
      std::fprintf(stderr, "compared: %s\n", m.name.c_str());
    }
  }
  return 0;
}

}  // namespace

Command add_validate_command(CLI::App& app, const GlobalOptions& global) {
  struct Options {
    std::string file;
    std::string format = "text";
    std::string split = "all";
    std::string max_error;
    int expect_count = -1;
    std::string experiment;
    CLI::Option* experiment_option = nullptr;
  };
  auto opt = std::make_shared<Options>();
  app.add_option("file", opt->file,
                 "published-runs file (record format v2, docs/validation.md; default: "
                 "configs/reference/published_runs.json)");
  app.add_option("--format", opt->format, "output format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--split", opt->split, "which records: test (held out), calibration (fitted on), all")
      ->check(CLI::IsMember({"test", "calibration", "all"}));
  app.add_option("--max-error", opt->max_error, "exit 3 if any |relative error| exceeds this (e.g. 5%)");
  app.add_option(
         "--expect-count", opt->expect_count,
         "exit 3 if fewer records than this are predicted (a record that used to predict is now skipped)")
      ->check(CLI::NonNegativeNumber);
  opt->experiment_option = app.add_option("--experiment", opt->experiment,
                 "print the experiment document validate builds for the record with this id (stdout, JSON; "
                 "its assumptions and any --set the run needs on stderr) and exit without predicting");
  return [opt, &global]() {
    std::filesystem::path file = opt->file;
    const bool default_corpus = file.empty();
    if (default_corpus) {
      const auto found = default_reference_file(global.config_dirs);
      if (!found)
        throw ConfigError(
            "", "",
            "no reference/published_runs.json in any catalog root: pass FILE or set CLUSTERSIM_REFERENCE");
      file = *found;
    }
    const double limit =
        opt->max_error.empty() ? -1 : parse_fraction_option(opt->max_error, "--max-error", "5%");
    const config::CatalogPaths paths{catalog_roots(global.config_dirs)};
    if (opt->experiment_option->count() > 0 && opt->experiment.empty())
      throw ConfigError("<command line>", "--experiment", "needs a record id (validate --format json lists them)");
    if (opt->experiment_option->count() > 0) {
      return print_record_experiment(read_corpus(file, paths, default_corpus), opt->experiment);
    }
    ValidationResult r = run_validation(read_corpus(file, paths, default_corpus), paths, opt->split);
    const auto energy = file.parent_path() / "energy_runs.json";
    if (default_corpus && std::filesystem::exists(energy)) add_energy_arithmetic(r, energy, paths);
    if (opt->format == "json") {
      write_stdout(validation_json(r).dump(2) + "\n");
    } else {
      write_stdout(fmt::format("validation against {} (split: {})\n\n", file.string(), opt->split));
      write_stdout(validation_text(r));
    }
    int rc = 0;
    if (limit >= 0 && r.max_abs_error() > limit) {
      std::fprintf(stderr, "validation failed: max |relative error| %.1f%% exceeds %.1f%%\n",
                   100 * r.max_abs_error(), 100 * limit);
      rc = 3;
    }
    if (opt->expect_count >= 0 && static_cast<int>(r.rows.size()) < opt->expect_count) {
      std::fprintf(stderr, "validation failed: %zu records predicted, expected at least %d (see skipped)\n",
                   r.rows.size(), opt->expect_count);
      rc = 3;
    }
    return rc;
  };
}

}  // namespace clustersim::cli
