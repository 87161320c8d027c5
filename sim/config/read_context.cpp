#include "sim/config/read_context.hpp"

#include <algorithm>

namespace clustersim::config {

void ReadContext::error(std::string_view resolved_pointer, std::string message) {
  auto where = origin_.locate(resolved_pointer);
  diagnostics_.add(std::move(where.file), std::move(where.pointer), std::move(message));
  failed_.emplace_back(resolved_pointer);
}

void ReadContext::record(Diagnostic diagnostic, std::string resolved_pointer) {
  diagnostics_.add(std::move(diagnostic));
  failed_.push_back(std::move(resolved_pointer));
}

bool ReadContext::failed(std::string_view resolved_pointer) const {
  return std::any_of(failed_.begin(), failed_.end(),
                     [&](const std::string& f) { return pointer_within(resolved_pointer, f); });
}

bool ReadContext::failed_at_or_below(std::string_view resolved_pointer) const {
  return std::any_of(failed_.begin(), failed_.end(), [&](const std::string& f) {
    return pointer_within(resolved_pointer, f) || pointer_within(f, resolved_pointer);
  });
}

}  // namespace clustersim::config
