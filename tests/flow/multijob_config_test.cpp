// The bundled two-job experiments, end to end: config -> placement -> flow engine solo and shared.
#include <catch2/catch.hpp>

#include <filesystem>

#include "sim/config/experiment_loader.hpp"
#include "sim/report/jobs_report.hpp"

using namespace clustersim;

namespace {

Scenario load(const std::string& name) {
  return config::load_scenario({{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}}, name);
}

}  // namespace

TEST_CASE("two identical jobs on disjoint halves of a non-blocking fabric each run at solo speed (config)", "[flow][jobs]") {
  const Scenario s = load("two-jobs-halves");
  const JobsRun r = run_jobs(s);
  REQUIRE(r.jobs.size() == 2);
  for (const JobOutcome& o : r.jobs) {
    INFO("solo " << o.solo->step_time.value() << " s, shared " << o.shared->step_time.value() << " s");
    CHECK(o.shared->step_time.value() == Approx(o.solo->step_time.value()).epsilon(0.01));
  }
  const nlohmann::json j = jobs_json(s, r);
  CHECK(j["jobs"][0]["nodes"] == nlohmann::json({0, 1, 2, 3}));
  CHECK(j["jobs"][1]["nodes"] == nlohmann::json({4, 5, 6, 7}));
  CHECK(j["jobs"][1]["slowdown"].get<double>() == Approx(1.0).epsilon(0.01));
}

TEST_CASE("two jobs interleaved on a 4:1 oversubscribed fabric both slow down (config)", "[flow][jobs]") {
  const Scenario s = load("two-jobs-interleaved");
  const JobsRun r = run_jobs(s);
  REQUIRE(r.jobs.size() == 2);
  CHECK(s.jobs[0].nodes == std::vector<int>{0, 2, 4, 6});
  for (const JobOutcome& o : r.jobs) {
    INFO("solo " << o.solo->step_time.value() << " s, shared " << o.shared->step_time.value() << " s");
    CHECK(o.shared->step_time.value() > o.solo->step_time.value() * 1.01);
  }
}

TEST_CASE("the analytic engine reports each job alone and points to the flow engine", "[flow][jobs]") {
  Scenario s = load("two-jobs-interleaved");
  s.engine = "analytic";
  const JobsRun r = run_jobs(s);
  const nlohmann::json j = jobs_json(s, r);
  CHECK(j["jobs"][0]["shared_step_time_s"].is_null());
  CHECK(j["jobs"][0]["analytic_step_time_s"].get<double>() > 0);
  CHECK(j["contention_note"].get<std::string>().find("--engine flow") != std::string::npos);
}
