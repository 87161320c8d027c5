// `clustersim calibrate-links LOG --cluster C --op OP`: fits the catalog link efficiency that bounds OP
// from a user's nccl-tests log (sim/report/nccl_log.hpp).
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "collective_cluster.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/report/nccl_log.hpp"

namespace clustersim::cli {

Command add_calibrate_links_command(CLI::App& app, const GlobalOptions& global) {
  struct Options {
    std::string log;
    std::string cluster;
    std::string op = "all-reduce";
    std::string algo = "auto";
    int ranks = 0;
    std::string format = "text";
  };
  auto opt = std::make_shared<Options>();
  app.add_option("LOG", opt->log, "nccl-tests output (e.g. all_reduce_perf -b 8 -e 8G -f 2 > log)")
      ->required();
  app.add_option("--cluster", opt->cluster, "cluster catalog name or file the log was measured on")
      ->required();
  app.add_option("--op", opt->op, "the operation the log measured")
      ->check(CLI::IsMember(collective_op_choices()));
  app.add_option("--algo", opt->algo, "algorithm NCCL ran (NCCL_ALGO; auto: the model's fastest)")
      ->check(CLI::IsMember(collective_algo_choices()));
  app.add_option("--ranks", opt->ranks, "ranks in the log (default: its '#  Rank' lines, else nGpus)")
      ->check(CLI::PositiveNumber);
  app.add_option("--format", opt->format, "output format")->check(CLI::IsMember({"text", "json"}));
  return [opt, &global]() {
    std::ifstream in(opt->log, std::ios::binary);
    if (!in) throw ConfigError(opt->log, "", "cannot read the log file");
    std::stringstream buf;
    buf << in.rdbuf();
    const NcclLog log = parse_nccl_log(buf.str(), opt->log);
    const auto [cluster, model] = load_cluster_collectives(global, opt->cluster);
    CollectiveSweepSpec spec;
    spec.op = *collective_op_from_string(opt->op);
    spec.algorithm = *collective_algorithm_from_string(opt->algo);
    spec.ranks = opt->ranks > 0 ? opt->ranks : log.ranks;
    if (spec.ranks < 2 || spec.ranks > model.graph().device_count()) {
      throw ConfigError("<command line>", "--ranks",
                        fmt::format("{} ranks{}: expected 2..{} (the devices of cluster {})", spec.ranks,
                                    opt->ranks > 0 ? "" : " read from the log", model.graph().device_count(),
                                    cluster.name));
    }
    const LinkFit fit = fit_links(model, spec, log);
    if (opt->format == "json") {
      nlohmann::json rows = nlohmann::json::array();
      for (const LinkFitRow& r : fit.rows) {
        rows.push_back({{"size_bytes", r.bytes},
                        {"measured_busbw_GBps", r.measured_busbw},
                        {"model_busbw_GBps", r.model_busbw},
                        {"fitted", r.fitted}});
      }
      nlohmann::json j = {{"cluster", cluster.name},
                          {"op", opt->op},
                          {"ranks", spec.ranks},
                          {"rows", rows},
                          {"bottleneck_link", fit.link_kind},
                          {"key", fit.key},
                          {"current", fit.current},
                          {"ratio", fit.ratio},
                          {"suggested", fit.suggested}};
      if (fit.measured_latency_us >= 0) {
        j["measured_latency_us"] = fit.measured_latency_us;
        j["model_latency_us"] = fit.model_latency_us;
      }
      write_stdout(j.dump(2) + "\n");
      return 0;
    }
    std::string out = fmt::format("calibrate-links: {} on {} ({} ranks), {} rows of {}\n", opt->op,
                                  cluster.name, spec.ranks, fit.rows.size(), opt->log);
    out += fmt::format("  {:>14}  {:>14}  {:>14}  {:>7}\n", "size (B)", "measured busbw", "model busbw",
                       "ratio");
    for (const LinkFitRow& r : fit.rows) {
      out += fmt::format("  {:>14.0f}  {:>9.2f} GB/s  {:>9.2f} GB/s  {:>7.3f}{}\n", r.bytes, r.measured_busbw,
                         r.model_busbw, r.model_busbw > 0 ? r.measured_busbw / r.model_busbw : 0.0,
                         r.fitted ? "  *" : "");
    }
    if (fit.ratio > 0 && !fit.key.empty()) {
      out += fmt::format("fit over the rows marked *: measured / model busbw = {:.3f} (median)\n", fit.ratio);
      out += fmt::format(
          "  bottleneck link {}: set {} {:.3f} -> {:.3f} in the node entry of {}{}\n", fit.link_kind, fit.key,
          fit.current, fit.suggested, cluster.name,
          fit.suggested > 1.0 ? " (above the line rate: check the link bandwidth or --ranks)" : "");
    } else {
      out += "no row of 1 MiB or more in the upper third of the sizes: nothing to fit the bandwidth on\n";
    }
    if (fit.measured_latency_us >= 0) {
      out += fmt::format(
          "  small-message latency (intercept below 64 KiB): measured {:.2f} us, model {:.2f} us\n",
          fit.measured_latency_us, fit.model_latency_us);
    }
    write_stdout(out);
    return 0;
  };
}

}  // namespace clustersim::cli
