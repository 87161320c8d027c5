#include "tests/catch.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "topologies/bisection.hpp"
#include "topologies/topology_summary.hpp"
#include "topology_test_support.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

int count_role(const TopologySummary& s, SwitchRole r) {
  for (const auto& c : s.switches_by_role) {
    if (c.role == r) return c.count;
  }
  return 0;
}

int count_kind(const TopologySummary& s, LinkKind k) {
  for (const auto& c : s.links_by_kind) {
    if (c.kind == k) return c.count;
  }
  return 0;
}

}  // namespace

TEST_CASE("a full k-ary 3-tier fat-tree has 5k^2/4 switches, k^3/4 hosts and k^3/8 links of bisection") {
  for (int k : {4, 6, 8}) {
    const int hosts = k * k * k / 4;
    const TopologyGraph g = build_topology(fat_tree_cluster(hosts, host_node(), 3, k));
    const TopologySummary s = summarize(g, hosts);
    INFO("k = " << k);
    CHECK(s.devices == hosts);
    CHECK(count_role(s, SwitchRole::leaf) == k * k / 2);
    CHECK(count_role(s, SwitchRole::spine) == k * k / 2);
    CHECK(count_role(s, SwitchRole::core) == k * k / 4);
    CHECK(s.switches == 5 * k * k / 4);
    CHECK(count_kind(s, LinkKind::nic_uplink) == hosts);
    CHECK(count_kind(s, LinkKind::leaf_spine) == hosts);
    CHECK(count_kind(s, LinkKind::spine_core) == hosts);
    CHECK(s.bisection.value() == Approx(k * k * k / 8 * 50e9));
    // dev-nic-leaf-agg-core-agg-leaf-nic-dev
    CHECK(s.hops.diameter == 8);
    CHECK(s.hops.exact);
    // From any host: k/2-1 hosts 4 links away (same leaf), k^2/4-k/2 at 6 (same pod), the rest at 8.
    const double same_leaf = k / 2 - 1, same_pod = k * k / 4 - k / 2, other = hosts - k * k / 4;
    CHECK(s.hops.average == Approx((4 * same_leaf + 6 * same_pod + 8 * other) / (hosts - 1)));
    REQUIRE(s.oversubscription.size() == 2);
    CHECK(s.oversubscription[0].ratio() == Approx(1.0));
    CHECK(s.oversubscription[1].ratio() == Approx(1.0));
  }
}

TEST_CASE("a 2-tier fat-tree of radix k serves k^2/2 NIC ports with k/2 spines") {
  const int k = 8;
  const TopologyGraph g = build_topology(fat_tree_cluster(k * k / 2, host_node(), 2, k));
  const TopologySummary s = summarize(g);
  CHECK(count_role(s, SwitchRole::leaf) == k);
  CHECK(count_role(s, SwitchRole::spine) == k / 2);
  CHECK(count_kind(s, LinkKind::leaf_spine) == k * k / 2);
  CHECK(s.bisection.value() == Approx(k * k / 4 * 50e9));
  CHECK(s.hops.diameter == 6);
}

TEST_CASE("leaf oversubscription splits the radix into down:up ports and shows in the built graph") {
  // radix 8 at 3:1 -> 6 NIC ports and 2 uplinks per leaf
  ClusterTopologySpec c = fat_tree_cluster(48, host_node(), 2, 8);
  c.fat_tree.oversubscription = {3.0};
  const TopologyGraph g = build_topology(c);
  const TopologySummary s = summarize(g);
  CHECK(count_role(s, SwitchRole::leaf) == 8);
  CHECK(count_role(s, SwitchRole::spine) == 2);
  REQUIRE(s.oversubscription.size() == 1);
  CHECK(s.oversubscription[0].role == SwitchRole::leaf);
  CHECK(s.oversubscription[0].ratio() == Approx(3.0));
  // Half the leaves (4 x 2 uplinks) carry what crosses the rank-order bisection.
  CHECK(s.bisection.value() == Approx(8 * 50e9));
}

