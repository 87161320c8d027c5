// One `--vary POINTER=VALUES` axis of a sweep: a JSON pointer into the resolved experiment and the values
// it takes, in order.
//
// VALUES grammar (docs/planning.md):
//   list        a,b,c              any text; each item is an override value (JSON if it parses, else a
//                                  string), e.g. 1,2,4,8 or none,selective,full or "40 GiB","80 GiB"
//   geometric   LO..HI:xF          LO, LO·F, LO·F², ... while <= HI (F > 1), e.g. 64..1024:x2
//   arithmetic  LO..HI:+D | LO..HI LO, LO+D, ... while <= HI (D > 0, default 1), e.g. 1..8:+1
//   with a unit  RANGE UNIT        each value gets the unit, e.g. 100..400:+100 Gb/s → "100 Gb/s", ...
// Ranges are over numbers (integers print without a decimal point). A list item may be double-quoted to
// hold a comma ("a,b"). Invalid specs throw ConfigError with file "<--vary>" and the spec's pointer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clustersim::plan {

struct VarySpec {
  std::string pointer;              // RFC 6901, starts with '/'
  std::vector<std::string> values;  // override texts, at least one
};

/// Parses "POINTER=VALUES". Throws ConfigError (file "<--vary>") on: no '=', a pointer not starting with
/// '/', an empty value list or item, a range whose bounds or step are not numbers, an empty range
/// (LO > HI), a step <= 0 or a factor <= 1, or more than kMaxAxisValues values.
VarySpec parse_vary(std::string_view text);

/// Upper bound on the values of one axis (guards against typos like 1..1e12).
inline constexpr std::size_t kMaxAxisValues = 10'000'000;

/// Diagnostics label for --vary problems.
inline constexpr std::string_view kVaryLabel = "<--vary>";

}  // namespace clustersim::plan
