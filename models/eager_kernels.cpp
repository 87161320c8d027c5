#include "models/eager_kernels.hpp"

#include <algorithm>

namespace clustersim {
namespace {

Kernel pass(std::string_view name, double bytes) {
  return Kernel{name, KernelClass::elementwise, Flops(0), Flops(0), Bytes(bytes), false};
}

}  // namespace

void add_eager_elementwise(LayerKernels& ks, const TransformerSpec& m, const LayerShape& s) {
  const double t = std::max(1, s.tp);
  const double tokens = static_cast<double>(s.micro_batch) * s.seq_len / std::max(1, s.cp);
  const double norm_tokens = s.sequence_parallel ? tokens / t : tokens;
  const double h = m.hidden;
  if (m.norm == NormKind::rmsnorm) {
    const int norms = m.parallel_block ? 1 : 2;
    for (int i = 0; i < norms; ++i) ks.add(pass("eager_rmsnorm", kEagerRmsNormExtraBytes * norm_tokens * h));
  }
  if (m.position == PositionKind::rotary && !m.mla.enabled()) {
    const double q = static_cast<double>(m.heads) / t * m.head_dim();
    const double k = std::max(1.0, static_cast<double>(m.kv_heads) / t) * m.head_dim();
    ks.add(pass("eager_rope", kEagerRopeBytes * tokens * (q + k)));
  }
  if (m.mlp == MlpKind::swiglu) ks.add(pass("eager_swiglu", kEagerSwigluExtraBytes * tokens * m.ffn_hidden / t));
}

}  // namespace clustersim
