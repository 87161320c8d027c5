#include "sim/engine/flow/simgrid_platform.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/diagnostics.hpp"

namespace clustersim::flow {

namespace sg4 = simgrid::s4u;

namespace {

sg4::Link* make_link(sg4::NetZone* zone, const FabricLink& l) {
  sg4::SplitDuplexLink* link = zone->create_split_duplex_link(l.name, l.bandwidth.value());
  link->set_latency(l.latency.value());
  return link;
}

}  // namespace

SimgridPlatform::SimgridPlatform(const FabricLayout& layout, const std::vector<double>& device_speed,
                                 const std::vector<std::pair<int, int>>& pairs) {
  if (layout.topology() != nullptr) {
    build_topology(layout, device_speed, pairs);
  } else {
    build_two_level(layout, device_speed);
  }
}

void SimgridPlatform::build_topology(const FabricLayout& layout, const std::vector<double>& device_speed,
                                     const std::vector<std::pair<int, int>>& pairs) {
  const auto& links = layout.links();
  sg4::NetZone* root = sg4::create_star_zone("root");
  clock_ = root->create_host("clock", kClockSpeed);
  const int n = layout.devices();
  compute_.resize(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d) {
    const double speed = device_speed.empty() ? 1.0 : device_speed[static_cast<std::size_t>(d)];
    compute_[static_cast<std::size_t>(d)] = root->create_host(fmt::format("d{}", d), kWorkRate * speed);
  }
  std::vector<sg4::Link*> made(links.size(), nullptr);
  auto link = [&](std::size_t i) {
    if (made[i] == nullptr) {
      const FabricLink& l = links[i];
      if (l.half_duplex) {
        made[i] = root->create_link(l.name, l.bandwidth.value());
      } else {
        made[i] = root->create_split_duplex_link(l.name, l.bandwidth.value());
      }
      made[i]->set_latency(0.0);
    }
    return made[i];
  };
  sink_ = root->create_host("sink", kWorkRate);
  root->add_route(nullptr, sink_->get_netpoint(), nullptr, nullptr, {}, false);
  pair_.reserve(pairs.size());
  for (const auto& [src, dst] : pairs) {
    if (src == dst || pair_.count(pair_key(src, dst)) > 0) continue;
    const FabricRoute r = layout.route(src, dst);
    std::vector<sg4::LinkInRoute> up;
    up.reserve(r.links.size());
    for (DirectedLink dl : r.links) {
      const auto i = static_cast<std::size_t>(dl / 2);
      if (links[i].half_duplex) {
        up.emplace_back(link(i));
      } else {
        up.emplace_back(link(i),
                        dl % 2 == 0 ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
      }
    }
    sg4::Host* h = root->create_host(fmt::format("p{}.{}", src, dst), kWorkRate);
    root->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, up, false);
    pair_.emplace(pair_key(src, dst), h);
  }
  root->seal();
}

void SimgridPlatform::build_two_level(const FabricLayout& layout, const std::vector<double>& device_speed) {
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
  // Dedicated parameter servers (the last links): each in a zone of its own, like a leaf group, whose
  // route into the root is its NIC.
  compute_.resize(static_cast<std::size_t>(layout.endpoints()));
  for (int k = 0; k < layout.servers(); ++k) {
    const FabricLink& l = links[links.size() - static_cast<std::size_t>(layout.servers() - k)];
    sg4::NetZone* z = sg4::create_star_zone(fmt::format("server{}", k));
    z->set_parent(root);
    auto* gw = z->create_router(fmt::format("server{}.gw", k));
    sg4::Host* h = z->create_host(fmt::format("s{}", k), kWorkRate);
    z->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, {}, true);
    z->seal();
    root->add_route(z->get_netpoint(), nullptr, gw, nullptr, {{make_link(root, l), up}}, true);
    compute_[static_cast<std::size_t>(n + k)] = h;
  }
  root->seal();
}

std::pair<sg4::Host*, sg4::Host*> SimgridPlatform::endpoints(int src, int dst, bool intra_node) const {
  if (sink_ != nullptr) {
    const auto it = pair_.find(pair_key(src, dst));
    CS_ASSERT(it != pair_.end(), "every flow's device pair was announced to the platform");
    return {it->second, sink_};
  }
  return {endpoint(src, intra_node), endpoint(dst, intra_node)};
}

sg4::Host* SimgridPlatform::endpoint(int device, bool intra_node) const {
  return intra_node ? nvl_[static_cast<std::size_t>(device)] : compute_[static_cast<std::size_t>(device)];
}

}  // namespace clustersim::flow
