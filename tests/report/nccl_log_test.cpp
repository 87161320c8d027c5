// calibrate-links: an nccl-tests log is parsed as nccl-tests prints it, and a log measured at 90 % of the
// model's bus bandwidth fits the bottleneck link's efficiency to 0.9 x its catalog value.
#include "tests/catch.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "sim/collectives/cluster_fabric.hpp"
#include "sim/collectives/collective_sweep.hpp"
#include "sim/config/catalog.hpp"
#include "sim/config/catalog_entries.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/report/nccl_log.hpp"

using namespace clustersim;

namespace {

CollectiveModel one_dgx_h100() {
  config::Catalog catalog({{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}});
  const ClusterFabric f = cluster_fabric(config::load_cluster(catalog, "h100-1node"));
  return CollectiveModel(f.topology, f.options);
}

}  // namespace

TEST_CASE("an nccl-tests log parses with its redop/root columns, rank lines and skipped INFO lines") {
  const std::string text =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#  Rank  0 Group  0 Pid  1 on host0 device  0 [0x18] NVIDIA H100 80GB HBM3\n"
      "#  Rank  1 Group  0 Pid  2 on host0 device  1 [0x2a] NVIDIA H100 80GB HBM3\n"
      "host0:1:1 [0] NCCL INFO comm 0x55 rank 0 nranks 2\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "           8             2     float     sum      -1    10.50    0.00    0.00      0    10.20    0.00    0.00      0\n"
      "   1073741824     268435456     float     sum      -1   4480.1  239.66  239.66      0   4478.0  239.78  239.78      0\n"
      "# Avg bus bandwidth    : 119.83\n";
  const NcclLog log = parse_nccl_log(text, "log.txt");
  REQUIRE(log.rows.size() == 2);
  CHECK(log.ranks == 2);
  CHECK(log.rows[1].bytes == 1073741824.0);
  CHECK(log.rows[1].time_us == Approx(4480.1));
  CHECK(log.rows[1].busbw == Approx(239.66));
  // Older nccl-tests print no root column.
  const NcclLog old = parse_nccl_log("#  nThread 1 nGpus 8\n  1048576  262144  float  sum  55.1  19.03  33.30  0\n", "old.txt");
  CHECK(old.ranks == 8);
  CHECK(old.rows[0].busbw == Approx(33.30));
}

TEST_CASE("a malformed data row and a log without data are refused with the file and line") {
  CHECK_THROWS_WITH(parse_nccl_log("# nGpus 8\n 1024 256 float sum -1 abc\n", "bad.txt"),
                    Catch::Contains("bad.txt") && Catch::Contains("line 2"));
  CHECK_THROWS_WITH(parse_nccl_log("# nothing here\n", "empty.txt"), Catch::Contains("no nccl-tests data rows"));
}

TEST_CASE("a log at 90 % of the model's bus bandwidth fits the bottleneck efficiency to 0.9 x the catalog's") {
  const CollectiveModel model = one_dgx_h100();
  CollectiveSweepSpec spec;
  spec.op = CollectiveOp::all_gather;
  spec.ranks = 8;
  spec.min = Bytes(1024);
  spec.max = Bytes(1 << 30);
  std::string text = "# nThread 1 nGpus 8\n";
  for (const CollectiveRow& r : sweep_collective(model, spec)) {
    const double t_us = r.estimate.time.value() * 1e6 / 0.9;
    const double algbw = r.size.value() / (t_us * 1e-6) / 1e9;
    text += fmt::format("{} {} float none -1 {:.4f} {:.4f} {:.4f} 0\n", r.size.value(), r.count, t_us, algbw,
                        algbw * 7.0 / 8.0);
  }
  const LinkFit fit = fit_links(model, spec, parse_nccl_log(text, "ag.txt"));
  CHECK(fit.link_kind == "nvswitch_port");
  CHECK(fit.key == "intra_link.efficiency");
  CHECK(fit.ratio == Approx(0.9).epsilon(0.01));
  CHECK(fit.suggested == Approx(0.9 * fit.current).epsilon(0.01));
}
