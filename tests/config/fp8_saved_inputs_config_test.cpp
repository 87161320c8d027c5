// training.fp8_saved_inputs (docs/model.md, "What FP8 layers keep"): one of its three names, a located message
// otherwise; memory only, so it is accepted (and ignored) on runs it does not apply to, which keeps a
// profile's value from breaking a --set or --vary of the precision (its effect:
// tests/models/fp8_memory_test.cpp).
#include "tests/catch.hpp"

#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

namespace {

constexpr const char* kKey = "/training/fp8_saved_inputs";

nlohmann::json with_key(const char* precision, const nlohmann::json& value, bool cache = false) {
  auto doc = small_experiment();
  doc["cluster"]["node"]["device"]["peak"]["fp8"] = "624 TFLOPS";
  doc["training"]["precision"] = precision;
  doc["training"]["fp8_saved_inputs"] = value;
  if (cache) doc["training"]["fp8_activation_cache"] = true;
  return doc;
}

std::vector<Diagnostic> check(const nlohmann::json& doc) {
  TempDir dir;
  return diagnostics_of(dir.write("exp.json", doc));
}

}  // namespace

TEST_CASE("fp8_saved_inputs takes its three names, also where it does not apply", "[config]") {
  for (const char* v : {"fp8", "fp8-bf16-proj", "bf16"}) {
    for (const char* precision : {"fp8", "bf16"}) {
      const auto ds = check(with_key(precision, v));
      INFO(v << " " << precision << ": " << dump(ds));
      CHECK(ds.empty());
    }
    const auto cached = check(with_key("fp8", v, true));
    INFO(dump(cached));
    CHECK(cached.empty());
  }
}

TEST_CASE("fp8_saved_inputs refusals are one located message each", "[config]") {
  std::vector<Diagnostic> ds;
  SECTION("an unknown name") {
    ds = check(with_key("fp8", "fp16"));
    CHECK(has_diagnostic(ds, "exp.json", kKey, "fp8-bf16-proj"));
  }
  SECTION("a boolean") {
    ds = check(with_key("fp8", true));
    CHECK(has_diagnostic(ds, "exp.json", kKey, ""));
  }
  INFO(dump(ds));
  CHECK(ds.size() == 1);
}

TEST_CASE("a profile's fp8_saved_inputs does not break a --set of the precision or of the FP8 cache", "[config]") {
  // torchtitan-2025 sets fp8_saved_inputs bf16 on FP8 runs; the profile is applied before --set, so a
  // strict reader refused --set /training/precision="bf16" at a key the file does not state.
  auto doc = small_experiment();
  doc["cluster"]["node"]["device"]["peak"]["fp8"] = "624 TFLOPS";
  doc["profile"] = "torchtitan-2025";
  doc["training"]["precision"] = "fp8";
  TempDir dir;
  const auto file = dir.write("exp.json", doc);
  for (const auto& set : std::vector<Override>{{"/training/precision", "\"bf16\""},
                                               {"/training/fp8_activation_cache", "true"}}) {
    const auto ds = diagnostics_of(file, {set});
    INFO(set.pointer << ": " << dump(ds));
    CHECK(ds.empty());
  }
  ExperimentLoader loader(bundled_catalog());
  CHECK(loader.build(loader.load(file.string())).training.fp8_saved_inputs == Fp8SavedInputs::bf16);
}
