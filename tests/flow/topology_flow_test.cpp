// The flow engine on an explicit TopologyGraph (topology mode of FabricLayout / SimgridPlatform): the
// same links and routes as the analytic engine's topology-aware collectives, simulated flow by flow.
#include "tests/catch.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/config/experiment_loader.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/flow/flow_engine.hpp"
#include "tests/flow/flow_fixtures.hpp"
#include "topologies/derived_topology.hpp"

using namespace clustersim;
using flowtest::busiest;
using flowtest::rel_diff;

namespace {

// The cluster's derived fat-tree, spelled out (so both engines use the TopologyGraph).
Scenario explicit_fabric(Scenario s) {
  s.cluster.comm.topology = derived_topology(s.cluster);
  return s;
}

// A 2-tier fat-tree without rails, leaves oversubscribed `ratio`:1. Radix 16 at 1:1 puts one 8-NIC node
// under each leaf, so every inter-node flow crosses the spines.
Scenario small_fat_tree(Scenario s, double ratio, int radix = 16) {
  ClusterTopologySpec t = derived_topology(s.cluster);
  t.fat_tree.tiers = 2;
  t.fat_tree.radix = radix;
  t.fat_tree.rail_optimized = false;
  t.fat_tree.oversubscription = {ratio};
  s.cluster.comm.topology = t;
  return s;
}

}  // namespace

TEST_CASE(
    "on an explicit non-blocking fat-tree the flow engine replays the TopologyGraph within 3 % of the "
    "analytic engine",
    "[flow][topology]") {
  for (const Scenario& s :
       {explicit_fabric(flowtest::narayanan_like(8)), explicit_fabric(flowtest::korthikanti_like(8))}) {
    const StepResult a = run_analytic(s);
    const flow::FlowRun f = flow::run_flow(s);
    INFO("analytic " << a.step_time.value() << " s, flow " << f.steps[0].step_time.value() << " s on "
                     << f.fabric);
    CHECK(f.fabric.rfind("topology: ", 0) == 0);
    CHECK(rel_diff(f.steps[0].step_time, a.step_time) < 0.03);
  }
}

TEST_CASE(
    "an exposed gradient all-reduce on an explicit fat-tree takes the topology closed form's time within 1 %",
    "[flow][topology]") {
  Scenario s =
      explicit_fabric(flowtest::scenario(flowtest::dgx_a100(4), flowtest::gpt(4, 4096, 32), 8, 1, 1, 8));
  s.training.overlap_grad_reduce = false;  // the whole sync is exposed after the last backward
  const StepResult a = run_analytic(s);
  const flow::FlowRun f = flow::run_flow(s);
  INFO("analytic DP " << a.comm_exposed.dp.value() << " s, flow DP " << f.steps[0].comm_exposed.dp.value()
                      << " s");
  REQUIRE(a.comm_exposed.dp.value() > 0.0);
  CHECK(rel_diff(f.steps[0].comm_exposed.dp, a.comm_exposed.dp) < 0.01);
}

TEST_CASE(
    "a 3:1 oversubscribed explicit spine slows the flow step, and the busiest leaf-spine link shows why",
    "[flow][topology]") {
  Scenario base = flowtest::narayanan_like(8);
  base.training.overlap_grad_reduce = false;
  const Scenario full = small_fat_tree(base, 1.0), over = small_fat_tree(base, 3.0);
  const flow::FlowRun ff = flow::run_flow(full), fo = flow::run_flow(over);
  const double t_full = ff.steps[0].step_time.value(), t_over = fo.steps[0].step_time.value();
  INFO("1:1 " << t_full << " s, 3:1 " << t_over << " s; analytic 3:1 " << run_analytic(over).step_time.value()
              << " s");
  CHECK(t_over > t_full * 1.01);
  // Explained by the fabric: fewer leaf up-links run busier, and the extra time is exposed gradient sync.
  CHECK(busiest(fo, flow::LinkClass::leaf_spine) > busiest(ff, flow::LinkClass::leaf_spine));
  const double dp_delta = (fo.steps[0].comm_exposed.dp - ff.steps[0].comm_exposed.dp).value();
  CHECK(dp_delta > 0.5 * (t_over - t_full));
  // Both engines see the spine: the analytic engine costs the same merged phases on the same links.
  CHECK(rel_diff(fo.steps[0].step_time, run_analytic(over).step_time) < 0.03);
}

