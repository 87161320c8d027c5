// The inputs-echoed form of a Scenario.
#include "tests/catch.hpp"

#include "sim/config/scenario_json.hpp"
#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

TEST_CASE("scenario_to_json writes units in strings", "[config][json]") {
  const Scenario s = load_scenario(bundled_catalog(), "gpt3-175b-a100-1024");
  const auto j = scenario_to_json(s);
  CHECK(j["/cluster/node/device/peak/bf16"_json_pointer] == "312 TFLOP/s");
  CHECK(j["/cluster/node/device/memory/capacity"_json_pointer] == "80 GiB");
  CHECK(j["/cluster/node/device/memory/bandwidth"_json_pointer] == "2.039 TB/s");
  CHECK(j["/cluster/node/intra_link/bandwidth"_json_pointer] == "300 GB/s");
  CHECK(j["/cluster/node/nic/bandwidth"_json_pointer] == "25 GB/s");
  CHECK(j["/parallelism/schedule"_json_pointer] == "interleaved-1f1b");
  CHECK(j["/training/recompute"_json_pointer] == "selective");
  CHECK(j["/model/params"_json_pointer] == "175B");
  CHECK(j["/parallelism/dp"_json_pointer] == 16);
}

TEST_CASE("the echoed form reads back into the same scenario", "[config][json]") {
  ExperimentLoader loader(bundled_catalog());
  for (const auto& name : loader.catalog().names(CatalogKind::experiments)) {
    INFO(name);
    const Scenario s = loader.build(loader.load(name));
    const auto echoed = scenario_to_json(s);
    const Scenario back = scenario_from_json(echoed, bundled_catalog());
    auto again = scenario_to_json(back);
    CHECK(again == echoed);
    CHECK(back.cluster.node.device.memory_bandwidth.value() ==
          Approx(s.cluster.node.device.memory_bandwidth.value()).epsilon(1e-6));
    // The node's collectives section (NVLink SHARP) too: it was dropped from the echo until 2026-11-27.
    CHECK(back.cluster.comm.nvls_efficiency == s.cluster.comm.nvls_efficiency);
    REQUIRE(back.cluster.pools.size() == s.cluster.pools.size());
    for (std::size_t i = 0; i < s.cluster.pools.size(); ++i)
      CHECK(back.cluster.pools[i].nvls_efficiency == s.cluster.pools[i].nvls_efficiency);
  }
}
