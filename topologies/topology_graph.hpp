// The neutral cluster network: devices, NICs, switches and links in one Boost.Graph, with routes.
//
// Built by build_topology() (cluster_topology.hpp) from a validated ClusterTopologySpec and immutable
// afterwards. Consumers (collectives, the flow engine) ask for
//   * vertices and links with their properties (ids are dense and deterministic, see vertex.hpp;
//     device vertex id == global rank),
//   * route(src, dst): the ordered links, with direction, of a deterministic minimal route;
//   * graph(): the Boost.Graph adjacency list (edge property = LinkId) for graph algorithms. Built on the
//     first call (thread-safe, std::call_once) from the vertices and links: the collective costs and the
//     sweeps never ask for it, and building it was one heap allocation per edge and per vertex for every
//     fabric a sweep point creates.
//
// A route between two devices is composed of
//   1. inside one NVLink domain (a node, or an NVL72 rack): the domain's own minimal route
//      (device -> NVSwitch -> device, NVLink mesh hops, or device -> PCIe switch -> device);
//   2. otherwise: device -> its NIC (pcie link), the scale-out router's NIC -> NIC route, NIC -> device;
//   3. on a torus the chips are the routers: the torus router gives the whole device -> device route.
// Equal-cost choices are made by ecmp_hash(src, dst), so the same pair always takes the same path and
// different pairs spread over the fabric like hashed ECMP. Routes are shortest paths on the graph for
// node fabrics, fat-trees and tori; on a dragonfly they follow minimal (local-global-local) routing,
// which a detour through a third group (two global links) can beat in hop count.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "topologies/link.hpp"
#include "topologies/route.hpp"
#include "topologies/router.hpp"
#include "topologies/vertex.hpp"

namespace clustersim {

/// Minimal routes between the devices of one NVLink domain, stored once for all (identical) domains.
/// Step `link` fields are indices into the domain's own links: domain d's link i is graph link
/// first_link + d * links_per_domain + i.
struct DomainRoutes {
  int domain_devices = 0;  // devices per domain; 0: no intra-node fabric
  LinkId first_link = 0;
  int links_per_domain = 0;
  std::vector<std::int32_t> offsets;  // (domain_devices^2 + 1) offsets into steps, row-major (src, dst)
  std::vector<RouteStep> steps;
};

class TopologyGraph {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, Vertex, LinkId,
                                      boost::no_property, boost::vecS>;

  TopologyGraph(TopologyGraph&&) noexcept = default;
  TopologyGraph& operator=(TopologyGraph&&) noexcept = default;
  ~TopologyGraph();

  [[nodiscard]] int device_count() const { return nodes_ * devices_per_node_; }
  [[nodiscard]] int node_count() const { return nodes_; }
  [[nodiscard]] int devices_per_node() const { return devices_per_node_; }
  [[nodiscard]] int nics_per_node() const { return nics_per_node_; }
  [[nodiscard]] int nic_count() const { return nodes_ * nics_per_node_; }
  /// Devices per NVLink domain (== devices_per_node except for NVL72-style racks); 0 without node fabric.
  [[nodiscard]] int domain_devices() const { return domain_.domain_devices; }
  [[nodiscard]] std::size_t vertex_count() const { return vertices_.size(); }
  [[nodiscard]] std::size_t link_count() const { return links_.size(); }
  [[nodiscard]] const Vertex& vertex(VertexId v) const { return vertices_[static_cast<std::size_t>(v)]; }
  [[nodiscard]] const Link& link(LinkId l) const { return links_[static_cast<std::size_t>(l)]; }
  [[nodiscard]] std::span<const Vertex> vertices() const { return vertices_; }
  [[nodiscard]] std::span<const Link> links() const { return links_; }
  /// The Boost.Graph adjacency list: vertex i is vertices()[i], edge property l is links()[l] (edges
  /// added in link order). Built on the first call.
  [[nodiscard]] const Graph& graph() const;
  /// A one-line human description ("3-tier fat-tree, radix 64, rail-optimized, 2048 nodes x 8 devices").
  [[nodiscard]] const std::string& description() const { return description_; }

  [[nodiscard]] static VertexId device_vertex(int rank) { return rank; }
  [[nodiscard]] VertexId nic_vertex(int nic) const { return device_count() + nic; }
  /// Index of the NIC a device sends through (device j of a node uses NIC j * nics / g), -1 if none.
  [[nodiscard]] int nic_of_device(int rank) const;

  /// Deterministic ECMP hash of an ordered device pair (splitmix64 of src * 2^32 + dst).
  [[nodiscard]] static std::uint64_t ecmp_hash(int src, int dst);

  /// Writes the route from device `src` to device `dst` into `out` (cleared first; empty if src == dst).
  /// Reuse `out` across calls: routes of up to 12 links never allocate.
  void route_into(int src, int dst, Route& out) const;
  /// True when the scale-out router spreads flows over equal-cost paths (adaptive routing).
  [[nodiscard]] bool adaptive_routing() const;
  [[nodiscard]] Route route(int src, int dst) const;
  /// Adaptive routing (fat-tree /cluster/network/routing "adaptive"): a flow from `src` to `dst` is
  /// spread evenly over path_count(src, dst) equal-cost routes, path_into(src, dst, k) for k < that count
  /// (k = 0 .. count-1 cover every up-path through the spines and cores). With ECMP the count is 1 and
  /// path_into(src, dst, 0) is route_into(src, dst).
  [[nodiscard]] int path_count(int src, int dst) const;
  void path_into(int src, int dst, int k, Route& out) const;
  /// Calls visit(const Link&, RouteStep) for every link of route(src, dst), in order.
  template <class Visitor>
  void for_each_link_on_route(int src, int dst, Visitor&& visit) const {
    Route r;
    route_into(src, dst, r);
    for (const RouteStep& s : r) visit(link(s.link), s);
  }

 private:
  friend class TopologyBuilder;
  TopologyGraph() = default;
  void route_by_hash(int src, int dst, std::uint64_t hash, Route& out) const;

  int nodes_ = 0;
  int devices_per_node_ = 0;
  int nics_per_node_ = 0;
  std::string description_;
  std::vector<Vertex> vertices_;
  std::vector<Link> links_;
  // Built by graph() on first use (held by pointer: Boost 1.74 adjacency_list has no real move, and a
  // once_flag does not move). Allocated by TopologyBuilder::finish().
  struct LazyGraph {
    std::once_flag once;
    std::unique_ptr<Graph> graph;
  };
  std::unique_ptr<LazyGraph> graph_;
  std::vector<LinkId> device_nic_link_;  // per device: link device -> NIC (forward), -1 if none
  DomainRoutes domain_;
  std::unique_ptr<const Router> router_;
};

}  // namespace clustersim
