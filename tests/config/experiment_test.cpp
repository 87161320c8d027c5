// Building Scenarios: defaults, derived values, the bundled default experiment, in-memory documents.
#include "tests/catch.hpp"

#include "sim/config/section_registry.hpp"
#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

TEST_CASE("the bundled default experiment is GPT-3 175B on 1,024 A100s", "[config]") {
  const Scenario s = load_scenario(bundled_catalog(), "gpt3-175b-a100-1024");
  CHECK(s.name == "gpt3-175b-a100-1024");
  CHECK(s.engine == "analytic");
  CHECK(s.cluster.devices() == 1024);
  CHECK(s.cluster.node.name == "dgx-a100-80gb");
  CHECK(s.cluster.node.device.name == "a100-sxm4-80gb");
  CHECK(s.cluster.node.device.peak_for(Precision::bf16).value() == Approx(312e12));
  CHECK(s.cluster.node.device.memory_capacity.value() == Approx(80.0 * 1073741824.0));
  CHECK(s.cluster.node.intra.bandwidth.value() == Approx(300e9));
  CHECK(s.cluster.node.nic.bandwidth.value() == Approx(25e9));  // 200 Gb/s
  CHECK(s.model.name == "gpt3-175b");
  CHECK(s.model.ffn_hidden == 4 * 12288);
  CHECK(s.model.kv_heads == 96);
  CHECK(s.parallelism.tp == 8);
  CHECK(s.parallelism.pp == 8);
  CHECK(s.parallelism.dp == 16);
  CHECK(s.parallelism.vp == 3);
  CHECK(s.parallelism.schedule == ScheduleKind::interleaved_1f1b);
  CHECK(s.parallelism.sequence_parallel);
  CHECK(s.training.recompute == Recompute::selective);
  CHECK(s.training.seq_len == 2048);  // from the model
  CHECK(s.training.microbatches(s.parallelism.dp) == 96);
}

TEST_CASE("absent keys take their documented defaults and dp is derived", "[config]") {
  auto doc = small_experiment();
  doc["parallelism"].erase("dp");
  const Scenario s = scenario_from_json(doc, bundled_catalog());
  CHECK(s.parallelism.dp == 4);  // 16 devices / (tp 2 * pp 2)
  CHECK(s.parallelism.cp == 1);
  CHECK(s.parallelism.vp == 1);
  CHECK(s.parallelism.zero_stage == 0);
  CHECK(s.parallelism.schedule == ScheduleKind::one_f_one_b);
  CHECK(s.model.kv_heads == 16);
  CHECK(s.model.ffn_hidden == 4096);
  CHECK(s.model.mlp == MlpKind::gelu);
  CHECK(s.model.linear_bias);
  CHECK(s.training.seq_len == 2048);
  CHECK(s.training.precision == Precision::bf16);
  CHECK(s.training.gradient_precision == Precision::fp32);
  CHECK(s.training.master_weights_fp32);
  CHECK(s.training.overlap_grad_reduce);
  CHECK(s.cluster.network.topology == "fat-tree");
  CHECK(s.cluster.node.device.idle_power.value() == 0.0);
  CHECK(s.cluster.node.device.efficiency.gemm_max_efficiency ==
        Approx(DeviceEfficiency{}.gemm_max_efficiency));
  CHECK(s.name == "small");
  CHECK(s.source_file.empty());
}

TEST_CASE("fsdp: true means ZeRO stage 3", "[config]") {
  auto doc = small_experiment();
  doc["parallelism"]["fsdp"] = true;
  CHECK(scenario_from_json(doc, bundled_catalog()).parallelism.zero_stage == 3);
}

TEST_CASE("an experiment may name its cluster, node, device and model from the catalog", "[config]") {
  auto doc = small_experiment();
  doc["cluster"] = {{"node", "dgx-h100"}, {"nodes", 2}};
  doc["model"] = "llama2-7b";
  doc["training"]["precision"] = "fp8";
  const Scenario s = scenario_from_json(doc, bundled_catalog());
  CHECK(s.cluster.node.device.name == "h100-sxm5-80gb");
  CHECK(s.cluster.node.intra.efficiency == Approx(0.82));
  CHECK(s.model.mlp == MlpKind::swiglu);
  CHECK_FALSE(s.model.tied_embeddings);
  CHECK(s.training.seq_len == 4096);
  CHECK(s.training.precision == Precision::fp8);
}

TEST_CASE("diagnostics of an in-memory document carry its label", "[config]") {
  auto doc = small_experiment();
  doc["parallelism"]["tp"] = 0;
  try {
    scenario_from_json(doc, bundled_catalog(), "narayanan2021-t1-1.7B-32gpu");
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(has_diagnostic(e.diagnostics(), "narayanan2021-t1-1.7B-32gpu", "/parallelism/tp", "out of range"));
  }
}

namespace {

constexpr Field kBudgetFields[] = {{.key = "budget",
                                    .kind = FieldKind::quantity,
                                    .doc = "energy budget",
                                    .fallback = "\"0 J\"",
                                    .dimension = Dimension::energy,
                                    .rule = QuantityRule::non_negative}};
const Section kBudgetSection{"test_budget", "/test_budget", "a test section", kBudgetFields};
const Field kBudgetKey{
    .key = "test_budget", .kind = FieldKind::object, .doc = "test", .section = &kBudgetSection};

}  // namespace

TEST_CASE("an additional top-level section is registered, not hard-coded", "[config]") {
  SectionRegistry sections = SectionRegistry::standard();
  double budget = 0.0;
  sections.add({"test_budget",
                false,
                [&](ObjectReader& r, Scenario&) { budget = r.quantity<Joules>("budget").value(); },
                {},
                {},
                &kBudgetKey});
  auto doc = small_experiment();
  doc["test_budget"] = {{"budget", "2 MWh"}};

  // Unregistered: an unknown top-level key.
  CHECK_THROWS_AS(scenario_from_json(doc, bundled_catalog()), ConfigError);

  ExperimentLoader loader(bundled_catalog(), sections);
  loader.build(loader.resolve(doc));
  CHECK(budget == Approx(7.2e9));

  doc["test_budget"]["budjet"] = "1 MWh";
  try {
    loader.build(loader.resolve(doc));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(has_diagnostic(e.diagnostics(), "<memory>", "/test_budget/budjet", "did you mean \"budget\""));
  }
}

TEST_CASE("model.position takes alibi (no position table, docs/model.md)", "[config]") {
  auto doc = small_experiment();
  doc["model"]["position"] = "alibi";
  const Scenario s = scenario_from_json(doc, bundled_catalog());
  CHECK(s.model.position == PositionKind::alibi);
  doc["model"]["position"] = "alibl";
  TempDir dir;
  const auto ds = diagnostics_of(dir.write("exp.json", doc));
  INFO(dump(ds));
  CHECK(has_diagnostic(ds, "exp.json", "/model/position", "did you mean \"alibi\""));
}
