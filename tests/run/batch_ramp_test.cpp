// Megatron-LM's batch-size ramp replayed by the run model (sim/run/batch_ramp.hpp): the closed-form schedule
// against a step-by-step replay of Megatron's rule, a two-batch ramp in closed form, start == final as no
// ramp, and the run plan's steps, tokens and useful time.
#include "tests/catch.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/run/batch_ramp.hpp"
#include "sim/run/run_plan.hpp"
#include "sim/scenario/default_catalog.hpp"

using namespace clustersim;
using namespace clustersim::run;

namespace {

// Megatron-LM's rule, one step at a time, as training.py runs it: the batch is taken from the consumed
// samples before each step (RampupBatchsizeNumMicroBatchesCalculator.update), then added to them.
std::vector<BatchSegment> replay(const BatchRampup& r, std::int64_t global, int seq, double tokens) {
  const std::int64_t n = (global - r.start) / r.increment;
  const double per = static_cast<double>(r.samples) / static_cast<double>(n);
  std::vector<BatchSegment> out;
  std::int64_t consumed = 0;
  while (static_cast<double>(consumed) * seq < tokens) {
    const std::int64_t b =
        consumed > r.samples ? global
                             : r.start + static_cast<std::int64_t>(static_cast<double>(consumed) / per) * r.increment;
    if (out.empty() || out.back().batch != b) out.push_back({b, 0});
    ++out.back().steps;
    consumed += b;
  }
  return out;
}

JobShape shape(double step_time, double tokens_per_step) {
  JobShape j;
  j.step_time = Seconds(step_time);
  j.tokens_per_step = tokens_per_step;
  j.devices = 16;
  j.devices_per_node = 8;
  j.dp = 16;
  return j;
}

RunSpec quiet_spec() {
  RunSpec s = default_run_spec();
  s.failures = FailureModelSpec{};  // no failures: the plan's figures only
  return s;
}

}  // namespace

TEST_CASE("batch ramp: Megatron's rule at its levels", "[run][ramp]") {
  // Megatron-LM's GPT-3 example: --rampup-batch-size 16 16 5859375 with --global-batch-size 1536.
  const BatchRampup r{16, 16, 5859375};
  const double per = 5859375.0 / 95.0;  // 61677.63 samples per increment
  CHECK(rampup_batch(r, 1536, 0) == 16);
  CHECK(rampup_batch(r, 1536, 61677) == 16);
  CHECK(rampup_batch(r, 1536, 61678) == 32);
  CHECK(rampup_batch(r, 1536, static_cast<std::int64_t>(10 * per) + 1) == 16 + 10 * 16);
  CHECK(rampup_batch(r, 1536, 5859376) == 1536);
  CHECK(rampup_batch(r, 1536, 1000000000) == 1536);
}

TEST_CASE("batch ramp: the closed-form schedule equals a step-by-step replay, tokens exact", "[run][ramp]") {
  struct Case {
    BatchRampup r;
    std::int64_t global;
    int seq;
    double tokens;
  };
  const std::vector<Case> cases = {
      {{16, 16, 5859375}, 1536, 2048, 300e9},        // GPT-3's ramp, run past it
      {{16, 16, 5859375}, 1536, 2048, 3e9},          // a run that ends inside the ramp
      {{4096, 256, 114501953}, 15360, 4096, 14.8e12},  // DeepSeek-V3's experiment
      {{3, 7, 100}, 94, 1, 1000},                    // levels skipped (per < batch)
      {{8, 8, 1}, 64, 3, 10000},                     // a ramp of one sample
  };
  for (const Case& c : cases) {
    INFO(c.r.start << " " << c.r.increment << " " << c.r.samples << " -> " << c.global << ", " << c.tokens);
    const std::vector<BatchSegment> got = batch_schedule(c.r, c.global, c.seq, c.tokens, std::nullopt);
    const std::vector<BatchSegment> want = replay(c.r, c.global, c.seq, c.tokens);
    REQUIRE(got.size() == want.size());
    double trained = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].batch == want[i].batch);
      CHECK(got[i].steps == want[i].steps);
      trained += static_cast<double>(got[i].batch * got[i].steps) * c.seq;
    }
    // The run stops at the first step that reaches the tokens: at least the tokens, short of them a step earlier.
    CHECK(trained >= c.tokens);
    CHECK(trained - static_cast<double>(got.back().batch) * c.seq < c.tokens);
  }
}

