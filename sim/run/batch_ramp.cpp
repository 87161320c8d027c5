#include "sim/run/batch_ramp.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/diagnostics.hpp"

namespace clustersim::run {
namespace {

constexpr double kMaxSteps = 9.0e15;

struct Rule {
  const BatchRampup& r;
  std::int64_t global;
  std::int64_t increments;  // n
  double per;               // samples per increment, as Megatron's float

  // Megatron's level: n past the ramp, int(consumed / per) within it (0 <= level <= n).
  [[nodiscard]] std::int64_t level(std::int64_t consumed) const {
    if (consumed > r.samples) return increments;
    const auto k = static_cast<std::int64_t>(static_cast<double>(consumed) / per);
    return std::min(k, increments);
  }
};

void check(const BatchRampup& r, std::int64_t global) {
  CS_ASSERT(r.start > 0 && r.start <= global && r.increment > 0 && (global - r.start) % r.increment == 0 &&
                r.samples > 0,
            "batch ramp checked by sim/config");
}

}  // namespace

std::int64_t rampup_batch(const BatchRampup& ramp, std::int64_t global, std::int64_t consumed) {
  check(ramp, global);
  CS_ASSERT(consumed >= 0, "consumed sequences are not negative");
  const std::int64_t n = (global - ramp.start) / ramp.increment;
  if (n == 0) return global;
  const Rule rule{ramp, global, n, static_cast<double>(ramp.samples) / static_cast<double>(n)};
  return ramp.start + rule.level(consumed) * ramp.increment;
}

std::vector<BatchSegment> batch_schedule(const std::optional<BatchRampup>& ramp, std::int64_t global, int seq_len,
                                         std::optional<double> tokens, std::optional<std::int64_t> steps) {
  CS_ASSERT(tokens.has_value() != steps.has_value(), "exactly one of tokens and steps");
  CS_ASSERT(global > 0 && seq_len > 0, "positive batch and sequence length");
  const double seq = seq_len;
  std::vector<BatchSegment> out;
  std::int64_t consumed = 0;  // sequences
  std::int64_t done = 0;      // steps
  const auto finished = [&](std::int64_t c, std::int64_t s) {
    return tokens ? static_cast<double>(c) * seq >= *tokens : s >= *steps;
  };
  if (ramp && ramp->start < global) {
    check(*ramp, global);
    const std::int64_t n = (global - ramp->start) / ramp->increment;
    const Rule rule{*ramp, global, n, static_cast<double>(ramp->samples) / static_cast<double>(n)};
    while (!finished(consumed, done)) {
      const std::int64_t k = rule.level(consumed);
      if (k >= n) break;  // the final batch from here on
      const std::int64_t b = ramp->start + k * ramp->increment;
      // Steps at this level: the first m >= 1 with level(consumed + m·b) != k, from an estimate corrected
      // by the exact rule (the level is non-decreasing in the consumed count).
      const double boundary = std::min(static_cast<double>(k + 1) * rule.per, static_cast<double>(ramp->samples) + 1.0);
      std::int64_t m = std::max<std::int64_t>(
          1, static_cast<std::int64_t>(std::ceil((boundary - static_cast<double>(consumed)) / static_cast<double>(b))));
      while (m > 1 && rule.level(consumed + (m - 1) * b) != k) --m;
      while (rule.level(consumed + m * b) == k) ++m;
      // The run may end inside the level.
      if (tokens) {
        const double left = *tokens / seq - static_cast<double>(consumed);
        const double need = std::ceil(left / static_cast<double>(b));
        if (need < static_cast<double>(m)) {
          std::int64_t t = std::max<std::int64_t>(1, static_cast<std::int64_t>(need));
          while (t > 1 && finished(consumed + (t - 1) * b, 0)) --t;
          while (!finished(consumed + t * b, 0)) ++t;
          m = std::min(m, t);
        }
      } else {
        m = std::min(m, *steps - done);
      }
      out.push_back({b, m});
      consumed += m * b;
      done += m;
    }
  }
  if (!finished(consumed, done)) {
    std::int64_t m = 0;
    if (tokens) {
      const double left = *tokens - static_cast<double>(consumed) * seq;
      // Runs of more than 9e15 steps are refused by the run plan (validate_against_job); clamp before the
      // conversion so that such a run reaches that message.
      const double need = std::ceil(left / (static_cast<double>(global) * seq));
      m = need > kMaxSteps ? static_cast<std::int64_t>(kMaxSteps) + 1 : static_cast<std::int64_t>(need);
    } else {
      m = *steps - done;
    }
    if (m > 0) out.push_back({global, m});
  }
  return out;
}

}  // namespace clustersim::run
