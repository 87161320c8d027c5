// DeepSeek-V3 pre-training on 2,048 H800 (configs/experiments/deepseek-v3-h800-2048.json): predicted GPU-hours
// for 14.8 T tokens against the 2.664 M H800 GPU-hours of the DeepSeek-V3 report (arXiv 2412.19437, Table 1).
// The gate is the README's figure: the prediction is 21 % low (-21.1 %) with the report's MTP module,
// blockwise-scaled FP8 GEMMs (DeepGEMM's measured shape dependence), FP8 dispatch,
// FP8 activation cache, recomputed norms and MLA up-projections, 20 communication SMs and DualPipe's two
// gradient copies modelled (docs/moe.md "DeepSeek-V3's training terms"); the 15 % target is not met.
#include "tests/catch.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "sim/config/experiment_loader.hpp"
#include "sim/report/prediction.hpp"

using namespace clustersim;

TEST_CASE("DeepSeek-V3 on 2,048 H800: predicted pre-training GPU-hours within the README's 21 %") {
  const std::filesystem::path root = CLUSTERSIM_SOURCE_DIR;
  const config::CatalogPaths paths{{root / "configs"}};
  const Scenario s = config::load_scenario(paths, (root / "configs/experiments/deepseek-v3-h800-2048.json").string());
  const Prediction p = predict(s);
  const double gpu_hours = 14.8e12 / p.step.tokens_per_s * p.step.devices / 3600.0;
  const double error = gpu_hours / 2.664e6 - 1.0;
  INFO(fmt::format("{:.3f} M GPU-hours, {:+.1f} % vs 2.664 M", gpu_hours / 1e6, 100 * error));
  CHECK(std::abs(error) <= 0.215);
  // DeepSeek trains in 80 GB per GPU: with its activation savings the model fits too.
  CHECK(p.step.fits);
  // The all-to-alls run under DualPipe's overlapped compute: little of them stays exposed.
  CHECK(p.step.comm_exposed.ep.value() < 0.02 * p.step.step_time.value());
}
