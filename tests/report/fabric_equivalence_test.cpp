// One collective model: a cluster whose JSON leaves its fabric out is costed on the topology its
// fields imply (topologies/derived_topology.hpp), so writing that topology out as explicit JSON keys
// changes no figure of the step report.
#include "tests/catch.hpp"

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/config/experiment_loader.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/report/step_report.hpp"
#include "topologies/derived_topology.hpp"

using namespace clustersim;

namespace {

config::ExperimentLoader loader() {
  return config::ExperimentLoader(
      config::CatalogPaths{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}});
}

// "{}" prints the shortest text that parses back to the same double, so the keys round-trip exactly.
nlohmann::json link_json(const LinkParams& l) {
  return {{"bandwidth", fmt::format("{} B/s", l.bandwidth.value())},
          {"latency", fmt::format("{} s", l.latency.value())},
          {"duplex", std::string(to_string(l.duplex))}};
}

// The derived scale-out network written out with every shape key of docs/topologies.md.
nlohmann::json spelled_out(const ClusterTopologySpec& t) {
  nlohmann::json n;
  n["topology"] = std::string(to_string(t.network));
  if (t.network == NetworkKind::fat_tree) {
    const FatTreeSpec& ft = t.fat_tree;
    n["tiers"] = ft.tiers;
    n["radix"] = ft.radix;
    n["oversubscription"] = ft.oversubscription;
    n["rail_optimized"] = ft.rail_optimized;
    n["leaf_spine"] = link_json(ft.leaf_spine);
    if (ft.tiers == 3) n["spine_core"] = link_json(ft.spine_core);
  } else if (t.network == NetworkKind::torus) {
    n["dims"] = t.torus.dims;
    n["wrap"] = t.torus.wrap;
    n["cube"] = t.torus.cube;
    n["link"] = link_json(t.torus.link);
  }
  return n;
}

// Builds `experiment` with `overrides` twice: as given (no fabric keys) and with the derived network
// spelled out, and checks that every scalar of the two step reports is identical.
void check_same_report(const std::string& experiment, std::vector<config::Override> overrides) {
  auto l = loader();
  const auto doc = l.load(experiment);
  const Scenario implicit = l.build(doc, overrides);
  REQUIRE_FALSE(implicit.cluster.comm.topology.has_value());
  const ClusterTopologySpec derived = derived_topology(implicit.cluster);
  const nlohmann::json network = spelled_out(derived);
  INFO("explicit network: " << network.dump());
  overrides.push_back({"/cluster/network", network.dump()});
  const Scenario spelled = l.build(doc, overrides);
  REQUIRE(spelled.cluster.comm.topology.has_value());

  const auto a = flatten_scalars(step_report_json(implicit, run_analytic(implicit), false));
  const auto b = flatten_scalars(step_report_json(spelled, run_analytic(spelled), false));
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO(a[i].first << ": " << a[i].second << " vs " << b[i].first << ": " << b[i].second);
    CHECK(a[i] == b[i]);
  }
}

}  // namespace

TEST_CASE("a 3:1 oversubscribed fat-tree gives the same step report whether derived or spelled out",
          "[report][topology]") {
  // 128 DGX A100 nodes: the derived fabric is a 2-tier radix-64 rail-optimized fat-tree at 3:1.
  check_same_report("gpt3-175b-a100-1024",
                    {{"/cluster/network", R"({"topology": "fat-tree", "oversubscription": 3})"}});
}

TEST_CASE("a 7:1 fat-tree of 3 tiers gives the same step report whether derived or spelled out",
          "[report][topology]") {
  // 2,048 H100 nodes: 8 NICs per node need 3 tiers of radix 64 at 7:1 (56 down, 8 up). The bundled
  // experiment spells its fabric out, so the network is reduced to the one derived key here.
  check_same_report("llama3-405b-h100-16k",
                    {{"/cluster/network", R"({"topology": "fat-tree", "oversubscription": 7})"}});
}

TEST_CASE("a TPU v4 torus gives the same step report whether derived or spelled out", "[report][topology]") {
  // 1,024 chips: derived 8x8x16 torus of 4x4x4 cubes, links of 268 GB/s / 6.
  check_same_report(
      "gpt3-175b-a100-1024",
      {{"/cluster",
        R"({"name": "tpu-v4-1024", "node": "tpu-v4-host", "nodes": 256, "network": {"topology": "torus"}})"},
       {"/parallelism",
        R"({"tp": 4, "pp": 16, "dp": 16, "vp": 3, "sequence_parallel": true, "schedule": "interleaved-1f1b"})"}});
}

TEST_CASE("a cluster of TPU hosts that names no network runs on the ICI torus, not on the host NICs",
          "[report][topology]") {
  const std::vector<config::Override> overrides = {
      {"/cluster", R"({"name": "tpu-v4-1024", "node": "tpu-v4-host", "nodes": 256})"},
      {"/parallelism", R"({"tp": 4, "pp": 1, "dp": 256, "zero_stage": 3})"}};
  auto l = loader();
  const Scenario s = l.build(l.load("palm-540b-tpuv4-6144"), overrides);
  CHECK(s.cluster.network.topology == "torus");
  const ClusterTopologySpec t = derived_topology(s.cluster);
  CHECK(t.network == NetworkKind::torus);
  CHECK(t.node.nics == 0);
  // And the same step report as the torus spelled out.
  check_same_report("palm-540b-tpuv4-6144", overrides);
}
