// Every catalog entry loads on its own; catalog lookup, root order, relative paths.
#include "tests/catch.hpp"

#include "sim/config/catalog.hpp"
#include "sim/config/catalog_entries.hpp"
#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

namespace {

// Loads one catalog entry with `load` and returns its diagnostics.
template <class Load>
std::vector<Diagnostic> read_entry(Load load) {
  try {
    load();
  } catch (const ConfigError& e) {
    return e.diagnostics();
  }
  return {};
}

}  // namespace

TEST_CASE("every device in the catalog loads and names itself after its file", "[config][catalog]") {
  Catalog catalog(bundled_catalog());
  const auto names = catalog.names(CatalogKind::devices);
  REQUIRE(names.size() >= 13);
  for (const auto& name : names) {
    DeviceSpec d;
    const auto ds = read_entry([&] { d = load_device(catalog, name); });
    INFO(name << "\n" << dump(ds));
    CHECK(ds.empty());
    CHECK(d.name == name);
    CHECK_FALSE(d.peak.empty());
    CHECK(d.memory_capacity.value() > 0);
    CHECK(d.memory_bandwidth.value() > 0);
    CHECK(d.tdp.value() > 0);
    CHECK(d.efficiency.gemm_max_efficiency > 0.0);
    CHECK(d.efficiency.gemm_max_efficiency <= 1.0);
  }
}

TEST_CASE("every node, cluster and model in the catalog loads", "[config][catalog]") {
  Catalog catalog(bundled_catalog());
  for (const auto& name : catalog.names(CatalogKind::nodes)) {
    NodeSpec n;
    const auto ds = read_entry([&] { n = load_node(catalog, name); });
    INFO(name << "\n" << dump(ds));
    CHECK(ds.empty());
    CHECK(n.name == name);
    CHECK(n.intra.bandwidth.value() > 0);
    CHECK(n.devices_per_node >= 1);
  }
  for (const auto& name : catalog.names(CatalogKind::clusters)) {
    ClusterSpec c;
    const auto ds = read_entry([&] { c = load_cluster(catalog, name); });
    INFO(name << "\n" << dump(ds));
    CHECK(ds.empty());
    CHECK(c.name == name);
    CHECK(c.devices() > 0);
  }
  const auto models = catalog.names(CatalogKind::models);
  CHECK(models.size() >= 30);
  for (const auto& name : models) {
    TransformerSpec m;
    const auto ds = read_entry([&] { m = load_model(catalog, name); });
    INFO(name << "\n" << dump(ds));
    CHECK(ds.empty());
    CHECK(m.name == name);
    CHECK(m.hidden % m.heads == 0);
  }
}

TEST_CASE("every bundled experiment builds a Scenario", "[config][catalog]") {
  ExperimentLoader loader(bundled_catalog());
  const auto names = loader.catalog().names(CatalogKind::experiments);
  REQUIRE(names.size() >= 4);
  for (const auto& name : names) {
    INFO(name);
    Scenario s;
    REQUIRE_NOTHROW(s = loader.build(loader.load(name)));
    const auto& p = s.parallelism;
    CHECK(p.tp * p.pp * p.dp * p.cp == s.cluster.devices());
    CHECK(s.training.seq_len > 0);
    CHECK(s.source_file.ends_with(name + ".json"));
  }
}

TEST_CASE("catalog names resolve from the first root that has them", "[config][catalog]") {
  TempDir user;
  auto device = nlohmann::json::parse(R"({"peak": {"bf16": "1 TFLOPS"}, "memory": {"capacity": "1 GiB",
      "bandwidth": "1 GB/s"}, "power": {"tdp": "1 W"}})");
  user.write("devices/a100-sxm4-80gb.json", device);
  user.write("devices/my-gpu.json", device);

  Catalog catalog({{user.path(), repo_root() / "configs"}});
  CHECK(catalog.find(CatalogKind::devices, "a100-sxm4-80gb")->parent_path().parent_path() == user.path());
  CHECK(catalog.find(CatalogKind::devices, "h100-sxm5-80gb"));
  CHECK_FALSE(catalog.find(CatalogKind::devices, "no-such-gpu"));
  const auto names = catalog.names(CatalogKind::devices);
  CHECK(std::count(names.begin(), names.end(), "a100-sxm4-80gb") == 1);
  CHECK(std::find(names.begin(), names.end(), "my-gpu") != names.end());
}

