#include "models/energy/node_power.hpp"

#include <fmt/format.h>

#include <cmath>

namespace clustersim {

std::vector<Diagnostic> NodePower::validate(const std::string& pointer) const {
  std::vector<Diagnostic> out;
  if (!std::isfinite(host.value()) || host.value() < 0.0) {
    out.push_back(
        {"", pointer + "/host", fmt::format("host power must not be negative, got {} W", host.value())});
  }
  if (!std::isfinite(nic.value()) || nic.value() < 0.0) {
    out.push_back(
        {"", pointer + "/nic", fmt::format("NIC power must not be negative, got {} W", nic.value())});
  }
  if (nics < 0) {
    out.push_back({"", pointer + "/nics", fmt::format("NICs per node must be >= 0, got {}", nics)});
  }
  return out;
}

}  // namespace clustersim
