// Benchmark (label `bench`, outside the default suite): analytic-engine throughput in configurations per
// second for GPT-3 175B on 1,024 A100s (TP8 PP8 DP16, interleaved v=3, selective recompute + SP, global
// batch 1536), on one core. Each configuration rebuilds the StepGraph and evaluates it from a Scenario;
// the micro-batch alternates between 1 and 2 (96 and 48 micro-batches per step), so no result can be
// reused. The two schedules' skeletons (graph_builder.cpp: kinds, order and dependencies of the pipeline
// ops, which depend on the schedule alone) are cached as in any sweep or plan; the second figure is with
// that cache off (every configuration builds its schedule from scratch).
// Target: >= 50,000 configurations/s (not met yet; README speed table).
#include "tests/catch.hpp"

#include <chrono>
#include <ctime>
#include <cstdio>

#include "fixtures.hpp"
#include "topologies/derived_topology.hpp"
#include "sim/engine/analytic_engine.hpp"

using namespace clustersim;
using namespace clustersim::testing;

TEST_CASE("analytic engine throughput for GPT-3 175B on 1,024 A100", "[bench]") {
  Scenario s = scenario(dgx_a100_cluster(128), gpt(96, 12288, 96), 8, 8, 1, 1536);
  s.parallelism.vp = 3;
  s.parallelism.schedule = ScheduleKind::interleaved_1f1b;
  s.parallelism.sequence_parallel = true;
  s.training.recompute = Recompute::selective;
  const int n = 2000;
  double sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  for (int i = 0; i < n; ++i) {
    s.training.micro_batch = 1 + (i % 2);  // vary the point so nothing is cached
    sink += run_analytic(s).step_time.value();
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  std::printf("analytic engine: %d configurations in %.3f s = %.0f configurations/s (one core)\n", n, secs, n / secs);
  // On a loaded machine the wall figure includes waiting for a core; the CPU figure does not.
  std::printf("analytic engine: %.3f s of CPU = %.0f configurations per CPU-second\n", cpu, n / cpu);
  set_schedule_skeleton_cache(false);
  const std::clock_t c1 = std::clock();
  for (int i = 0; i < n; ++i) {
    s.training.micro_batch = 1 + (i % 2);
    sink += run_analytic(s).step_time.value();
  }
  const double cpu_cold = static_cast<double>(std::clock() - c1) / CLOCKS_PER_SEC;
  set_schedule_skeleton_cache(true);
  std::printf("analytic engine, schedule skeleton cache off: %.3f s of CPU = %.0f configurations per CPU-second\n",
              cpu_cold, n / cpu_cold);
  CHECK(sink > 0);
}

TEST_CASE("analytic engine throughput on an explicit rail-optimized fat-tree (topology-aware DP and PP)", "[bench]") {
  ClusterSpec c = dgx_a100_cluster(128);
  c.comm.topology = derived_topology(c);  // 2-tier radix-64 rail-optimized fat-tree, now explicit
  Scenario s = scenario(c, gpt(96, 12288, 96), 8, 8, 1, 1536);
  s.parallelism.vp = 3;
  s.parallelism.schedule = ScheduleKind::interleaved_1f1b;
  s.parallelism.sequence_parallel = true;
  s.training.recompute = Recompute::selective;
  const int n = 2000;
  double sink = run_analytic(s).step_time.value();  // builds the graph and fits the groups once
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    s.training.micro_batch = 1 + (i % 2);
    sink += run_analytic(s).step_time.value();
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("analytic engine, explicit topology: %d configurations in %.3f s = %.0f configurations/s (one core)\n",
              n, secs, n / secs);
  CHECK(sink > 0);
}


// Mixture-of-experts: Mixtral 8x7B on 64 H100 (TP1 PP4 EP8 DP16, ZeRO-1, 64 micro-batches per step).
// Target: >= 5,000 configurations/s.
TEST_CASE("analytic engine throughput for a MoE model (Mixtral 8x7B, EP8, 64 H100)", "[bench]") {
  Scenario s = mixtral_64_h100(1024);
  const int n = 2000;
  double sink = run_analytic(s).step_time.value();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    s.training.micro_batch = 1 + (i % 2);
    sink += run_analytic(s).step_time.value();
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("analytic engine, MoE: %d configurations in %.3f s = %.0f configurations/s (one core)\n", n, secs,
              n / secs);
  CHECK(sink > 0);
}
