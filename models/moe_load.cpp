#include "models/moe_load.hpp"

#include <algorithm>
#include <cmath>

namespace clustersim {

double moe_rank_load(const MoeSpec& m, int ep) {
  if (!m.enabled() || ep <= 1) return 1.0;
  double load = std::max(1.0, m.load_imbalance);
  if (m.zipf_skew > 0.0) {
    const int e = m.num_experts;
    double harmonic = 0.0;
    for (int i = 1; i <= e; ++i) harmonic += std::pow(static_cast<double>(i), -m.zipf_skew);
    const double p1 = 1.0 / harmonic;
    const double per_rank = static_cast<double>(e) / ep;
    const double rest = e > 1 ? (per_rank - 1.0) * (1.0 - p1) / (e - 1.0) : 0.0;
    load = std::max(1.0, ep * (p1 + rest));
  }
  if (m.capacity_factor > 0.0) load = std::min(load, std::max(1.0, m.capacity_factor));
  return load;
}

}  // namespace clustersim
