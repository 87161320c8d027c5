// Prints per-layer forward/backward times for the Korthikanti 22B layer micro-benchmark (development aid).
#include <cstdio>
#include <cstdlib>

#include "fixtures.hpp"
#include "models/roofline.hpp"
#include "sim/graph/op_cost.hpp"

using namespace clustersim;
using namespace clustersim::testing;

int main(int argc, char** argv) {
  DeviceEfficiency e;
  if (argc >= 5) {
    e.gemm_max_efficiency = std::atof(argv[1]);
    e.gemm_half_flops = std::atof(argv[2]);
    e.memory_efficiency = std::atof(argv[3]);
    e.kernel_overhead = Seconds(std::atof(argv[4]));
  }
  for (int mode = 0; mode < 4; ++mode) {
    Scenario s = scenario(dgx_a100_cluster(1), gpt(1, 6144, 64), 8, 1, 4, 4);
    s.cluster.node.device.efficiency = e;
    s.training.flash_attention = false;
    s.parallelism.sequence_parallel = mode == 3;
    s.training.recompute = mode == 1 ? Recompute::full : (mode >= 2 ? Recompute::selective : Recompute::none);
    OpCostModel m(s);
    ChunkCosts c = m.chunk_costs(ChunkRole{1, false, false});
    std::printf("mode %d fwd %.2f ms (tp %.2f) bwd %.2f ms (tp %.2f recompute %.2f)\n", mode,
                c.forward.duration().value() * 1e3, c.forward.tp_comm.value() * 1e3, c.backward.duration().value() * 1e3,
                c.backward.tp_comm.value() * 1e3, c.backward.recompute.value() * 1e3);
    if (mode == 0) {
      LayerKernels ks = layer_forward_kernels(s.model, m.shape());
      for (const Kernel& k : ks) {
        KernelTime t = kernel_time(s.cluster.node.device, Precision::fp16, k);
        std::printf("   %-16s %8.3f ms  %.2e flop %.2e B\n", std::string(k.name).c_str(), t.total.value() * 1e3, k.exec_flops.value(), k.bytes.value());
      }
    }
  }
  std::printf("measured (Korthikanti Table 4): none fwd 7.7 bwd 11.9; full bwd 19.5; selective bwd 13.2; sel+SP fwd 7.2 bwd 13.1\n");
}
