// Catalog clusters with explicit topologies reproduce the published figures they were derived from,
// and the node-side shape keys fill the node fabric.
#include "tests/catch.hpp"

#include "sim/config/catalog_entries.hpp"
#include "topologies/derived_topology.hpp"
#include "tests/config/config_test_support.hpp"
#include "topologies/bisection.hpp"
#include "topologies/build_topology.hpp"
#include "topologies/topology_summary.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

TEST_CASE("tpu-v4-pod is a 16^3 torus of 4^3 cubes with the published 24 TB/s bisection",
          "[config][topology]") {
  Catalog catalog(bundled_catalog());
  const ClusterSpec c = load_cluster(catalog, "tpu-v4-pod");
  REQUIRE(c.comm.topology.has_value());
  CHECK(c.comm.topology->torus.dims == std::vector<int>{16, 16, 16});
  CHECK(c.comm.topology->torus.cube == 4);
  const TopologyGraph g = build_topology(*c.comm.topology);
  // hardware_facts.json 'Google TPU v4'.pod.bisection_TBps = 24
  CHECK(bisection_bandwidth(g).value() == Approx(24e12).epsilon(0.01));
}

TEST_CASE("llama3-h100-24k keeps full bisection at the leaves and 1:7 above the spines",
          "[config][topology]") {
  Catalog catalog(bundled_catalog());
  const ClusterSpec c = load_cluster(catalog, "llama3-h100-24k");
  REQUIRE(c.comm.topology.has_value());
  CHECK(c.comm.topology->fat_tree.oversubscription == std::vector<double>{1.0, 7.0});
  const auto tiers = tier_oversubscription(build_topology(*c.comm.topology));
  REQUIRE(tiers.size() == 2);
  CHECK(tiers[0].ratio() == Approx(1.0));
  CHECK(tiers[1].ratio() == Approx(7.0).epsilon(0.05));  // 6.86: the last pod is partial
}

TEST_CASE("node shape keys: an NVLink domain over several nodes and a mesh preset", "[config][topology]") {
  TempDir dir;
  auto doc = small_experiment();
  auto& node = doc["cluster"]["node"];
  SECTION("nvlink_domain_devices makes an nvl-domain fabric") {
    node["nvlink_domain_devices"] = 16;
    node["nic_attach"] = {{"bandwidth", "64 GB/s"}, {"latency", "0.5 us"}};
    doc["cluster"]["network"] = {{"topology", "single-node"}};
    ExperimentLoader loader(bundled_catalog());
    const Scenario s = loader.build(loader.load(dir.write("exp.json", doc).string()), {});
    REQUIRE(s.cluster.comm.topology.has_value());
    CHECK(s.cluster.comm.topology->node.kind == NodeFabricKind::nvl_domain);
    CHECK(s.cluster.comm.topology->node.domain_devices == 16);
    CHECK(s.cluster.comm.topology->node.nic_attach.bandwidth.value() == Approx(64e9));
  }
  SECTION("the dgx1-v100 preset gives every GPU six NVLink lanes") {
    node["fabric"] = "nvlink-mesh";
    node["nvlink_mesh"] = "dgx1-v100";
    ExperimentLoader loader(bundled_catalog());
    const Scenario s = loader.build(loader.load(dir.write("exp.json", doc).string()), {});
    REQUIRE(s.cluster.comm.topology.has_value());
    CHECK(s.cluster.comm.topology->node.mesh == dgx1v_hybrid_cube_mesh());
  }
}

TEST_CASE("a derived oversubscription no radix splits into whole ports keeps its capacity ratio",
          "[config][topology]") {
  Catalog catalog(bundled_catalog());
  ClusterSpec c = load_cluster(catalog, "selene-a100");
  c.comm.topology.reset();
  c.network.oversubscription = 1.37;
  const ClusterTopologySpec t = derived_topology(c);
  CHECK(t.validate().empty());
  CHECK(t.fat_tree.radix == 64);
  REQUIRE(t.fat_tree.oversubscription.size() >= 1);
  const double achieved = t.fat_tree.oversubscription.front();
  CHECK(achieved == Approx(36.0 / 28.0));  // 36 down, 28 up: the nearest whole split at or below 1.37
  // Down:up capacity = achieved × (NIC rate / up-link rate) = 1.37.
  CHECK(achieved * (c.node.nic.bandwidth / t.fat_tree.leaf_spine.bandwidth) == Approx(1.37));
}

TEST_CASE("a derived oversubscription past any whole-port split keeps one slowed up-link", "[config][topology]") {
  Catalog catalog(bundled_catalog());
  ClusterSpec c = load_cluster(catalog, "selene-a100");
  c.comm.topology.reset();
  for (const double r : {100.0, 1e6, 1e11}) {
    INFO(r);
    c.network.oversubscription = r;
    const ClusterTopologySpec t = derived_topology(c);
    CHECK(t.validate().empty());
    REQUIRE(t.fat_tree.oversubscription.size() >= 1);
    const double achieved = t.fat_tree.oversubscription.front();
    CHECK(achieved == 63.0);  // 63 down, 1 up (past 6.4e10 the rounding gave 0 up-links and an infinite ratio)
    CHECK(achieved * (c.node.nic.bandwidth / t.fat_tree.leaf_spine.bandwidth) == Approx(r));
  }
}
