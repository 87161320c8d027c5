#include "models/device.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace clustersim {

FlopsPerSecond DeviceSpec::peak_for(Precision p) const {
  auto it = peak.find(p);
  if (it == peak.end()) {
    throw std::out_of_range(fmt::format("device {} has no {} peak in its catalog entry", name, to_string(p)));
  }
  return it->second;
}

}  // namespace clustersim
