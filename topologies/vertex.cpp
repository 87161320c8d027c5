#include "topologies/vertex.hpp"

namespace clustersim {

std::string_view to_string(VertexKind k) {
  switch (k) {
    case VertexKind::device:
      return "device";
    case VertexKind::nic:
      return "nic";
    case VertexKind::network_switch:
      return "switch";
  }
  return "?";
}

std::string_view to_string(SwitchRole r) {
  switch (r) {
    case SwitchRole::none:
      return "none";
    case SwitchRole::nvswitch:
      return "nvswitch";
    case SwitchRole::pcie_switch:
      return "pcie_switch";
    case SwitchRole::leaf:
      return "leaf";
    case SwitchRole::spine:
      return "spine";
    case SwitchRole::core:
      return "core";
    case SwitchRole::router:
      return "router";
  }
  return "?";
}

}  // namespace clustersim
