// A prediction's scalar report keys as one sweep row, written straight from the typed results.
//
// The row is what flattening prediction_json(s, p, false, false) gives (scalar leaves under dotted keys,
// sorted by key; lists dropped), without building that JSON: the step keys come from step_report_fields
// and the energy keys from energy_step_fields, the same functions prediction_json reads, and the run,
// compression and heterogeneous blocks are flattened from their JSON. tests/plan/direct_row_test.cpp holds
// the two paths to the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/prediction.hpp"

namespace clustersim {

using FlatMetrics = std::vector<std::pair<std::string, nlohmann::json>>;

/// Reused across the points of a sweep (one per thread): it keeps the last point's keys and their sort
/// order, so a point with the same keys in the same order writes only values.
class PredictionRowWriter {
 public:
  /// Replaces the contents of `out` with the sorted (dotted key, value) pairs; a key equal to the one
  /// already at its position in `out` is not rewritten.
  void write(const Scenario& s, const Prediction& p, FlatMetrics& out);

 private:
  FlatMetrics emitted_;               // this point's pairs in emission order
  std::vector<std::uint32_t> order_;  // emitted_ indices in key order
};

}  // namespace clustersim
