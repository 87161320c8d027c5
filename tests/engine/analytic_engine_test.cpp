#include "tests/catch.hpp"

#include "fixtures.hpp"
#include "models/transformer_cost.hpp"
#include "sim/collectives/topology_collectives.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/graph/step_graph.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {
Scenario gpt3_on_64() {
  Scenario s = scenario(dgx_a100_cluster(8), gpt(96, 12288, 96), 8, 8, 1, 64);
  s.parallelism.vp = 3;
  s.parallelism.schedule = ScheduleKind::interleaved_1f1b;
  s.parallelism.sequence_parallel = true;
  s.training.recompute = Recompute::selective;
  s.training.flash_attention = false;
  return s;
}
}  // namespace

TEST_CASE("the same scenario gives bit-identical results") {
  const StepResult a = run_analytic(gpt3_on_64());
  const StepResult b = run_analytic(gpt3_on_64());
  CHECK(a.step_time.value() == b.step_time.value());
  CHECK(a.mfu == b.mfu);
  CHECK(a.memory.total().value() == b.memory.total().value());
}

TEST_CASE("model FLOPs follow Korthikanti Eq. 7: 72·B·s·l·h²·(1 + s/6h + V/12lh)") {
  const TransformerSpec m = gpt(96, 12288, 96);
  const double B = 64, s = 2048, l = 96, h = 12288, V = 51200;
  const double eq7 = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  CHECK(model_flops_per_step(m, 2048, 64).value() == Approx(eq7).epsilon(1e-12));
}

TEST_CASE("the graph's model FLOPs summed over ranks equal the closed form") {
  const Scenario s = gpt3_on_64();
  const StepGraph g = build_step_graph(s);
  const double per_job = g.model_flops_per_replica.value() * s.parallelism.tp * s.parallelism.dp;
  CHECK(per_job == Approx(model_flops_per_step(s.model, 2048, 64).value()).epsilon(1e-9));
}

TEST_CASE("GPT-3 has 174.6 B parameters (Narayanan et al. Table 1 convention)") {
  const TransformerSpec m = gpt(96, 12288, 96);
  CHECK(parameter_count(m).total() / 1e9 == Approx(174.6).epsilon(0.002));
}

TEST_CASE("doubling every link bandwidth never slows a step") {
  Scenario s = gpt3_on_64();
  const double base = run_analytic(s).step_time.value();
  s.cluster.node.intra.bandwidth *= 2.0;
  s.cluster.node.nic.bandwidth *= 2.0;
  CHECK(run_analytic(s).step_time.value() <= base);
}

TEST_CASE("selective recomputation is faster than full and HFU exceeds MFU only with recomputation") {
  Scenario s = gpt3_on_64();
  const StepResult sel = run_analytic(s);
  s.training.recompute = Recompute::full;
  s.parallelism.sequence_parallel = false;
  const StepResult full = run_analytic(s);
  CHECK(sel.step_time < full.step_time);
  CHECK(full.hfu > full.mfu);
  s.training.recompute = Recompute::none;
  const StepResult none = run_analytic(s);
  CHECK(none.hfu == Approx(none.mfu));
}

TEST_CASE("the step time is the latest stage end and covers all compute") {
  const StepResult r = run_analytic(gpt3_on_64());
  for (const StageSummary& st : r.stages) {
    CHECK(st.end <= r.step_time);
    CHECK(st.compute + st.tp_exposed + st.optimizer <= r.step_time);
  }
}

TEST_CASE("data-parallel gradient sync is hidden by bucket overlap but exposed without it") {
  Scenario s = scenario(dgx_a100_cluster(16), gpt(24, 2304, 24), 1, 1, 4, 512);
  s.training.overlap_grad_reduce = true;
  const StepResult overlapped = run_analytic(s);
  s.training.overlap_grad_reduce = false;
  const StepResult exposed = run_analytic(s);
  CHECK(exposed.comm_exposed.dp > overlapped.comm_exposed.dp);
  CHECK(exposed.step_time > overlapped.step_time);
}

TEST_CASE(
    "a flat data-parallel ring moves the whole buffer through one NIC per hop, hierarchical 1/k of it") {
  // 64 ranks on 8 DGX nodes (the derived rail-optimized fat-tree, 8 nodes under each rail leaf).
  // Flat ring: one ring, every node-to-node hop carries 63/64 of S through one rank's NIC on its
  // own rail, 63 α steps. Hierarchical: the NIC rings carry (n-1)/n of S/k, k = 8 times less.
  const ClusterSpec c = dgx_a100_cluster(8);
  const auto topo = TopologyCollectives::of(c);
  const ConcurrentGroups g{.size = 64, .stride = 1, .first = 0, .count = 1, .group_stride = 1};
  const Bytes s(1e9);
  const double nic = c.node.nic.bandwidth.value() * c.node.nic.efficiency;
  const double t_flat =
      topo->time(CollectiveOp::all_gather, s, g, {CollectiveAlgorithm::ring, RingOrder::flat}).value();
  const double t_hier =
      topo->time(CollectiveOp::all_gather, s, g, {CollectiveAlgorithm::hierarchical}).value();
  CHECK(t_flat == Approx(63.0 / 64.0 * 1e9 / nic + 63.0 * c.node.nic.latency.value()).epsilon(1e-9));
  // Hierarchical: 7/8 S over NVSwitch plus 7/8 · S/8 per NIC.
  CHECK(t_flat > 4.0 * t_hier);
  // A group inside one node has one ring whatever the order.
  const ConcurrentGroups node{.size = 8, .stride = 1, .first = 0, .count = 1, .group_stride = 1};
  CHECK(topo->time(CollectiveOp::all_gather, s, node, {CollectiveAlgorithm::ring, RingOrder::flat}) ==
        topo->time(CollectiveOp::all_gather, s, node, {CollectiveAlgorithm::ring}));
}

TEST_CASE("ZeRO-3 with a flat DP ring is slower than hierarchical, and full recompute gathers the weights again") {
  Scenario s = scenario(dgx_a100_cluster(16), gpt(24, 4096, 32), 1, 1, 1, 128);
  s.parallelism.zero_stage = 3;
  s.training.recompute = Recompute::none;
  const StepResult hier = run_analytic(s);
  s.parallelism.dp_flat_ring = true;
  const StepResult flat = run_analytic(s);
  CHECK(flat.comm_exposed.dp > hier.comm_exposed.dp);
  CHECK(flat.step_time > hier.step_time);
  // Recompute adds a forward's compute and one more parameter gather per layer; the gather is
  // bandwidth-bound here, so the exposed DP time grows too.
  s.training.recompute = Recompute::full;
  const StepResult flat_recompute = run_analytic(s);
  CHECK(flat_recompute.comm_exposed.dp > flat.comm_exposed.dp);
}
