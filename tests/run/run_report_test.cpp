// The run section end to end: experiment file -> config -> step prediction -> run model -> report keys.
#include "tests/catch.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "run_config_fixtures.hpp"
#include "sim/report/prediction.hpp"
#include "sim/report/run_section.hpp"

using namespace clustersim;
using namespace clustersim::run::testing;

namespace {

Scenario load(const std::string& name, const std::vector<config::Override>& overrides = {}) {
  return config::load_scenario(bundled_catalog(), name, overrides);
}

/// The bundled Llama 3 run with fewer trials (the figures are means; 100 trials keep the test fast).
Scenario llama3_run(const std::string& seed = "1") {
  return load("llama3-405b-h100-16k-run",
              {{"/run/trials", "100"}, {"/run/what_if_trials", "20"}, {"/run/seed", seed}});
}

Scenario small_with_run(const nlohmann::json& run) {
  return config::scenario_from_json(with_run(run), bundled_catalog());
}

}  // namespace

TEST_CASE("the Llama 3 405B run experiment reports every run key with credible figures") {
  const Scenario s = llama3_run();
  const Prediction p = predict(s);
  REQUIRE(p.run.has_value());
  const nlohmann::json j = prediction_json(s, p, false);
  REQUIRE(j.contains("run"));
  const nlohmann::json& r = j["run"];
  for (const char* k : {"mean", "p10", "p50", "p90"}) {
    INFO(k);
    CHECK(r["wall_time_s"][k].get<double>() > r["useful_time_s"].get<double>());
  }
  CHECK(r["wall_time_s"]["p10"].get<double>() <= r["wall_time_s"]["p90"].get<double>());
  // Llama 3 §3.3.4: "higher than 90% effective training time" with these failure rates.
  const double goodput = r["goodput"]["mean"].get<double>();
  CHECK(goodput > 0.85);
  CHECK(goodput < 0.97);
  for (const char* cause :
       {"accelerator", "memory", "nic", "host", "cable", "storage", "software", "maintenance"}) {
    INFO(cause);
    CHECK(r["interruptions"][cause].get<double>() > 0.0);
  }
  CHECK(r["interruptions"]["node_fabric"].get<double>() == 0.0);
  for (const char* k :
       {"recompute", "restart", "restore", "checkpoint_stall", "straggler", "repair_wait", "degraded"}) {
    INFO(k);
    CHECK(r["lost_time_s"][k].get<double>() >= 0.0);
  }
  CHECK(r["lost_time_s"]["recompute"].get<double>() > 0.0);
  CHECK(r["lost_time_s"]["restart"].get<double>() > 0.0);
  // 54 days / 419 unexpected interruptions on 16,384 GPUs (Llama 3 Table 5).
  CHECK(r["job_mtbf_s"].get<double>() == Approx(54.0 * 86400.0 / 419.0).epsilon(0.01));
  // bf16 weights (2 B) + fp32 master and Adam moments (12 B) per parameter, 405B parameters + 2 layer slots.
  const auto& k = r["checkpoint"];
  CHECK(k["size_bytes"].get<double>() == Approx(14.0 * 411e9).epsilon(0.03));
  CHECK(k["write_s"].get<double>() == Approx(k["size_bytes"].get<double>() / 2e12));
  CHECK(k["interval_s"].get<double>() >= k["write_s"].get<double>());
  CHECK(k["optimal_interval_s"].get<double>() ==
        Approx(std::sqrt(2.0 * k["stall_s"].get<double>() * r["job_mtbf_s"].get<double>())));
  CHECK(k["interval_policy"] == "auto");
  // 15T tokens of 16M-token batches.
  CHECK(r["steps"].get<double>() == Approx(15e12 / (2048.0 * 8192)).margin(1.0));
  REQUIRE(r["what_if"].is_array());
  CHECK(r["what_if"].size() >= 10);
  for (const auto& row : r["what_if"]) {
    CHECK(row.contains("interval_s"));
    if (row["feasible"].get<bool>()) {
      CHECK(row["goodput"].get<double>() > 0.5);
      CHECK(row["wall_time_s"].get<double>() > r["useful_time_s"].get<double>());
    } else {
      CHECK(row["goodput"].is_null());
    }
  }
  const std::string text = prediction_text(s, p);
  CHECK(text.find("goodput") != std::string::npos);
  CHECK(text.find("what-if: checkpoint interval and mode") != std::string::npos);
  CHECK(text.find("<- used") != std::string::npos);
}

TEST_CASE("the same seed gives a byte-identical run report, another seed a consistent one") {
  const Scenario a = llama3_run("11");
  const std::string first = prediction_json(a, predict(a)).dump();
  const std::string again = prediction_json(a, predict(a)).dump();
  CHECK(first == again);
  const Scenario reloaded = llama3_run("11");
  CHECK(prediction_json(reloaded, predict(reloaded)).dump() == first);

  const Scenario b = llama3_run("12");
  const nlohmann::json ja = prediction_json(a, predict(a))["run"];
  const nlohmann::json jb = prediction_json(b, predict(b))["run"];
  const double ma = ja["wall_time_s"]["mean"], mb = jb["wall_time_s"]["mean"];
  CHECK(ma != mb);
  const double ca = ja["wall_time_s"]["ci95"], cb = jb["wall_time_s"]["ci95"];
  // Two independent estimates of one mean: their difference is within ~2.5 combined standard errors.
  CHECK(std::abs(ma - mb) < 2.5 * std::hypot(ca, cb));
}

