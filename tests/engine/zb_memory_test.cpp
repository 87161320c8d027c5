// zb-1p / zb-2p: the search's inputs (graph_builder.cpp set_auto_schedule_costs) and the memory model's
// walk of the searched order (analytic_engine.cpp memory_inputs).
#include "tests/catch.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "fixtures.hpp"
#include "models/memory_model.hpp"
#include "schedules/pipeline_deps.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/graph/step_graph.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {
// 8 layers, h 1024, 16 heads, s 2048 on one DGX A100: TP 1, PP 4, DP 2, 16 micro-batches of 1.
Scenario zb_scenario(ScheduleKind kind) {
  Scenario s = scenario(dgx_a100_cluster(1), gpt(8, 1024, 16, 2048), 1, 4, 1, 32);
  s.parallelism.schedule = kind;
  s.training.recompute = Recompute::selective;
  s.training.flash_attention = false;
  return s;
}

std::int64_t micros(Seconds t) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(t.value() * 1e6)));
}
}  // namespace

TEST_CASE("zb-2p's search inputs: stage-median op costs in whole microseconds, the authors' 34h + 5as and 32h") {
  const Scenario s = zb_scenario(ScheduleKind::zero_bubble_2p);
  const StepGraph g = build_step_graph(s);
  const int p = g.schedule.stages;
  REQUIRE(p == 4);
  REQUIRE(g.schedule.microbatches == 16);
  const auto median = [&](int slot) {
    std::vector<std::int64_t> v;
    for (int st = 0; st < p; ++st) v.push_back(micros(g.costs[static_cast<std::size_t>(4 * st + slot)].duration()));
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(p / 2)];  // the reference's sorted(...)[n // 2]
  };
  const AutoScheduleCosts& c = g.schedule.auto_costs;
  CHECK(c.forward == median(0));
  CHECK(c.backward_input == median(2));
  CHECK(c.backward_weight == median(3));
  CHECK(c.p2p == micros(g.p2p_time));
  CHECK(c.forward >= 1);
  CHECK(c.forward_memory == 34 * 1024 + 5 * 16 * 2048);
  CHECK(c.weight_memory == 32 * 1024);
}

TEST_CASE("zb-2p with no attention scores stored: each deferred W keeps 32/34 of a micro-batch's activations") {
  // Selective recompute without flash attention: the memory model stores the layer's non-score terms
  // only, so a W keeps 32/34 of what the forward stored, not the search's 32h / (34h + 5as).
  const Scenario s = zb_scenario(ScheduleKind::zero_bubble_2p);
  const StepGraph g = build_step_graph(s);
  const TransformerSpec& m = s.model;
  double highest = 0.0;
  for (int st = 0; st < g.schedule.stages; ++st) {
    const MemoryInputs in = memory_inputs(s, g.schedule, st);
    CHECK(layer_weight_grad_kept_bytes(m, in.shape).value() ==
          Approx(layer_activation_bytes(m, in.shape, Recompute::selective).value() * 32.0 / 34.0));
    const double walk = peak_activation_memory(g.schedule, st, Bytes(1.0), Bytes(32.0 / 34.0)).value();
    CHECK(in.inflight_chunk_microbatches == Approx(walk));
    // The authors' share would undercount: the search defers W's it thinks nearly free.
    const AutoScheduleCosts& c = g.schedule.auto_costs;
    const double authors = static_cast<double>(c.weight_memory) / static_cast<double>(c.forward_memory);
    CHECK(walk >= peak_activation_memory(g.schedule, st, Bytes(1.0), Bytes(authors)).value());
    highest = std::max(highest, walk);
  }
  CHECK(highest > 2.0 * g.schedule.stages);  // the search's 2p bound does not hold for these bytes
  // The run reports that walk: the fullest stage's activations are the memory model's for its inputs.
  const StepResult r = run_analytic(s);
  const MemoryInputs in = memory_inputs(s, g.schedule, r.memory_stage);
  CHECK(r.memory.activations.value() == Approx(memory_per_device(m, in).activations.value()));
}

TEST_CASE("zb-2p with attention scores stored: the W's share is below the authors' and within 2p") {
  Scenario s = zb_scenario(ScheduleKind::zero_bubble_2p);
  s.training.recompute = Recompute::none;
  const StepGraph g = build_step_graph(s);
  for (int st = 0; st < g.schedule.stages; ++st) {
    const MemoryInputs in = memory_inputs(s, g.schedule, st);
    const double stored = layer_activation_bytes(s.model, in.shape, Recompute::none).value();
    const double share = layer_weight_grad_kept_bytes(s.model, in.shape).value() / stored;
    const AutoScheduleCosts& c = g.schedule.auto_costs;
    const double authors = static_cast<double>(c.weight_memory) / static_cast<double>(c.forward_memory);
    CHECK(share < 32.0 / 34.0);
    CHECK(in.inflight_chunk_microbatches ==
          Approx(peak_activation_memory(g.schedule, st, Bytes(1.0), Bytes(share)).value()));
    if (share <= authors) CHECK(in.inflight_chunk_microbatches <= 2.0 * g.schedule.stages + 1e-9);
  }
}

TEST_CASE("zb-1p and zb-2p: full recompute charges a deferred W the recomputed inputs it keeps") {
  Scenario s = zb_scenario(ScheduleKind::zero_bubble_1p);
  s.training.recompute = Recompute::full;
  const StepGraph g = build_step_graph(s);
  const MemoryInputs in = memory_inputs(s, g.schedule, 0);
  const double share = layer_weight_grad_kept_bytes(s.model, in.shape).value() /
                       layer_activation_bytes(s.model, in.shape, Recompute::full).value();
  CHECK(share > 1.0);
  CHECK(in.inflight_chunk_microbatches ==
        Approx(peak_activation_memory(g.schedule, 0, Bytes(1.0), Bytes(share)).value()));
}

TEST_CASE("zb-1p and zb-2p runs list their search inputs and W share as assumptions, other schedules none") {
  const StepResult zb = run_analytic(zb_scenario(ScheduleKind::zero_bubble_1p));
  REQUIRE(zb.schedule_assumptions.size() == 3);
  CHECK(zb.schedule_assumptions[0].rfind("zb-1p search op times F ", 0) == 0);
  CHECK(zb.schedule_assumptions[1].find("M_F = 34h + 5as = 198656 units, a W frees M_W = 32h = 32768 units, "
                                        "limit 4 x M_F") != std::string::npos);
  CHECK(zb.schedule_assumptions[2].find("a deferred W keeps 0.941 of") != std::string::npos);
  Scenario one = zb_scenario(ScheduleKind::zero_bubble_2p);
  one.parallelism.pp = 1;
  one.parallelism.dp = 8;
  const StepResult single = run_analytic(one);
  REQUIRE(single.schedule_assumptions.size() == 4);
  CHECK(single.schedule_assumptions[3].find("the authors' runtime refuses it") != std::string::npos);
  CHECK(run_analytic(zb_scenario(ScheduleKind::zero_bubble_h1)).schedule_assumptions.empty());
}
