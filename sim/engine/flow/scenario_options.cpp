#include "sim/engine/flow/scenario_options.hpp"

#include <fmt/format.h>

namespace clustersim::flow {

std::string link_name(const LinkSlowdown& l) {
  switch (l.kind) {
    case SlowLinkKind::nvlink:
      return fmt::format("n{}.nvl{}", l.node, l.index);
    case SlowLinkKind::nic:
      return fmt::format("n{}.nic{}", l.node, l.index);
    case SlowLinkKind::leaf_uplink:
      return fmt::format("leaf{}.up", l.leaf);
    case SlowLinkKind::named:
      return l.name;
  }
  return "?";
}

FlowOptions flow_options_for(const Scenario& s, FlowOptions base) {
  base.leaf_nodes = s.flow.leaf_nodes;
  base.symmetry_reduction = s.flow.symmetry_reduction;
  base.flow_classes = s.flow.flow_classes;
  for (const DeviceSlowdown& d : s.stragglers.devices) base.slow_devices.push_back({d.device, d.speed});
  for (const LinkSlowdown& l : s.stragglers.links) {
    base.slow_links.push_back({link_name(l), l.factor, l.file, l.file_pointer});
  }
  return base;
}

}  // namespace clustersim::flow
