// MoE dispatch/combine all-to-alls replayed as flows (flow_replay.cpp, job_traffic.hpp MoeExchange): on a
// contention-free fabric the flow engine reproduces the analytic step; on an oversubscribed spine an
// all-to-all-bound step slows down and the contention report attributes it to expert parallelism.
#include "tests/catch.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "sim/config/experiment_loader.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/flow/contention_report.hpp"
#include "sim/engine/flow/flow_engine.hpp"
#include "tests/flow/flow_fixtures.hpp"
#include "topologies/derived_topology.hpp"

using namespace clustersim;
using flowtest::busiest;
using flowtest::rel_diff;

namespace {

const config::CatalogPaths& paths() {
  static const config::CatalogPaths p{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}};
  return p;
}

// Qwen3-30B-A3B (128 experts, top-8) on 4 DGX H100: EP16 spans two nodes, no overlap, one micro-batch
// per rank, so the step is dominated by the dispatch/combine all-to-alls between nodes.
Scenario a2a_bound(double oversubscription) {
  const nlohmann::json doc = {
      {"schema_version", 1},
      {"name", "moe-flow-test"},
      {"cluster", {{"name", "four-dgx"}, {"node", "dgx-h100"}, {"nodes", 4}}},
      {"model", "qwen3-30b-a3b"},
      {"parallelism", {{"tp", 1}, {"pp", 1}, {"ep", 16}, {"zero_stage", 1}, {"moe_overlap", "none"}}},
      {"training", {{"micro_batch", 1}, {"global_batch", 32}, {"seq_len", 4096}, {"precision", "bf16"}}}};
  Scenario s = config::scenario_from_json(doc, paths(), "moe-flow-test.json");
  // A 2-tier fat-tree without rails with one 8-NIC node per leaf (8 down-ports: radix 16 at 1:1, 10 at
  // 4:1), so every inter-node flow crosses the spines, the leaf up-links oversubscribed `oversubscription`:1.
  ClusterTopologySpec t = derived_topology(s.cluster);
  t.fat_tree.tiers = 2;
  t.fat_tree.radix = 8 + static_cast<int>(8 / oversubscription);
  t.fat_tree.rail_optimized = false;
  t.fat_tree.oversubscription = {oversubscription};
  s.cluster.comm.topology = t;
  return s;
}

}  // namespace

TEST_CASE("Mixtral 8x7B with its all-to-alls as flows agrees with the analytic engine within 5 %",
          "[flow][moe]") {
  const Scenario s = config::load_scenario(paths(), (std::filesystem::path(CLUSTERSIM_SOURCE_DIR) /
                                                     "configs/experiments/mixtral-8x7b-h100-64.json")
                                                        .string());
  const StepResult a = run_analytic(s);
  const flow::FlowRun f = flow::run_flow(s);
  INFO("analytic " << a.step_time.value() << " s, flow " << f.steps[0].step_time.value() << " s; EP exposed "
                   << a.comm_exposed.ep.value() << " s vs " << f.steps[0].comm_exposed.ep.value() << " s");
  REQUIRE(a.comm_exposed.ep.value() > 0.0);
  CHECK(rel_diff(f.steps[0].step_time, a.step_time) < 0.05);
  // The all-to-alls ran on NVLink (EP8 inside a DGX): that is the busiest link class.
  CHECK(busiest(f, flow::LinkClass::nvlink) > 0.0);
  CHECK(rel_diff(f.steps[0].comm_exposed.ep, a.comm_exposed.ep) < 0.10);
  // Overlapped all-to-alls: flows under the kernels (all of them, or the shared experts' window).
  for (const MoeOverlap o : {MoeOverlap::shared_expert, MoeOverlap::compute}) {
    Scenario so = s;
    so.parallelism.moe_overlap = o;
    const StepResult ao = run_analytic(so);
    const flow::FlowRun fo = flow::run_flow(so);
    INFO("overlap " << static_cast<int>(o) << ": analytic " << ao.step_time.value() << " s, flow "
                    << fo.steps[0].step_time.value() << " s");
    CHECK(rel_diff(fo.steps[0].step_time, ao.step_time) < 0.05);
  }
}

TEST_CASE(
    "an all-to-all-bound MoE step slows on a 4:1 oversubscribed spine in the flow engine, and the contention "
    "report puts the difference on expert parallelism",
    "[flow][moe][topology]") {
  const Scenario full = a2a_bound(1.0), over = a2a_bound(4.0);
  const flow::FlowRun ff = flow::run_flow(full), fo = flow::run_flow(over);
  const double t_full = ff.steps[0].step_time.value(), t_over = fo.steps[0].step_time.value();
  const StepResult a_over = run_analytic(over);
  INFO("1:1 " << t_full << " s, 4:1 " << t_over << " s; EP exposed " << ff.steps[0].comm_exposed.ep.value()
              << " s vs " << fo.steps[0].comm_exposed.ep.value() << " s; analytic 4:1 "
              << a_over.step_time.value() << " s");
  INFO(flow::contention_text(ff, run_analytic(full)));
  REQUIRE(ff.steps[0].comm_exposed.ep.value() > 0.0);
  CHECK(t_over > t_full * 1.05);
  CHECK(busiest(fo, flow::LinkClass::leaf_spine) > busiest(ff, flow::LinkClass::leaf_spine));
  // The extra time is exposed expert-parallel communication.
  const double ep_delta = (fo.steps[0].comm_exposed.ep - ff.steps[0].comm_exposed.ep).value();
  CHECK(ep_delta > 0.8 * (t_over - t_full));
  // The report against the 1:1 step names it.
  const nlohmann::json rep = flow::contention_json(fo, ff.steps[0]);
  CHECK(rep["exposed_difference_s"]["ep"].get<double>() > 0.8 * (t_over - t_full));
  CHECK(rep["explanation"].get<std::string>().find("EP +") != std::string::npos);
}

TEST_CASE("MoE all-to-all flows: the symmetry reduction matches simulating every replica within 1 %",
          "[flow][moe][topology]") {
  for (const double ratio : {1.0, 4.0}) {
    const Scenario s = a2a_bound(ratio);
    flow::FlowOptions every;
    every.symmetry_reduction = false;
    const flow::FlowRun r = flow::run_flow(s), u = flow::run_flow(s, every);
    const StepResult a = run_analytic(s);
    INFO(ratio << ":1 reduced " << r.steps[0].step_time.value() << " s (" << r.flows
               << " flows), every replica " << u.steps[0].step_time.value() << " s (" << u.flows
               << " flows), analytic " << a.step_time.value() << " s");
    CHECK(rel_diff(r.steps[0].step_time, u.steps[0].step_time) < 0.01);
    CHECK(r.flows <= u.flows);
  }
}
