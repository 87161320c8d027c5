#include "models/roofline.hpp"

#include <algorithm>

namespace clustersim {

KernelTime& KernelTime::operator+=(const KernelTime& o) {
  total += o.total;
  compute_bound += o.compute_bound;
  memory_bound += o.memory_bound;
  exec_flops += o.exec_flops;
  model_flops += o.model_flops;
  return *this;
}

KernelTime kernel_time(const DeviceSpec& d, Precision p, const Kernel& k) {
  const DeviceEfficiency& e = d.efficiency;
  const double f = k.exec_flops.value();
  double t_compute = 0.0;
  if (f > 0.0) {
    const double e_max = k.cls == KernelClass::attention ? e.attention_efficiency : e.gemm_max_efficiency;
    const double eff = e_max * f / (f + e.gemm_half_flops);
    t_compute = f / (d.peak_for(p).value() * eff);
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
  out.exec_flops = k.exec_flops;
  out.model_flops = k.model_flops;
  return out;
}

KernelTime kernels_time(const DeviceSpec& d, Precision p, const LayerKernels& ks) {
  KernelTime sum;
  for (const Kernel& k : ks) sum += kernel_time(d, p, k);
  return sum;
}

Seconds memory_pass_time(const DeviceSpec& d, Bytes bytes) {
  return Seconds(bytes.value() / (d.memory_bandwidth.value() * d.efficiency.memory_efficiency)) +
         d.efficiency.kernel_overhead;
}

}  // namespace clustersim
