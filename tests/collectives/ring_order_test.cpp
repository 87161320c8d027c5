#include "tests/catch.hpp"

#include "collective_test_support.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

int node_crossings(const TopologyGraph& g, const std::vector<int>& ring, int* same_rail) {
  int crossings = 0;
  *same_rail = 0;
  const std::size_t n = ring.size();
  for (std::size_t i = 0; i < n; ++i) {
    const int a = ring[i];
    const int b = ring[(i + 1) % n];
    if (a / g.devices_per_node() == b / g.devices_per_node()) continue;
    ++crossings;
    if (g.nic_of_device(a) % g.nics_per_node() == g.nic_of_device(b) % g.nics_per_node()) ++*same_rail;
  }
  return crossings;
}

}  // namespace

TEST_CASE("topology-aware rings cross each node boundary once per ring, on the same rail", "[collectives]") {
  const CollectiveModel m(rail_fat_tree(12, 16, 3.0), {});
  const TopologyGraph& g = m.graph();
  const auto aware = rings(g, strided_group(g.device_count()), RingOrder::topology_aware);
  REQUIRE(aware.size() == 8);
  for (const auto& ring : aware) {
    int same_rail = 0;
    CHECK(node_crossings(g, ring, &same_rail) == 12);
    CHECK(same_rail == 12);
  }
  const auto naive = rings(g, strided_group(g.device_count()), RingOrder::rank_order);
  for (const auto& ring : naive) {
    int same_rail = 0;
    CHECK(node_crossings(g, ring, &same_rail) == 12);
    CHECK(same_rail == 0);
  }
}

TEST_CASE("a naive rank-order ring is slower by the leaf oversubscription it crosses", "[collectives]") {
  for (double r : {1.0, 3.0}) {
    // Radix 16 at r:1 -> 12 (r = 3) or 8 (r = 1) nodes per rail leaf: fill exactly one leaf per rail.
    const int nodes = r == 1.0 ? 8 : 12;
    const CollectiveModel m(rail_fat_tree(nodes, 16, r), {});
    const int n = m.graph().device_count();
    auto req = request(CollectiveOp::all_reduce, 16e9, n, CollectiveAlgorithm::ring);
    const auto aware = m.estimate(req);
    req.ring_order = RingOrder::rank_order;
    const auto naive = m.estimate(req);
    INFO("oversubscription " << r);
    const LinkKind aware_neck = m.graph().link(aware.phases.front().cost.bottleneck).kind;
    const LinkKind naive_neck = m.graph().link(naive.phases.front().cost.bottleneck).kind;
    CHECK(aware_neck == LinkKind::nic_uplink);
    // The naive ring's NIC-to-NIC hops go up through the spines: leaf uplinks carry r times a NIC's load
    // (hashed ECMP can only make it worse).
    const double slowdown = naive.phases.front().cost.bandwidth / aware.phases.front().cost.bandwidth;
    CHECK(slowdown >= r * 0.999);
    if (r > 1.0) {
      CHECK(naive_neck == LinkKind::leaf_spine);
      CHECK(slowdown > 1.5);
    }
  }
}

TEST_CASE("hierarchical all-reduce on a rail fat-tree keeps inter-node traffic on the rails",
          "[collectives]") {
  const CollectiveModel m(rail_fat_tree(12, 16, 3.0), {});
  const int n = m.graph().device_count();
  const auto e = m.estimate(request(CollectiveOp::all_reduce, 16e9, n, CollectiveAlgorithm::hierarchical));
  REQUIRE(e.phases.size() == 4);
  // The second (between the 2 domains) leaves the NVLink fabric.
  CHECK(m.graph().link(e.phases[1].cost.bottleneck).kind != LinkKind::nvswitch_port);
  // Inter-node ring over 12 nodes on S/8: (11/12)(S/8)/50 GB/s.
  CHECK(e.phases[1].cost.bandwidth.value() == Approx(11.0 / 12.0 * 2e9 / 50e9));
}

