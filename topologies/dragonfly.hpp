// Dragonfly scale-out network with minimal (local-global-local) routing (Kim et al., ISCA 2008).
//
// g = 3 groups of a = 2 routers, h = 1 global link per router (a*h = 2 = g-1 global ports per group),
// p NICs per router on nic_uplink links. Routers of a group are fully connected (dragonfly_local);
// every pair of groups has at least one direct global link (dragonfly_global):
//
//          +------------------ global ------------------+
//          |                                            |
//   g0:   r0 ---local--- r1                 g1:        r2 ---local--- r3
//                         \                                          /
//                        global                                global
//                           \                                    /
//                    g2:    r4 --------------local------------- r5
//
// Global wiring ("consecutive" arrangement): global port q = 0 .. a*h-1 of group i sits on router
// q / h and points to the (q mod (g-1))-th other group in ascending order; a pair (i, j) gets one link
// per round q div (g-1) in which both ends still have a free port. Ports left over stay unused.
//
// Route nic(r0) -> nic(r5) (group 0 -> group 2): among the global links between the two groups take
// those needing the fewest local hops (link at the source router, landing on the destination router),
// pick one by the ECMP hash; here only r1-r4: nic -> r0 (nic_uplink), r0 -> r1 (local), r1 -> r4
// (global), r4 -> r5 (local), r5 -> nic. At most 3 router-to-router hops: the diameter of a dragonfly
// with minimal routing. (The graph itself may hold a shorter path through a third group, two global
// links; dragonfly minimal routing does not take it, and hop_stats, which measures the graph, can report
// fewer hops than routes take.)
// NICs attach in order: NIC n (node-major) to router n / p. Vertex group of a router = its group.
#pragma once

#include <vector>

#include "topologies/dragonfly_spec.hpp"
#include "topologies/router.hpp"
#include "topologies/topology_builder.hpp"

namespace clustersim {

class Dragonfly final : public Router {
 public:
  /// Adds routers and links to `builder` and returns the router. Precondition: spec.validate(...) empty.
  static std::unique_ptr<Dragonfly> build(const DragonflySpec& spec, const LinkParams& nic,
                                          TopologyBuilder& builder);

  [[nodiscard]] RouterLevel level() const override { return RouterLevel::nics; }
  void append_route(std::int32_t src_nic, std::int32_t dst_nic, std::uint64_t hash,
                    Route& out) const override;

 private:
  struct GlobalLink {
    LinkId link;
    std::int32_t from_router;  // router in the source group of the ordered pair
    std::int32_t to_router;    // router in the destination group
    bool forward;              // crossing from_router -> to_router is the link's forward direction
  };
  Dragonfly() = default;
  void push_local(std::int32_t ra, std::int32_t rb, Route& out) const;

  int groups_ = 1, routers_ = 1, hosts_ = 1;
  std::vector<LinkId> nic_link_;    // per NIC: NIC -> router (forward)
  std::vector<LinkId> local_link_;  // (router * a + j): link between router and router j of its group
  std::vector<std::int32_t>
      pair_offset_;  // groups^2 + 1 offsets into pair_links_ (ordered pair src * g + dst)
  std::vector<GlobalLink> pair_links_;
};

}  // namespace clustersim
