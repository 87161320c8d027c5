// The analytic engine on an explicit topology (ClusterSpec::comm.topology): DP gradient sync and
// pipeline sends are costed on the TopologyGraph (sim/collectives/topology_collectives.hpp).
#include "tests/catch.hpp"

#include "fixtures.hpp"
#include "sim/collectives/topology_collectives.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "topologies/derived_topology.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

// GPT 1.3B-class, data parallel over 16 DGX A100 nodes, gradient sync not overlapped.
Scenario dp_job(ClusterSpec c, int tp = 1, int pp = 1) {
  Scenario s = scenario(std::move(c), gpt(24, 2048, 16), tp, pp, 1, 16 * 16 * 8 / (tp * pp));
  s.training.overlap_grad_reduce = false;
  return s;
}

// 16 DGX A100 nodes on a 2-tier fat-tree without rails (a node's 8 NICs share a leaf): radix 64 at
// 1:1 (32 down : 32 up, 4 nodes per leaf) or radix 40 at 4:1 (32 down : 8 up, 4 nodes per leaf).
ClusterSpec fat_tree_cluster(int radix, double ratio) {
  ClusterSpec c = dgx_a100_cluster(16);
  c.network.topology = "fat-tree";
  ClusterTopologySpec t = derived_topology(c);
  t.fat_tree.tiers = 2;
  t.fat_tree.radix = radix;
  t.fat_tree.rail_optimized = false;
  t.fat_tree.oversubscription = {ratio};
  REQUIRE(t.validate().empty());
  c.comm.topology = t;
  return c;
}

ClusterSpec torus_cluster(std::vector<int> dims) {
  ClusterSpec c = dgx_a100_cluster(16);
  c.node.fabric = NodeFabric::torus_ici;
  c.network.topology = "torus";
  ClusterTopologySpec t = derived_topology(c);
  t.torus.dims = std::move(dims);
  t.torus.cube = 0;
  REQUIRE(t.validate().empty());
  c.comm.topology = t;
  return c;
}

}  // namespace

TEST_CASE("a 4:1 oversubscribed fat-tree exposes more DP sync time than a non-blocking one",
          "[engine][topology]") {
  const StepResult nonblocking = run_analytic(dp_job(fat_tree_cluster(64, 1.0)));
  const StepResult oversubscribed = run_analytic(dp_job(fat_tree_cluster(40, 4.0)));
  INFO("non-blocking " << nonblocking.comm_exposed.dp.value() << " s, 4:1 "
                       << oversubscribed.comm_exposed.dp.value() << " s");
  CHECK(nonblocking.comm_exposed.dp.value() > 0.0);
  CHECK(oversubscribed.comm_exposed.dp.value() > 1.2 * nonblocking.comm_exposed.dp.value());
  CHECK(oversubscribed.step_time > nonblocking.step_time);
}

TEST_CASE("a torus cluster differs from a fat-tree one, and its dims matter", "[engine][topology]") {
  const StepResult tree = run_analytic(dp_job(fat_tree_cluster(64, 1.0)));
  const StepResult cube = run_analytic(dp_job(torus_cluster({4, 4, 8})));
  const StepResult line = run_analytic(dp_job(torus_cluster({2, 2, 32})));
  INFO("fat-tree " << tree.comm_exposed.dp.value() << " s, 4x4x8 " << cube.comm_exposed.dp.value()
                   << " s, 2x2x32 " << line.comm_exposed.dp.value() << " s");
  CHECK(cube.comm_exposed.dp.value() != Approx(tree.comm_exposed.dp.value()).epsilon(0.01));
  CHECK(line.comm_exposed.dp.value() != Approx(cube.comm_exposed.dp.value()).epsilon(0.01));
}

TEST_CASE("pipeline sends go through the topology and feel oversubscription", "[engine][topology]") {
  const StepResult nonblocking = run_analytic(dp_job(fat_tree_cluster(64, 1.0), 8, 4));
  const StepResult oversubscribed = run_analytic(dp_job(fat_tree_cluster(40, 4.0), 8, 4));
  CHECK(oversubscribed.comm_exposed.pp.value() >= nonblocking.comm_exposed.pp.value());
  CHECK(oversubscribed.step_time >= nonblocking.step_time);
}

