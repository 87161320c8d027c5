// Shared state while one resolved document is read: where values came from and what went wrong.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/config/provenance.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim::config {

class Catalog;

class ReadContext {
 public:
  /// `catalog` (may be null) gives section readers cached access to catalog files: a reader that needs
  /// data files should load them through it, so that sweeps do not re-read files for every point.
  ReadContext(const Provenance& origin, Diagnostics& diagnostics, Catalog* catalog = nullptr)
      : origin_(origin), diagnostics_(diagnostics), catalog_(catalog) {}

  /// Records a problem with the value at `resolved_pointer`, reported against the file it came from.
  void error(std::string_view resolved_pointer, std::string message);

  /// Records a problem found earlier (while resolving) that spoils the value at `resolved_pointer`.
  void record(Diagnostic diagnostic, std::string resolved_pointer);

  /// True when a problem was recorded at `resolved_pointer` or at one of its ancestors. Cross-field
  /// checks use it to stay quiet about values that already failed on their own.
  [[nodiscard]] bool failed(std::string_view resolved_pointer) const;
  /// True when a problem was recorded at `resolved_pointer`, an ancestor or a descendant of it.
  [[nodiscard]] bool failed_at_or_below(std::string_view resolved_pointer) const;

  [[nodiscard]] const Provenance& origin() const { return origin_; }
  [[nodiscard]] Diagnostics& diagnostics() { return diagnostics_; }
  /// The loader's catalog (parsed files are cached), or nullptr when reading without one.
  [[nodiscard]] Catalog* catalog() const { return catalog_; }

 private:
  const Provenance& origin_;
  Diagnostics& diagnostics_;
  Catalog* catalog_;
  std::vector<std::string> failed_;  // resolved pointers with a recorded problem
};

}  // namespace clustersim::config
