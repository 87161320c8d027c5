// Reads published-run records (record format v2, docs/validation.md) and turns each into an experiment
// document that the normal configuration path validates.
//
// Records are read strictly (sim/config/object_reader.hpp): a wrong type or an unknown key is a
// ConfigError with file and JSON pointer. A value the record leaves unstated comes from the framework
// profile its `framework.name` + `framework.date` select (configs/profiles/), from the catalog model it
// names (`model.catalog`, or `model.catalog_hint` when a catalog entry has that exact name), or from the
// node catalog entry of its accelerator (configs/reference/accelerators.json); each such value is listed
// in the case's `assumptions`. No value is ever chosen from citation text, notes, source or id.
// Records the simulator cannot express are returned as skips with a reason naming what is missing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/catalog.hpp"

namespace clustersim::config {

/// The quantity a record states, predicted the same way (docs/validation.md, "Metrics").
struct MeasuredMetric {
  std::string name;  // step_time_s | tokens_per_s_per_gpu | tokens_per_s | samples_per_s |
                     // tflops_per_gpu_model | tflops_per_gpu_hardware | mfu | hfu
  double value = 0;
  std::optional<double> peak_tflops;  // mfu/hfu: the peak the source divided by, when stated
};

struct ReferenceCase {
  std::string id;
  std::string group;  // source_group
  std::string split;  // calibration | test
  std::string citation;
  std::string file;                              // the corpus file and the record's pointer in it
  std::string pointer;
  std::string profile;                           // framework profile used ("" = none)
  nlohmann::json experiment;                     // experiment document (catalog names for the node)
  std::optional<int> devices_per_node_override;  // jobs smaller than one node
  std::optional<int> domain_devices_override;    // NVLink domain the job actually spans (NVL72 racks)
  std::vector<std::string> assumptions;
  std::vector<MeasuredMetric> metrics;  // primary metric first
  double samples_per_step = 0;
  double tokens_per_step = 0;
  int devices = 0;
};

struct ReferenceSkip {
  std::string id;
  std::string group;
  std::string split;
  std::string reason;
  std::string file;     // the corpus file and the record's pointer in it ("" when not from a file)
  std::string pointer;
};

struct ReferenceSet {
  std::vector<ReferenceCase> cases;
  std::vector<ReferenceSkip> skipped;
  std::size_t records = 0;
};

/// Reads the file; profiles, models, nodes and reference/accelerators.json come from `paths`.
/// Throws ConfigError with every problem (file + pointer) when a record does not follow the format.
ReferenceSet read_reference_runs(const std::filesystem::path& file, const CatalogPaths& paths);

/// Same, from an already-parsed document; `label` names it in diagnostics.
ReferenceSet reference_runs_from_json(const nlohmann::json& records, const std::string& label,
                                      const CatalogPaths& paths);

}  // namespace clustersim::config