TEST_CASE("the cached affine fit equals a direct topology estimate of one group", "[engine][topology]") {
  const ClusterSpec c = fat_tree_cluster(40, 4.0);
  const auto topo = TopologyCollectives::of(c);
  REQUIRE(topo != nullptr);
  CHECK(TopologyCollectives::of(c) == topo);  // built once per topology
  const ConcurrentGroups one{.size = 16, .stride = 8, .first = 0, .count = 1, .group_stride = 1};
  for (double bytes : {1e3, 1e6, 3e9}) {
    CollectiveRequest r;
    r.op = CollectiveOp::all_reduce;
    r.bytes = Bytes(bytes);
    r.ranks = strided_group(16, 0, 8);
    const double direct = topo->model().estimate(r).time.value();
    CHECK(topo->time(CollectiveOp::all_reduce, Bytes(bytes), one).value() == Approx(direct).epsilon(1e-9));
  }
}

TEST_CASE("a cluster without an explicit topology is costed on its derived topology", "[engine][topology]") {
  const ClusterSpec implicit = dgx_a100_cluster(16);
  ClusterSpec spelled = implicit;
  spelled.comm.topology = derived_topology(implicit);
  const auto a = TopologyCollectives::of(implicit);
  REQUIRE(a != nullptr);
  CHECK(TopologyCollectives::of(spelled) == a);  // the same fabric: the same cached model
}

TEST_CASE("fabrics that differ only in bandwidths cost collectives bit-identically to a fresh build",
          "[engine][topology]") {
  // Derived fat-trees: the oversubscription moves the whole-port split (the structure) at a few values
  // and the up-link bandwidth (achieved/asked) everywhere; the NIC bandwidth scales NIC and switch links;
  // the link efficiencies change with it.
  const std::vector<ConcurrentGroups> groups = {
      {.size = 16, .stride = 8, .first = 0, .count = 8, .group_stride = 1},   // DP over every node
      {.size = 8, .stride = 1, .first = 0, .count = 16, .group_stride = 8},   // TP inside the nodes
      {.size = 2, .stride = 64, .first = 0, .count = 64, .group_stride = 1},  // pipeline neighbours
  };
  int shared = 0;
  for (double r : {1.0, 1.37, 1.371, 1.5, 2.0, 2.4, 2.41, 3.0, 7.0, 10.999}) {
    for (double nic_scale : {1.0, 0.5, 0.25}) {
      ClusterSpec c = dgx_a100_cluster(16);
      c.network.topology = "fat-tree";
      c.network.oversubscription = r;
      c.node.nic.bandwidth = c.node.nic.bandwidth * nic_scale;
      c.node.nic.efficiency = 0.6 + 0.3 * nic_scale;  // efficiencies are re-read per fabric as well
      c.node.intra.efficiency = 0.95 - 0.2 * nic_scale;
      const auto cached = TopologyCollectives::of(c);
      const TopologyCollectives fresh(c);
      shared += cached->shares_skeleton() ? 1 : 0;
      for (const ConcurrentGroups& g : groups) {
        for (CollectiveOp op :
             {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::send_recv}) {
          for (double bytes : {1e3, 3e6, 5e9}) {
            INFO("oversubscription " << r << ", NIC x" << nic_scale << ", op " << static_cast<int>(op)
                                     << ", group size " << g.size << ", " << bytes << " B");
            CHECK(cached->time(op, Bytes(bytes), g).value() == fresh.time(op, Bytes(bytes), g).value());
          }
        }
      }
    }
  }
  CHECK(shared > 10);  // most of these fabrics were costed on a shared skeleton, not rebuilt
}

