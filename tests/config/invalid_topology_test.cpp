// Explicit topology keys of a cluster (docs/topologies.md): they fill ClusterSpec::comm.topology, and
// every bad description is reported with its file and JSON pointer. One SECTION per invalid input.
#include "tests/catch.hpp"

#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

namespace {

std::vector<Diagnostic> check(const nlohmann::json& doc) {
  TempDir dir;
  return diagnostics_of(dir.write("exp.json", doc));
}

Scenario build(const nlohmann::json& doc) {
  TempDir dir;
  ExperimentLoader loader(bundled_catalog());
  return loader.build(loader.load(dir.write("exp.json", doc).string()), {});
}

// small_experiment() on `nodes` nodes with the network object `network`.
nlohmann::json with_network(int nodes, nlohmann::json network) {
  auto doc = small_experiment();
  doc["cluster"]["nodes"] = nodes;
  doc["parallelism"]["dp"] =
      nodes * 8 / (doc["parallelism"].value("tp", 1) * doc["parallelism"].value("pp", 1));
  doc["cluster"]["network"] = std::move(network);
  return doc;
}

}  // namespace

TEST_CASE("explicit fat-tree keys fill the cluster's topology spec", "[config][topology]") {
  const Scenario s = build(with_network(4, {{"topology", "fat-tree"},
                                            {"tiers", 3},
                                            {"radix", 16},
                                            {"oversubscription", {1, 3}},
                                            {"rail_optimized", false},
                                            {"leaf_spine", {{"bandwidth", "100 GB/s"}, {"latency", "1 us"}}},
                                            {"spine_core", {{"bandwidth", "50 GB/s"}, {"duplex", "half"}}}}));
  REQUIRE(s.cluster.comm.topology.has_value());
  const ClusterTopologySpec& t = *s.cluster.comm.topology;
  CHECK(t.network == NetworkKind::fat_tree);
  CHECK(t.fat_tree.tiers == 3);
  CHECK(t.fat_tree.radix == 16);
  CHECK(t.fat_tree.oversubscription == std::vector<double>{1.0, 3.0});
  CHECK_FALSE(t.fat_tree.rail_optimized);
  CHECK(t.fat_tree.leaf_spine.bandwidth.value() == Approx(100e9));
  CHECK(t.fat_tree.spine_core.duplex == Duplex::half);
  CHECK(s.cluster.network.oversubscription == 3.0);  // the scalar summary is the largest tier ratio
}

TEST_CASE("a single oversubscription number applies to every tier of an explicit fat-tree",
          "[config][topology]") {
  const Scenario s =
      build(with_network(4, {{"topology", "fat-tree"}, {"tiers", 3}, {"oversubscription", 3}}));
  REQUIRE(s.cluster.comm.topology.has_value());
  CHECK(s.cluster.comm.topology->fat_tree.oversubscription == std::vector<double>{3.0, 3.0});
}

TEST_CASE("a cluster without shape keys keeps the derived topology", "[config][topology]") {
  const Scenario s = build(with_network(2, {{"topology", "fat-tree"}, {"oversubscription", 1.0}}));
  CHECK_FALSE(s.cluster.comm.topology.has_value());
}

TEST_CASE("explicit torus and dragonfly keys fill the cluster's topology spec", "[config][topology]") {
  SECTION("torus") {
    auto doc = with_network(
        8,
        {{"topology", "torus"}, {"dims", {4, 4, 4}}, {"wrap", false}, {"link", {{"bandwidth", "45 GB/s"}}}});
    doc["cluster"]["node"]["fabric"] = "torus-ici";
    const Scenario s = build(doc);
    REQUIRE(s.cluster.comm.topology.has_value());
    CHECK(s.cluster.comm.topology->torus.dims == std::vector<int>{4, 4, 4});
    CHECK_FALSE(s.cluster.comm.topology->torus.wrap);
    CHECK(s.cluster.comm.topology->torus.link.bandwidth.value() == Approx(45e9));
  }
  SECTION("dragonfly") {
    const Scenario s = build(with_network(4, {{"topology", "dragonfly"},
                                              {"groups", 2},
                                              {"routers_per_group", 2},
                                              {"hosts_per_router", 8},
                                              {"global_links_per_router", 1}}));
    REQUIRE(s.cluster.comm.topology.has_value());
    CHECK(s.cluster.comm.topology->network == NetworkKind::dragonfly);
    CHECK(s.cluster.comm.topology->dragonfly.hosts_per_router == 8);
  }
}

