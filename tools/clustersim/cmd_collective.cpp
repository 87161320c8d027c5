// `clustersim collective`: an nccl-tests-style size sweep of one collective on a catalog cluster.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "collective_cluster.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "paths.hpp"
#include "sim/collectives/cluster_fabric.hpp"
#include "sim/config/catalog.hpp"
#include "sim/config/catalog_entries.hpp"
#include "sim/config/field_pointer.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/report/collective_nccl.hpp"
#include "sim/report/collective_report.hpp"

namespace clustersim::cli {

namespace {

constexpr double kMaxRows = 10000;  // sizes per table

Bytes parse_size(const std::string& option, const std::string& text) {
  try {
    return Bytes(parse_quantity(text, Dimension::bytes));
  } catch (const std::exception& e) {
    throw ConfigError("<command line>", option, e.what());
  }
}

}  // namespace

Command add_collective_command(CLI::App& app, const GlobalOptions& global) {
  struct Options {
    std::string cluster;
    std::string op = "all-reduce";
    std::string algo = "auto";
    std::string ring_order = "topology-aware";
    int ranks = 0;
    std::string min = "8 B";
    std::string max = "8 GiB";
    double factor = 2.0;
    std::string format = "text";
  };
  auto opt = std::make_shared<Options>();
  app.add_option("--cluster", opt->cluster, "cluster catalog name or file")->required();
  app.add_option("--op", opt->op, "operation")->check(CLI::IsMember(collective_op_choices()));
  app.add_option("--algo", opt->algo, "algorithm (auto picks the fastest NCCL-style one)")
      ->check(CLI::IsMember(collective_algo_choices()));
  app.add_option("--ring-order", opt->ring_order, "ring order")
      ->check(CLI::IsMember({"topology-aware", "rank-order", "flat"}));
  app.add_option("--ranks", opt->ranks, "ranks 0..N-1 take part (default: every device of the cluster)")
      ->check(CLI::PositiveNumber);
  app.add_option("--min", opt->min, "smallest size, e.g. 8B");
  app.add_option("--max", opt->max, "largest size, e.g. 8GiB");
  app.add_option("--factor", opt->factor, "size multiplier between rows");
  app.add_option("--format", opt->format, "output format (nccl: the nccl-tests table, for log parsers)")
      ->check(CLI::IsMember({"text", "json", "nccl"}));
  return [opt, &global]() {
    const auto [cluster, model] = load_cluster_collectives(global, opt->cluster);
    CollectiveSweepSpec spec;
    spec.op = *collective_op_from_string(opt->op);
    spec.algorithm = *collective_algorithm_from_string(opt->algo);
    spec.ring_order = opt->ring_order == "rank-order" ? RingOrder::rank_order
                      : opt->ring_order == "flat"     ? RingOrder::flat
                                                      : RingOrder::topology_aware;
    spec.ranks = opt->ranks > 0 ? opt->ranks : model.graph().device_count();
    spec.min = parse_size("--min", opt->min);
    spec.max = parse_size("--max", opt->max);
    spec.factor = opt->factor;
    // One row per size from --min to --max: a factor barely above 1 would print billions of rows.
    if (std::isfinite(spec.factor) && spec.factor > 1.0 && spec.min.value() > 0.0 && spec.max >= spec.min) {
      const double rows =
          std::floor(std::log(spec.max.value() / spec.min.value()) / std::log(spec.factor)) + 1;
      if (rows > kMaxRows) {
        throw ConfigError(
            "<command line>", "--factor",
            fmt::format("{:g} from --min to --max gives {:.3g} rows (at most {:g}): use a larger factor",
                        spec.factor, rows, kMaxRows));
      }
    }
    const auto rows = sweep_collective(model, spec);
    const CollectiveReportHeader header{cluster.name, spec, model.graph().description()};
    if (opt->format == "json") {
      write_stdout(collective_json(header, model, rows).dump(2) + "\n");
    } else if (opt->format == "nccl") {
      write_stdout(collective_nccl_text(header, rows));
    } else {
      write_stdout(collective_text(header, model, rows));
    }
    return 0;
  };
}

}  // namespace clustersim::cli
