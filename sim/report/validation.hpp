// `clustersim validate`: predictions against measured runs, with relative errors per source.
//
// rel_error = (predicted − measured) / measured. Summaries give mean and max |rel_error| per
// (source group, metric).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/catalog.hpp"
#include "sim/config/reference_runs.hpp"

namespace clustersim {

struct ValidationRow {
  std::string id;
  std::string group;
  std::string metric;
  double measured = 0;
  double predicted = 0;
  double rel_error = 0;
};

struct ValidationSummary {
  std::string group;
  std::string metric;
  int rows = 0;
  double mean_abs_error = 0;
  double max_abs_error = 0;
};

struct ValidationResult {
  std::vector<ValidationRow> rows;
  std::vector<config::ReferenceSkip> skipped;
  std::vector<std::pair<std::string, std::vector<std::string>>> assumptions;  // id -> stated defaults
  [[nodiscard]] std::vector<ValidationSummary> summaries() const;
  [[nodiscard]] double max_abs_error() const;
};

/// Predicts every case with the analytic engine. A case whose experiment fails validation becomes a skip
/// with the diagnostics as reason.
ValidationResult run_validation(const config::ReferenceSet& set, const config::CatalogPaths& paths);

nlohmann::json validation_json(const ValidationResult& r);
std::string validation_text(const ValidationResult& r);

}  // namespace clustersim
