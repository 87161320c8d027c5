// clustersim sweep: evaluates the cartesian product (or --zip) of --vary axes and streams one row per
// point to CSV or JSON Lines (sim/plan/sweep_runner.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <cstdio>
#include <thread>

#include "commands.hpp"
#include "paths.hpp"
#include "progress.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/plan/point_evaluator.hpp"
#include "sim/plan/sweep_runner.hpp"
#include "work_limits.hpp"

namespace clustersim::cli {
namespace {

// The sweep's progress (rate, ETA) on stderr: on a terminal always, else with --progress a line every
// 10 s (progress.hpp).
class ProgressBar {
 public:
  explicit ProgressBar(bool terminal) : line_(std::make_shared<ProgressLine>(terminal, "points")) {}
  void operator()(const plan::SweepProgress& p) const { (*line_)(p.done, p.total); }

 private:
  std::shared_ptr<ProgressLine> line_;
};

// --estimate: the shard's point count and the time it would take, from timing its first points in the
// order the sweep runs them (at most 64 points or about 2 s, whichever comes first) on one thread. Caches
// behave as in the sweep itself (a topology or fabric structure is built once and reused by later points).
void print_estimate(const plan::SweepJob& job, std::uint64_t shard_points) {
  plan::PointEvaluator evaluator(job.paths, job.document, *job.space);
  evaluator.set_max_cost(job.max_cost);
  const std::uint64_t want = std::min<std::uint64_t>(shard_points, 64);
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  std::uint64_t sampled = 0;
  for (std::uint64_t k = 0; k < want && (k < 4 || elapsed < 2.0); ++k) {
    (void)evaluator.evaluate(job.shard.index + k * job.shard.count);
    ++sampled;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const double per_point = sampled > 0 ? elapsed / static_cast<double>(sampled) : 0.0;
  const double threads =
      std::min<double>(job.jobs, static_cast<double>(std::max<std::uint64_t>(shard_points, 1)));
  const double expected = per_point * static_cast<double>(shard_points) / threads;
  std::printf(
      "%llu points (shard %llu/%llu of %llu), about %s (%.3g s) on %d thread%s: %.3g ms per point "
      "measured on %llu sample points; nothing written\n",
      static_cast<unsigned long long>(shard_points), static_cast<unsigned long long>(job.shard.index),
      static_cast<unsigned long long>(job.shard.count), static_cast<unsigned long long>(job.space->size()),
      clock_text(expected).c_str(), expected, job.jobs, job.jobs == 1 ? "" : "s", 1e3 * per_point,
      static_cast<unsigned long long>(sampled));
}

}  // namespace

Command add_sweep_command(CLI::App& app, const GlobalOptions& global) {
  struct Options {
    std::string experiment;
    std::vector<std::string> vary;
    std::vector<std::string> sets;
    bool zip = false;
    std::string output;
    std::string format;
    int jobs = 1;
    bool resume = false;
    std::string shard = "0/1";
    double max_cost = 1.0;
    bool progress = false;
    bool estimate = false;
  };
  auto opt = std::make_shared<Options>();
  app.add_option("experiment", opt->experiment, "experiment file, or a name from configs/experiments")
      ->required();
  app.add_option(
         "--vary", opt->vary,
         "an axis: POINTER=VALUES, e.g. /parallelism/tp=1,2,4,8 or /cluster/nodes=64..1024:x2 (repeatable)")
      ->required();
  app.add_flag("--zip", opt->zip,
               "take the i-th value of every axis together instead of the cartesian product");
  app.add_option("--set", opt->sets, "override a field of every point: POINTER=VALUE (repeatable)");
  app.add_option("--output,-o", opt->output, "output file (rows are appended as they finish)")->required();
  app.add_option("--format", opt->format, "csv or jsonl (default: from the output's extension)")
      ->check(CLI::IsMember({"csv", "jsonl"}));
  app.add_option("--jobs,-j", opt->jobs, "worker threads")->check(CLI::PositiveNumber);
  app.add_flag("--resume", opt->resume, "keep the rows already in the output and compute the rest");
  app.add_option("--shard", opt->shard,
                 "compute only the points with index % n == i: i/n (e.g. for a SLURM array)");
  add_max_cost_option(app, opt->max_cost);
  app.add_flag("--progress", opt->progress,
               "print progress (rate, ETA) on stderr even when it is not a terminal (a line every 10 s)");
  app.add_flag("--estimate", opt->estimate,
               "print the number of points and the expected time (from a timed sample), then exit");
  return [opt, &global]() {
    std::vector<plan::VarySpec> axes;
    for (const std::string& v : opt->vary) axes.push_back(plan::parse_vary(v));
    const plan::SweepSpace space(std::move(axes), opt->zip);
    plan::SweepJob job;
    job.paths = {catalog_roots(global.config_dirs)};
    job.shard = plan::parse_shard(opt->shard);
    config::ExperimentLoader loader(job.paths);
    job.document = loader.load(opt->experiment);
    std::vector<config::Override> sets;
    for (const std::string& s : opt->sets) sets.push_back(config::parse_override(s));
    loader.apply_base_overrides(job.document, sets);
    job.space = &space;
    job.output = opt->output;
    job.format =
        opt->format.empty() ? plan::format_of_path(opt->output) : plan::parse_row_format(opt->format);
    job.jobs = opt->jobs;
    job.resume = opt->resume;
    job.max_cost = opt->max_cost;
    if (opt->estimate) {
      const std::uint64_t n = space.size();
      const std::uint64_t in_shard = n / job.shard.count + (job.shard.index < n % job.shard.count ? 1 : 0);
      print_estimate(job, in_shard);
      return 0;
    }
    const bool terminal = stderr_is_terminal();
    if (terminal || opt->progress) job.on_progress = ProgressBar(terminal);
    const plan::SweepSummary s = plan::run_sweep(job);
    std::fprintf(stderr,
                 "%llu rows written (%llu ok, %llu infeasible, %llu invalid, %llu error), %llu already "
                 "present, in %.2f s\n",
                 static_cast<unsigned long long>(s.written), static_cast<unsigned long long>(s.ok),
                 static_cast<unsigned long long>(s.infeasible), static_cast<unsigned long long>(s.invalid),
                 static_cast<unsigned long long>(s.error), static_cast<unsigned long long>(s.skipped),
                 s.seconds);
    if (s.error > 0) return 1;
    if (s.written > 0 && s.ok == 0 && s.infeasible == 0) {
      std::fprintf(stderr, "error: %s: every point of the sweep is invalid (see its reason column)\n",
                   opt->output.c_str());
      return 2;
    }
    return 0;
  };
}

}  // namespace clustersim::cli
