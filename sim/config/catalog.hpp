// Catalog lookup: named devices, nodes, clusters, models and experiments stored as JSON files.
//
// A catalog root is a directory holding one sub-directory per kind (`devices/`, `nodes/`, `clusters/`,
// `models/`, `experiments/`); entry `name` of kind `k` is the file `<root>/<k>/<name>.json`. Roots are
// searched in the order given, so a user directory placed first overrides the bundled `configs/`. The
// library never guesses where configs/ is: the caller (CLI, tests) passes the roots.
//
// A reference string is a path when it contains '/' or ends in ".json" (relative paths resolve against the
// directory of the file in which the reference is written), and a catalog name otherwise.
//
// Not thread-safe: parsed files are cached; use one Catalog per thread.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

namespace clustersim::config {

enum class CatalogKind { devices, nodes, clusters, models, experiments };

/// Directory name of a kind ("devices", ...).
std::string_view to_string(CatalogKind kind);
/// Singular noun for messages ("device", ...).
std::string_view singular(CatalogKind kind);

struct CatalogPaths {
  std::vector<std::filesystem::path> roots;  // each holds devices/, nodes/, clusters/, models/, experiments/
};

class Catalog {
 public:
  explicit Catalog(CatalogPaths paths);

  /// True when `reference` is a file path rather than a catalog name.
  static bool is_path_reference(std::string_view reference);

  /// The file of catalog entry `name`, from the first root that has it.
  [[nodiscard]] std::optional<std::filesystem::path> find(CatalogKind kind, std::string_view name) const;

  /// All entry names of a kind over every root, sorted and without duplicates.
  [[nodiscard]] std::vector<std::string> names(CatalogKind kind) const;

  /// Resolves a reference (catalog name, or path relative to `base_dir`) to an existing file.
  /// Throws std::invalid_argument with a user-facing message (unknown name with close matches, missing
  /// file) that the caller attaches to the location of the reference.
  [[nodiscard]] std::filesystem::path resolve(CatalogKind kind, std::string_view reference,
                                              const std::filesystem::path& base_dir) const;

  /// The parsed content of `file`, cached. Throws ConfigError (missing file, syntax error).
  const nlohmann::json& load(const std::filesystem::path& file);
  /// The content load() already parsed for exactly this path (as given), else nullptr; no file system access.
  [[nodiscard]] const nlohmann::json* loaded(const std::filesystem::path& file) const;

  [[nodiscard]] const CatalogPaths& paths() const { return paths_; }

  /// A slot, by tag, for values derived from the files this catalog parsed (the energy defaults of a
  /// device and node, sim/config/energy_section.cpp): it lives exactly as long as the parse cache, so a
  /// derived value never outlives the parsed content it came from. A copy of the catalog starts empty.
  std::shared_ptr<void>& derived(std::string_view tag);

 private:
  struct Derived {
    std::map<std::string, std::shared_ptr<void>, std::less<>> slots;
    Derived() = default;
    Derived(const Derived&) {}
    Derived(Derived&&) noexcept = default;
    Derived& operator=(const Derived&) {
      slots.clear();
      return *this;
    }
    Derived& operator=(Derived&&) noexcept = default;
    ~Derived() = default;
  };
  Derived derived_;
  CatalogPaths paths_;
  std::map<std::string, nlohmann::json, std::less<>> cache_;
  std::map<std::string, const nlohmann::json*, std::less<>> by_given_path_;  // load()'s argument as given
  // find()'s answers: a catalog is read for one command, so an entry's file is looked up once (sweeps and
  // plans resolve the same names at every point). Shared by copies; guarded for concurrent const use.
  struct Found {
    std::mutex mutex;
    std::map<std::string, std::optional<std::filesystem::path>, std::less<>> files;
  };
  std::shared_ptr<Found> found_ = std::make_shared<Found>();
};

}  // namespace clustersim::config
