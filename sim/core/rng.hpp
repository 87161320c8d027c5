// Seeded random streams with platform-independent distributions.
//
// std::*_distribution output differs between standard libraries, which would break "same seed, same
// bytes". RngStream implements its own draws on top of xoshiro256** (Blackman & Vigna 2018), seeded
// through splitmix64. Independent streams are derived from (seed, stream id) so that adding draws to
// one component never shifts another's.
#pragma once

#include <cstdint>

namespace clustersim {

class RngStream {
 public:
  RngStream(std::uint64_t seed, std::uint64_t stream_id = 0);

  std::uint64_t next_u64();
  /// Uniform in [0, 1), 53 bits.
  double uniform();
  /// Uniform in (0, 1]: safe for log().
  double uniform_open0();
  /// Exponential with the given rate (1/mean); rate > 0.
  double exponential(double rate);
  /// Weibull with shape k > 0 and scale lambda > 0.
  double weibull(double shape, double scale);
  /// Standard normal (Box–Muller, one value per call; deterministic).
  double normal();
  /// Lognormal: exp(mu + sigma * N(0,1)).
  double lognormal(double mu, double sigma);
  /// Uniform integer in [0, n), n > 0.
  std::uint64_t below(std::uint64_t n);
  /// Binomial(n, p) draw; exact for small n, normal approximation with continuity correction above 10^4.
  std::uint64_t binomial(std::uint64_t n, double p);

 private:
  std::uint64_t s_[4];
};

}  // namespace clustersim
