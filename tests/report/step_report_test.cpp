// The step report says how communication was costed (collective_model).
#include <catch2/catch.hpp>

#include <filesystem>

#include "sim/config/experiment_loader.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/report/step_report.hpp"

using namespace clustersim;

namespace {
Scenario bundled(const std::string& name) {
  config::ExperimentLoader loader(
      config::CatalogPaths{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}});
  return loader.build(loader.load(name), {});
}
}  // namespace

TEST_CASE("the step report names the collective model: topology on explicit clusters, else two-level",
          "[report]") {
  const Scenario dragonfly = bundled("llama2-70b-h100-dragonfly");
  const StepResult r = run_analytic(dragonfly);
  CHECK(step_report_json(dragonfly, r, false)["collective_model"] == "topology");
  CHECK(step_report_text(dragonfly, r).find("explicit dragonfly topology") != std::string::npos);

  const Scenario fat_tree = bundled("llama2-70b-h100-512");
  CHECK(step_report_json(fat_tree, run_analytic(fat_tree), false)["collective_model"] == "two-level");
}
