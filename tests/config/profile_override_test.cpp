// A framework profile named by an experiment (`"profile"`, docs/validation.md "Framework profiles") fills
// the keys the experiment leaves out *after* --set / --vary: its rules see the point's values, and a key it
// filled never contradicts an override. Until 2026-11-27 the profile was applied once, before the
// overrides, so `--set /parallelism/tp=8` on a tp = 1 experiment ran without the sequence parallelism the
// profile gives TP > 1, and `--set /training/precision="fp4"` on an FP8 torchtitan experiment was refused at
// a profile-filled fp8_scaling the file does not state.
#include "tests/catch.hpp"

#include "sim/config/typed_patch.hpp"
#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

namespace {

nlohmann::json profiled(int tp) {
  auto doc = small_experiment();
  doc["profile"] = "megatron-core-2025";
  doc["parallelism"] = {{"tp", tp}, {"pp", 2}};
  return doc;
}

}  // namespace

TEST_CASE("a profile's TP rules follow a --set of tp", "[config]") {
  TempDir dir;
  const auto one = dir.write("tp1.json", profiled(1));
  const auto two = dir.write("tp2.json", profiled(2));
  ExperimentLoader loader(bundled_catalog());
  const Scenario stated = loader.build(loader.load(two.string()));
  // megatron-core-2025: sequence parallelism and TP-comm overlap "with-tp".
  REQUIRE(stated.parallelism.tp == 2);
  REQUIRE(stated.parallelism.sequence_parallel);
  const Override set{"/parallelism/tp", "2"};
  const ResolvedDocument doc = loader.load(one.string());
  const Scenario overridden = loader.build(doc, std::span<const Override>(&set, 1));
  CHECK(overridden.parallelism.tp == 2);
  CHECK(overridden.parallelism.sequence_parallel == stated.parallelism.sequence_parallel);
  CHECK(overridden.parallelism.tp_comm_overlap == stated.parallelism.tp_comm_overlap);
  // The document itself is untouched: built again without the override it is tp = 1, no SP.
  const Scenario base = loader.build(doc);
  CHECK(base.parallelism.tp == 1);
  CHECK_FALSE(base.parallelism.sequence_parallel);
}

TEST_CASE("stated keys and --set keys win over the profile", "[config]") {
  auto doc = profiled(2);
  doc["parallelism"]["sequence_parallel"] = false;
  TempDir dir;
  const auto file = dir.write("exp.json", doc);
  ExperimentLoader loader(bundled_catalog());
  CHECK_FALSE(loader.build(loader.load(file.string())).parallelism.sequence_parallel);
  const auto plain = dir.write("plain.json", profiled(2));
  const Override set{"/parallelism/sequence_parallel", "false"};
  CHECK_FALSE(loader.build(loader.load(plain.string()), std::span<const Override>(&set, 1)).parallelism.sequence_parallel);
}

TEST_CASE("a profile's FP8-only keys do not refuse a --set of the precision to fp4", "[config]") {
  // torchtitan-2025 fills fp8_scaling (tensorwise) on FP8 runs; fp4 refuses any fp8_scaling.
  auto doc = small_experiment();
  doc["cluster"]["node"]["device"]["peak"]["fp8"] = "624 TFLOPS";
  doc["cluster"]["node"]["device"]["peak"]["fp4"] = "1248 TFLOPS";
  doc["profile"] = "torchtitan-2025";
  doc["training"]["precision"] = "fp8";
  TempDir dir;
  const auto file = dir.write("exp.json", doc);
  CHECK(diagnostics_of(file).empty());
  const auto ds = diagnostics_of(file, {{"/training/precision", "\"fp4\""}});
  INFO(dump(ds));
  CHECK(ds.empty());
  // Stated by the file, the same key is still refused with fp4 (one located message).
  doc["training"]["fp8_scaling"] = "tensorwise";
  const auto stated = dir.write("stated.json", doc);
  const auto refused = diagnostics_of(stated, {{"/training/precision", "\"fp4\""}});
  INFO(dump(refused));
  CHECK(has_diagnostic(refused, "stated.json", "/training/fp8_scaling", "fp4"));
  CHECK(refused.size() == 1);
}

