// Wiring helper used by the fabric builders (NodeFabric, FatTree, Torus, Dragonfly) to assemble a
// TopologyGraph; finish() seals it (checks its invariants and builds the Boost adjacency list).
//
// The constructor creates the device vertices (ids 0..N-1 = ranks) and the NIC vertices (ids N..,
// node-major) so that every later vertex id is deterministic.
#pragma once

#include <memory>
#include <string>

#include "topologies/topology_graph.hpp"

namespace clustersim {

class TopologyBuilder {
 public:
  /// Preconditions (checked by CS_ASSERT): nodes > 0, devices_per_node > 0, 0 <= nics_per_node.
  TopologyBuilder(int nodes, int devices_per_node, int nics_per_node);

  [[nodiscard]] VertexId add_switch(SwitchRole role, int tier, int index, int group, int node = -1);
  [[nodiscard]] LinkId add_link(VertexId a, VertexId b, LinkKind kind, const LinkParams& params);
  void set_group(VertexId v, int group);
  /// Records the link a device uses to reach its NIC (added as device -> NIC).
  void set_device_nic_link(int device, LinkId link);
  void set_domain_routes(DomainRoutes routes);
  void set_router(std::unique_ptr<const Router> router);
  void set_description(std::string text);

  /// The graph under construction (vertices and links so far), for builders that look links up.
  [[nodiscard]] const TopologyGraph& partial() const { return g_; }
  [[nodiscard]] std::size_t link_count() const { return g_.links_.size(); }

  /// Seals the graph: builds the Boost adjacency list and checks invariants. The builder is spent.
  [[nodiscard]] TopologyGraph finish() &&;

 private:
  TopologyGraph g_;
};

}  // namespace clustersim
