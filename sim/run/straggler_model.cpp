#include "sim/run/straggler_model.hpp"

#include <cmath>
#include <numbers>

#include "sim/core/diagnostics.hpp"

namespace clustersim::run {
namespace {

double std_normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

}  // namespace

double expected_step_slowdown(const StragglerSpec& spec, int participants) {
  CS_ASSERT(participants >= 1, "a step has at least one participant");
  const double n = participants;
  const double p = spec.slow_fraction;
  const double slow = 1.0 / spec.slow_speed;  // multiplier of a slow device
  const double sigma = spec.lognormal_sigma;
  if (sigma == 0.0) {
    return 1.0 + (slow - 1.0) * (1.0 - std::pow(1.0 - p, n));
  }
  // E[max] = ∫ (1 − F(e^u)^N) e^u du over u = ln x; below u_lo the integrand is ≈ 1 (F ≈ 0), above u_hi
  // it is ≈ 0 (F^N ≈ 1). Composite Simpson on a fine grid.
  const double shift = std::log(slow);
  const double u_lo = -9.0 * sigma;
  const double u_hi = shift + sigma * (9.0 + std::sqrt(2.0 * std::log(n)));
  const int steps = 8000;  // even
  const double h = (u_hi - u_lo) / steps;
  auto integrand = [&](double u) {
    const double f = (1.0 - p) * std_normal_cdf(u / sigma) + p * std_normal_cdf((u - shift) / sigma);
    const double fn = f <= 0.0 ? 0.0 : std::exp(n * std::log(f));
    return (1.0 - fn) * std::exp(u);
  };
  double sum = integrand(u_lo) + integrand(u_hi);
  for (int i = 1; i < steps; ++i) sum += integrand(u_lo + i * h) * (i % 2 == 1 ? 4.0 : 2.0);
  return std::exp(u_lo) + sum * h / 3.0;
}

}  // namespace clustersim::run
