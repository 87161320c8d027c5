// Every experiment shipped in configs/experiments/ loads and predicts through the same path as
// `clustersim run` (analytic engine): a credible, memory-feasible step with finite figures, and the same
// bytes twice. A catalog edit that breaks an example fails here, not in a user's first hour.
#include "tests/catch.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "sim/config/experiment_loader.hpp"
#include "sim/engine/flow/flow_availability.hpp"
#include "sim/report/prediction.hpp"

using namespace clustersim;
namespace fs = std::filesystem;

namespace {
const fs::path kRoot = CLUSTERSIM_SOURCE_DIR;

std::vector<fs::path> bundled_experiments() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kRoot / "configs" / "experiments")) {
    if (e.path().extension() == ".json") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("every bundled experiment predicts a feasible step with finite figures, deterministically") {
  const std::vector<fs::path> files = bundled_experiments();
  REQUIRE(files.size() >= 6);
  const config::CatalogPaths paths{{kRoot / "configs"}};
  for (const fs::path& file : files) {
    INFO(file.filename().string());
    // Keep the run-level Monte Carlo small: the figures are checked elsewhere, here only that it runs.
    std::vector<config::Override> overrides;
    const Scenario probe = config::load_scenario(paths, file.string());
    if (probe.run) overrides = {{"/run/trials", "50"}, {"/run/what_if_trials", "10"}};
    // A build without the flow engine (flow_availability.hpp) predicts the flow experiments analytically;
    // tests/cli checks that their own engine exits 2 there.
    if (probe.engine == "flow" && !flow::flow_engine_available())
      overrides.push_back({"/engine", "analytic"});
    const Scenario s = config::load_scenario(paths, file.string(), overrides);
    const Prediction p = predict(s);
    CHECK(std::isfinite(p.step.step_time.value()));
    CHECK(p.step.step_time.value() > 0);
    CHECK(p.step.mfu > 0.05);
    CHECK(p.step.mfu < 0.80);
    CHECK(p.step.fits);
    CHECK(p.step.bubble_fraction >= 0);
    CHECK(p.step.bubble_fraction < 1);
    CHECK(prediction_json(s, p).dump() == prediction_json(s, predict(s)).dump());
    // Its report is pinned by a golden file (tests/golden/CMakeLists.txt, tools/regen_golden.sh).
    CHECK(fs::exists(kRoot / "tests" / "golden" / file.filename()));
  }
}