TEST_CASE(
    "rail-optimized: device j of every node attaches to a rail-j leaf, and same-rail traffic stays on it") {
  // 32 DGX-like nodes x 8 GPUs, radix 32: 16 nodes per rail leaf, 2 blocks x 8 rails = 16 leaves.
  const TopologyGraph g = build_topology(fat_tree_cluster(32, nvswitch_node(8, 8), 2, 32, true));
  for (int dev = 0; dev < g.device_count(); ++dev) {
    const int j = dev % 8;
    const VertexId nic = g.nic_vertex(g.nic_of_device(dev));
    int leaves_seen = 0;
    for (const Link& l : g.links()) {
      if (l.kind != LinkKind::nic_uplink || l.a != nic) continue;
      ++leaves_seen;
      CHECK(g.vertex(l.b).role == SwitchRole::leaf);
      CHECK(g.vertex(l.b).group == j);
    }
    CHECK(leaves_seen == 1);
  }
  // GPU 3 of node 0 -> GPU 3 of node 15 (same block): dev-nic-leaf-nic-dev, no spine.
  const Route same_rail = g.route(3, 15 * 8 + 3);
  CHECK(same_rail.size() == 4);
  // GPU 3 of node 0 -> GPU 5 of node 1: up to a spine and down the rail-5 leaf.
  const Route cross_rail = g.route(3, 8 + 5);
  REQUIRE(cross_rail.size() == 6);
  CHECK(g.link(cross_rail[2].link).kind == LinkKind::leaf_spine);
}

TEST_CASE("fat-tree routes are minimal, connected and deterministic for every device pair") {
  SECTION("3-tier k=4 with single-device hosts") {
    check_all_routes_minimal(build_topology(fat_tree_cluster(16, host_node(), 3, 4)));
  }
  SECTION("3-tier rail-optimized with 4-GPU NVSwitch nodes, partially filled") {
    check_all_routes_minimal(build_topology(fat_tree_cluster(10, nvswitch_node(4, 4), 3, 8, true)));
  }
  SECTION("2-tier with two devices sharing a NIC") {
    check_all_routes_minimal(build_topology(fat_tree_cluster(12, nvswitch_node(4, 2), 2, 8)));
  }
}

TEST_CASE("ECMP spreads inter-leaf pairs over every spine") {
  const int k = 8;
  const TopologyGraph g = build_topology(fat_tree_cluster(k * k / 2, host_node(), 2, k));
  std::map<VertexId, int> uses;
  Route r;
  for (int s = 0; s < g.device_count(); ++s) {
    for (int d = 0; d < g.device_count(); ++d) {
      g.route_into(s, d, r);
      if (r.size() != 6) continue;
      const Link& up = g.link(r[2].link);
      ++uses[up.b];
    }
  }
  REQUIRE(uses.size() == static_cast<std::size_t>(k / 2));
  const auto [lo, hi] = std::minmax_element(uses.begin(), uses.end(),
                                            [](const auto& a, const auto& b) { return a.second < b.second; });
  CHECK(static_cast<double>(hi->second) / lo->second < 1.15);
}

TEST_CASE("a 3-tier fat-tree oversubscribed 7:1 between pods (Llama 3 style) cuts bisection at the cores") {
  // radix 16: leaves 8 down / 8 up; spines at 7:1 have 14 leaf ports and 2 core ports. Two full pods.
  ClusterTopologySpec c = fat_tree_cluster(2 * 14 * 8, host_node(), 3, 16);
  c.fat_tree.oversubscription = {1.0, 7.0};
  const TopologyGraph g = build_topology(c);
  const TopologySummary s = summarize(g);
  REQUIRE(s.oversubscription.size() == 2);
  CHECK(s.oversubscription[0].role == SwitchRole::leaf);
  CHECK(s.oversubscription[0].ratio() == Approx(1.0));
  CHECK(s.oversubscription[1].role == SwitchRole::spine);
  CHECK(s.oversubscription[1].ratio() == Approx(7.0));
  CHECK(count_role(s, SwitchRole::core) == 8 * 2);
  // Pod 0 -> pod 1: 8 spines x 2 core links.
  CHECK(s.bisection.value() == Approx(16 * 50e9));
}

TEST_CASE("for_each_link_on_route visits the route's links in order with their directions") {
  const TopologyGraph g = build_topology(fat_tree_cluster(16, host_node(), 3, 4));
  const Route r = g.route(0, 15);
  std::vector<RouteStep> seen;
  double latency = 0;
  g.for_each_link_on_route(0, 15, [&](const Link& l, RouteStep s) {
    seen.push_back(s);
    latency += l.latency.value();
  });
  REQUIRE(seen.size() == r.size());
  CHECK(std::equal(seen.begin(), seen.end(), r.begin()));
  CHECK(latency == Approx(0.2e-6 * 2 + 1e-6 * 6));
}

