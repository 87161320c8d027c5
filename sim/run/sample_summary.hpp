// Summary statistics of Monte Carlo samples: mean, percentiles and the 95 % confidence interval of the
// mean (normal approximation: 1.96 · s / √n, s the sample standard deviation; CLT).
#pragma once

#include <vector>

namespace clustersim::run {

template <class T>
struct Summary {
  T mean{};
  T p10{};
  T p50{};
  T p90{};
  T ci95_half_width{};  // the mean lies in mean ± ci95_half_width with ~95 % confidence
};

/// Percentiles interpolate linearly between order statistics (Hyndman & Fan 1996, type 7).
/// Precondition: samples is not empty.
Summary<double> summarize(std::vector<double> samples);

}  // namespace clustersim::run