TEST_CASE("each bad topology description is reported with its file and JSON pointer", "[config][topology]") {
  std::vector<Diagnostic> ds;
  SECTION("torus dims that do not match the chip count") {
    auto doc = with_network(16, {{"topology", "torus"}, {"dims", {4, 4, 4}}});
    doc["cluster"]["node"]["fabric"] = "torus-ici";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/dims", "hold 64 chips but the cluster has 128"));
  }
  SECTION("torus dims that are not a list of integers") {
    auto doc = with_network(8, {{"topology", "torus"}, {"dims", {4, "4", 4}}});
    doc["cluster"]["node"]["fabric"] = "torus-ici";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/dims/1", "expected an integer"));
  }
  SECTION("fat-tree radix too small for the nodes") {
    ds = check(with_network(65, {{"topology", "fat-tree"}, {"tiers", 2}, {"radix", 16}}));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/radix", "use 3 tiers or a larger radix"));
  }
  SECTION("dragonfly with zero global links") {
    ds = check(with_network(4, {{"topology", "dragonfly"},
                                {"groups", 4},
                                {"routers_per_group", 2},
                                {"hosts_per_router", 4},
                                {"global_links_per_router", 0}}));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/global_links_per_router",
                         "needs global links, got 0"));
  }
  SECTION("adaptive routing on a network that is not a fat-tree") {
    ds = check(with_network(4, {{"topology", "dragonfly"},
                                {"routing", "adaptive"},
                                {"groups", 4},
                                {"routers_per_group", 2},
                                {"hosts_per_router", 4},
                                {"global_links_per_router", 2}}));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/routing", "modelled on fat-trees only"));
  }
  SECTION("a routing mode that does not exist") {
    ds = check(with_network(4, {{"topology", "fat-tree"}, {"routing", "spray"}}));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/routing", "adaptive"));
  }
  SECTION("dragonfly without its shape") {
    ds = check(with_network(4, {{"topology", "dragonfly"}}));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/groups", "missing required key"));
  }
  SECTION("NIC count above the GPU count") {
    auto doc = with_network(2, {{"topology", "fat-tree"}, {"radix", 64}});
    doc["cluster"]["node"]["nics"] = 9;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/nics", "9 NICs per node"));
  }
  SECTION("oversubscription array of the wrong length") {
    ds = check(with_network(2, {{"topology", "fat-tree"}, {"tiers", 2}, {"oversubscription", {1, 7}}}));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/oversubscription",
                         "takes 1 oversubscription ratio"));
  }
  SECTION("oversubscription that does not split the radix") {
    ds = check(
        with_network(2, {{"topology", "fat-tree"}, {"tiers", 3}, {"radix", 64}, {"oversubscription", 2}}));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/oversubscription", "whole down:up ports"));
  }
  SECTION("oversubscription array element below 1") {
    ds = check(with_network(2, {{"topology", "fat-tree"}, {"tiers", 3}, {"oversubscription", {1, 0.5}}}));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/oversubscription/1", "expected a number >= 1"));
  }
  SECTION("a torus key under a fat-tree is unknown") {
    ds = check(with_network(2, {{"topology", "fat-tree"}, {"dims", {4, 4}}}));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/dims", "unknown key"));
  }
  SECTION("misspelt network key with a suggestion") {
    ds = check(with_network(2, {{"topology", "fat-tree"}, {"raddix", 64}}));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/raddix", "did you mean \"radix\""));
  }
  SECTION("unknown duplex mode") {
    ds = check(with_network(
        2, {{"topology", "fat-tree"}, {"leaf_spine", {{"bandwidth", "50 GB/s"}, {"duplex", "simplex"}}}}));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/leaf_spine/duplex", "simplex"));
  }
  SECTION("NVLink domain that nodes do not fill") {
    auto doc = with_network(3, {{"topology", "single-node"}});
    doc["cluster"]["node"]["nvlink_domain_devices"] = 16;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/nodes", "do not fill whole NVLink domains"));
  }
  SECTION("NVLink mesh that does not connect the node") {
    auto doc = with_network(1, {{"topology", "single-node"}});
    doc["cluster"]["node"]["fabric"] = "nvlink-mesh";
    doc["cluster"]["node"]["nvlink_mesh"] = {{0, 1, 2}, {2, 3, 1}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/nvlink_mesh", "does not connect"));
  }
}

TEST_CASE("a topology problem in a node file is reported against that file", "[config][topology]") {
  TempDir dir;
  auto doc = with_network(2, {{"topology", "fat-tree"}, {"radix", 64}});
  nlohmann::json node = doc["cluster"]["node"];
  node["nics"] = 9;
  dir.write("node.json", node);
  doc["cluster"]["node"] = "node.json";
  const auto ds = diagnostics_of(dir.write("exp.json", doc));
  INFO(dump(ds));
  CHECK(has_diagnostic(ds, "node.json", "/nics", "9 NICs per node"));
}
