#include "tests/catch.hpp"

#include <cmath>

#include "run_fixtures.hpp"
#include "sim/run/run_model.hpp"
#include "sim/run/trial.hpp"

using namespace clustersim;
using namespace clustersim::run;
using namespace clustersim::run::testing;

TEST_CASE("state times add up to the wall time and kept training equals the useful work") {
  RunSpec s = default_run_spec();
  s.steps = 300000;
  s.stragglers = {0.001, 0.8, 0.0};
  const RunPlan plan = make_run_plan(s, llama3_like_job());
  for (std::uint64_t i = 0; i < 20; ++i) {
    const TrialOutcome t = simulate_trial(plan, 3, i);
    CHECK(t.states.training.value() == Approx(plan.useful_time.value() * plan.straggler_slowdown).epsilon(1e-9));
    CHECK(t.wall().value() >= t.states.training.value());
  }
  const RunResult r = simulate_run(plan, 3, 300);
  const LostTime& l = r.lost_time_mean;
  const double lost = (l.recompute + l.restart + l.repair_wait + l.restore + l.checkpoint_stall + l.straggler +
                       l.degraded).value();
  CHECK(r.useful_time.value() + lost == Approx(r.wall_time.mean.value()).epsilon(1e-9));
  CHECK(l.straggler.value() > 0);
}

TEST_CASE("interruptions arrive at the job's rate over the wall time") {
  RunSpec s = default_run_spec();
  s.steps = 500000;
  const RunPlan plan = make_run_plan(s, llama3_like_job());
  const RunResult r = simulate_run(plan, 5, 300);
  const double expected = r.wall_time.mean.value() / plan.process.mean_time_between_interruptions().value();
  CHECK(r.interruptions_total_mean == Approx(expected).epsilon(0.03));
  CHECK(r.interruptions_mean[index_of(ComponentClass::accelerator)] >
        r.interruptions_mean[index_of(ComponentClass::memory)]);
}

TEST_CASE("a planned interruption loses no work") {
  RunSpec s = exponential_spec(1e12, 20000);
  s.failures[index_of(ComponentClass::accelerator)].unit_mtbf = Seconds(std::numeric_limits<double>::infinity());
  FailureClassSpec& m = s.failures[index_of(ComponentClass::maintenance)];
  m.unit = UnitKind::job;
  m.unit_mtbf = Seconds(3000);
  m.planned = true;
  m.blast_radius = BlastRadius::none;
  s.checkpoint.interval = Seconds(5000);
  const RunResult r = simulate_run(make_run_plan(s, small_job(10e9)), 1, 200);
  CHECK(r.interruptions_mean[index_of(ComponentClass::maintenance)] > 1.0);
  CHECK(r.lost_time_mean.recompute.value() == 0.0);
  CHECK(r.lost_time_mean.restore.value() > 0.0);
}

TEST_CASE("an async checkpoint loses less to stalls than a sync one at the same interval") {
  RunSpec s = default_run_spec();
  s.steps = 300000;
  s.checkpoint.interval = Seconds(1800);
  const JobShape job = llama3_like_job();
  const RunResult sync = simulate_run(make_run_plan(s, job), 9, 200);
  s.checkpoint.mode = CheckpointMode::async;
  const RunResult async = simulate_run(make_run_plan(s, job), 9, 200);
  CHECK(async.lost_time_mean.checkpoint_stall < sync.lost_time_mean.checkpoint_stall);
  CHECK(async.goodput.mean > sync.goodput.mean);
}

TEST_CASE("without spares the job waits for repairs, elastic runs degraded instead") {
  RunSpec s = exponential_spec(20000, 200000);
  s.failures[index_of(ComponentClass::accelerator)].repair = Seconds(3600);
  s.recovery.restart_base = Seconds(60);
  JobShape job = small_job(8e9);
  job.devices = 64;  // 8 nodes, 8 replicas
  job.dp = 8;
  s.failures[index_of(ComponentClass::accelerator)].unit_mtbf = Seconds(20000.0 * 64);

  s.recovery.policy = RecoveryPolicy::hot_spare;
  const RunResult unlimited = simulate_run(make_run_plan(s, job), 4, 200);
  CHECK(unlimited.lost_time_mean.repair_wait.value() == 0.0);

  s.recovery.spare_nodes = 0;
  const RunResult none = simulate_run(make_run_plan(s, job), 4, 200);
  // Each interruption waits min(repair, time to the next failure): E = M (1 − e^{−repair/M}) per interruption.
  const double per_wait = 20000.0 * -std::expm1(-3600.0 / 20000.0);
  CHECK(none.lost_time_mean.repair_wait.value() == Approx(per_wait * none.interruptions_total_mean).epsilon(0.03));

  s.recovery.spare_nodes = 2;
  const RunResult two = simulate_run(make_run_plan(s, job), 4, 200);
  CHECK(two.lost_time_mean.repair_wait < none.lost_time_mean.repair_wait);

  s.recovery.spare_nodes.reset();
  s.recovery.policy = RecoveryPolicy::elastic;
  const RunResult elastic = simulate_run(make_run_plan(s, job), 4, 200);
  CHECK(elastic.lost_time_mean.degraded.value() > 0.0);
  CHECK(elastic.lost_time_mean.repair_wait < none.lost_time_mean.repair_wait);
}

TEST_CASE("the what-if table brackets the optimum and marks infeasible async rows") {
  RunSpec s = default_run_spec();
  s.steps = 300000;
  s.trials = 100;
  s.what_if_trials = 100;
  const RunResult r = evaluate_run(s, llama3_like_job());
  REQUIRE(r.what_if.size() >= 10);
  double best = 0;
  Seconds best_interval{0};
  for (const WhatIfRow& row : r.what_if) {
    if (row.mode == CheckpointMode::sync && row.feasible && row.goodput_mean > best) {
      best = row.goodput_mean;
      best_interval = row.interval;
    }
  }
  // The best sync row is neither end of the ¼…4× grid.
  CHECK(best_interval > r.what_if.front().interval);
  CHECK(best_interval < r.what_if.back().interval);
}
