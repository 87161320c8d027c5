// training.activation_offload_layers: what Megatron-Core refuses (transformer_config.py: n < 0 or
// n >= num_layers, pipeline parallelism, any recomputation) and what the model cannot express (a node
// without a host link) are each one located diagnostic on the key; a valid offload reads through.
#include "tests/catch.hpp"

#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

namespace {

constexpr const char* kKey = "/training/activation_offload_layers";

// The small experiment on one stage (TP 2, PP 1, DP 8) with a host link on its node.
nlohmann::json offload_experiment(int n) {
  auto doc = small_experiment();
  doc["parallelism"] = {{"tp", 2}, {"pp", 1}, {"dp", 8}};
  doc["cluster"]["node"]["host_link"] = {{"bandwidth", "64 GB/s"}, {"efficiency", 0.8}};
  doc["training"]["activation_offload_layers"] = n;
  return doc;
}

std::vector<Diagnostic> check(const nlohmann::json& doc) {
  TempDir dir;
  return diagnostics_of(dir.write("exp.json", doc));
}

std::size_t count_at(const std::vector<Diagnostic>& ds, const std::string& pointer) {
  std::size_t n = 0;
  for (const auto& d : ds) n += d.pointer == pointer ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("activation offloading on one stage with a host link is valid", "[config]") {
  const auto ds = check(offload_experiment(4));
  INFO(dump(ds));
  CHECK(ds.empty());
}

TEST_CASE("activation offloading refusals are one located message each", "[config]") {
  std::vector<Diagnostic> ds;
  SECTION("n >= the model's layers (Megatron-Core: fewer than num_layers)") {
    ds = check(offload_experiment(8));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", kKey, "8 layers offloaded, but the model has 8"));
    CHECK(ds.size() == 1);
  }
  SECTION("n < 0") {
    ds = check(offload_experiment(-1));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", kKey, "out of range"));
    CHECK(ds.size() == 1);
  }
  SECTION("pipeline parallelism") {
    auto doc = offload_experiment(4);
    doc["parallelism"] = {{"tp", 2}, {"pp", 2}, {"dp", 4}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", kKey, "pp = 2"));
    CHECK(ds.size() == 1);
  }
  SECTION("recomputation") {
    auto doc = offload_experiment(4);
    doc["training"]["recompute"] = "selective";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", kKey, "recompute \"selective\""));
    CHECK(ds.size() == 1);
  }
  SECTION("a node without a host link names the key to add") {
    auto doc = offload_experiment(4);
    doc["cluster"]["node"].erase("host_link");
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", kKey, "add /cluster/node/host_link"));
    CHECK(ds.size() == 1);
  }
  SECTION("a torus-ici (TPU) node, even with a host link") {
    auto doc = offload_experiment(4);
    doc["cluster"]["node"]["fabric"] = "torus-ici";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", kKey, "not modelled on a \"torus-ici\" node"));
  }
  SECTION("a host link without a bandwidth") {
    auto doc = offload_experiment(4);
    doc["cluster"]["node"]["host_link"] = {{"efficiency", 0.8}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/host_link/bandwidth", "missing required key"));
    CHECK(ds.size() == 1);
  }
  SECTION("a host link without an efficiency: required, no default is assumed") {
    auto doc = offload_experiment(4);
    doc["cluster"]["node"]["host_link"] = {{"bandwidth", "64 GB/s"}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/host_link/efficiency", "missing required key"));
    CHECK(ds.size() == 1);
  }
  SECTION("a host link of the wrong type: one message, no follow-on") {
    auto doc = offload_experiment(4);
    doc["cluster"]["node"]["host_link"] = "fast";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/host_link", ""));
    CHECK(ds.size() == 1);
    doc["cluster"]["node"]["host_link"] = nullptr;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.size() == 1);
  }
  CHECK(count_at(ds, kKey) <= 1);
}
