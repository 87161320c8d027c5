// Flow classes (FlowOptions::flow_classes, sim/engine/flow/fluid_net.hpp) against one SimGrid flow per
// flow: the same step within 0.5 % on three fabrics of 256-1,024 GPUs (3-tier fat-tree, TPU torus,
// dragonfly) and within 1 % on a contention-bound 2-tier 3:1 fat-tree, both against the symmetry-reduced
// SimGrid replay and against the full unreduced one (every replica and TP rank simulated).
#include "tests/catch.hpp"

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/experiment_loader.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/flow/flow_engine.hpp"
#include "tests/flow/flow_fixtures.hpp"
#include "topologies/derived_topology.hpp"

using namespace clustersim;
using flowtest::rel_diff;

namespace {

Scenario fat_tree(Scenario s, int tiers, int radix, std::vector<double> ratio) {
  ClusterTopologySpec t = derived_topology(s.cluster);
  t.fat_tree.tiers = tiers;
  t.fat_tree.radix = radix;
  t.fat_tree.rail_optimized = false;
  t.fat_tree.oversubscription = std::move(ratio);
  s.cluster.comm.topology = t;
  return s;
}

Scenario from_json(const nlohmann::json& cluster, int tp, int pp, int batch) {
  const std::filesystem::path configs = std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs";
  const nlohmann::json doc = {{"schema_version", 1},
                              {"name", "flow-classes-test"},
                              {"cluster", cluster},
                              {"model",
                               {{"name", "tiny"},
                                {"layers", 4},
                                {"hidden", 4096},
                                {"heads", 32},
                                {"vocab", 32000},
                                {"seq_len", 2048}}},
                              {"parallelism", {{"tp", tp}, {"pp", pp}}},
                              {"training", {{"micro_batch", 1}, {"global_batch", batch}}},
                              {"engine", "flow"}};
  return config::scenario_from_json(doc, config::CatalogPaths{{configs}}, "flow-classes-test.json");
}

void check_classes(const Scenario& s, const std::string& what, double tolerance = 0.005) {
  flow::FlowOptions sg, full;
  sg.flow_classes = false;
  full.symmetry_reduction = false;
  const flow::FlowRun c = flow::run_flow(s), r = flow::run_flow(s, sg), u = flow::run_flow(s, full);
  INFO(what << ": classes " << c.steps[0].step_time.value() << " s, reduced SimGrid "
            << r.steps[0].step_time.value() << " s, unreduced " << u.steps[0].step_time.value() << " s ("
            << c.flows << " / " << r.flows << " / " << u.flows << " flows); analytic "
            << run_analytic(s).step_time.value() << " s");
  CHECK(c.fabric.rfind("topology: ", 0) == 0);
  CHECK(c.flows == r.flows);
  CHECK(rel_diff(c.steps[0].step_time, r.steps[0].step_time) < tolerance);
  CHECK(rel_diff(c.steps[0].step_time, u.steps[0].step_time) < tolerance);
  // Same link loads: the classes carry every flow's bytes.
  double cb = 0, rb = 0;
  for (const flow::LinkUse& l : c.busiest) cb += l.bytes;
  for (const flow::LinkUse& l : r.busiest) rb += l.bytes;
  CHECK(std::abs(cb - rb) <= 1e-9 * rb);
}

}  // namespace

TEST_CASE(
    "on a contention-bound 2-tier fat-tree at 3:1 (256 GPUs) flow classes stay within 1 % of one SimGrid flow "
    "per flow",
    "[flow][classes]") {
  // The approximation of flow classes under hashed ECMP (docs/flow_engine.md): flows of one class that meet
  // different foreign traffic move at the class's slowest share. This step is 28 % slower than contention-
  // free; measured +0.60 % (overlapped sync) and +0.56 % (exposed sync) against SimGrid, with 4,096-hidden
  // layers +0.71 %: the worst cases found, so the check is 1 % here and 0.5 % on the fabrics below.
  for (const int hidden : {4096, 8192}) {
    Scenario s = fat_tree(
        flowtest::scenario(flowtest::dgx_a100(32), flowtest::gpt(4, hidden, hidden / 128), 8, 2, 1, 64), 2, 32,
        {3.0});
    s.training.overlap_grad_reduce = true;
    check_classes(s, "2-tier 3:1", 0.01);
    s.training.overlap_grad_reduce = false;
    check_classes(s, "2-tier 3:1, exposed gradient sync", 0.01);
  }
}

TEST_CASE("flow classes match one SimGrid flow per flow on a 3-tier fat-tree at 1:1:3 (1,024 GPUs)",
          "[flow][classes]") {
  Scenario s = fat_tree(flowtest::scenario(flowtest::dgx_a100(128), flowtest::gpt(8, 8192, 64), 8, 4, 1, 256),
                        3, 16, {1.0, 3.0});
  check_classes(s, "3-tier 1:3");
}

TEST_CASE("flow classes match one SimGrid flow per flow on a TPU v4 torus and the catalog dragonfly",
          "[flow][classes]") {
  const nlohmann::json torus = nlohmann::json::parse(R"({
    "name": "tpu-v4-256", "node": "tpu-v4-host", "nodes": 64,
    "network": {"topology": "torus", "dims": [4, 8, 8], "cube": 4, "wrap": true,
                "link": {"bandwidth": "46.9 GB/s", "latency": "3 us"}}})");
  check_classes(from_json(torus, 4, 2, 256), "torus 4x8x8 (256 chips)");
  check_classes(from_json("h100-dragonfly", 8, 2, 512), "dragonfly (512 GPUs)");
}
