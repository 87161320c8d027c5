// TP, CP and ZeRO-3/FSDP collectives inside the ops replayed as flows on a TPU torus (JobTraffic::op_comm,
// flow_replay.cpp; docs/flow_engine.md "Collectives inside the ops on a torus"), on the derived torus of a
// TPU cluster, on several slices, and on an explicit torus where they meet the gradient sync.
#include "tests/catch.hpp"

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/experiment_loader.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/flow/flow_engine.hpp"
#include "tests/flow/flow_fixtures.hpp"

using namespace clustersim;
using flowtest::busiest;
using flowtest::rel_diff;

namespace {

// 4 layers of a 2048-wide model on TPU v4 hosts (4 chips each); `cluster` is the cluster object.
Scenario tpu_scenario(const nlohmann::json& cluster, const nlohmann::json& parallelism, int batch,
                      const nlohmann::json& training_extra = nlohmann::json::object()) {
  nlohmann::json training = {{"micro_batch", 1}, {"global_batch", batch}};
  training.update(training_extra);
  const nlohmann::json doc = {{"schema_version", 1},
                              {"name", "torus-op-flow-test"},
                              {"cluster", cluster},
                              {"model",
                               {{"name", "tiny"},
                                {"layers", 4},
                                {"hidden", 2048},
                                {"heads", 16},
                                {"vocab", 32000},
                                {"seq_len", 2048}}},
                              {"parallelism", parallelism},
                              {"training", training},
                              {"engine", "flow"}};
  const std::filesystem::path configs = std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs";
  return config::scenario_from_json(doc, config::CatalogPaths{{configs}}, "torus-op-flow-test.json");
}

const nlohmann::json derived_torus_64 = {
    {"name", "tpu-v4-64"}, {"node", "tpu-v4-host"}, {"nodes", 16}, {"network", {{"topology", "torus"}}}};

}  // namespace

TEST_CASE("on a derived TPU torus, TP and FSDP collectives run as flows on the torus links and give the "
          "analytic step when nothing contends",
          "[flow][torus]") {
  // 64 chips, tp 4 on one whole torus dimension, ZeRO-3 over the 16 replicas, no pipeline: the only
  // inter-chip traffic is the TP all-reduces (exposed: tp_comm_overlap off) and the FSDP gathers and
  // scatters (hidden under the kernels); the gradient reduce-scatter of ZeRO-3 is inside the ops too.
  const Scenario s = tpu_scenario(derived_torus_64, {{"tp", 4}, {"pp", 1}, {"zero_stage", 3}}, 32);
  const StepResult a = run_analytic(s);
  const flow::FlowRun f = flow::run_flow(s);
  INFO("analytic " << a.step_time.value() << " s, flow " << f.steps[0].step_time.value() << " s, " << f.flows
                   << " flows on " << f.fabric);
  CHECK(f.fabric.rfind("topology: ", 0) == 0);
  CHECK(f.flows > 0);
  CHECK(busiest(f, flow::LinkClass::torus) > 0.01);
  // Tolerance 1 %: each kind replays the schedule the analytic engine costs (TopologyCollectives::schedule
  // on the same groups), whose phases are costed α–β on their bottleneck link; on this symmetric torus
  // every flow of a phase gets the same max-min rate, so the flows reproduce that cost and only rounding
  // differs (measured: +0.00 %). Before TP/FSDP were flows this run had no flows at all.
  CHECK(rel_diff(f.steps[0].step_time, a.step_time) < 0.01);
  // Every replica simulated, each sending its own devices' share of the collectives: within 0.5 %.
  flow::FlowOptions full;
  full.symmetry_reduction = false;
  const flow::FlowRun u = flow::run_flow(s, full);
  INFO("unreduced " << u.steps[0].step_time.value() << " s, " << u.flows << " flows");
  CHECK(u.flows > 0);
  CHECK(rel_diff(f.steps[0].step_time, u.steps[0].step_time) < 0.005);
}

