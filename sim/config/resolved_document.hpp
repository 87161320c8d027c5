// An experiment document with every catalog reference replaced by the referenced object.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/provenance.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim::config {

struct FrameworkProfile;

/// A problem found while resolving or overriding; `at` is the resolved pointer whose value it spoils.
struct DocumentProblem {
  std::string at;
  Diagnostic diagnostic;
};

struct ResolvedDocument {
  nlohmann::json document;                // the experiment, references spliced in
  Provenance origin;                      // file + pointer of every value
  std::vector<DocumentProblem> problems;  // unknown names, missing files, bad --set; reported by build()
  // The framework profile the experiment names (`"profile"`), and the document before it filled the keys
  // the experiment leaves out. A build with overrides starts again from `unprofiled`, applies the
  // overrides, then the profile: its rules (sequence parallelism with TP > 1, the schedule with PP > 1,
  // FP8-only keys...) see the point's values, and a key the profile filled never contradicts a --set.
  std::shared_ptr<const FrameworkProfile> profile;
  std::shared_ptr<const nlohmann::json> unprofiled;
};

}  // namespace clustersim::config
