#include "topologies/topology_graph.hpp"

#include "sim/core/diagnostics.hpp"

namespace clustersim {

TopologyGraph::~TopologyGraph() = default;

const TopologyGraph::Graph& TopologyGraph::graph() const {
  CS_ASSERT(graph_ != nullptr, "a TopologyGraph is made by TopologyBuilder::finish()");
  std::call_once(graph_->once, [this] {
    auto graph = std::make_unique<Graph>();
    for (const Vertex& v : vertices_) boost::add_vertex(v, *graph);
    for (std::size_t l = 0; l < links_.size(); ++l) {
      const Link& k = links_[l];
      boost::add_edge(static_cast<std::size_t>(k.a), static_cast<std::size_t>(k.b), static_cast<LinkId>(l),
                      *graph);
    }
    graph_->graph = std::move(graph);
  });
  return *graph_->graph;
}

int TopologyGraph::nic_of_device(int rank) const {
  if (nics_per_node_ == 0) return -1;
  const int g = devices_per_node_;
  const int node = rank / g;
  return node * nics_per_node_ + (rank % g) * nics_per_node_ / g;
}

std::uint64_t TopologyGraph::ecmp_hash(int src, int dst) {
  // splitmix64 finaliser (Steele, Lea & Flood 2014): well mixed, platform independent.
  std::uint64_t z =
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) | static_cast<std::uint32_t>(dst);
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void TopologyGraph::route_into(int src, int dst, Route& out) const {
  route_by_hash(src, dst, ecmp_hash(src, dst), out);
}

bool TopologyGraph::adaptive_routing() const {
  return router_ && router_->level() == RouterLevel::nics && router_->adaptive();
}

int TopologyGraph::path_count(int src, int dst) const {
  if (src == dst || !router_ || router_->level() != RouterLevel::nics) return 1;
  const int dd = domain_.domain_devices;
  if (dd > 0 && src / dd == dst / dd) return 1;
  const int nic_s = nic_of_device(src), nic_d = nic_of_device(dst);
  if (nic_s < 0 || nic_d < 0 || nic_s == nic_d) return 1;
  return router_->spread_paths(nic_s, nic_d);
}

void TopologyGraph::path_into(int src, int dst, int k, Route& out) const {
  const int paths = path_count(src, dst);
  CS_ASSERT(k >= 0 && k < paths, "equal-cost path index out of range");
  route_by_hash(src, dst, paths > 1 ? router_->path_hash(k) : ecmp_hash(src, dst), out);
}

void TopologyGraph::route_by_hash(int src, int dst, std::uint64_t hash, Route& out) const {
  out.clear();
  const int n = device_count();
  CS_ASSERT(src >= 0 && src < n && dst >= 0 && dst < n, "route endpoints must be device ranks");
  if (src == dst) return;
  if (router_ && router_->level() == RouterLevel::devices) {
    router_->append_route(src, dst, hash, out);
    return;
  }
  const int dd = domain_.domain_devices;
  if (dd > 0 && src / dd == dst / dd) {
    const int a = src % dd, b = dst % dd;
    const LinkId base = domain_.first_link + (src / dd) * domain_.links_per_domain;
    const auto row = static_cast<std::size_t>(a) * static_cast<std::size_t>(dd) + static_cast<std::size_t>(b);
    for (auto i = domain_.offsets[row]; i < domain_.offsets[row + 1]; ++i) {
      const RouteStep& s = domain_.steps[static_cast<std::size_t>(i)];
      out.push_back({base + s.link, s.forward});
    }
    return;
  }
  const int nic_s = nic_of_device(src), nic_d = nic_of_device(dst);
  CS_ASSERT(nic_s >= 0 && nic_d >= 0, "devices in different domains need NICs (validate() checks this)");
  out.push_back({device_nic_link_[static_cast<std::size_t>(src)], true});
  if (nic_s != nic_d) {
    CS_ASSERT(router_ != nullptr, "devices on different NICs need a scale-out network");
    router_->append_route(nic_s, nic_d, hash, out);
  }
  out.push_back({device_nic_link_[static_cast<std::size_t>(dst)], false});
}

Route TopologyGraph::route(int src, int dst) const {
  Route r;
  route_into(src, dst, r);
  return r;
}

}  // namespace clustersim
