// The step graph's schedule skeleton (kinds, order, dependencies of the pipeline ops) is cached per thread
// and shared by scenarios with the same schedule; only durations and delays come from each scenario. These
// tests build graphs with the cache warmed by another scenario and compare them field by field, and their
// timelines bit by bit, with graphs built with the cache off; and they check that the precomputed
// evaluation order gives the general walk's timeline, also for a graph changed after it was built.
#include "tests/catch.hpp"

#include <utility>
#include <vector>

#include "fixtures.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/graph/step_graph.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

Scenario base(ScheduleKind kind, int vp = 1) {
  Scenario s = scenario(dgx_a100_cluster(8), gpt(24, 4096, 32), 8, 4, 1, 32);
  s.parallelism.schedule = kind;
  s.parallelism.vp = vp;
  s.training.overlap_grad_reduce = true;
  return s;
}

void require_same_graph(const StepGraph& a, const StepGraph& b) {
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    INFO("node " << i);
    const StepNode& x = a.nodes[i];
    const StepNode& y = b.nodes[i];
    REQUIRE(x.kind == y.kind);
    REQUIRE(x.resource == y.resource);
    REQUIRE(x.stage == y.stage);
    REQUIRE(x.microbatch == y.microbatch);
    REQUIRE(x.chunk == y.chunk);
    REQUIRE(x.dep == y.dep);
    REQUIRE(x.cost == y.cost);
    REQUIRE(x.starts_with_dep == y.starts_with_dep);
    REQUIRE(x.duration.value() == y.duration.value());
    REQUIRE(x.dep_delay.value() == y.dep_delay.value());
    REQUIRE(x.tail.value() == y.tail.value());
  }
  REQUIRE(a.order == b.order);
  REQUIRE(a.costs.size() == b.costs.size());
  for (std::size_t k = 0; k < a.costs.size(); ++k) REQUIRE(a.costs[k].duration().value() == b.costs[k].duration().value());
  const std::vector<NodeTiming> ta = evaluate_timeline(a);
  const std::vector<NodeTiming> tb = evaluate_timeline(b);
  for (std::size_t i = 0; i < ta.size(); ++i) {
    REQUIRE(ta[i].start.value() == tb[i].start.value());
    REQUIRE(ta[i].end.value() == tb[i].end.value());
  }
}

// Builds `after` from a kept skeleton (the cache holding `before`'s and `after`'s schedules, each seen
// twice), once with the cache off, and compares.
void check_cached_equals_fresh(const Scenario& before, const Scenario& after) {
  set_schedule_skeleton_cache(true);
  (void)build_step_graph(before);
  (void)build_step_graph(before);
  (void)build_step_graph(after);
  const StepGraph warm = build_step_graph(after);
  REQUIRE(warm.pipeline_order);  // built from the kept skeleton
  set_schedule_skeleton_cache(false);
  const StepGraph cold = build_step_graph(after);
  set_schedule_skeleton_cache(true);
  require_same_graph(warm, cold);
}

}  // namespace

TEST_CASE("a graph built from a cached schedule skeleton equals one built from scratch") {
  for (const auto& [kind, vp] : std::vector<std::pair<ScheduleKind, int>>{{ScheduleKind::one_f_one_b, 1},
                                                                         {ScheduleKind::gpipe, 1},
                                                                         {ScheduleKind::interleaved_1f1b, 2},
                                                                         {ScheduleKind::zero_bubble_h1, 1}}) {
    INFO("schedule " << to_string(kind));
    const Scenario a = base(kind, vp);
    SECTION("same shape: slower NICs change durations, not the graph's structure") {
      Scenario b = a;
      b.cluster.node.nic.bandwidth = b.cluster.node.nic.bandwidth * 0.25;
      check_cached_equals_fresh(a, b);
      // And the change reached the graph: some duration differs from the first scenario's.
      set_schedule_skeleton_cache(true);
      const StepGraph ga = build_step_graph(a);
      const StepGraph gb = build_step_graph(b);
      bool differs = false;
      for (std::size_t i = 0; i < ga.nodes.size() && i < gb.nodes.size(); ++i) {
        differs = differs || ga.nodes[i].duration.value() != gb.nodes[i].duration.value() ||
                  ga.nodes[i].dep_delay.value() != gb.nodes[i].dep_delay.value();
      }
      CHECK(differs);
    }
    SECTION("other shape: twice the micro-batch halves the micro-batches per step") {
      Scenario b = a;
      b.training.micro_batch = 2;
      check_cached_equals_fresh(a, b);
    }
    SECTION("other shape: a different schedule with the same stages, micro-batches and chunks") {
      Scenario b = a;
      b.parallelism.schedule = kind == ScheduleKind::gpipe ? ScheduleKind::one_f_one_b : ScheduleKind::gpipe;
      b.parallelism.vp = 1;
      check_cached_equals_fresh(a, b);
    }
  }
}

TEST_CASE("the precomputed evaluation order gives the general walk's timeline, also on a changed graph") {
  set_schedule_skeleton_cache(true);
  (void)build_step_graph(base(ScheduleKind::interleaved_1f1b, 2));  // seen once: no kept skeleton yet
  const StepGraph g = build_step_graph(base(ScheduleKind::interleaved_1f1b, 2));
  REQUIRE(g.pipeline_order);
  StepGraph general = g;
  general.pipeline_order.reset();
  const std::vector<NodeTiming> fast = evaluate_timeline(g);
  const std::vector<NodeTiming> walked = evaluate_timeline(general);
  REQUIRE(fast.size() == walked.size());
  for (std::size_t i = 0; i < fast.size(); ++i) {
    REQUIRE(fast[i].start.value() == walked[i].start.value());
    REQUIRE(fast[i].end.value() == walked[i].end.value());
  }
  // Stage 0's first two ops swapped in its stream after the build (the order is now stale): the
  // evaluation must notice and give what the general walk gives for the changed graph.
  StepGraph changed = g;
  std::swap(changed.order[0][0][0], changed.order[0][0][1]);
  StepGraph changed_general = changed;
  changed_general.pipeline_order.reset();
  const std::vector<NodeTiming> a = evaluate_timeline(changed);
  const std::vector<NodeTiming> b = evaluate_timeline(changed_general);
  bool moved = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].start.value() == b[i].start.value());
    REQUIRE(a[i].end.value() == b[i].end.value());
    moved = moved || a[i].start.value() != fast[i].start.value();
  }
  CHECK(moved);
  // A dependency dropped after the build (a stage-1 op no longer waits for stage 0), the stream orders
  // untouched: the plan's dependency no longer matches, and the general walk's times must come out.
  StepGraph undepended = g;
  for (StepNode& node : undepended.nodes) {
    if (node.stage == 1 && node.dep >= 0) {
      node.dep = -1;
      break;
    }
  }
  StepGraph undepended_general = undepended;
  undepended_general.pipeline_order.reset();
  const std::vector<NodeTiming> c = evaluate_timeline(undepended);
  const std::vector<NodeTiming> d = evaluate_timeline(undepended_general);
  bool earlier = false;
  for (std::size_t i = 0; i < c.size(); ++i) {
    REQUIRE(c[i].start.value() == d[i].start.value());
    REQUIRE(c[i].end.value() == d[i].end.value());
    earlier = earlier || c[i].start.value() < fast[i].start.value();
  }
  CHECK(earlier);
}
