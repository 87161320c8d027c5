// `clustersim collective`: an nccl-tests-style size sweep of one collective on a catalog cluster.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "collective_cluster.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "paths.hpp"
#include "sim/collectives/cluster_fabric.hpp"
#include "sim/collectives/multislice.hpp"
#include "sim/config/catalog.hpp"
#include "sim/config/catalog_entries.hpp"
#include "sim/config/field_pointer.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/report/collective_nccl.hpp"
#include "sim/report/collective_report.hpp"
#include "work_limits.hpp"

namespace clustersim::cli {

namespace {

constexpr double kMaxRows = 10000;  // sizes per table
constexpr double kMaxDirectPairs = 5e8;  // rank pairs routed by a direct collective over all rows

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
    double max_cost = 1.0;
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
  add_max_cost_option(app, opt->max_cost);
  app.add_option("--format", opt->format, "output format (nccl: the nccl-tests table, for log parsers)")
      ->check(CLI::IsMember({"text", "json", "nccl"}));
  return [opt, &global]() {
    const auto [cluster, model] = load_cluster_collectives(global, opt->cluster, true);
    // A multi-slice cluster (docs/collectives.md "Multi-slice"): `model` is one slice's torus. An
    // all-reduce over every chip is the hierarchical ICI/DCN all-reduce `run` costs; any other
    // collective stays inside one slice (only data parallelism spans slices).
    const int slices = slice_count(cluster);
    const int slice_devices = model.graph().device_count();
    const bool multi_slice =
        slices > 1 && (opt->ranks == 0 || opt->ranks > slice_devices);
    if (multi_slice && opt->op != "all-reduce") {
      throw ConfigError("<command line>", "--op",
                        fmt::format("{} over the chips of {} slices: only the all-reduce of data parallelism "
                                    "spans slices here (as in `run`); give --ranks 2..{} to run it inside one slice",
                                    opt->op, slices, slice_devices));
    }
    if (slices > 1 && opt->ranks == 1) {
      throw ConfigError("<command line>", "--ranks",
                        fmt::format("1 rank: expected 2..{} (inside one slice) or {} (all chips of the {} slices)",
                                    slice_devices, slices * slice_devices, slices));
    }
    if (multi_slice && opt->ranks != 0 && opt->ranks != slices * slice_devices) {
      throw ConfigError("<command line>", "--ranks",
                        fmt::format("{} ranks on {} slices of {} chips: an all-reduce across slices spans all {} "
                                    "chips; give --ranks {} or at most {} (one slice)",
                                    opt->ranks, slices, slice_devices, slices * slice_devices,
                                    slices * slice_devices, slice_devices));
    }
    CollectiveSweepSpec spec;
    spec.op = *collective_op_from_string(opt->op);
    spec.algorithm = *collective_algorithm_from_string(opt->algo);
    spec.ring_order = opt->ring_order == "rank-order" ? RingOrder::rank_order
                      : opt->ring_order == "flat"     ? RingOrder::flat
                                                      : RingOrder::topology_aware;
    spec.ranks = opt->ranks > 0 ? opt->ranks : slices * model.graph().device_count();
    spec.min = parse_size("--min", opt->min);
    spec.max = parse_size("--max", opt->max);
    spec.factor = opt->factor;
    if (!(spec.min.value() > 0.0)) {
      throw ConfigError("<command line>", "--min", fmt::format("\"{}\" must be a positive size", opt->min));
    }
    if (spec.max < spec.min) {
      throw ConfigError("<command line>", "--max",
                        fmt::format("\"{}\" is smaller than --min \"{}\"", opt->max, opt->min));
    }
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
    // Work bound (docs/limits.md): the direct algorithm (all-to-all, send-recv, or --algo direct) routes
    // every ordered pair of ranks for every row, ~50 ns each (2,048 ranks: 0.2 s of CPU per row).
    const bool direct = spec.algorithm == CollectiveAlgorithm::direct ||
                        (spec.algorithm == CollectiveAlgorithm::automatic &&
                         (spec.op == CollectiveOp::all_to_all || spec.op == CollectiveOp::send_recv));
    if (direct && std::isfinite(spec.factor) && spec.factor > 1.0) {
      const double n = spec.ranks;
      const double rows =
          std::floor(std::log(spec.max.value() / spec.min.value()) / std::log(spec.factor)) + 1;
      const double pairs = rows * n * (n - 1);
      if (pairs > kMaxDirectPairs * opt->max_cost) {
        const double f = pairs / kMaxDirectPairs;
        const double magnitude = std::pow(10.0, std::floor(std::log10(f)) - 1.0);
        throw ConfigError("<command line>", "--max-cost",
                          fmt::format("{} rows of a direct {} over {} ranks route {:.3g} rank pairs (about {:.3g} "
                                      "s of CPU), over the bound of {:.3g}: use fewer --ranks or rows (--min, "
                                      "--max, --factor), or raise the bound with --max-cost {:g}",
                                      rows, to_string(spec.op), spec.ranks, pairs, pairs * 50e-9,
                                      kMaxDirectPairs * opt->max_cost, std::ceil(f / magnitude) * magnitude));
      }
    }
    const auto rows = multi_slice ? sweep_multislice_all_reduce(model, cluster, spec) : sweep_collective(model, spec);
    std::string topology = model.graph().description();
    if (slices > 1) {
      topology = fmt::format("{} slices, each {}, joined by the DCN at {:.4g} GB/s per host per direction ({}), "
                             "non-blocking{}",
                             slices, topology, cluster.network.dcn.bandwidth.value() / 1e9,
                             cluster.network.dcn_derived ? "assumed: the host's NICs x bandwidth x efficiency"
                                                         : "network.dcn_bandwidth",
                             multi_slice ? "" : "; these ranks stay inside slice 0");
    }
    CollectiveReportHeader header{cluster.name, spec, topology};
    header.multi_slice = multi_slice;
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
