// Adaptive routing on a fat-tree (/cluster/network/routing "adaptive"): every flow is spread evenly over
// its equal-cost up-paths, in the analytic engine's link loads (bytes / paths on each path) and in the
// flow engine (one bundle link per leaf and per pod, fabric_layout.hpp). On a 1:1 fat-tree the two
// engines then agree on an all-to-all-bound MoE step; on a 4:1 oversubscribed spine the flow engine's
// slow-down is what the contention report's busiest leaf-spine figures explain.
#include "tests/catch.hpp"

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/experiment_loader.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/flow/contention_report.hpp"
#include "sim/engine/flow/flow_engine.hpp"
#include "tests/flow/flow_fixtures.hpp"

using namespace clustersim;
using flowtest::rel_diff;

namespace {

const config::CatalogPaths& paths() {
  static const config::CatalogPaths p{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}};
  return p;
}

// Qwen3-30B-A3B (128 experts, top-8) on 4 DGX H100, EP16 over two nodes, no overlap (as moe_flow_test),
// on an explicit 2-tier fat-tree without rails, one 8-NIC node per leaf (radix 16 at 1:1, 10 at 4:1), so
// every inter-node flow crosses the spines.
Scenario a2a_bound(double oversubscription, const std::string& routing) {
  const int radix = 8 + static_cast<int>(8 / oversubscription);
  const nlohmann::json doc = {
      {"schema_version", 1},
      {"name", "adaptive-routing-test"},
      {"cluster",
       {{"name", "four-dgx"},
        {"node", "dgx-h100"},
        {"nodes", 4},
        {"network",
         {{"topology", "fat-tree"},
          {"tiers", 2},
          {"radix", radix},
          {"rail_optimized", false},
          {"oversubscription", oversubscription},
          {"routing", routing}}}}},
      {"model", "qwen3-30b-a3b"},
      {"parallelism", {{"tp", 1}, {"pp", 1}, {"ep", 16}, {"zero_stage", 1}, {"moe_overlap", "none"}}},
      {"training", {{"micro_batch", 1}, {"global_batch", 32}, {"seq_len", 4096}, {"precision", "bf16"}}}};
  return config::scenario_from_json(doc, paths(), "adaptive-routing-test.json");
}

// Busy time (s) of the busiest leaf-spine link in the report: bytes / bandwidth = utilisation x simulated time.
double busiest_leaf_spine_busy(const flow::FlowRun& r) {
  double busy = 0;
  for (const flow::LinkUse& l : r.busiest) {
    if (l.cls == flow::LinkClass::leaf_spine) busy = std::max(busy, l.utilisation * r.simulated_time);
  }
  return busy;
}

}  // namespace

TEST_CASE("with adaptive routing the flow engine and the analytic engine agree within 5 % on an "
          "all-to-all-bound MoE step on a 1:1 fat-tree",
          "[flow][moe][topology][routing]") {
  const Scenario ar = a2a_bound(1.0, "adaptive"), ecmp = a2a_bound(1.0, "ecmp");
  REQUIRE(ar.cluster.comm.topology.has_value());
  CHECK(ar.cluster.comm.topology->fat_tree.adaptive_routing);
  CHECK_FALSE(ecmp.cluster.comm.topology->fat_tree.adaptive_routing);
  const StepResult a = run_analytic(ar), a_ecmp = run_analytic(ecmp);
  const flow::FlowRun f = flow::run_flow(ar), f_ecmp = flow::run_flow(ecmp);
  INFO("adaptive: analytic " << a.step_time.value() << " s, flow " << f.steps[0].step_time.value()
                             << " s; EP exposed " << a.comm_exposed.ep.value() << " s vs "
                             << f.steps[0].comm_exposed.ep.value() << " s");
  INFO("ecmp: analytic " << a_ecmp.step_time.value() << " s, flow " << f_ecmp.steps[0].step_time.value()
                         << " s; EP exposed " << a_ecmp.comm_exposed.ep.value() << " s vs "
                         << f_ecmp.steps[0].comm_exposed.ep.value() << " s");
  INFO(flow::contention_text(f, a));
  REQUIRE(a.comm_exposed.ep.value() > 0.0);
  CHECK(rel_diff(f.steps[0].step_time, a.step_time) < 0.05);
  CHECK(rel_diff(f.steps[0].comm_exposed.ep, a.comm_exposed.ep) < 0.10);
  // The routing mode reaches both engines (and the collective cache key): ECMP's hash collisions on the
  // leaf-spine links cost this case time in both (0.86 s analytic, 1.29 s flow when measured).
  CHECK(a_ecmp.step_time.value() > a.step_time.value() * 1.05);
  CHECK(f_ecmp.steps[0].step_time.value() > f.steps[0].step_time.value() * 1.05);
  // Spreading never makes a link busier than its hashed route did: neither engine gets slower.
  CHECK(a.step_time.value() <= a_ecmp.step_time.value() * (1 + 1e-9));
  CHECK(f.steps[0].step_time.value() <= f_ecmp.steps[0].step_time.value() * 1.01);
  // The flow engine's routes cross the leaves' bundles.
  bool bundle = false;
  for (const flow::LinkUse& l : f.busiest) bundle = bundle || l.link.find(".up/") != std::string::npos;
  CHECK(bundle);
}

TEST_CASE("with adaptive routing a 4:1 oversubscribed spine slows the all-to-all-bound MoE step by what the "
          "contention report's busiest leaf-spine link explains",
          "[flow][moe][topology][routing]") {
  const Scenario full = a2a_bound(1.0, "adaptive"), over = a2a_bound(4.0, "adaptive");
  const flow::FlowRun ff = flow::run_flow(full), fo = flow::run_flow(over);
  const double t_full = ff.steps[0].step_time.value(), t_over = fo.steps[0].step_time.value();
  // Expected: the 1:1 step plus the extra busy time of the busiest leaf-spine link (its bytes over its
  // bandwidth, from the report), since the all-to-alls are exposed and bound by that link at 4:1.
  const double busy_full = busiest_leaf_spine_busy(ff), busy_over = busiest_leaf_spine_busy(fo);
  const double expected = (t_full + (busy_over - busy_full)) / t_full, measured = t_over / t_full;
  const nlohmann::json rep = flow::contention_json(fo, ff.steps[0]);
  INFO("1:1 " << t_full << " s, 4:1 " << t_over << " s; busiest leaf-spine busy " << busy_full << " s -> "
              << busy_over << " s; factor measured " << measured << ", expected " << expected);
  INFO(rep.dump(1));
  REQUIRE(busy_full > 0.0);
  CHECK(measured > 1.05);
  CHECK(std::abs(measured - expected) / expected < 0.05);
  // The report puts the difference on expert parallelism.
  CHECK(rep["exposed_difference_s"]["ep"].get<double>() > 0.8 * (t_over - t_full));
}
