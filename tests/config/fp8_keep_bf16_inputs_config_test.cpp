// training.fp8_keep_bf16_inputs (docs/model.md, "Memory"): valid with FP8 training only, and not together
// with fp8_activation_cache; one located message per problem (its effect: tests/models/fp8_memory_test.cpp).
#include "tests/catch.hpp"

#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

namespace {

constexpr const char* kKey = "/training/fp8_keep_bf16_inputs";

nlohmann::json with_key(const char* precision, const nlohmann::json& value, bool cache = false) {
  auto doc = small_experiment();
  doc["cluster"]["node"]["device"]["peak"]["fp8"] = "624 TFLOPS";
  doc["training"]["precision"] = precision;
  doc["training"]["fp8_keep_bf16_inputs"] = value;
  if (cache) doc["training"]["fp8_activation_cache"] = true;
  return doc;
}

std::vector<Diagnostic> check(const nlohmann::json& doc) {
  TempDir dir;
  return diagnostics_of(dir.write("exp.json", doc));
}

}  // namespace

TEST_CASE("fp8_keep_bf16_inputs is valid on an FP8 run, either way", "[config]") {
  for (bool v : {true, false}) {
    const auto ds = check(with_key("fp8", v));
    INFO(dump(ds));
    CHECK(ds.empty());
  }
}

TEST_CASE("fp8_keep_bf16_inputs refusals are one located message each", "[config]") {
  std::vector<Diagnostic> ds;
  SECTION("a BF16 run") {
    ds = check(with_key("bf16", true));
    CHECK(has_diagnostic(ds, "exp.json", kKey, "needs \"precision\": \"fp8\""));
  }
  SECTION("with the FP8 activation cache") {
    ds = check(with_key("fp8", true, true));
    CHECK(has_diagnostic(ds, "exp.json", kKey, "contradicts \"fp8_activation_cache\": true"));
  }
  SECTION("a string") {
    ds = check(with_key("fp8", "yes"));
    CHECK(has_diagnostic(ds, "exp.json", kKey, ""));
  }
  INFO(dump(ds));
  CHECK(ds.size() == 1);
}
