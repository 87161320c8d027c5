#include "models/energy/device_state.hpp"

namespace clustersim {

std::string_view to_string(DeviceState s) {
  switch (s) {
    case DeviceState::idle:
      return "idle";
    case DeviceState::compute:
      return "compute";
    case DeviceState::memory:
      return "memory";
    case DeviceState::communication:
      return "communication";
    case DeviceState::waiting:
      return "waiting";
  }
  return "unknown";
}

std::optional<DeviceState> device_state_from_string(std::string_view s) {
  for (DeviceState st : kAllDeviceStates) {
    if (to_string(st) == s) return st;
  }
  return std::nullopt;
}

}  // namespace clustersim