TEST_CASE("a reference is a path when it contains a slash or ends in .json", "[config][catalog]") {
  CHECK(Catalog::is_path_reference("devices/x.json"));
  CHECK(Catalog::is_path_reference("x.json"));
  CHECK(Catalog::is_path_reference("../x"));
  CHECK_FALSE(Catalog::is_path_reference("a100-sxm4-80gb"));
}

TEST_CASE("relative paths resolve against the directory of the file that holds the reference",
          "[config][catalog]") {
  TempDir dir;
  auto doc = small_experiment();
  dir.write("hw/devices/gpu.json", doc["cluster"]["node"]["device"]);
  auto node = doc["cluster"]["node"];
  node["device"] = "devices/gpu.json";  // relative to hw/
  dir.write("hw/node.json", node);
  doc["cluster"]["node"] = "../hw/node.json";  // relative to exp/
  dir.write("exp/exp.json", doc);

  ExperimentLoader loader(bundled_catalog());
  const auto resolved = loader.load((dir.path() / "exp/exp.json").string());
  CHECK(resolved.problems.empty());
  const auto where = resolved.origin.locate("/cluster/node/device/memory/capacity");
  CHECK(where.file.ends_with("hw/devices/gpu.json"));
  CHECK(where.pointer == "/memory/capacity");
  CHECK(resolved.origin.locate("/cluster/node/nics").file.ends_with("hw/node.json"));
  CHECK(resolved.origin.locate("/cluster/nodes").file.ends_with("exp/exp.json"));
  const Scenario s = loader.build(resolved);
  CHECK(s.cluster.node.device.name == "test-gpu");
}

TEST_CASE("catalog references inside catalog entries are resolved", "[config][catalog]") {
  ExperimentLoader loader(bundled_catalog());
  const auto doc = loader.resolve(nlohmann::json{{"cluster", "selene-a100"}}, "<memory>");
  CHECK(doc.problems.empty());
  CHECK(doc.document["/cluster/node/device/peak/bf16"_json_pointer] == "312 TFLOPS");
  const auto where = doc.origin.locate("/cluster/node/device/peak/bf16");
  CHECK(where.file.ends_with("configs/devices/a100-sxm4-80gb.json"));
  CHECK(where.pointer == "/peak/bf16");
}

// NVIDIA B300 (HGX/DGX B300): dense peaks of NVIDIA's DGX B300 datasheet / HGX B300 table as reproduced in
// stas00/ml-engineering 744d01e ("TFLOPS comparison table", row NVIDIA B300 SXM), 288 GB HBM3e at 8 TB/s and
// 160 SMs (NVIDIA, "Inside NVIDIA Blackwell Ultra"), and a node of 8 GPUs on NVLink 5 (900 GB/s per direction)
// with one 800 Gb/s ConnectX-8 per GPU (DGX B300 datasheet). The HGX part runs lower dense rates than the
// GB300 superchip part, so its peaks are its own, not gb300's.
TEST_CASE("the B300 entry carries its cited peaks and the DGX B300 node its NVLink and NICs", "[config][catalog]") {
  Catalog catalog(bundled_catalog());
  const DeviceSpec b300 = load_device(catalog, "b300");
  CHECK(b300.peak.at(Precision::bf16).value() == Approx(2250e12));
  CHECK(b300.peak.at(Precision::fp16).value() == Approx(2250e12));
  CHECK(b300.peak.at(Precision::fp8).value() == Approx(4500e12));
  CHECK(b300.peak.at(Precision::tf32).value() == Approx(1125e12));
  CHECK(b300.peak.count(Precision::fp32) == 0);  // the cited sources disagree (75 vs 80): left out
  CHECK(b300.memory_capacity.value() == Approx(288e9));
  CHECK(b300.memory_bandwidth.value() == Approx(8e12));
  CHECK(b300.sm_count == 160);
  const DeviceSpec gb300 = load_device(catalog, "gb300");
  CHECK(b300.sm_count == gb300.sm_count);  // same Blackwell Ultra die
  CHECK(b300.peak.at(Precision::bf16).value() < gb300.peak.at(Precision::bf16).value());

  const NodeSpec node = load_node(catalog, "dgx-b300");
  CHECK(node.device.name == "b300");
  CHECK(node.devices_per_node == 8);
  CHECK(node.fabric == NodeFabric::nvswitch);
  CHECK(node.nvlink_domain_devices == 0);  // the NVLink domain is the 8-GPU board
  CHECK(node.intra.bandwidth.value() == Approx(900e9));
  CHECK(node.nics == 8);
  CHECK(node.nic.bandwidth.value() == Approx(800e9 / 8));
}
