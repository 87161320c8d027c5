// Reads measured runs in the format of shared/reference/published_runs.json and turns each record into
// an experiment document that the normal configuration path validates.
//
// Where a record leaves a field null, the framework's documented default is used and stated in
// `assumptions` (micro-batch 1, 1F1B without interleaving unless the record says interleaved, no
// sequence parallelism before Megatron-Core, ...). Records that cannot be expressed are returned as skips
// with the reason — never dropped silently.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace clustersim::config {

struct MeasuredMetric {
  std::string name;  // step_time_s | mfu | hfu | tflops_per_device | hw_tflops_per_device
  double value = 0;
};

struct ReferenceCase {
  std::string id;
  std::string group;         // source family: the id up to its first '-' (e.g. "korthikanti2022")
  std::string citation;
  nlohmann::json experiment; // experiment document (catalog names for the node)
  std::vector<std::string> assumptions;
  std::vector<MeasuredMetric> metrics;
};

struct ReferenceSkip {
  std::string id;
  std::string reason;
};

struct ReferenceSet {
  std::vector<ReferenceCase> cases;
  std::vector<ReferenceSkip> skipped;
};

/// Parses the file. Throws ConfigError (file, pointer) if it is not a JSON array of records with ids.
ReferenceSet read_reference_runs(const std::filesystem::path& file);

/// Same, from an already-parsed document; `label` names it in diagnostics.
ReferenceSet reference_runs_from_json(const nlohmann::json& records, const std::string& label);

}  // namespace clustersim::config