TEST_CASE("sweeps of an experiment with a profile take the JSON path", "[config]") {
  TempDir dir;
  const auto file = dir.write("tp1.json", profiled(1));
  ExperimentLoader loader(bundled_catalog());
  const ResolvedDocument doc = loader.load(file.string());
  const std::vector<std::string> pointers{"/parallelism/tp"};
  TypedPointBuilder typed(loader, doc, pointers);
  CHECK_FALSE(typed.enabled());
  CHECK(typed.reason() == "the experiment names a framework profile");
}

TEST_CASE("a sweep's base --set on a profile experiment holds at every point", "[config]") {
  // `sweep --set` writes its overrides into the document once; each point's build starts again from the
  // document as stated, so the base overrides must be part of it (review of 2026-11-27: they were lost).
  TempDir dir;
  const auto file = dir.write("tp1.json", profiled(1));
  ExperimentLoader loader(bundled_catalog());
  ResolvedDocument base = loader.load(file.string());
  const std::vector<Override> sets{{"/parallelism/tp", "2"}};
  loader.apply_base_overrides(base, sets);
  for (const char* pp : {"1", "2"}) {
    const std::vector<Override> point{{"/parallelism/pp", pp}};
    const Scenario s = loader.build_in_place(base, point);
    const std::vector<Override> both{{"/parallelism/tp", "2"}, {"/parallelism/pp", pp}};
    const Scenario direct = loader.build(loader.load(file.string()), both);
    INFO("pp " << pp);
    CHECK(s.parallelism.tp == 2);
    CHECK(s.parallelism.pp == direct.parallelism.pp);
    CHECK(s.parallelism.sequence_parallel);
    CHECK(s.parallelism.sequence_parallel == direct.parallelism.sequence_parallel);
    CHECK(s.parallelism.tp_comm_overlap == direct.parallelism.tp_comm_overlap);
  }
}

TEST_CASE("a profile's 1F1B default gives way to a stated vp", "[config]") {
  // Megatron: "1F1B unless virtual pipeline stages are set" (the profile files' own source lines).
  auto doc = small_experiment();
  doc["profile"] = "megatron-core-2025";
  doc["parallelism"] = {{"tp", 2}, {"pp", 2}, {"vp", 2}};
  doc["training"]["global_batch"] = 64;
  TempDir dir;
  const auto file = dir.write("vp.json", doc);
  const auto ds = diagnostics_of(file);
  INFO(dump(ds));
  REQUIRE(ds.empty());
  ExperimentLoader loader(bundled_catalog());
  const Scenario s = loader.build(loader.load(file.string()));
  CHECK(s.parallelism.vp == 2);
  CHECK(s.parallelism.schedule == ScheduleKind::interleaved_1f1b);
  // And through --set on a vp-less experiment.
  doc["parallelism"].erase("vp");
  const auto plain = dir.write("plain.json", doc);
  const Scenario set = loader.build(loader.load(plain.string()), std::vector<Override>{{"/parallelism/vp", "2"}});
  CHECK(set.parallelism.schedule == ScheduleKind::interleaved_1f1b);
}

TEST_CASE("MaxText 2023's selective recomputation is its 'minimal' policy, JAX's dots policy", "[config]") {
  auto doc = small_experiment();
  doc["profile"] = "maxtext-2023";
  doc["training"]["recompute"] = "selective";
  TempDir dir;
  const auto file = dir.write("exp.json", doc);
  ExperimentLoader loader(bundled_catalog());
  const Scenario s = loader.build(loader.load(file.string()));
  CHECK(s.training.selective_policy == SelectivePolicy::dots);
  CHECK(s.training.saves_dots_only());
  doc["training"]["selective_recompute"] = "attention";  // stated: wins
  const auto stated = dir.write("stated.json", doc);
  CHECK(loader.build(loader.load(stated.string())).training.selective_policy == SelectivePolicy::attention);
}
