#include "topologies/topology_builder.hpp"

#include <utility>

#include "sim/core/diagnostics.hpp"

namespace clustersim {

TopologyBuilder::TopologyBuilder(int nodes, int devices_per_node, int nics_per_node) {
  CS_ASSERT(nodes > 0 && devices_per_node > 0 && nics_per_node >= 0, "topology sizes must be positive");
  g_.nodes_ = nodes;
  g_.devices_per_node_ = devices_per_node;
  g_.nics_per_node_ = nics_per_node;
  const int devices = nodes * devices_per_node;
  const int nics = nodes * nics_per_node;
  g_.vertices_.reserve(static_cast<std::size_t>(devices + nics));
  for (int d = 0; d < devices; ++d) {
    g_.vertices_.push_back({VertexKind::device, SwitchRole::none, 0, d / devices_per_node, d, -1});
  }
  for (int i = 0; i < nics; ++i) {
    g_.vertices_.push_back({VertexKind::nic, SwitchRole::none, 0, i / nics_per_node, i, -1});
  }
  g_.device_nic_link_.assign(static_cast<std::size_t>(devices), -1);
}

VertexId TopologyBuilder::add_switch(SwitchRole role, int tier, int index, int group, int node) {
  CS_ASSERT(role != SwitchRole::none, "a switch needs a role");
  g_.vertices_.push_back(
      {VertexKind::network_switch, role, static_cast<std::int8_t>(tier), node, index, group});
  return static_cast<VertexId>(g_.vertices_.size() - 1);
}

LinkId TopologyBuilder::add_link(VertexId a, VertexId b, LinkKind kind, const LinkParams& params) {
  const auto nv = static_cast<VertexId>(g_.vertices_.size());
  CS_ASSERT(a >= 0 && a < nv && b >= 0 && b < nv && a != b, "link endpoints must be distinct vertices");
  CS_ASSERT(params.bandwidth.value() > 0 && params.latency.value() >= 0, "link parameters are validated");
  g_.links_.push_back({a, b, kind, params.duplex, params.bandwidth, params.latency});
  return static_cast<LinkId>(g_.links_.size() - 1);
}

void TopologyBuilder::set_group(VertexId v, int group) {
  g_.vertices_[static_cast<std::size_t>(v)].group = group;
}

void TopologyBuilder::set_device_nic_link(int device, LinkId link) {
  g_.device_nic_link_[static_cast<std::size_t>(device)] = link;
}

void TopologyBuilder::set_domain_routes(DomainRoutes routes) {
  g_.domain_ = std::move(routes);
}

void TopologyBuilder::set_router(std::unique_ptr<const Router> router) {
  g_.router_ = std::move(router);
}

void TopologyBuilder::set_description(std::string text) {
  g_.description_ = std::move(text);
}

TopologyGraph TopologyBuilder::finish() && {
  const int devices = g_.device_count();
  if (g_.nics_per_node_ > 0) {
    for (int d = 0; d < devices; ++d) {
      const LinkId l = g_.device_nic_link_[static_cast<std::size_t>(d)];
      CS_ASSERT(l >= 0, "every device of a node with NICs is attached to one");
      CS_ASSERT(g_.link(l).a == d && g_.link(l).b == g_.nic_vertex(g_.nic_of_device(d)),
                "device -> NIC link joins the device and its NIC");
    }
  }
  g_.graph_ = std::make_unique<TopologyGraph::LazyGraph>();  // the Boost graph is built by graph()
  return std::move(g_);
}

}  // namespace clustersim
