// One vertex of a TopologyGraph: a device (accelerator), a NIC, or a switch with its role and tier.
//
// Vertex ids are dense and deterministic: devices first (id == global rank, node-major: node i holds
// devices i*g .. i*g+g-1), then NICs (node-major), then node-level switches (NVSwitch / PCIe switch, one
// per NVLink domain or node), then network switches by tier (leaves, spines, cores) or dragonfly
// routers (group-major).
#pragma once

#include <cstdint>
#include <string_view>

namespace clustersim {

enum class VertexKind : std::uint8_t { device, nic, network_switch };

enum class SwitchRole : std::uint8_t {
  none,         // not a switch
  nvswitch,     // logical NVSwitch of an NVLink domain (DGX node or NVL72 rack)
  pcie_switch,  // PCIe switch of a PCIe-only node
  leaf,         // fat-tree tier 1 (ToR / rail switch)
  spine,        // fat-tree tier 2 (aggregation)
  core,         // fat-tree tier 3
  router,       // dragonfly router
};

/// Tier of a vertex: 0 for devices and NICs, 1 for node switches, leaves and dragonfly routers,
/// 2 for spines, 3 for cores.
struct Vertex {
  VertexKind kind = VertexKind::device;
  SwitchRole role = SwitchRole::none;
  std::int8_t tier = 0;
  std::int32_t node = -1;  // owning node for devices and NICs, first node of the domain for node switches
  std::int32_t index = 0;  // rank among vertices of the same kind and role (device rank, NIC number, ...)
  // device: NVLink domain; NIC: rail (rail-optimized); leaf: rail (rail-optimized) or pod; spine: pod;
  // core: plane; router: dragonfly group; node switch: its domain; -1 if none.
  std::int32_t group = -1;
};

std::string_view to_string(VertexKind k);
std::string_view to_string(SwitchRole r);

}  // namespace clustersim
