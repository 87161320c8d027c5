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
  double attention_efficiency = 0.5;  // fraction of peak for fused (flash) attention kernels (long
                                      // sequences, large heads: see attention_shape_efficiency)
  double memory_efficiency = 0.8;     // fraction of HBM bandwidth reached by bandwidth-bound kernels
  Seconds kernel_overhead{5e-6};      // fixed launch/sync cost per kernel
  // Head dimension at which a flash-attention kernel runs at half its large-head rate: the softmax
  // exponentials (one per score, on the special-function units) cost as much as the 4·d matmul FLOPs
  // per score at d = peak_matmul / (4 · exp_rate) (Shah et al. 2024, FlashAttention-3 §3: H100 SXM5 has
  // 989 TFLOP/s of matmul but 3.9 TFLOP/s of exponentials, so d = 63).
  double attention_half_head_dim = 32.0;
  // Keys a causal query tile iterates over per call at which a flash-attention kernel runs at half its
  // long-sequence rate (a fixed per-tile cost of about two 128-key blocks): 240 fitted to FlashAttention-3's
  // forward on H100 (pytorch/benchmark ff65cb6). Blackwell entries carry their own value, transferred from
  // one cuDNN benchmark suite that ran Hopper and Blackwell alike (docs/model.md, "Attention on Blackwell").
  double attention_half_keys = 240.0;
  // FlashAttention-2's end-to-end throughput relative to the device's native fused attention (the kernel
  // `attention_efficiency` was set for): 1 where that is FlashAttention-2 (A100); 0.78 on the H100 family,
  // whose fitted constant is Transformer Engine's cuDNN attention, from FlashAttention-3's kernel ratio applied
  // to the kernel's share of the fitted time. Scales the flash-2 / flash-1 / triton-flash kernels
  // (models/training_options.hpp, docs/model.md "Attention kernels").
  double attention_flash2_rate = 1.0;
  // Fixed cost of one pipeline op (forward or backward of one micro-batch through one model chunk):
  // host-side dispatch and the stream synchronisation around its pipeline send/receive. Fitted with
  // the other efficiency constants (tools/calibrate.py), never per run.
  Seconds op_overhead{0};
};

struct DeviceSpec {
  std::string name;                               // catalog key, e.g. "a100-sxm4-80gb"
  std::string display_name;                       // "NVIDIA A100-SXM4-80GB"
  std::string kind = "gpu";                       // gpu | tpu | wafer
  std::map<Precision, FlopsPerSecond> peak;       // dense peak per compute precision
  Bytes memory_capacity{0};                       // HBM (or on-chip SRAM for wafer-scale)
  BytesPerSecond memory_bandwidth{0};
  int sm_count = 0;  // streaming multiprocessors (compute units) that GEMM tiles are scheduled on; 0 =
                     // not a tiled GPU (no wave quantisation)
  Watts tdp{0};
  Watts idle_power{0};
  DeviceEfficiency efficiency;

  /// Peak for `p`; throws std::out_of_range naming the device if it has no such peak.
  [[nodiscard]] FlopsPerSecond peak_for(Precision p) const;
};

}  // namespace clustersim
