// An experiment document with every catalog reference replaced by the referenced object.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/provenance.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim::config {

/// A problem found while resolving or overriding; `at` is the resolved pointer whose value it spoils.
struct DocumentProblem {
  std::string at;
  Diagnostic diagnostic;
};

struct ResolvedDocument {
  nlohmann::json document;                // the experiment, references spliced in
  Provenance origin;                      // file + pointer of every value
  std::vector<DocumentProblem> problems;  // unknown names, missing files, bad --set; reported by build()
};

}  // namespace clustersim::config
