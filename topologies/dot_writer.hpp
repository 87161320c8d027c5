// Graphviz DOT output of a TopologyGraph (`clustersim topo CLUSTER.json --dot FILE`).
//
// Devices, NICs and the node switch of a node are drawn inside a `cluster_node<i>` subgraph (for
// NVL72-style domains the domain switch sits outside the node clusters); network switches are drawn
// outside, one rank per tier. Edges are labelled with their kind and per-direction bandwidth. Vertex
// names: d<rank>, nic<i>, <role><index> (nvswitch3, leaf12, spine0, core5, router7). Output is
// deterministic (vertex and link id order). Render with `dot -Tsvg` (or `sfdp` for large fabrics).
#pragma once

#include <iosfwd>
#include <string>

#include "topologies/topology_graph.hpp"

namespace clustersim {

/// DOT name of a vertex.
std::string dot_name(const TopologyGraph& g, VertexId v);

/// Writes the whole graph as an undirected DOT graph to `out`.
void write_dot(const TopologyGraph& g, std::ostream& out);

}  // namespace clustersim
