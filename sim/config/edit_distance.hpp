// "Did you mean" suggestions for unknown keys, enum values and catalog names.
//
// Distance is the Levenshtein edit distance (insertions, deletions, substitutions, each cost 1;
// Levenshtein 1966). A candidate is "close" when its distance is at most max(2, |word| / 3), or when one
// string contains the other (so "a100" suggests "a100-sxm4-80gb").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::config {

/// Levenshtein distance between `a` and `b` (byte-wise).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// Up to `limit` candidates close to `word`, closest first (ties keep the candidates' order).
std::vector<std::string> close_matches(std::string_view word, const std::vector<std::string_view>& candidates,
                                       std::size_t limit = 3);

/// ` (did you mean "x"?)` / ` (did you mean "x" or "y"?)`, or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates);

/// `"a", "b", "c"` — for messages that list the allowed values.
std::string quoted_list(const std::vector<std::string_view>& items);

}  // namespace clustersim::config