TEST_CASE("NVLink meshes (links of one kind with 1 or 2 lanes) cost collectives bit-identically on a skeleton",
          "[engine][topology]") {
  // The skeleton keeps one largest load per class of links with one bandwidth and one kind
  // (fabric_skeleton.hpp): on a hybrid cube-mesh, NVLink links of the same kind differ in lanes, so a class
  // that ignored the bandwidth would divide by the wrong link's.
  const std::vector<ConcurrentGroups> groups = {
      {.size = 8, .stride = 1, .first = 0, .count = 4, .group_stride = 8},  // TP on each node's mesh
      {.size = 4, .stride = 2, .first = 0, .count = 8, .group_stride = 1},  // strided groups on the mesh
      {.size = 4, .stride = 8, .first = 0, .count = 8, .group_stride = 1},  // DP over the nodes
  };
  for (const char* node : {"dgx-1-v100", "mi300x-node"}) {
    int shared = 0;
    for (double scale : {1.0, 0.5, 0.7, 0.25, 1.3}) {
      ClusterSpec c;
      c.name = "test-mesh";
      c.node = config::load_node(catalog(), node);
      c.nodes = 4;
      c.node.intra.bandwidth = c.node.intra.bandwidth * scale;
      c.node.nic.bandwidth = c.node.nic.bandwidth * (2.0 - scale);
      const auto cached = TopologyCollectives::of(c);
      const TopologyCollectives fresh(c);
      shared += cached->shares_skeleton() ? 1 : 0;
      for (const ConcurrentGroups& g : groups) {
        for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::all_to_all}) {
          for (double bytes : {1e3, 3e6, 5e9}) {
            INFO(node << ", bandwidth x" << scale << ", op " << static_cast<int>(op) << ", group size " << g.size
                      << ", " << bytes << " B");
            CHECK(cached->time(op, Bytes(bytes), g).value() == fresh.time(op, Bytes(bytes), g).value());
          }
        }
      }
    }
    INFO(node);
    CHECK(shared >= 3);  // costed on a shared skeleton from the second fabric of the structure on
  }
}

TEST_CASE("bundled fabrics (rail-optimized, 3-tier, dragonfly, torus, NVL72) cost collectives on a skeleton "
          "bit-identically to a fresh build",
          "[engine][topology]") {
  // Each bundled cluster's fabric, spelled out, with every link bandwidth scaled (NIC, node link, PCIe
  // attach, switch tiers, torus links, dragonfly local and global links, in different proportions): the
  // second fabric of a structure is costed on the first's skeleton (fabric_skeleton.hpp), which must give
  // the same bits as building the fabric from scratch.
  struct Case {
    const char* cluster;
    int nodes;  // fewer nodes than the catalog's, to keep the test fast (0: as in the catalog)
  };
  for (const Case& k : {Case{"deepseek-h800-2048", 32}, Case{"llama3-h100-24k", 0}, Case{"h100-dragonfly", 0},
                        Case{"tpu-v4-pod", 0}, Case{"eos-h100", 32}}) {
    ClusterSpec base = config::load_cluster(catalog(), k.cluster);
    if (k.nodes > 0) {
      base.nodes = k.nodes;
      base.comm.topology.reset();
      base.network.topology = "fat-tree";
    }
    if (!base.comm.topology) base.comm.topology = derived_topology(base);
    const int per_node = base.node.devices_per_node;
    const int nodes = base.comm.topology->nodes;
    const int dp = std::min(nodes, 16);
    const std::vector<ConcurrentGroups> groups = {
        {.size = per_node, .stride = 1, .first = 0, .count = std::min(nodes, 8), .group_stride = per_node},
        {.size = dp, .stride = per_node, .first = 0, .count = per_node, .group_stride = 1},
        {.size = 2, .stride = per_node * (nodes / 2), .first = 0, .count = per_node, .group_stride = 1},
    };
    int shared = 0;
    for (double scale : {1.0, 0.5, 0.7, 1.3}) {
      ClusterSpec c = base;
      ClusterTopologySpec& t = *c.comm.topology;
      auto scaled = [](LinkParams& l, double f) { l.bandwidth = l.bandwidth * f; };
      scaled(t.node.link, scale);
      scaled(t.node.nic, 2.0 - scale);
      scaled(t.node.nic_attach, 0.5 + scale);
      scaled(t.fat_tree.leaf_spine, scale * scale);
      scaled(t.fat_tree.spine_core, 1.0 / scale);
      scaled(t.torus.link, scale);
      scaled(t.dragonfly.local, 2.0 - scale);
      scaled(t.dragonfly.global, scale);
      const auto cached = TopologyCollectives::of(c);
      REQUIRE(cached != nullptr);
      const TopologyCollectives fresh(c);
      shared += cached->shares_skeleton() ? 1 : 0;
      for (const ConcurrentGroups& g : groups) {
        for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::all_to_all,
                                CollectiveOp::send_recv}) {
          for (double bytes : {1e3, 3e6, 5e9}) {
            INFO(k.cluster << ", bandwidth x" << scale << ", op " << static_cast<int>(op) << ", group size "
                           << g.size << ", " << bytes << " B");
            CHECK(cached->time(op, Bytes(bytes), g).value() == fresh.time(op, Bytes(bytes), g).value());
          }
        }
      }
    }
    INFO(k.cluster);
    CHECK(shared >= 2);
  }
}
