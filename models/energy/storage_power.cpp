#include "models/energy/storage_power.hpp"

#include <fmt/format.h>

#include <cmath>

namespace clustersim {

std::vector<Diagnostic> StoragePower::validate(const std::string& pointer) const {
  std::vector<Diagnostic> out;
  if (!std::isfinite(checkpoint_io.value()) || checkpoint_io.value() < 0.0) {
    out.push_back({"", pointer + "/checkpoint_io",
                   fmt::format("storage power during checkpoint I/O must not be negative, got {} W",
                               checkpoint_io.value())});
  }
  return out;
}

}  // namespace clustersim
