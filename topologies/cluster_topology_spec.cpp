#include "topologies/cluster_topology_spec.hpp"

#include <array>
#include <string>
#include <utility>

namespace clustersim {

namespace {
constexpr std::array<std::pair<NetworkKind, std::string_view>, 4> kNames = {{
    {NetworkKind::none, "single-node"},
    {NetworkKind::fat_tree, "fat-tree"},
    {NetworkKind::torus, "torus"},
    {NetworkKind::dragonfly, "dragonfly"},
}};

void append(std::vector<Diagnostic>& out, std::vector<Diagnostic> more) {
  for (Diagnostic& d : more) out.push_back(std::move(d));
}
}  // namespace

std::string_view to_string(NetworkKind k) {
  for (const auto& [kind, name] : kNames) {
    if (kind == k) return name;
  }
  return "?";
}

std::optional<NetworkKind> network_kind_from_string(std::string_view s) {
  for (const auto& [kind, name] : kNames) {
    if (name == s) return kind;
  }
  return std::nullopt;
}

std::vector<Diagnostic> ClusterTopologySpec::validate() const {
  std::vector<Diagnostic> out;
  if (nodes < 1) {
    out.push_back({"", "/nodes", "must be >= 1, got " + std::to_string(nodes)});
    return out;
  }
  append(out, node.validate(nodes));
  if (node.devices_per_node < 1) return out;
  if (static_cast<long long>(nodes) * node.devices_per_node > 1LL << 30) {
    out.push_back({"", "/nodes", "more than 2^30 devices are not supported"});
    return out;
  }
  switch (network) {
    case NetworkKind::none: {
      // Without a network every device pair must share an NVLink domain, or (one node) a single NIC.
      const bool one_domain = node.fabric_domain_devices() >= devices();
      const bool shared_nic = nodes == 1 && node.nics == 1;
      if (devices() > 1 && !one_domain && !shared_nic) {
        out.push_back({"", "/network/topology",
                       std::to_string(nodes) + " nodes of " + std::to_string(node.devices_per_node) +
                           " devices are not one NVLink domain; describe their scale-out network "
                           "(\"fat-tree\", \"torus\" or \"dragonfly\")"});
      }
      break;
    }
    case NetworkKind::fat_tree:
      append(out, fat_tree.validate(nodes, node.nics));
      break;
    case NetworkKind::torus:
      append(out, torus.validate(devices(), node.kind == NodeFabricKind::none, node.nics));
      break;
    case NetworkKind::dragonfly:
      append(out, dragonfly.validate(nodes, node.nics));
      break;
  }
  return out;
}

}  // namespace clustersim