TEST_CASE(
    "the symmetry reduction matches an unreduced simulation within 0.5 % on 256 GPUs of an explicit fat-tree",
    "[flow][topology]") {
  // ratio 0: the derived rail-optimized fat-tree, where pipeline flows stay on their rail leaf (private
  // links: only the representative's are sent); 1 and 3: radix 32, two or three nodes per leaf.
  for (const double ratio : {0.0, 1.0, 3.0}) {
    const Scenario base = flowtest::scenario(flowtest::dgx_a100(32), flowtest::gpt(4, 4096, 32), 8, 2, 1, 64);
    Scenario s = ratio == 0.0 ? explicit_fabric(base) : small_fat_tree(base, ratio, 32);
    s.training.overlap_grad_reduce = ratio > 1.0;
    flow::FlowOptions full, reduced;
    full.symmetry_reduction = false;
    // The SimGrid replay's symmetry reduction; flow classes on top of it: tests/flow/flow_classes_test.cpp
    // (this 3:1 case is its contention-bound one, within 1 %).
    reduced.flow_classes = false;
    const flow::FlowRun r = flow::run_flow(s, reduced), u = flow::run_flow(s, full);
    INFO(ratio << ":1 reduced " << r.steps[0].step_time.value() << " s (" << r.flows << " flows), full "
               << u.steps[0].step_time.value() << " s (" << u.flows << " flows)");
    CHECK(rel_diff(r.steps[0].step_time, u.steps[0].step_time) < 0.005);
    CHECK(r.flows <= u.flows);
    if (ratio == 0.0) CHECK(r.flows < u.flows);
  }
}

TEST_CASE(
    "a TPU v4 torus cube and the catalog dragonfly run on the flow engine link by link, reduced as unreduced",
    "[flow][topology]") {
  const nlohmann::json torus = nlohmann::json::parse(R"({
    "name": "tpu-v4-cube", "node": "tpu-v4-host", "nodes": 16,
    "network": {"topology": "torus", "dims": [4, 4, 4], "cube": 4, "wrap": true,
                "link": {"bandwidth": "46.9 GB/s", "latency": "3 us"}}})");
  for (const auto& [cluster, batch] :
       {std::pair{torus, 64}, std::pair{nlohmann::json("h100-dragonfly"), 512}}) {
    const Scenario s = flowtest::tiny_flow_experiment("topology-flow-test", cluster, {{"tp", 4}, {"pp", 2}},
                                                      {{"micro_batch", 1}, {"global_batch", batch}});
    const StepResult a = run_analytic(s);
    const flow::FlowRun f = flow::run_flow(s);
    INFO("analytic " << a.step_time.value() << " s, flow " << f.steps[0].step_time.value() << " s on "
                     << f.fabric);
    CHECK(f.fabric.rfind("topology: ", 0) == 0);
    CHECK(f.flows > 0);
    CHECK(f.steps[0].step_time.value() >= a.step_time.value() * 0.99);
    CHECK(rel_diff(f.steps[0].step_time, a.step_time) < 0.03);
    // The symmetry reduction on a torus and a dragonfly: within 0.5 % of simulating every replica.
    flow::FlowOptions full;
    full.symmetry_reduction = false;
    const flow::FlowRun u = flow::run_flow(s, full);
    INFO("unreduced " << u.steps[0].step_time.value() << " s (" << u.flows << " flows), reduced " << f.flows
                      << " flows");
    CHECK(rel_diff(f.steps[0].step_time, u.steps[0].step_time) < 0.005);
    CHECK(f.flows <= u.flows);
  }
}

TEST_CASE(
    "a named spine link at a quarter of its bandwidth slows an exposed gradient sync, an unknown name is "
    "refused",
    "[flow][topology][straggler]") {
  Scenario s = small_fat_tree(flowtest::narayanan_like(8), 1.0);
  s.training.overlap_grad_reduce = false;
  const flow::FlowRun base = flow::run_flow(s);
  std::string busiest_spine_link;
  for (const flow::LinkUse& l : base.busiest) {
    if (l.cls == flow::LinkClass::leaf_spine && busiest_spine_link.empty()) {
      busiest_spine_link = l.link.substr(0, l.link.rfind('/'));  // the report adds the direction
    }
  }
  REQUIRE_FALSE(busiest_spine_link.empty());
  flow::FlowOptions slow;
  slow.slow_links.push_back({busiest_spine_link, 0.25, "exp.json", "/stragglers/links/0"});
  const flow::FlowRun degraded = flow::run_flow(s, slow);
  INFO(busiest_spine_link << ": " << base.steps[0].step_time.value() << " s -> "
                          << degraded.steps[0].step_time.value() << " s");
  CHECK(degraded.steps[0].step_time.value() > base.steps[0].step_time.value() * 1.01);
  CHECK(degraded.steps[0].comm_exposed.dp > base.steps[0].comm_exposed.dp);

  flow::FlowOptions unknown;
  unknown.slow_links.push_back({"leaf0.up", 0.5, "exp.json", "/stragglers/links/0"});
  try {
    (void)flow::run_flow(s, unknown);
    FAIL("an unknown link name must be refused");
  } catch (const ConfigError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].file == "exp.json");
    CHECK(e.diagnostics()[0].pointer == "/stragglers/links/0");
    CHECK_THAT(e.diagnostics()[0].message, Catch::Contains("no link named \"leaf0.up\""));
  }
}
