#include "paths.hpp"

#include <cstdlib>
#include <system_error>

namespace clustersim::cli {
namespace fs = std::filesystem;
namespace {

fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

// The repository root: the nearest ancestor of the executable (or of the working directory) that holds
// configs/devices.
std::optional<fs::path> repository_root() {
  for (const fs::path& start : {executable_dir(), fs::current_path()}) {
    for (fs::path p = start; !p.empty(); p = p.parent_path()) {
      if (fs::is_directory(p / "configs" / "devices")) return p;
      if (p == p.parent_path()) break;
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<fs::path> catalog_roots(const std::vector<std::string>& user_dirs) {
  std::vector<fs::path> roots(user_dirs.begin(), user_dirs.end());
  if (const char* env = std::getenv("CLUSTERSIM_CONFIGS"); env != nullptr && *env != '\0') roots.emplace_back(env);
  const fs::path installed = executable_dir().parent_path() / "share" / "clustersim" / "configs";
  if (fs::is_directory(installed)) roots.push_back(installed);
  if (auto root = repository_root()) roots.push_back(*root / "configs");
  return roots;
}

std::optional<fs::path> default_reference_file() {
  if (const char* env = std::getenv("CLUSTERSIM_REFERENCE"); env != nullptr && *env != '\0') return fs::path(env);
  if (auto root = repository_root()) {
    for (const fs::path& p : {root->parent_path() / "shared" / "reference" / "published_runs.json",
                              *root / "shared" / "reference" / "published_runs.json"}) {
      if (fs::exists(p)) return p;
    }
  }
  return std::nullopt;
}

}  // namespace clustersim::cli
