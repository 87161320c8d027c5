// One evaluated sweep point and the column layout shared by every row of a sweep output.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace clustersim::plan {

/// Outcome of a point: "ok"; "infeasible" (valid input, but the memory per device does not fit);
/// "invalid" (the point's input is rejected by the config layer, e.g. tp does not divide the heads);
/// "error" (an internal error while evaluating the point; a bug to report).
enum class RowStatus { ok, infeasible, invalid, error };
const char* to_string(RowStatus s);

struct SweepRow {
  std::uint64_t index = 0;
  RowStatus status = RowStatus::ok;
  std::string reason;  // one line; empty when ok
  /// Scalar report metrics (prediction_json without the echoed inputs and `stages`), flattened to
  /// dotted keys, sorted by key. Present for ok and infeasible rows.
  std::vector<std::pair<std::string, nlohmann::json>> metrics;
};

/// Columns of a sweep output: "index", the varied pointers (in --vary order), "status", "reason", then the
/// metric keys (sorted). Fixed before the first row is written.
struct RowSchema {
  std::vector<std::string> inputs;   // varied pointers
  std::vector<std::string> metrics;  // sorted dotted keys
  [[nodiscard]] std::vector<std::string> columns() const;
};

}  // namespace clustersim::plan