TEST_CASE("without a run section the report has no run keys and the step keys do not change") {
  const Scenario plain = config::scenario_from_json(small_experiment(), bundled_catalog());
  const Scenario with = small_with_run({{"steps", 1000}, {"trials", 20}, {"what_if_trials", 5}});
  const Prediction p_plain = predict(plain);
  const Prediction p_with = predict(with);
  CHECK_FALSE(p_plain.run.has_value());
  CHECK(p_plain.run_json.is_null());
  CHECK(p_plain.run_text.empty());
  nlohmann::json j_plain = prediction_json(plain, p_plain, false);
  nlohmann::json j_with = prediction_json(with, p_with, false);
  CHECK_FALSE(j_plain.contains("run"));
  REQUIRE(j_with.contains("run"));
  // The energy section (when present) may use the run figures; the step keys must not change.
  for (const char* section : {"run", "energy"}) {
    j_plain.erase(section);
    j_with.erase(section);
  }
  CHECK(j_with == j_plain);
  CHECK(prediction_text(plain, p_plain).find("\nrun (") == std::string::npos);
  CHECK(prediction_text(with, p_with).find("\nrun (") != std::string::npos);
}

TEST_CASE("a checkpoint interval shorter than its write time is a ConfigError naming file and pointer") {
  ScratchDir dir;
  nlohmann::json run = {{"steps", 1000}, {"trials", 10}};
  run["checkpoint"] = {
      {"interval", "10 s"}, {"write_bandwidth_per_node", nullptr}, {"aggregate_write_bandwidth", "1 MB/s"}};
  const auto file = dir.write("short-interval.json", with_run(run));
  const Scenario s = load(file.string());
  try {
    predict(s);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    INFO(dump(e.diagnostics()));
    CHECK(has_diagnostic(e.diagnostics(), "short-interval.json", "/run/checkpoint/interval", "write time"));
  }
}

TEST_CASE("a checkpoint interval shorter than one step is a ConfigError naming file and pointer") {
  ScratchDir dir;
  nlohmann::json run = {{"steps", 1000}, {"trials", 10}};
  run["checkpoint"] = {{"interval", "1 us"}};
  const auto file = dir.write("tiny-interval.json", with_run(run));
  const Scenario s = load(file.string());
  try {
    predict(s);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    INFO(dump(e.diagnostics()));
    CHECK(has_diagnostic(e.diagnostics(), "tiny-interval.json", "/run/checkpoint/interval", "one step"));
  }
}

TEST_CASE("the checkpoint holds each parameter's state once whatever the ZeRO stage and CP degree") {
  const Scenario base = config::scenario_from_json(small_experiment(), bundled_catalog());
  const double reference = job_shape_of(base, predict(base).step).checkpoint_bytes().value();
  REQUIRE(reference > 0.0);
  for (const auto& [zero, cp] :
       std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {3, 1}, {0, 2}, {1, 2}, {3, 2}}) {
    nlohmann::json e = small_experiment();
    e["parallelism"]["zero_stage"] = zero;
    if (cp > 1) {
      e["parallelism"]["cp"] = cp;
      e["parallelism"]["dp"] = 4 / cp;
    }
    const Scenario s = config::scenario_from_json(e, bundled_catalog());
    INFO("zero " << zero << " cp " << cp);
    CHECK(job_shape_of(s, predict(s).step).checkpoint_bytes().value() == Approx(reference).epsilon(1e-9));
  }
}

TEST_CASE("a multi-slice job's checkpoint holds each parameter's state once whatever the slice count") {
  // Llama 2 7B with FSDP on 1,024 TPU v5e chips: ZeRO shards within a slice, so each slice holds a whole
  // copy of the state and the checkpoint writes one of them.
  const auto experiment = [](int slices) {
    nlohmann::json network = {{"topology", "torus"}};
    if (slices > 1) network["slices"] = slices;
    return nlohmann::json{
        {"schema_version", 1},
        {"name", "multislice-checkpoint"},
        {"cluster", {{"name", "v5e"}, {"node", "tpu-v5e-host"}, {"nodes", 128}, {"network", network}}},
        {"model", "llama2-7b"},
        {"parallelism", {{"tp", 1}, {"pp", 1}, {"dp", 1024}, {"zero_stage", 3}}},
        {"training", {{"micro_batch", 1}, {"global_batch", 1024}, {"precision", "bf16"}, {"recompute", "full"}}}};
  };
  const Scenario one = config::scenario_from_json(experiment(1), bundled_catalog());
  const double reference = job_shape_of(one, predict(one).step).checkpoint_bytes().value();
  REQUIRE(reference > 0.0);
  for (int slices : {2, 4}) {
    INFO(slices << " slices");
    const Scenario s = config::scenario_from_json(experiment(slices), bundled_catalog());
    const run::JobShape job = job_shape_of(s, predict(s).step);
    CHECK(job.shard_copies == slices);
    CHECK(job.validate().empty());
    CHECK(job.checkpoint_bytes().value() == Approx(reference).epsilon(1e-9));
  }
}
