#include "sim/engine/flow/simgrid_platform.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace clustersim::flow {

namespace sg4 = simgrid::s4u;

namespace {

sg4::Link* make_link(sg4::NetZone* zone, const FabricLink& l) {
  sg4::SplitDuplexLink* link = zone->create_split_duplex_link(l.name, l.bandwidth.value());
  link->set_latency(l.latency.value());
  return link;
}

}  // namespace

SimgridPlatform::SimgridPlatform(const FabricLayout& layout, const std::vector<double>& device_speed) {
  const auto& links = layout.links();
  const auto up = sg4::LinkInRoute::Direction::UP;
  sg4::NetZone* root = sg4::create_star_zone("root");
  clock_ = root->create_host("clock", kClockSpeed);
  const int n = layout.devices();
  compute_.resize(static_cast<std::size_t>(n));
  nvl_.resize(static_cast<std::size_t>(n));
  const int per_node = layout.devices_per_node();
  auto speed = [&](int d) { return device_speed.empty() ? 1.0 : device_speed[static_cast<std::size_t>(d)]; };
  for (int node = 0; node < layout.nodes(); ++node) {
    sg4::NetZone* z = sg4::create_star_zone(fmt::format("node{}", node));
    z->set_parent(root);
    for (int d = node * per_node; d < (node + 1) * per_node; ++d) {
      sg4::Host* h = z->create_host(fmt::format("v{}", d), kWorkRate * speed(d));
      sg4::Link* l = make_link(z, links[static_cast<std::size_t>(layout.nvlink_of(d))]);
      z->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, {{l, up}}, true);
      nvl_[static_cast<std::size_t>(d)] = h;
    }
    z->seal();
  }
  if (layout.nodes() == 1 && links.size() == static_cast<std::size_t>(n)) {
    // Single node without NICs: compute on the NVLink endpoints.
    for (int d = 0; d < n; ++d) compute_[static_cast<std::size_t>(d)] = nvl_[static_cast<std::size_t>(d)];
  } else {
    std::vector<sg4::Link*> made(links.size(), nullptr);
    for (int leaf = 0; leaf < layout.leaves(); ++leaf) {
      sg4::NetZone* z = sg4::create_star_zone(fmt::format("leaf{}", leaf));
      z->set_parent(root);
      auto* gw = z->create_router(fmt::format("leaf{}.gw", leaf));
      const int d_begin = leaf * layout.leaf_nodes() * per_node;
      const int d_end = std::min(n, d_begin + layout.leaf_nodes() * per_node);
      for (int d = d_begin; d < d_end; ++d) {
        sg4::Host* h = z->create_host(fmt::format("d{}", d), kWorkRate * speed(d));
        const auto nic = static_cast<std::size_t>(layout.nic_of(d));
        if (made[nic] == nullptr) made[nic] = make_link(z, links[nic]);
        z->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, {{made[nic], up}}, true);
        compute_[static_cast<std::size_t>(d)] = h;
      }
      z->seal();
      sg4::Link* upl = make_link(root, links[static_cast<std::size_t>(layout.uplink_of_leaf(leaf))]);
      root->add_route(z->get_netpoint(), nullptr, gw, nullptr, {{upl, up}}, true);
    }
  }
  root->seal();
}

sg4::Host* SimgridPlatform::endpoint(int device, bool intra_node) const {
  return intra_node ? nvl_[static_cast<std::size_t>(device)] : compute_[static_cast<std::size_t>(device)];
}

}  // namespace clustersim::flow
