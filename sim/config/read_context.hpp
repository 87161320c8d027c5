// Shared state while one resolved document is read: where values came from and what went wrong.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/config/provenance.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim::config {

class ReadContext {
 public:
  ReadContext(const Provenance& origin, Diagnostics& diagnostics) : origin_(origin), diagnostics_(diagnostics) {}

  /// Records a problem with the value at `resolved_pointer`, reported against the file it came from.
  void error(std::string_view resolved_pointer, std::string message);

  /// Records a problem found earlier (while resolving) that spoils the value at `resolved_pointer`.
  void record(Diagnostic diagnostic, std::string resolved_pointer);

  /// True when a problem was recorded at `resolved_pointer` or at one of its ancestors. Cross-field
  /// checks use it to stay quiet about values that already failed on their own.
  [[nodiscard]] bool failed(std::string_view resolved_pointer) const;

  [[nodiscard]] const Provenance& origin() const { return origin_; }
  [[nodiscard]] Diagnostics& diagnostics() { return diagnostics_; }

 private:
  const Provenance& origin_;
  Diagnostics& diagnostics_;
  std::vector<std::string> failed_;  // resolved pointers with a recorded problem
};

}  // namespace clustersim::config
