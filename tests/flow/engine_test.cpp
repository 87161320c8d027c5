#include "tests/catch.hpp"

#include <algorithm>
#include <utility>

#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/flow/flow_engine.hpp"
#include "sim/scenario/work_bounds.hpp"
#include "tests/flow/flow_fixtures.hpp"

using namespace clustersim;
using flowtest::busiest;
using flowtest::rel_diff;

TEST_CASE(
    "on a non-blocking fat-tree the flow engine matches the analytic engine within 3 % (Narayanan-like)",
    "[flow]") {
  const Scenario s = flowtest::narayanan_like(8);
  const StepResult a = run_analytic(s);
  const flow::FlowRun f = flow::run_flow(s);
  INFO("analytic " << a.step_time.value() << " s, flow " << f.steps[0].step_time.value() << " s");
  CHECK(rel_diff(f.steps[0].step_time, a.step_time) < 0.03);
  CHECK(f.steps[0].engine == "flow");
  CHECK(f.steps[0].timeline.size() == a.timeline.size());
}

TEST_CASE(
    "on a non-blocking fat-tree the flow engine matches the analytic engine within 3 % (Korthikanti-like)",
    "[flow]") {
  const Scenario s = flowtest::korthikanti_like(8);
  const StepResult a = run_analytic(s);
  const flow::FlowRun f = flow::run_flow(s);
  INFO("analytic " << a.step_time.value() << " s, flow " << f.steps[0].step_time.value() << " s");
  CHECK(rel_diff(f.steps[0].step_time, a.step_time) < 0.03);
}

TEST_CASE("a 4:1 oversubscribed spine slows the step and the busiest uplink shows why", "[flow]") {
  flow::FlowOptions o;
  o.leaf_nodes = 2;
  Scenario s = flowtest::narayanan_like(8, 1.0);
  s.training.overlap_grad_reduce = false;  // gradient sync fully exposed: the spine is on the critical path
  const flow::FlowRun full = flow::run_flow(s, o);
  s.cluster.network.oversubscription = 4.0;
  const flow::FlowRun over = flow::run_flow(s, o);
  const double t_full = full.steps[0].step_time.value(), t_over = over.steps[0].step_time.value();
  INFO("non-blocking " << t_full << " s, 4:1 " << t_over << " s");
  CHECK(t_over > t_full * 1.01);
  // Explained by utilisation: the uplinks carry the same bytes in both runs, over a quarter of the capacity.
  CHECK(busiest(over, flow::LinkClass::leaf_uplink) > 2.0 * busiest(full, flow::LinkClass::leaf_uplink));
  // The extra time is gradient sync (DP) exposed on the critical stage.
  const double dp_delta = (over.steps[0].comm_exposed.dp - full.steps[0].comm_exposed.dp).value();
  CHECK(dp_delta > 0.5 * (t_over - t_full));
}

TEST_CASE("the symmetry reduction matches a full unreduced simulation within 0.5 % on 256 GPUs", "[flow]") {
  // One leaf group (pipeline flows stay under the leaf: only the representative's are sent), and 8
  // leaf groups on a 4:1 spine (every pipeline and gradient flow crosses shared uplinks).
  for (const auto& [over, leaf] : {std::pair{1.0, 32}, std::pair{4.0, 4}}) {
    flow::FlowOptions reduced;
    reduced.leaf_nodes = leaf;
    flow::FlowOptions full = reduced;
    full.symmetry_reduction = false;
    Scenario s = flowtest::scenario(flowtest::dgx_a100(32, over), flowtest::gpt(4, 4096, 32), 8, 2, 1, 64);
    s.training.overlap_grad_reduce = over > 1.0;
    const flow::FlowRun r = flow::run_flow(s, reduced);
    const flow::FlowRun u = flow::run_flow(s, full);
    INFO("oversubscription " << over << ": reduced " << r.steps[0].step_time.value() << " s (" << r.flows
                             << " flows), full " << u.steps[0].step_time.value() << " s (" << u.flows
                             << " flows)");
    CHECK(rel_diff(r.steps[0].step_time, u.steps[0].step_time) < 0.005);
    CHECK(r.flows <= u.flows);
    if (over == 1.0) CHECK(r.flows < u.flows);
  }
}

TEST_CASE("the flow engine is deterministic: same input, identical timeline and link figures", "[flow]") {
  const Scenario s = flowtest::narayanan_like(4, 2.0);
  flow::FlowOptions o;
  o.leaf_nodes = 2;
  const flow::FlowRun a = flow::run_flow(s, o), b = flow::run_flow(s, o);
  REQUIRE(a.steps[0].timeline.size() == b.steps[0].timeline.size());
  for (std::size_t i = 0; i < a.steps[0].timeline.size(); ++i) {
    CHECK(a.steps[0].timeline[i].start == b.steps[0].timeline[i].start);
    CHECK(a.steps[0].timeline[i].end == b.steps[0].timeline[i].end);
  }
  REQUIRE(a.busiest.size() == b.busiest.size());
  for (std::size_t i = 0; i < a.busiest.size(); ++i) {
    CHECK(a.busiest[i].link == b.busiest[i].link);
    CHECK(a.busiest[i].utilisation == b.busiest[i].utilisation);
  }
}

