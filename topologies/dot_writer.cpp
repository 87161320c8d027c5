#include "topologies/dot_writer.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <ostream>
#include <vector>

#include "sim/core/unit_parse.hpp"

namespace clustersim {

namespace {

std::string_view edge_color(LinkKind k) {
  switch (k) {
    case LinkKind::nvlink:
    case LinkKind::nvswitch_port:
      return "darkgreen";
    case LinkKind::pcie:
      return "gray40";
    case LinkKind::nic_uplink:
      return "blue";
    case LinkKind::leaf_spine:
      return "purple";
    case LinkKind::spine_core:
      return "red";
    case LinkKind::torus:
      return "black";
    case LinkKind::torus_optical:
      return "orange";
    case LinkKind::dragonfly_local:
      return "purple";
    case LinkKind::dragonfly_global:
      return "red";
  }
  return "black";
}

// The node whose cluster a vertex is drawn in, or -1 for the top level.
int cluster_of(const TopologyGraph& g, const Vertex& v) {
  if (v.kind != VertexKind::network_switch) return v.node;
  const bool node_switch = v.role == SwitchRole::nvswitch || v.role == SwitchRole::pcie_switch;
  return node_switch && g.domain_devices() == g.devices_per_node() ? v.node : -1;
}

}  // namespace

std::string dot_name(const TopologyGraph& g, VertexId id) {
  // Formatted into a char buffer: GCC 12 emits a false -Wrestrict for short std::string concatenations.
  const Vertex& v = g.vertex(id);
  std::string_view prefix = v.kind == VertexKind::device ? "d"
                            : v.kind == VertexKind::nic  ? "nic"
                                                         : to_string(v.role);
  std::array<char, 40> buf{};
  const std::size_t n = std::min(prefix.size(), std::size_t{24});
  std::copy_n(prefix.begin(), n, buf.begin());
  const auto end = std::to_chars(buf.data() + n, buf.data() + buf.size(), v.index).ptr;
  return std::string(buf.data(), end);
}

void write_dot(const TopologyGraph& g, std::ostream& out) {
  out << "graph topology {\n  label=\"" << g.description() << "\";\n  node [shape=box, fontsize=10];\n";
  std::map<int, std::vector<VertexId>> clusters;
  std::map<int, std::vector<VertexId>> tiers;
  for (std::size_t i = 0; i < g.vertex_count(); ++i) {
    const auto id = static_cast<VertexId>(i);
    const Vertex& v = g.vertex(id);
    const int c = cluster_of(g, v);
    if (c >= 0) {
      clusters[c].push_back(id);
    } else {
      tiers[v.tier].push_back(id);
    }
  }
  for (const auto& [node, members] : clusters) {
    out << "  subgraph cluster_node" << node << " {\n    label=\"node " << node << "\";\n";
    for (VertexId id : members) {
      const bool nic = g.vertex(id).kind == VertexKind::nic;
      out << "    " << dot_name(g, id) << (nic ? " [shape=ellipse];\n" : ";\n");
    }
    out << "  }\n";
  }
  for (const auto& [tier, members] : tiers) {
    out << "  { rank=same;";
    for (VertexId id : members) out << ' ' << dot_name(g, id) << " [shape=diamond];";
    out << " }  // tier " << tier << '\n';
  }
  for (const Link& l : g.links()) {
    out << "  " << dot_name(g, l.a) << " -- " << dot_name(g, l.b) << " [label=\"" << to_string(l.kind) << ' '
        << format_quantity(l.bandwidth.value(), Dimension::bandwidth, 3) << "\", color=" << edge_color(l.kind)
        << (l.duplex == Duplex::half ? ", style=dashed" : "") << "];\n";
  }
  out << "}\n";
}

}  // namespace clustersim
