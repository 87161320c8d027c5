#include "sim/run/sample_summary.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/diagnostics.hpp"

namespace clustersim::run {
namespace {

double percentile_sorted(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

Summary<double> summarize(std::vector<double> samples) {
  CS_ASSERT(!samples.empty(), "cannot summarize zero samples");
  const double n = static_cast<double>(samples.size());
  double sum = 0.0;
  for (const double x : samples) sum += x;
  const double mean = sum / n;
  double ss = 0.0;
  for (const double x : samples) ss += (x - mean) * (x - mean);
  const double sd = samples.size() > 1 ? std::sqrt(ss / (n - 1.0)) : 0.0;
  std::sort(samples.begin(), samples.end());
  return {mean, percentile_sorted(samples, 0.10), percentile_sorted(samples, 0.50),
          percentile_sorted(samples, 0.90), 1.96 * sd / std::sqrt(n)};
}

}  // namespace clustersim::run
