// Sweep rows written straight from the typed results (PredictionRowWriter, sim/report/prediction_row.hpp)
// against rows flattened from the report JSON (prediction_json + flatten_json): the same keys, values and
// formatted bytes, for every bundled experiment (dense, MoE, TPU, energy, a run section, heterogeneous
// pools, jobs, a parameter server, local SGD, a wafer) and variants with the optional report blocks.
#include "tests/catch.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "plan_test_support.hpp"
#include "row_compare.hpp"
#include "sim/engine/flow/flow_availability.hpp"
#include "sim/plan/point_evaluator.hpp"
#include "sim/plan/row_format.hpp"
#include "sim/report/prediction.hpp"
#include "sim/report/prediction_row.hpp"

using namespace clustersim;
using namespace clustersim::plan;
using namespace clustersim::plan::testing;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> bundled_experiment_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(repo_root() / "configs" / "experiments")) {
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string dump(const FlatMetrics& m) {
  std::string out;
  for (const auto& [k, v] : m) out += k + "=" + v.dump() + "\n";
  return out;
}

// One scenario: the writer's row (from a prediction with and without the energy JSON) equals the flattened
// report JSON. `writer` is shared across scenarios, so its cached key order must follow key changes.
void check_scenario(const Scenario& s, PredictionRowWriter& writer) {
  const Prediction p = predict(s, {.text = false});
  FlatMetrics from_json;
  flatten_json(prediction_json(s, p, /*include_inputs=*/false, /*include_stages=*/false), from_json);
  REQUIRE(!from_json.empty());
  FlatMetrics direct;
  writer.write(s, p, direct);
  CHECK(dump(direct) == dump(from_json));
  const Prediction lean = predict(s, {.text = false, .json = false});
  CHECK(lean.energy_json.is_null());
  FlatMetrics direct_lean = {{"stale", nlohmann::json(1)}};  // overwritten in place
  writer.write(s, lean, direct_lean);
  CHECK(dump(direct_lean) == dump(from_json));
}

Scenario load(const std::string& name, std::vector<config::Override> overrides = {}) {
  const config::CatalogPaths paths = bundled_catalog();
  const Scenario probe = config::load_scenario(paths, name);
  if (probe.run) {
    overrides.push_back({"/run/trials", "20"});
    overrides.push_back({"/run/what_if_trials", "5"});
  }
  if (probe.engine == "flow" && !flow::flow_engine_available()) overrides.push_back({"/engine", "analytic"});
  return config::load_scenario(paths, name, overrides);
}

}  // namespace

TEST_CASE("rows written from the typed results equal rows flattened from the report JSON", "[plan][sweep][row]") {
  PredictionRowWriter writer;
  const std::vector<std::string> names = bundled_experiment_names();
  REQUIRE(names.size() >= 15);
  for (const std::string& name : names) {
    INFO(name);
    check_scenario(load(name), writer);
  }
  SECTION("optional report blocks: device stragglers, gradient compression, a power cap, infeasible memory") {
    INFO("variants");
    check_scenario(load("gpt3-175b-a100-1024", {{"/stragglers", R"({"devices":[{"device":17,"speed":0.8}]})"}}),
                   writer);
    check_scenario(load("gpt3-175b-a100-1024", {{"/compression", R"({"scheme":"powersgd"})"}}), writer);
    check_scenario(load("llama2-70b-h100-512-energy", {{"/energy/power_cap", "\"500 W\""}}), writer);
    const Scenario no_fit = load("gpt3-175b-a100-1024", {{"/parallelism/tp", "2"}, {"/parallelism/dp", "64"}});
    CHECK(!predict(no_fit, {.text = false}).step.fits);
    check_scenario(no_fit, writer);
  }
}

TEST_CASE("a sweep's direct rows are the bytes of its rows from the report JSON", "[plan][sweep][row]") {
  const auto check = [](const std::string& experiment, const SweepSpace& space) {
    const config::CatalogPaths paths = bundled_catalog();
    config::ExperimentLoader loader(paths);
    const config::ResolvedDocument doc = loader.load(experiment);
    PointEvaluator direct(paths, doc, space), json(paths, doc, space);
    json.set_json_rows(true);
    const RowSchema schema = probe_schema(json, space);
    for (const RowFormat f : {RowFormat::csv, RowFormat::jsonl}) check_same_rows(direct, json, space, schema, f, experiment);
  };
  check("gpt3-175b-a100-1024", SweepSpace({parse_vary("/cluster/network/oversubscription=1,1.5,4"),
                                           parse_vary("/parallelism/tp=8,2,3")},
                                          false));
  check("llama2-70b-h100-512-energy", SweepSpace({parse_vary("/energy/pue=1.1,1.58")}, false));
  check("mixtral-8x7b-h100-64", SweepSpace({parse_vary("/training/global_batch=256,512")}, false));
  check("llama2-13b-h100a100-hetero", SweepSpace({parse_vary("/training/global_batch=256,512")}, false));
}