TEST_CASE("batch ramp: start == final batch is no ramp", "[run][ramp]") {
  const auto none = batch_schedule(std::nullopt, 1536, 2048, 1e12, std::nullopt);
  const auto flat = batch_schedule(BatchRampup{1536, 16, 5859375}, 1536, 2048, 1e12, std::nullopt);
  REQUIRE(none.size() == 1);
  REQUIRE(flat.size() == 1);
  CHECK(flat[0].batch == none[0].batch);
  CHECK(flat[0].steps == none[0].steps);
  CHECK(none[0].steps == static_cast<std::int64_t>(std::ceil(1e12 / (1536.0 * 2048.0))));
  CHECK(rampup_batch(BatchRampup{1536, 16, 5859375}, 1536, 0) == 1536);
  // And the plan of a run without ramp phases is the plan of a constant batch.
  RunSpec spec = quiet_spec();
  spec.tokens = 1e12;
  const RunPlan plan = make_run_plan(spec, shape(2.0, 1536.0 * 2048.0));
  CHECK(plan.steps == none[0].steps);
  CHECK(plan.ramp_steps == 0);
  CHECK(plan.useful_time.value() == 2.0 * static_cast<double>(none[0].steps));
}

TEST_CASE("batch ramp: a ramp of two batch sizes in closed form", "[run][ramp]") {
  // start 4, increment 4 up to 8 (one increment), ramp over 10 samples, sequences of 2 tokens, 100 tokens:
  // the batch is 4 while consumed < 10 (int(c / 10) = 0; at c = 10 the level is 1): ceil(10 / 4) = 3 steps
  // of 4 (12 samples, 24 tokens), then ceil((100 - 24) / 16) = 5 steps of 8: 8 steps, 104 tokens.
  const BatchRampup r{4, 4, 10};
  const auto seg = batch_schedule(r, 8, 2, 100.0, std::nullopt);
  REQUIRE(seg.size() == 2);
  CHECK(seg[0].batch == 4);
  CHECK(seg[0].steps == 3);
  CHECK(seg[1].batch == 8);
  CHECK(seg[1].steps == 5);
  // The run plan: 3 ramp steps of 1.5 s, 5 steps of 2 s.
  RunSpec spec = quiet_spec();
  spec.tokens = 100.0;
  JobShape job = shape(2.0, 16.0);
  job.ramp = {{4, 3, 8.0, Seconds(1.5)}};
  const RunPlan plan = make_run_plan(spec, job);
  CHECK(plan.steps == 8);
  CHECK(plan.ramp_steps == 3);
  CHECK(plan.tokens == 104.0);
  CHECK(plan.ramp_tokens == 24.0);
  CHECK(plan.ramp_time.value() == 4.5);
  CHECK(plan.useful_time.value() == 4.5 + 5 * 2.0);
  // A run of steps: 5 steps are 3 of the ramp and 2 of the final batch.
  const auto by_steps = batch_schedule(r, 8, 2, std::nullopt, 5);
  REQUIRE(by_steps.size() == 2);
  CHECK(by_steps[0].steps == 3);
  CHECK(by_steps[1].steps == 2);
  RunSpec steps = quiet_spec();
  steps.steps = 5;
  const RunPlan p5 = make_run_plan(steps, job);
  CHECK(p5.steps == 5);
  CHECK(p5.useful_time.value() == 4.5 + 2 * 2.0);
  CHECK(p5.tokens == 24.0 + 2 * 16.0);
  // A run that ends inside the ramp: 2 steps.
  const auto short_run = batch_schedule(r, 8, 2, std::nullopt, 2);
  REQUIRE(short_run.size() == 1);
  CHECK(short_run[0].batch == 4);
  CHECK(short_run[0].steps == 2);
}
