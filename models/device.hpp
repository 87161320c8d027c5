// Accelerator description: peaks, memory, power and the calibration of achieved efficiency.
//
// One calibration per device (DESIGN.md: "calibration lives in data"): the catalog entry under
// configs/devices/ supplies every field; nothing here is tuned per run.
#pragma once

#include <map>
#include <string>

#include "models/precision.hpp"
#include "sim/core/units.hpp"

namespace clustersim {

/// Achieved-rate calibration of a device. The roofline time of an operation is
///   max(flops / (peak * gemm_efficiency(shape)), bytes / (hbm_bandwidth * memory_efficiency))
///   + kernel_overhead,
/// where gemm_efficiency saturates with the per-GEMM work:
///   eff(F) = gemm_max_efficiency * F / (F + gemm_half_flops)   (F = FLOPs of one GEMM call).
struct DeviceEfficiency {
  double gemm_max_efficiency = 0.8;   // fraction of dense peak reached by large GEMMs
  double gemm_half_flops = 1e9;       // FLOPs at which a GEMM reaches half of gemm_max_efficiency
  double attention_efficiency = 0.5;  // fraction of peak for fused (flash) attention kernels
  double memory_efficiency = 0.8;     // fraction of HBM bandwidth reached by bandwidth-bound kernels
  Seconds kernel_overhead{5e-6};      // fixed launch/sync cost per kernel
};

struct DeviceSpec {
  std::string name;                               // catalog key, e.g. "a100-sxm4-80gb"
  std::string display_name;                       // "NVIDIA A100-SXM4-80GB"
  std::string kind = "gpu";                       // gpu | tpu | wafer
  std::map<Precision, FlopsPerSecond> peak;       // dense peak per compute precision
  Bytes memory_capacity{0};                       // HBM (or on-chip SRAM for wafer-scale)
  BytesPerSecond memory_bandwidth{0};
  Watts tdp{0};
  Watts idle_power{0};
  DeviceEfficiency efficiency;

  /// Peak for `p`; throws std::out_of_range naming the device if it has no such peak.
  [[nodiscard]] FlopsPerSecond peak_for(Precision p) const;
};

}  // namespace clustersim