TEST_CASE("a device at 80 % speed slows the whole step through the synchronous dependencies", "[flow]") {
  const Scenario s = flowtest::narayanan_like(4);
  const flow::FlowRun base = flow::run_flow(s);
  flow::FlowOptions o;
  // Stage 1 (it carries the LM head and is the critical stage): rank 25 = tp 1 of replica 1 of stage 1.
  o.slow_devices = {{25, 0.8}};
  const flow::FlowRun slow = flow::run_flow(s, o);
  const double t0 = base.steps[0].step_time.value(), t1 = slow.steps[0].step_time.value();
  const auto& n0 = base.steps[0].timeline[0];
  const auto& n1 = slow.steps[0].timeline[0];
  INFO("nominal " << t0 << " s, with a device at 80 % " << t1 << " s; first op "
                  << (n0.end - n0.start).value() << " vs " << (n1.end - n1.start).value()
                  << " s; stage 0 compute " << base.steps[0].stages[0].compute.value());
  CHECK(t1 > t0 * 1.05);
  CHECK(t1 < t0 / 0.8 * 1.01);
}

TEST_CASE("a NIC at half bandwidth slows a step whose gradient sync is exposed", "[flow]") {
  Scenario s = flowtest::narayanan_like(4);
  s.training.overlap_grad_reduce = false;
  const flow::FlowRun base = flow::run_flow(s);
  flow::FlowOptions o;
  o.slow_links = {{"n0.nic0", 0.5, "", ""}};
  const flow::FlowRun slow = flow::run_flow(s, o);
  CHECK(slow.steps[0].step_time > base.steps[0].step_time);
  flow::FlowOptions bad;
  bad.slow_links = {{"n0.nic99", 0.5, "", ""}};
  CHECK_THROWS_AS(flow::run_flow(s, bad), ConfigError);
}

TEST_CASE("with one NIC per communicator the flow engine runs the same limited collectives as the analytic one",
          "[flow]") {
  // TP 4 on nodes of 8 GPUs and 4 NICs: each data-parallel group has two ranks per node on two NICs, so
  // nics_per_communicator 1 funnels its gradient sync through one of them (sim/collectives/
  // hierarchical_phases.cpp, ring_phases.cpp). The gradient sync is exposed.
  Scenario s = flowtest::scenario(flowtest::dgx_a100(4, 1.0), flowtest::gpt(8, 4096, 32), 4, 1, 1, 32);
  s.cluster.node.nics = 4;
  s.training.overlap_grad_reduce = false;
  const StepResult spread = run_analytic(s);
  s.cluster.node.nics_per_communicator = 1;
  const StepResult a = run_analytic(s);
  const flow::FlowRun f = flow::run_flow(s);
  INFO("analytic " << a.step_time.value() << " s, flow " << f.steps[0].step_time.value() << " s");
  CHECK(a.comm_exposed.dp > spread.comm_exposed.dp);
  CHECK(rel_diff(f.steps[0].step_time, a.step_time) < 0.03);
}

TEST_CASE("nics_per_communicator at the node's NIC count limits nothing and keeps the two-level flow fabric",
          "[flow]") {
  Scenario s = flowtest::scenario(flowtest::dgx_a100(4, 1.0), flowtest::gpt(8, 4096, 32), 4, 1, 1, 32);
  s.cluster.node.nics = 4;
  s.training.overlap_grad_reduce = false;
  flow::FlowOptions o;
  o.leaf_nodes = 2;
  const flow::FlowRun plain = flow::run_flow(s, o);
  s.cluster.node.nics_per_communicator = 4;
  const flow::FlowRun same = flow::run_flow(s, o);
  CHECK(same.steps[0].step_time.value() == plain.steps[0].step_time.value());
  REQUIRE(same.busiest.size() == plain.busiest.size());
  for (std::size_t i = 0; i < same.busiest.size(); ++i) CHECK(same.busiest[i].link == plain.busiest[i].link);
}

TEST_CASE("the work bounds predict the flow engine's fabric mode for a node with nics_per_communicator",
          "[flow]") {
  // run --estimate and the bounds (sim/scenario/work_bounds.cpp) choose the device bound by whether the flow
  // engine will run flow classes, which it does only on a topology-mode fabric. A node whose communicators use
  // fewer NICs than it has runs in topology mode (FabricLayout::of); the estimate used to say two-level.
  Scenario s = flowtest::scenario(flowtest::dgx_a100(4, 1.0), flowtest::gpt(8, 4096, 32), 4, 1, 1, 32);
  s.cluster.node.nics = 4;
  s.flow.flow_classes = true;
  s.flow.symmetry_reduction = true;
  for (int key : {0, 1, 2, 4}) {
    s.cluster.node.nics_per_communicator = key;
    const bool topology = flow::run_flow(s).fabric.rfind("topology", 0) == 0;
    INFO("nics_per_communicator " << key);
    CHECK(topology == (key == 1 || key == 2));
    CHECK(estimate_work(s, true).flow_classes == topology);
  }
}
