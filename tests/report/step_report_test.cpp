// The step report says how communication was costed (collective_model).
#include "tests/catch.hpp"

#include <filesystem>

#include "sim/config/experiment_loader.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/hetero.hpp"
#include "sim/report/hetero_report.hpp"
#include "sim/report/step_report.hpp"

using namespace clustersim;

namespace {
Scenario bundled(const std::string& name) {
  config::ExperimentLoader loader(
      config::CatalogPaths{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}});
  return loader.build(loader.load(name), {});
}
}  // namespace

TEST_CASE("the step report names the collective model and whether the topology is explicit or derived",
          "[report]") {
  const Scenario dragonfly = bundled("llama2-70b-h100-dragonfly");
  const StepResult r = run_analytic(dragonfly);
  CHECK(step_report_json(dragonfly, r, false)["collective_model"] == "topology");
  CHECK(step_report_text(dragonfly, r).find("explicit dragonfly topology") != std::string::npos);

  const Scenario fat_tree = bundled("llama2-70b-h100-512");
  const StepResult f = run_analytic(fat_tree);
  CHECK(step_report_json(fat_tree, f, false)["collective_model"] == "topology");
  CHECK(step_report_text(fat_tree, f).find("fat-tree topology derived from the cluster") !=
        std::string::npos);
}

TEST_CASE("the step report lists stragglers and says that the analytic engine ignores link stragglers",
          "[report]") {
  config::ExperimentLoader loader(
      config::CatalogPaths{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}});
  const std::vector<config::Override> set{{"/stragglers", R"({"devices": [{"device": 1, "speed": 0.8}],
                          "links": [{"class": "nvlink", "node": 0, "index": 2, "bandwidth_factor": 0.5}]})"}};
  const Scenario s = loader.build(loader.load("gpt2-1b-a100-8gpu"), set);
  const StepResult r = run_analytic(s);
  const nlohmann::json j = step_report_json(s, r, false);
  CHECK(j["stragglers"]["devices"] == 1);
  CHECK(j["stragglers"]["slowest_device_speed"] == 0.8);
  CHECK(j["stragglers"]["links"] == 1);
  CHECK(j["stragglers"]["links_modelled"] == false);
  CHECK(step_report_text(s, r).find("ignored by the analytic engine") != std::string::npos);
  // Without stragglers the key is absent (reports of existing experiments are unchanged).
  CHECK_FALSE(step_report_json(bundled("gpt2-1b-a100-8gpu"), r, false).contains("stragglers"));
}

// The heterogeneous section's placement of the embedding and LM head comes from the schedule's own
// mapping of virtual stages to pipeline stages (virtual_stage), not from 1F1B's: under V-Half the last
// virtual stage (2p-1) is chunk 1 of stage 0, so both sit on stage 0, in the H100 pool.
TEST_CASE("the heterogeneous section places the embedding and LM head where the schedule puts them", "[report]") {
  config::ExperimentLoader loader(
      config::CatalogPaths{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}});
  const auto placement = [&](const std::vector<config::Override>& set) {
    const Scenario s = loader.build(loader.load("llama2-13b-h100a100-hetero"), set);
    const StepResult r = run_hetero(s);
    REQUIRE(r.hetero);
    std::string found;
    const nlohmann::json j = hetero_json(s, *r.hetero);
    for (const auto& a : j["assumptions"]) {
      const std::string text = a.get<std::string>();
      if (text.find("LM head") != std::string::npos) found = text;
    }
    CHECK(hetero_text(s, r).find(found) != std::string::npos);
    return found;
  };
  // 1F1B (the experiment): first and last stage, the sentence reports have always carried.
  CHECK(placement({}) ==
        "the layer split weighs transformer layers only; embedding and LM head stay on the first and last stage "
        "(give pipeline_layers to move them)");
  const std::string v_half = placement({{"/parallelism/schedule", "\"v-half\""}});
  INFO(v_half);
  CHECK(v_half.find("both stay on stage 0 (pool 0)") != std::string::npos);
  CHECK(v_half.find("virtual stage 7") != std::string::npos);
  CHECK(v_half.find("last stage") == std::string::npos);
  CHECK(v_half.find("pipeline_layers") == std::string::npos);  // refused with v-half
  // DualPipe's two directions each hold a copy of both, on stage 0 (H100 pool) and stage 3 (A100 pool).
  const std::string dualpipe = placement({{"/parallelism/schedule", "\"dualpipe\""}});
  INFO(dualpipe);
  CHECK(dualpipe.find("stay on stages 0 and 3 (pools 0 and 1)") != std::string::npos);
  // Vocabulary parallelism splits both over every virtual stage.
  const std::string vocab =
      placement({{"/parallelism/schedule", "\"v-half\""}, {"/parallelism/vocab_parallel", "\"vocab-2\""}});
  CHECK(vocab.find("split evenly over every virtual stage") != std::string::npos);
}

TEST_CASE("the step report names the selective recomputation policy that ran", "[report]") {
  config::ExperimentLoader loader(
      config::CatalogPaths{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}});
  const auto text = [&](const char* policy) {
    const std::vector<config::Override> set{{"/training/recompute", "\"selective\""},
                                            {"/training/selective_recompute", policy}};
    const Scenario s = loader.build(loader.load("gpt2-1b-a100-8gpu"), set);
    return step_report_text(s, run_analytic(s));
  };
  CHECK(text("\"attention\"").find("recompute selective (attention core)") != std::string::npos);
  CHECK(text("\"dots\"").find("recompute selective (dots: weight-matmul outputs saved)") != std::string::npos);
  CHECK(text("\"layer\"").find("recompute selective (every k-th layer in full, k = 2)") != std::string::npos);
}
