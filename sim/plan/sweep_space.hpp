// The points of a sweep: the cartesian product of its axes (first axis slowest, last fastest) or, with
// `zip`, the i-th value of every axis together. Point indices are 0..size()-1 in that order and are the
// identity of a row in every output, shard and merge.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/config/override.hpp"
#include "sim/plan/vary_spec.hpp"

namespace clustersim::plan {

/// `--shard i/n`: the points whose index % n == i.
struct Shard {
  std::uint64_t index = 0;  // i, 0 <= i < n
  std::uint64_t count = 1;  // n >= 1
  [[nodiscard]] bool contains(std::uint64_t point) const { return point % count == index; }
};

/// Parses "i/n". Throws ConfigError (file "<--shard>") unless 0 <= i < n.
Shard parse_shard(std::string_view text);

class SweepSpace {
 public:
  static constexpr std::size_t kMaxAxes = 64;

  /// Throws ConfigError (file "<--vary>") when there are no axes, two axes share a pointer, there are more than kMaxAxes axes, `zip` axes have
  /// different lengths, or the product exceeds 2^53 points.
  SweepSpace(std::vector<VarySpec> axes, bool zip);

  [[nodiscard]] std::uint64_t size() const { return size_; }
  [[nodiscard]] const std::vector<VarySpec>& axes() const { return axes_; }
  [[nodiscard]] bool zip() const { return zip_; }

  /// The value index of every axis at point `index` (< size()).
  void value_indices(std::uint64_t index, std::span<std::size_t> out) const;

  /// The overrides of point `index`, one per axis in axis order; `out` is resized to axes().size() and
  /// its strings reuse their capacity (no allocation in the steady state).
  void overrides_at(std::uint64_t index, std::vector<config::Override>& out) const;

 private:
  std::vector<VarySpec> axes_;
  bool zip_ = false;
  std::uint64_t size_ = 0;
};

}  // namespace clustersim::plan
