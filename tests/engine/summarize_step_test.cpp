// summarize_step() walks each stage's compute stream once (its sums and the pipeline end together) and
// skips the cp/dp/ep/pp additions when every cost has none; run_analytic() takes the pipeline ops'
// waits and latest end from the evaluation's plan walk instead of walking their times again. These tests hold it to a plain reference
// (the walk as it was written before: the step's pipeline end over all nodes first, then every stage's
// sums with every field added), bit for bit, on graphs that take either path and on timelines that are
// not the analytic engine's (the flow engine summarizes its own).
#include "tests/catch.hpp"

#include <bit>
#include <cstdint>
#include <vector>

#include "fixtures.hpp"
#include "sim/config/catalog_entries.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/graph/step_graph.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

bool pipeline_kind(NodeKind k) { return k != NodeKind::dp_sync && k != NodeKind::optimizer; }

// The reference: every field of every compute-stream node added, in stream order.
std::vector<StageSummary> reference_stages(const StepGraph& g, const std::vector<NodeTiming>& t, int p) {
  Seconds t_pipe(0);
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    if (pipeline_kind(g.nodes[id].kind)) t_pipe = max(t_pipe, t[id].end);
  }
  std::vector<StageSummary> out(static_cast<std::size_t>(p));
  for (int st = 0; st < p; ++st) {
    StageSummary& sum = out[static_cast<std::size_t>(st)];
    Seconds prev_end(0);
    for (int id : g.order[static_cast<std::size_t>(st)][0]) {
      const StepNode& node = g.nodes[static_cast<std::size_t>(id)];
      const NodeTiming& nt = t[static_cast<std::size_t>(id)];
      if (node.kind == NodeKind::optimizer) {
        sum.optimizer = node.duration;
        sum.dp_exposed += max(Seconds(0), nt.start - max(sum.pipeline_end, t_pipe));
        sum.end = nt.end;
        continue;
      }
      const OpCost& c = g.costs[static_cast<std::size_t>(node.cost)];
      sum.compute += c.compute;
      sum.overlap_slowdown += c.overlap_slowdown;
      sum.recompute += c.recompute;
      sum.compute_bound += c.compute_bound;
      sum.tp_exposed += c.tp_comm;
      sum.cp_exposed += c.cp_comm;
      sum.dp_exposed += c.dp_comm;
      sum.ep_exposed += c.ep_comm;
      sum.pp_exposed += c.pp_comm;
      const Seconds gap = nt.start - prev_end;
      if (gap.value() > 0) {
        const Seconds pp_part = min(gap, node.dep_delay);
        sum.pp_exposed += pp_part;
        sum.bubble += gap - pp_part;
      }
      prev_end = nt.end;
      sum.pipeline_end = nt.end;
    }
    sum.bubble += max(Seconds(0), t_pipe - sum.pipeline_end);
  }
  return out;
}

std::uint64_t bits(Seconds x) { return std::bit_cast<std::uint64_t>(x.value()); }

void require_same_stages(const StepResult& r, const StepGraph& g, const std::vector<NodeTiming>& t, int p) {
  const std::vector<StageSummary> ref = reference_stages(g, t, p);
  REQUIRE(r.stages.size() == ref.size());
  for (std::size_t st = 0; st < ref.size(); ++st) {
    INFO("stage " << st);
    const StageSummary& a = r.stages[st];
    const StageSummary& b = ref[st];
    CHECK(bits(a.compute) == bits(b.compute));
    CHECK(bits(a.recompute) == bits(b.recompute));
    CHECK(bits(a.compute_bound) == bits(b.compute_bound));
    CHECK(bits(a.overlap_slowdown) == bits(b.overlap_slowdown));
    CHECK(bits(a.tp_exposed) == bits(b.tp_exposed));
    CHECK(bits(a.cp_exposed) == bits(b.cp_exposed));
    CHECK(bits(a.ep_exposed) == bits(b.ep_exposed));
    CHECK(bits(a.pp_exposed) == bits(b.pp_exposed));
    CHECK(bits(a.dp_exposed) == bits(b.dp_exposed));
    CHECK(bits(a.optimizer) == bits(b.optimizer));
    CHECK(bits(a.bubble) == bits(b.bubble));
    CHECK(bits(a.pipeline_end) == bits(b.pipeline_end));
    CHECK(bits(a.end) == bits(b.end));
  }
}

// The analytic timeline, and the same with every node's times stretched by a factor in [1, 1.5) that
// varies from node to node (a flow engine's contention: ends out of stream order, gaps everywhere).
void require_same_stages(const Scenario& s, const StepGraph& g, const std::vector<NodeTiming>& t) {
  require_same_stages(summarize_step(s, g, t, "test"), g, t, s.parallelism.pp);
}

void check(const Scenario& s) {
  // run_analytic: from the second build of a schedule its graph has the evaluation plan, and the plan
  // walk adds up the pipeline ops' waits for the summary (the third run takes that path for sure).
  for (int i = 0; i < 3; ++i) {
    const StepResult r = run_analytic(s);
    REQUIRE(r.graph);
    require_same_stages(r, *r.graph, r.timeline, s.parallelism.pp);
  }
  const StepGraph g = build_step_graph(s);
  REQUIRE(g.pipeline_order);
  const std::vector<NodeTiming> t = evaluate_timeline(g);
  require_same_stages(s, g, t);
  std::vector<NodeTiming> jittered = t;
  std::uint32_t x = 12345;
  for (NodeTiming& nt : jittered) {
    x = x * 1664525u + 1013904223u;
    const double f = 1.0 + (x >> 8) / 33554432.0;  // [1, 1.5)
    nt.start = nt.start * f;
    nt.end = nt.end * (f + 0.01);
  }
  require_same_stages(s, g, jittered);
}

Scenario gpt3_interleaved() {
  Scenario s = scenario(dgx_a100_cluster(16), gpt(24, 4096, 32), 4, 4, 1, 256);
  s.parallelism.vp = 2;
  s.parallelism.schedule = ScheduleKind::interleaved_1f1b;
  s.parallelism.sequence_parallel = true;
  s.training.recompute = Recompute::selective;
  return s;
}

}  // namespace

TEST_CASE("summarize_step's one walk per stage equals the reference sums bit for bit", "[summarize]") {
  SECTION("dense, tensor parallelism only (the cp/dp/ep/pp additions skipped)") { check(gpt3_interleaved()); }
  SECTION("ZeRO-3: per-op parameter gathers (dp time in the ops' costs)") {
    Scenario s = gpt3_interleaved();
    s.parallelism.zero_stage = 3;
    check(s);
  }
  SECTION("DeepSpeed's blocking pipeline transfers (pp time in the ops' costs)") {
    Scenario s = gpt3_interleaved();
    s.parallelism.pipeline_p2p_blocking = true;
    check(s);
  }
  SECTION("context parallelism (cp time in the ops' costs)") {
    Scenario s = gpt3_interleaved();
    s.parallelism.tp = 2;
    s.parallelism.cp = 2;
    s.training.seq_len = 4096;
    check(s);
  }
  SECTION("mixture of experts (ep time in the ops' costs)") { check(mixtral_64_h100(256)); }
}
