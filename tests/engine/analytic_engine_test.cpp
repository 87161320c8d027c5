#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "models/transformer_cost.hpp"
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
  CHECK(parameter_count(m).total(96) / 1e9 == Approx(174.6).epsilon(0.002));
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
