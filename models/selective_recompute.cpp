#include "models/selective_recompute.hpp"

#include <algorithm>
#include <string_view>

namespace clustersim {
namespace {

// The same GEMM on `share` of its output columns (a column slice of the weight).
Kernel column_share(const Kernel& g, double share) {
  Kernel k = g;
  const double e_in = bytes_per_element(g.precision);
  const double out_bytes = g.m * g.n > 0 ? (g.bytes.value() - e_in * (g.m * g.k + g.k * g.n)) / (g.m * g.n) : 0.0;
  k.n = g.n * share;
  k.model_flops = Flops(g.model_flops.value() * share);
  k.exec_flops = Flops(g.exec_flops.value() * share);
  k.bytes = Bytes(e_in * (g.m * g.k + g.k * k.n) + out_bytes * g.m * k.n);
  return k;
}

}  // namespace

LayerKernels op_sac_recompute_kernels(const TransformerSpec& m, const LayerShape& s, const LayerKernels& fwd) {
  LayerKernels out;
  const bool fp8 = s.precision == Precision::fp8;
  const bool swiglu = m.mlp == MlpKind::swiglu;
  const double t = std::max(1, s.tp);
  const double q = static_cast<double>(m.heads) / t * m.head_dim();
  const double kv_heads = std::max(1.0, static_cast<double>(m.kv_heads) / t);
  const double k_width = kv_heads * m.head_dim();
  const double v_width = kv_heads * m.v_head_dim();
  for (const Kernel& k : fwd) {
    if (k.cls == KernelClass::attention) continue;  // SDPA output saved
    if (k.cls == KernelClass::elementwise || k.attention_core) {
      out.add(k);
      continue;
    }
    // A linear GEMM (or a grouped expert GEMM).
    if (fp8 || k.grouped) {
      out.add(k);
      continue;
    }
    const std::string_view name = k.name;
    if (name == "qkv") {
      out.add(column_share(k, k_width / (q + k_width + v_width)));
    } else if (name == "wk" || name == "w3") {
      out.add(k);  // separate projections: wq, wk, wv, wo, w1, w3, w2 -> wk, wo, w3 recomputed
    } else if (name == "wq" || name == "wv" || name == "w1") {
      continue;
    } else if (name == "proj") {
      out.add(k);
    } else if (name == "fc1") {
      if (swiglu) out.add(column_share(k, 0.5));
    } else if (name == "fc2") {
      if (!swiglu) out.add(k);
    } else {
      out.add(column_share(k, 0.5));
    }
  }
  return out;
}

LayerKernels dots_recompute_kernels(const LayerKernels& fwd) {
  LayerKernels out;
  for (const Kernel& k : fwd) {
    if (k.cls == KernelClass::gemm && !k.attention_core && !k.grouped) continue;  // a weight matmul: saved
    out.add(k);
  }
  return out;
}

}  // namespace clustersim
