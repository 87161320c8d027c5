// `clustersim validate`: predictions against measured runs, with relative errors per split and source.
//
// Each predicted record gives one row: its primary measured quantity (the first the record states, in
// the order step_time_s, tokens_per_s_per_gpu, tokens_per_s, samples_per_s, tflops_per_gpu (model, then
// hardware basis), mfu, hfu) against the same quantity predicted by the analytic engine.
// rel_error = (predicted − measured) / measured. Summaries give mean and max |rel_error| per
// (split, source group) and per split. Whole-run energy records are an arithmetic check of the
// Patterson formula on the record's own inputs, reported apart and never counted as accuracy.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/catalog.hpp"
#include "sim/config/override.hpp"
#include "sim/config/reference_runs.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim {

struct ValidationRow {
  std::string id;
  std::string group;
  std::string split;
  std::string metric;
  double measured = 0;
  double predicted = 0;
  double rel_error = 0;
  // Memory: the predicted per-device peak of the fullest stage against the device's capacity. A published
  // run ran, so `fits_memory == false` says the memory model (or the record's reading) is off for it.
  bool fits_memory = true;
  double memory_bytes = 0;
  double capacity_bytes = 0;
};

/// The configuration a predicted record ran (for the planner's trusted region, sim/plan/trust_region.hpp).
struct ValidatedConfig {
  std::string device;     // device catalog name, e.g. "a100-sxm4-80gb"
  std::string precision;  // "bf16", "fp16", "fp8", ...
  int devices = 0;
  ParallelismSpec parallelism;
};

struct ValidationSummary {
  std::string split;
  std::string group;  // "" for the whole split
  int rows = 0;
  double mean_abs_error = 0;
  double max_abs_error = 0;
};

struct ValidationResult {
  std::vector<ValidationRow> rows;
  std::vector<ValidatedConfig> configs;  // one per row, same order
  std::vector<config::ReferenceSkip> skipped;
  std::vector<std::pair<std::string, std::vector<std::string>>> assumptions;  // id -> stated defaults
  std::vector<std::pair<std::string, std::string>> profiles;                  // id -> profile used
  std::vector<ValidationRow> arithmetic;  // energy records: formula on the record's own inputs
  std::vector<config::ReferenceSkip> arithmetic_skipped;

  /// Per source group of `split`, sorted by group.
  [[nodiscard]] std::vector<ValidationSummary> summaries(const std::string& split) const;
  /// The whole split.
  [[nodiscard]] ValidationSummary overall(const std::string& split) const;
  [[nodiscard]] double max_abs_error() const;
};

/// The step-level records of `file`; with `default_corpus`, also the mixture-of-experts records of
/// moe_runs.json beside it (the repository's corpus is both files).
config::ReferenceSet read_corpus(const std::filesystem::path& file, const config::CatalogPaths& paths,
                                 bool default_corpus);

/// Predicts every case of `split` ("test", "calibration" or "all") with the analytic engine. A case whose
/// experiment fails validation becomes a skip with the diagnostic as reason.
ValidationResult run_validation(const config::ReferenceSet& set, const config::CatalogPaths& paths,
                                const std::string& split = "all");

/// Appends the arithmetic check of the whole-run energy records of `file` (docs/validation.md).
void add_energy_arithmetic(ValidationResult& r, const std::filesystem::path& file,
                           const config::CatalogPaths& paths);

/// The overrides a record's experiment is built with (a job smaller than a node, an NVLink domain the job
/// spans only in part): predict_case applies them, `validate --experiment` prints them as --set options.
std::vector<config::Override> case_overrides(const config::ReferenceCase& c);

/// `validate --experiment ID` (and the Python record_experiment): the case of record `id`. Throws
/// ConfigError naming `file` for an unknown id (close ids suggested) or a skipped one (its reason).
/// `origin_file` / `origin_pointer` locate an unknown id (the option or argument that named it).
const config::ReferenceCase& find_case(const config::ReferenceSet& set, const std::string& id,
                                       const std::string& origin_file, const std::string& origin_pointer);

nlohmann::json validation_json(const ValidationResult& r);
std::string validation_text(const ValidationResult& r);

}  // namespace clustersim