TEST_CASE("bisection of a fabric whose capacities sum past 2^63 B/s is exact, not overflowed") {
  // 128 hosts, 384 links of 1e17 B/s: the link total (3.8e19) and the n/2 source arcs exceed int64; the
  // max-flow runs on 2^k B/s units and feeds each device only its own links' total.
  const int k = 8;
  NodeFabricSpec host = host_node();
  host.nic = link_of(1e17);
  host.nic_attach = link_of(1e17);
  ClusterTopologySpec c = fat_tree_cluster(k * k * k / 4, host, 3, k);
  c.fat_tree.leaf_spine = link_of(1e17);
  c.fat_tree.spine_core = link_of(1e17);
  const TopologyGraph g = build_topology(c);
  CHECK(bisection_bandwidth(g).value() == Approx(k * k * k / 8 * 1e17).epsilon(1e-9));
  // The same fabric at ordinary rates is computed in whole bytes per second, exactly.
  CHECK(bisection_bandwidth(build_topology(fat_tree_cluster(k * k * k / 4, host_node(), 3, k))).value() ==
        k * k * k / 8 * 50e9);
}

TEST_CASE("adaptive routing spreads a flow evenly over every equal-cost up-path of a fat-tree",
          "[topology][routing]") {
  const int k = 4, hosts = k * k * k / 4;  // 3 tiers: k/2 = 2 spines per pod, 2 cores per plane
  ClusterTopologySpec spec = fat_tree_cluster(hosts, host_node(), 3, k);
  const TopologyGraph ecmp = build_topology(spec);
  spec.fat_tree.adaptive_routing = true;
  const TopologyGraph ar = build_topology(spec);
  CHECK_FALSE(ecmp.adaptive_routing());
  CHECK(ar.adaptive_routing());
  // host 0 -> host 1: same leaf (one path); host 0 -> host 2: same pod (k/2 spines); -> host 15: k^2/4.
  CHECK(ar.path_count(0, 1) == 1);
  CHECK(ar.path_count(0, 2) == k / 2);
  CHECK(ar.path_count(0, hosts - 1) == k * k / 4);
  CHECK(ecmp.path_count(0, hosts - 1) == 1);
  // The paths are distinct, minimal (as long as the hashed route) and use every spine-core link of the pod.
  std::set<LinkId> core_links;
  std::set<std::vector<LinkId>> distinct;
  Route r;
  for (int p = 0; p < ar.path_count(0, hosts - 1); ++p) {
    ar.path_into(0, hosts - 1, p, r);
    CHECK(r.size() == ecmp.route(0, hosts - 1).size());
    std::vector<LinkId> ids;
    for (const RouteStep& s : r) {
      ids.push_back(s.link);
      if (ar.link(s.link).kind == LinkKind::spine_core && s.forward) core_links.insert(s.link);
    }
    distinct.insert(ids);
  }
  CHECK(distinct.size() == static_cast<std::size_t>(k * k / 4));
  CHECK(core_links.size() == static_cast<std::size_t>(k * k / 4));  // pod 0's k/2 spines x k/2 uplinks
}

TEST_CASE("graph() is built on first use, after a move too, with one edge per link in link order") {
  TopologyGraph built = build_topology(fat_tree_cluster(32, host_node(), 2, 8));
  const TopologyGraph g = std::move(built);  // moved before the Boost graph exists
  const TopologyGraph::Graph& bg = g.graph();
  CHECK(&bg == &g.graph());  // built once
  REQUIRE(boost::num_vertices(bg) == g.vertex_count());
  REQUIRE(boost::num_edges(bg) == g.link_count());
  for (std::size_t v = 0; v < g.vertex_count(); ++v) {
    CHECK(bg[v].kind == g.vertex(static_cast<VertexId>(v)).kind);
    CHECK(bg[v].index == g.vertex(static_cast<VertexId>(v)).index);
  }
  std::vector<int> seen(g.link_count(), 0);
  for (auto [it, end] = boost::edges(bg); it != end; ++it) {
    const LinkId l = bg[*it];
    REQUIRE(l >= 0);
    REQUIRE(static_cast<std::size_t>(l) < g.link_count());
    ++seen[static_cast<std::size_t>(l)];
    const auto a = static_cast<VertexId>(boost::source(*it, bg)), b = static_cast<VertexId>(boost::target(*it, bg));
    const Link& k = g.link(l);
    CHECK(((a == k.a && b == k.b) || (a == k.b && b == k.a)));
  }
  CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
}
