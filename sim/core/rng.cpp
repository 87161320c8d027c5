#include "sim/core/rng.hpp"

#include <cmath>
#include <numbers>

namespace clustersim {
namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

RngStream::RngStream(std::uint64_t seed, std::uint64_t stream_id) {
  std::uint64_t x = seed ^ (stream_id * 0xD1B54A32D192ED03ULL) ^ 0x5851F42D4C957F2DULL;
  for (auto& s : s_) s = splitmix64(x);
}

std::uint64_t RngStream::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double RngStream::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
double RngStream::uniform_open0() { return (static_cast<double>(next_u64() >> 11) + 1.0) * 0x1.0p-53; }
double RngStream::exponential(double rate) { return -std::log(uniform_open0()) / rate; }
double RngStream::weibull(double shape, double scale) {
  return scale * std::pow(-std::log(uniform_open0()), 1.0 / shape);
}
double RngStream::normal() {
  const double u1 = uniform_open0();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}
double RngStream::lognormal(double mu, double sigma) { return std::exp(mu + sigma * normal()); }
std::uint64_t RngStream::below(std::uint64_t n) {
  // Rejection sampling on the top of the range for exact uniformity.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  std::uint64_t x = next_u64();
  while (x >= limit) x = next_u64();
  return x % n;
}
std::uint64_t RngStream::binomial(std::uint64_t n, double p) {
  if (p <= 0.0 || n == 0) return 0;
  if (p >= 1.0) return n;
  if (n <= 10000) {
    // Waiting-time method: expected O(n p) draws.
    const double log_q = std::log1p(-p);
    std::uint64_t k = 0;
    double sum = 0.0;
    for (;;) {
      sum += std::floor(std::log(uniform_open0()) / log_q) + 1.0;
      if (sum > static_cast<double>(n)) break;
      ++k;
    }
    return k;
  }
  const double mean = static_cast<double>(n) * p;
  const double sd = std::sqrt(mean * (1.0 - p));
  const double x = std::floor(mean + sd * normal() + 0.5);
  if (x < 0) return 0;
  if (x > static_cast<double>(n)) return n;
  return static_cast<std::uint64_t>(x);
}

}  // namespace clustersim
