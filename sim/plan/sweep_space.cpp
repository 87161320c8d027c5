#include "sim/plan/sweep_space.hpp"

#include <fmt/format.h>

#include <charconv>

#include "sim/core/diagnostics.hpp"

namespace clustersim::plan {
namespace {

bool parse_u64(std::string_view text, std::uint64_t& v) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

Shard parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  Shard s;
  if (slash == std::string_view::npos || !parse_u64(text.substr(0, slash), s.index) ||
      !parse_u64(text.substr(slash + 1), s.count) || s.count == 0 || s.index >= s.count) {
    throw ConfigError("<--shard>", "", fmt::format("\"{}\" is not i/n with 0 <= i < n (e.g. 0/4)", text));
  }
  return s;
}

SweepSpace::SweepSpace(std::vector<VarySpec> axes, bool zip) : axes_(std::move(axes)), zip_(zip) {
  const std::string label(kVaryLabel);
  if (axes_.empty()) throw ConfigError(label, "", "a sweep needs at least one --vary POINTER=VALUES");
  if (axes_.size() > kMaxAxes) throw ConfigError(label, "", fmt::format("a sweep has at most {} axes", kMaxAxes));
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    CS_ASSERT(!axes_[i].values.empty(), "parse_vary never returns an empty axis");
    for (std::size_t j = 0; j < i; ++j) {
      if (axes_[i].pointer == axes_[j].pointer) throw ConfigError(label, axes_[i].pointer, "varied twice");
    }
  }
  if (zip_) {
    for (const VarySpec& a : axes_) {
      if (a.values.size() != axes_.front().values.size()) {
        throw ConfigError(label, a.pointer,
                          fmt::format("--zip needs axes of equal length: {} has {} values, {} has {}", a.pointer,
                                      a.values.size(), axes_.front().pointer, axes_.front().values.size()));
      }
    }
    size_ = axes_.front().values.size();
    return;
  }
  constexpr std::uint64_t kMax = std::uint64_t{1} << 53;
  size_ = 1;
  for (const VarySpec& a : axes_) {
    if (size_ > kMax / a.values.size()) throw ConfigError(label, a.pointer, "the sweep has more than 2^53 points");
    size_ *= a.values.size();
  }
}

void SweepSpace::value_indices(std::uint64_t index, std::span<std::size_t> out) const {
  CS_ASSERT(index < size_ && out.size() == axes_.size(), "point index out of range");
  if (zip_) {
    for (auto& o : out) o = static_cast<std::size_t>(index);
    return;
  }
  for (std::size_t a = axes_.size(); a-- > 0;) {
    const std::uint64_t n = axes_[a].values.size();
    out[a] = static_cast<std::size_t>(index % n);
    index /= n;
  }
}

void SweepSpace::overrides_at(std::uint64_t index, std::vector<config::Override>& out) const {
  out.resize(axes_.size());
  std::size_t idx[kMaxAxes];
  value_indices(index, std::span<std::size_t>(idx, axes_.size()));
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    out[a].pointer.assign(axes_[a].pointer);
    out[a].value.assign(axes_[a].values[idx[a]]);
  }
}

}  // namespace clustersim::plan
