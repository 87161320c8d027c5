// Time of a kernel on a device: roofline with shape-dependent achieved efficiency.
//
//   t = max(exec_flops / (peak · eff(F)), bytes / (hbm_bandwidth · memory_efficiency)) + kernel_overhead
//   eff(F) = e_max · F / (F + F_half)   (e_max = gemm_max_efficiency, or attention_efficiency)
//
// The saturating form captures that small GEMMs (after TP sharding, small micro-batches) cannot fill the
// device (wave quantisation, launch latency); its two constants are calibrated once per device against
// published runs (see docs/calibration.md), never per run.
#pragma once

#include "models/device.hpp"
#include "models/transformer_cost.hpp"

namespace clustersim {

/// Split of a kernel sequence's time into compute-bound and memory-bound seconds (for energy states).
struct KernelTime {
  Seconds total{0};
  Seconds compute_bound{0};  // time of kernels limited by FLOP/s
  Seconds memory_bound{0};   // time of kernels limited by HBM bandwidth (incl. launch overhead)
  Flops exec_flops{0};
  Flops model_flops{0};
  KernelTime& operator+=(const KernelTime& o);
};

KernelTime kernel_time(const DeviceSpec& d, Precision p, const Kernel& k);
KernelTime kernels_time(const DeviceSpec& d, Precision p, const LayerKernels& ks);

/// Time of a purely bandwidth-bound pass over `bytes` of HBM traffic (optimizer step, copies).
Seconds memory_pass_time(const DeviceSpec& d, Bytes bytes);

}  // namespace clustersim
