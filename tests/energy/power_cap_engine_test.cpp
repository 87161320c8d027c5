#include "tests/catch.hpp"

#include "energy_fixtures.hpp"
#include "sim/energy/scenario_energy.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/report/prediction.hpp"

using namespace clustersim;

namespace {

// Compute-bound: GPT-2 1.2B data parallel in one DGX A100 (NVSwitch), gradient sync overlapped.
Scenario compute_bound_job(const char* caps) {
  nlohmann::json doc = test::a100_experiment();
  doc["energy"] = {{"power_cap_sweep", nlohmann::json::parse(caps)}};
  return test::build(doc);
}

// Communication-bound: the same model data parallel over 4 A100 nodes joined by 1 Gb/s NICs, with
// gradient reduction after the backward pass (not overlapped), so the all-reduce dominates the step.
Scenario communication_bound_job(const char* caps) {
  nlohmann::json doc = test::a100_experiment();
  doc["cluster"] = {{"name", "slow-net"}, {"nodes", 4}, {"node", "dgx-a100-80gb"}};
  doc["parallelism"]["dp"] = 32;
  doc["training"]["global_batch"] = 128;
  doc["training"]["micro_batch"] = 1;
  doc["training"]["overlap_grad_reduce"] = false;
  doc["energy"] = {{"power_cap_sweep", nlohmann::json::parse(caps)}};
  config::ExperimentLoader loader(test::bundled_catalog());
  const auto resolved = loader.resolve(doc, "slow-net.json");
  const std::vector<config::Override> slow{{"/cluster/node/nic/bandwidth", "\"1 Gb/s\""}};
  return loader.build(resolved, slow);
}

double comm_share(const Scenario& s) {
  const StepResult r = run_analytic(s);
  return r.comm_exposed.dp / r.step_time;
}

}  // namespace

TEST_CASE("a binding power cap slows a compute-bound job and leaves a communication-bound one nearly unchanged") {
  const Scenario compute = compute_bound_job(R"(["300 W"])");
  const Scenario comm = communication_bound_job(R"(["300 W"])");
  REQUIRE(comm_share(comm) > 0.8);
  const auto c = sweep_power_caps_through_engine(compute);
  const auto m = sweep_power_caps_through_engine(comm);
  REQUIRE(c.size() == 1);
  REQUIRE(m.size() == 1);
  CHECK(c[0].effect.binding);
  // 300 W on a 400 W A100 (idle 55 W): compute clock r = ((300-55)/(400-55))^(1/3) = 0.892.
  CHECK(c[0].effect.state_clock_ratio[DeviceState::compute] == Approx(0.8922).epsilon(1e-3));
  CHECK(c[0].step_time_factor > 1.08);
  CHECK(m[0].step_time_factor < 1.02);
  CHECK(m[0].step_time_factor >= 1.0);
  CHECK(c[0].energy.avg_power.device.value() < 300.0 + 1e-9);
}

TEST_CASE("a power cap at or above TDP changes nothing") {
  const Scenario s = compute_bound_job(R"(["400 W", "700 W"])");
  const auto points = sweep_power_caps_through_engine(s);
  EnergySpec uncapped = *s.energy;
  const ScenarioStepEnergy base = scenario_step_energy(s);
  for (const CapSweepPoint& p : points) {
    INFO(p.cap.value());
    CHECK_FALSE(p.effect.binding);
    CHECK(p.step_time_factor == 1.0);
    CHECK(p.energy.per_step.value() == base.energy.per_step.value());
  }
}

TEST_CASE("energy.power_cap applies the cap to the energy figures of the step") {
  nlohmann::json doc = test::a100_experiment();
  doc["energy"] = {{"power_cap", "300 W"}};
  const Scenario capped = test::build(doc);
  const Scenario free = test::build(test::a100_experiment());
  const ScenarioStepEnergy a = scenario_step_energy(capped);
  const ScenarioStepEnergy b = scenario_step_energy(free);
  CHECK(a.energy.step_time > b.energy.step_time);
  CHECK(a.energy.state_power[DeviceState::compute].value() == Approx(300.0));
  CHECK(a.energy.peak_power.device.value() <= 300.0 + 1e-9);
}

TEST_CASE("energy.power_cap slows the reported step, and MFU stays relative to the nominal peak") {
  nlohmann::json doc = test::a100_experiment();
  doc["energy"] = {{"power_cap", "300 W"}};
  const Scenario capped = test::build(doc);
  const Scenario free = test::build(test::a100_experiment());
  const Prediction pc = predict(capped);
  const Prediction pf = predict(free);
  CHECK(pc.step.step_time > pf.step.step_time);
  // The same model FLOPs in a longer step against the same nominal peak: MFU falls by the time ratio.
  CHECK(pc.step.mfu == Approx(pf.step.mfu * pf.step.step_time.value() / pc.step.step_time.value()).epsilon(1e-9));
  // The energy section integrates the same capped timeline.
  CHECK(pc.energy_json["step_time_s"].get<double>() == Approx(pc.step.step_time.value()).epsilon(1e-9));
}

TEST_CASE("energy.power_cap slows the flow engine's step too, and its contention baseline is capped alike",
          "[flow]") {
  nlohmann::json doc = test::h100_pipeline_experiment();
  doc["engine"] = "flow";
  nlohmann::json capped_doc = doc;
  capped_doc["energy"] = {{"power_cap", "350 W"}};
  const Prediction pf = predict(test::build(doc));
  const Prediction pc = predict(test::build(capped_doc));
  REQUIRE(pc.flow.has_value());
  REQUIRE(pc.analytic.has_value());
  CHECK(pc.step.engine == "flow");
  CHECK(pc.step.step_time > pf.step.step_time);
  // Flow and analytic engines run the same capped scenario: on this contention-free case they agree.
  CHECK(pc.step.step_time.value() == Approx(pc.analytic->step_time.value()).epsilon(0.03));
}
