#include "sim/config/edit_distance.hpp"

#include <algorithm>
#include <numeric>

namespace clustersim::config {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> close_matches(std::string_view word, const std::vector<std::string_view>& candidates,
                                       std::size_t limit) {
  const std::size_t threshold = std::max<std::size_t>(2, word.size() / 3);
  struct Scored {
    std::size_t distance;
    std::size_t order;
    std::string_view name;
  };
  std::vector<Scored> scored;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string_view c = candidates[i];
    if (c == word) continue;
    const std::size_t d = edit_distance(word, c);
    const bool contains = !word.empty() && (c.find(word) != std::string_view::npos ||
                                            (c.size() >= 3 && word.find(c) != std::string_view::npos));
    if (d <= threshold || contains) scored.push_back({d, i, c});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const Scored& x, const Scored& y) { return x.distance < y.distance; });
  std::vector<std::string> out;
  for (const auto& s : scored) {
    if (out.size() == limit) break;
    if (std::find(out.begin(), out.end(), s.name) == out.end()) out.emplace_back(s.name);
  }
  return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  const auto matches = close_matches(word, candidates);
  if (matches.empty()) return {};
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < matches.size(); ++i) {
    if (i > 0) out += (i + 1 == matches.size()) ? " or " : ", ";
    out += '"' + matches[i] + '"';
  }
  return out + "?)";
}

std::string quoted_list(const std::vector<std::string_view>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += '"';
    out += item;
    out += '"';
  }
  return out;
}

}  // namespace clustersim::config
