#include "models/roofline.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace clustersim {
namespace {

struct Tile {
  double m, n;
};
constexpr std::array<Tile, 3> kTiles{{{128, 128}, {128, 256}, {256, 128}}};
constexpr double kSplitKMinDepth = 256.0;  // split-K slices keep at least this much of K each
// FP8 GEMMs with blockwise scaling and CUDA-core promotion (DeepSeek-V3 §3.3.2): fitted (two constants,
// log least squares) to DeepGEMM's published H800 table (deepseek-ai/DeepGEMM README of its first
// release, "Performance", NVCC 12.8): the ten compute-bound rows (M = 4,096 dense, contiguous grouped
// 4 x 8,192 and 8 x 4,096), every one within 2.1 %. The memory-bound M = 64/128 decode rows are the
// roofline's memory term, not fitted.
constexpr double kBlockwiseMax = 0.7388;     // fraction of the FP8 peak for deep-K, wave-aligned GEMMs
constexpr double kBlockwiseHalfK = 726.0;    // K at which a tile's fixed cost equals its main loop
constexpr double kCollectiveSms =
    16.0;  // SMs NCCL occupies on a DGX-class node (github.com/NVIDIA/nccl/issues/689)

}  // namespace

KernelTime& KernelTime::operator+=(const KernelTime& o) {
  total += o.total;
  compute_bound += o.compute_bound;
  memory_bound += o.memory_bound;
  exec_flops += o.exec_flops;
  model_flops += o.model_flops;
  return *this;
}

double gemm_wave_efficiency(int sm_count, double m, double n, double k, double batch) {
  if (sm_count <= 0 || m <= 0 || n <= 0 || k <= 0 || batch <= 0) return 1.0;
  const double sms = sm_count;
  double best = 0.0;
  for (const Tile& t : kTiles) {
    const double tiles = batch * std::ceil(m / t.m) * std::ceil(n / t.n);
    // Split-K: with fewer tiles than SMs, the reduction is cut into slices that fill the idle SMs.
    const double splits =
        tiles < sms ? std::max(1.0, std::min(std::floor(sms / tiles), std::floor(k / kSplitKMinDepth))) : 1.0;
    const double units = tiles * splits;
    const double waves = std::ceil(units / sms);
    // Time ~ waves x (tile area x K / splits); ideal ~ M N K batch / SMs.
    const double paid = waves * sms * t.m * t.n * (k / splits);
    best = std::max(best, batch * m * n * k / paid);
  }
  return std::min(1.0, best);
}

double blockwise_fp8_gemm_efficiency(int sm_count, double m, double n, double k, double batch) {
  const double depth = k > 0 ? k / (k + kBlockwiseHalfK) : 1.0;
  return kBlockwiseMax * depth * gemm_wave_efficiency(sm_count, m, n, k, batch);
}

double attention_shape_efficiency(const DeviceEfficiency& e, double keys, double head_dim) {
  const double seq = keys > 0 ? keys / (keys + e.attention_half_keys) : 1.0;
  const double dim = head_dim > 0 ? head_dim / (head_dim + e.attention_half_head_dim) : 1.0;
  return seq * dim;
}

KernelTime kernel_time(const DeviceSpec& d, const Kernel& k) {
  const DeviceEfficiency& e = d.efficiency;
  const double f = k.exec_flops.value();
  double t_compute = 0.0;
  if (f > 0.0) {
    double eff = 0.0;
    if (k.cls == KernelClass::attention) {
      eff = e.attention_efficiency * attention_shape_efficiency(e, k.attn_keys, k.attn_head_dim) * k.attn_rate *
            (k.attn_flash2_family ? e.attention_flash2_rate : 1.0);
    } else if (k.fp8_blockwise && k.precision == Precision::fp8) {
      eff = blockwise_fp8_gemm_efficiency(d.sm_count, k.m, k.n, k.k, k.grouped ? k.batch : 1.0);
    } else {
      // A grouped GEMM (MoE experts) runs `batch` independent problems: each fills the pipeline on its
      // own, so the saturation term sees one group's FLOPs (many small GEMMs are slower per FLOP).
      const double f_fill = k.grouped && k.batch > 1.0 ? f / k.batch : f;
      eff = e.gemm_max_efficiency * f_fill / (f_fill + e.gemm_half_flops) *
            gemm_wave_efficiency(d.sm_count, k.m, k.n, k.k, k.batch) * k.impl_efficiency;
    }
    t_compute = f / (d.peak_for(k.precision).value() * eff);
  }
  const double t_memory = k.bytes.value() / (d.memory_bandwidth.value() * e.memory_efficiency);
  KernelTime out;
  const double t = std::max(t_compute, t_memory);
  out.total = Seconds(t + e.kernel_overhead.value());
  if (t_compute >= t_memory) {
    out.compute_bound = Seconds(t);
    out.memory_bound = e.kernel_overhead;
  } else {
    out.memory_bound = Seconds(t) + e.kernel_overhead;
  }
  // Small kernels launched with this one (MXFP8 scale swizzles): memory-bound, each with its overhead.
  if (k.extra_kernels > 0) {
    const Seconds extra(k.extra_kernels * e.kernel_overhead.value() +
                        k.extra_bytes / (d.memory_bandwidth.value() * e.memory_efficiency));
    out.total += extra;
    out.memory_bound += extra;
  }
  out.exec_flops = k.exec_flops;
  out.model_flops = k.model_flops;
  return out;
}

KernelTime kernels_time(const DeviceSpec& d, const LayerKernels& ks) {
  KernelTime sum;
  for (const Kernel& k : ks) sum += kernel_time(d, k);
  return sum;
}

Seconds overlap_slowdown(const DeviceSpec& d, Seconds overlapped, double compute_bound_share,
                         BytesPerSecond comm_bandwidth, double comm_sms) {
  if (d.sm_count <= 0 || overlapped.value() <= 0.0) return Seconds(0);
  const double c = std::clamp(compute_bound_share, 0.0, 1.0);
  const double sm_share = std::min(1.0, (comm_sms > 0.0 ? comm_sms : kCollectiveSms) / d.sm_count);
  const double hbm = d.memory_bandwidth.value() * d.efficiency.memory_efficiency;
  const double hbm_share = hbm > 0.0 ? std::min(1.0, 2.0 * comm_bandwidth.value() / hbm) : 0.0;
  return overlapped * (c * sm_share + (1.0 - c) * hbm_share);
}

Seconds reserved_sm_slowdown(const DeviceSpec& d, Seconds compute_bound, double comm_sms) {
  const double sms = comm_sms > 0.0 ? comm_sms : kCollectiveSms;
  if (d.sm_count <= 0 || compute_bound.value() <= 0.0 || sms >= d.sm_count) return Seconds(0);
  return compute_bound * (sms / (d.sm_count - sms));
}

Seconds memory_pass_time(const DeviceSpec& d, Bytes bytes) {
  return Seconds(bytes.value() / (d.memory_bandwidth.value() * d.efficiency.memory_efficiency)) +
         d.efficiency.kernel_overhead;
}

}  // namespace clustersim
