// Prints predictions for the Korthikanti 2022 records with hand-built scenarios (development aid).
#include <cstdio>
#include <cstdlib>

#include "fixtures.hpp"
#include "sim/engine/analytic_engine.hpp"

using namespace clustersim;
using namespace clustersim::testing;

int main(int argc, char** argv) {
  DeviceEfficiency e = a100_calibration();
  if (argc >= 5) {
    e.gemm_max_efficiency = std::atof(argv[1]);
    e.gemm_half_flops = std::atof(argv[2]);
    e.memory_efficiency = std::atof(argv[3]);
    e.kernel_overhead = Seconds(std::atof(argv[4]));
  }
  struct Row { const char* id; int L, h, a, tp, pp, vp, gb, nodes; bool sel; double measured; };
  const Row rows[] = {
      {"22B sel", 48, 6144, 64, 8, 1, 1, 4, 1, true, 1.10},   {"22B full", 48, 6144, 64, 8, 1, 1, 4, 1, false, 1.42},
      {"175B sel", 96, 12288, 96, 8, 8, 3, 64, 8, true, 13.75}, {"175B full", 96, 12288, 96, 8, 8, 3, 64, 8, false, 18.13},
      {"530B sel", 105, 20480, 128, 8, 35, 3, 280, 35, true, 37.83}, {"530B full", 105, 20480, 128, 8, 35, 3, 280, 35, false, 49.05},
      {"1T sel", 128, 25600, 160, 8, 64, 1, 512, 64, true, 71.49}, {"1T full", 128, 25600, 160, 8, 64, 1, 512, 64, false, 94.42},
  };
  double sum = 0, mx = 0;
  for (const Row& r : rows) {
    Scenario s = scenario(dgx_a100_cluster(r.nodes), gpt(r.L, r.h, r.a), r.tp, r.pp, r.id[0] == '2' && r.id[1] == '2' ? 4 : 1, r.gb);
    s.cluster.node.device.efficiency = e;
    s.parallelism.vp = r.vp;
    s.parallelism.schedule = r.vp > 1 ? ScheduleKind::interleaved_1f1b : ScheduleKind::one_f_one_b;
    s.parallelism.sequence_parallel = r.sel;
    s.training.recompute = r.sel ? Recompute::selective : Recompute::full;
    s.training.flash_attention = false;
    const StepResult res = run_analytic(s);
    const double err = (res.step_time.value() - r.measured) / r.measured;
    sum += std::abs(err);
    mx = std::max(mx, std::abs(err));
    std::printf("%-10s measured %7.2f predicted %7.2f err %+6.1f%%  mfu %.3f bubble %.3f tp %.2f pp %.2f dp %.2f mem %.1f GiB\n", r.id,
                r.measured, res.step_time.value(), 100 * err, res.mfu, res.bubble_fraction, res.comm_exposed.tp.value(),
                res.comm_exposed.pp.value(), res.comm_exposed.dp.value(), res.memory.total().value() / 1073741824.0);
  }
  std::printf("mean %.2f%% max %.2f%%\n", 100 * sum / 8, 100 * mx);
}
