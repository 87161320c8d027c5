// Where the CLI finds the bundled catalogs and the reference runs.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

namespace clustersim::cli {

/// Catalog roots: each --configs DIR given, then $CLUSTERSIM_CONFIGS, then the first `configs/` found
/// walking up from the executable (build tree) or `<prefix>/share/clustersim/configs` (installed).
std::vector<std::filesystem::path> catalog_roots(const std::vector<std::string>& user_dirs);

/// Default published-runs file: $CLUSTERSIM_REFERENCE, else `shared/reference/published_runs.json` in the
/// repository's parent or the repository itself.
std::optional<std::filesystem::path> default_reference_file();

}  // namespace clustersim::cli