TEST_CASE("torus all-reduce walks the dimensions with bidirectional rings", "[collectives]") {
  ClusterTopologySpec c;
  c.nodes = 16;
  c.node.kind = NodeFabricKind::none;
  c.node.devices_per_node = 4;
  c.node.nics = 0;
  c.network = NetworkKind::torus;
  c.torus.dims = {4, 4, 4};
  c.torus.link = link_of(50e9, 1e-6);
  const CollectiveModel m(c, {});
  const auto e = m.estimate(request(CollectiveOp::all_reduce, 64e6, 64, CollectiveAlgorithm::automatic));
  CHECK(e.algorithm == CollectiveAlgorithm::hierarchical);
  REQUIRE(e.phases.size() == 6);
  // The buffer is split in 3 parts, one per dimension at a time: in the first phase each dimension's
  // links carry (3/4)·(S/3)/2 per direction, in the second (3/4)·(S/12)/2.
  CHECK(e.phases[0].cost.bandwidth.value() == Approx(0.75 * 64e6 / 6.0 / 50e9));
  CHECK(e.phases[1].cost.bandwidth.value() == Approx(0.75 * 64e6 / 24.0 / 50e9));
}

TEST_CASE("auto picks a low-latency algorithm for small buffers and a bandwidth one for large",
          "[collectives]") {
  CollectiveModelOptions o;
  o.nvls = true;
  o.efficiency.nvls = 0.6;
  const CollectiveModel m(nvswitch_node(8, 450e9, 3e-6), o);
  const auto small = m.estimate(request(CollectiveOp::all_reduce, 1024, 8, CollectiveAlgorithm::automatic));
  CHECK(small.algorithm == CollectiveAlgorithm::nvls);
  const CollectiveModel plain(nvswitch_node(8, 450e9, 3e-6), {});
  const auto small_plain =
      plain.estimate(request(CollectiveOp::all_reduce, 1024, 8, CollectiveAlgorithm::automatic));
  CHECK(small_plain.algorithm == CollectiveAlgorithm::double_binary_tree);
  const auto large_plain =
      plain.estimate(request(CollectiveOp::all_reduce, 8e9, 8, CollectiveAlgorithm::automatic));
  CHECK(large_plain.algorithm == CollectiveAlgorithm::ring);
}

TEST_CASE("SHARP halves the inter-node bytes of an all-reduce", "[collectives]") {
  CollectiveModelOptions o;
  o.sharp_network = true;
  const CollectiveModel m(rail_fat_tree(8, 16, 1.0), o);
  const int n = m.graph().device_count();
  const auto sharp = m.estimate(request(CollectiveOp::all_reduce, 16e9, n, CollectiveAlgorithm::sharp));
  const auto hier = m.estimate(request(CollectiveOp::all_reduce, 16e9, n, CollectiveAlgorithm::hierarchical));
  REQUIRE(sharp.phases.size() == 3);
  // In-network: S/8 once each way over the NIC vs the ring's 2(N-1)/N · S/8.
  CHECK(sharp.phases[1].cost.bandwidth.value() == Approx(2e9 / 50e9));
  CHECK(sharp.time < hier.time);
}

TEST_CASE("an NVLink domain over several nodes is one node for a hierarchical collective", "[collectives]") {
  // 16 trays of 4 GPUs, 2 NVL domains of 32 (NVL72-style): the all-reduce of 64 ranks crosses NICs only
  // between the 2 domains, not between the 16 trays.
  ClusterTopologySpec c = rail_fat_tree(16, 16, 1.0);
  c.node.devices_per_node = 4;
  c.node.nics = 4;
  c.node.kind = NodeFabricKind::nvl_domain;
  c.node.domain_devices = 32;
  const CollectiveModel m(c, {});
  const auto by_domain = ranks_by_node(m.graph(), strided_group(64));
  REQUIRE(by_domain.size() == 2);
  CHECK(by_domain.front().size() == 32);
  const auto e = m.estimate(request(CollectiveOp::all_reduce, 16e9, 64, CollectiveAlgorithm::hierarchical));
  REQUIRE(e.phases.size() == 4);
  // The first phase (reduce-scatter inside each domain) runs across trays on NVLink switch ports.
  CHECK(m.graph().link(e.phases[0].cost.bottleneck).kind == LinkKind::nvswitch_port);
  // The second (between the 2 domains) leaves the NVLink fabric.
  CHECK(m.graph().link(e.phases[1].cost.bottleneck).kind != LinkKind::nvswitch_port);
}