TEST_CASE("on a two-slice TPU cluster, TP alone and FSDP alone are flows on each slice's torus", "[flow][torus]") {
  nlohmann::json cluster = derived_torus_64;
  cluster["network"]["slices"] = 2;
  // tp 4, no ZeRO-3: the gradient sync crosses the slices (a timed wait), so every flow is a TP flow.
  const Scenario tp_only = tpu_scenario(cluster, {{"tp", 4}, {"pp", 1}}, 32);
  // tp 1, ZeRO-3 inside each slice: every flow is an FSDP gather or scatter.
  const Scenario fsdp_only = tpu_scenario(cluster, {{"tp", 1}, {"pp", 1}, {"zero_stage", 3}}, 64);
  for (const Scenario* s : {&tp_only, &fsdp_only}) {
    const StepResult a = run_analytic(*s);
    const flow::FlowRun f = flow::run_flow(*s);
    INFO("tp " << s->parallelism.tp << ": analytic " << a.step_time.value() << " s, flow "
               << f.steps[0].step_time.value() << " s, " << f.flows << " flows on " << f.fabric);
    CHECK(f.fabric.find("2 slices") != std::string::npos);
    CHECK(f.flows > 0);
    CHECK(busiest(f, flow::LinkClass::torus) > 0.0);
    for (const flow::LinkUse& l : f.busiest) CHECK(l.link.rfind("s0.", 0) == 0);  // slice 0 stands for both
    CHECK(rel_diff(f.steps[0].step_time, a.step_time) < 0.01);
    flow::FlowOptions full;
    full.symmetry_reduction = false;
    const flow::FlowRun u = flow::run_flow(*s, full);
    // Reduced, slice 0's groups stand for both slices; unreduced, slice 1's replicas send the same flows
    // on slice 1's copy of the torus (a cross-slice route would stop the run: FabricLayout::route).
    CHECK(u.flows == 2 * f.flows);
    CHECK(rel_diff(f.steps[0].step_time, u.steps[0].step_time) < 0.005);
  }
}

TEST_CASE("TP flows on a torus contend with the overlapped gradient sync on shared links; the analytic "
          "engine, which assumes no contention between them, is faster",
          "[flow][torus]") {
  // An explicit 4x4x4 torus with tp 2: the TP pairs and the data-parallel rings (stride 2) both use the
  // x links. With overlap_grad_reduce the gradient all-reduce runs under the backward pass, whose exposed
  // TP all-reduces now cross the same links as flows.
  const nlohmann::json cube = nlohmann::json::parse(R"({
    "name": "tpu-v4-cube", "node": "tpu-v4-host", "nodes": 16,
    "network": {"topology": "torus", "dims": [4, 4, 4], "cube": 4, "wrap": true,
                "link": {"bandwidth": "46.9 GB/s", "latency": "3 us"}}})");
  const Scenario overlapped = tpu_scenario(cube, {{"tp", 2}, {"pp", 1}}, 32, {{"overlap_grad_reduce", true}});
  const Scenario serial = tpu_scenario(cube, {{"tp", 2}, {"pp", 1}}, 32, {{"overlap_grad_reduce", false}});
  const StepResult a = run_analytic(overlapped);
  const flow::FlowRun f = flow::run_flow(overlapped);
  INFO("overlapped: analytic " << a.step_time.value() << " s, flow " << f.steps[0].step_time.value() << " s");
  // Measured +4.45 %; the TP flows alone (no concurrent sync) give the analytic step (next check).
  CHECK(f.steps[0].step_time.value() > a.step_time.value() * 1.02);
  const StepResult as = run_analytic(serial);
  const flow::FlowRun fs = flow::run_flow(serial);
  INFO("serial: analytic " << as.step_time.value() << " s, flow " << fs.steps[0].step_time.value() << " s");
  CHECK(rel_diff(fs.steps[0].step_time, as.step_time) < 0.005);
}
