#include "tests/catch.hpp"

#include "collective_test_support.hpp"
#include "sim/collectives/cluster_fabric.hpp"
#include "sim/collectives/topology_collectives.hpp"
#include "topologies/derived_topology.hpp"

using namespace clustersim;
using namespace clustersim::test;

// Closed form of an all-reduce on a wrapped D-dimensional torus with bidirectional rings per dimension,
// all dimensions at once (the buffer split in D parts, part j reduce-scattering along dimensions j, j+1,
// ... mod D): every phase keeps the 2·D links of a chip busy, and the bus bandwidth
// busbw = S/t · 2(N−1)/N is exactly 2·D·B for a k^D torus of link bandwidth B per direction, since
// t = 2 · (S/D)/(2B) · (k−1)/k · (1 + 1/k + ... + 1/k^(D−1)) = S/(D·B) · (k^D − 1)/k^D.
// TPU v4: 45 GB/s per ICI link per direction, 6 links per chip (Jouppi et al., ISCA 2023, "TPU v4: an
// optically reconfigurable supercomputer", Table 1) -> 270 GB/s per chip.

namespace {

constexpr double kIciLink = 45e9;  // B/s per link per direction (Jouppi et al. 2023)

ClusterTopologySpec torus(std::vector<int> dims) {
  ClusterTopologySpec c;
  int chips = 1;
  for (int d : dims) chips *= d;
  c.nodes = chips / 4;
  c.node.kind = NodeFabricKind::none;
  c.node.devices_per_node = 4;
  c.node.nics = 0;
  c.network = NetworkKind::torus;
  c.torus.dims = std::move(dims);
  c.torus.wrap = true;
  c.torus.link = link_of(kIciLink, 0.0);
  return c;
}

// A TPU-like cluster as sim/config builds it from a node with a torus-ici fabric, two host NICs and
// the per-chip ICI figure (6 links x 45 GB/s), on a torus the cluster does not spell out.
ClusterSpec tpu_cluster(int nodes) {
  ClusterSpec c;
  c.name = "tpu-test";
  c.nodes = nodes;
  c.node.devices_per_node = 4;
  c.node.fabric = NodeFabric::torus_ici;
  c.node.intra = LinkSpec{BytesPerSecond(6 * kIciLink), Seconds(0), 1.0, Duplex::full};
  c.node.nics = 2;
  c.node.nic = LinkSpec{BytesPerSecond(12.5e9), Seconds(0), 0.9, Duplex::full};
  c.network.topology = "torus";
  return c;
}

double busbw(double bytes, int n, Seconds t) {
  return bytes / t.value() * 2.0 * (n - 1) / n;
}

}  // namespace

TEST_CASE("torus all-reduce busbw is 2·D·link: 270 GB/s per TPU v4 chip over 3 dimensions", "[collectives]") {
  const CollectiveModel m(torus({8, 8, 8}), {});
  const double s = 1e9;
  const auto e = m.estimate(request(CollectiveOp::all_reduce, s, 512, CollectiveAlgorithm::automatic));
  CHECK(e.algorithm == CollectiveAlgorithm::hierarchical);
  REQUIRE(e.phases.size() == 6);
  CHECK(busbw(s, 512, e.time) == Approx(2.0 * 3 * kIciLink).epsilon(1e-9));
  CHECK(busbw(s, 512, e.time) == Approx(270e9).epsilon(1e-9));
  // A single bidirectional ring per dimension, one dimension at a time, would reach only 2·B.
  CHECK(busbw(s, 512, e.time) > 2.9 * 2.0 * kIciLink);
}

TEST_CASE("a 2D plane of a 3D torus (a data-parallel group) reaches 2·2·link", "[collectives]") {
  const CollectiveModel m(torus({4, 8, 8}), {});
  CollectiveRequest r = request(CollectiveOp::all_reduce, 1e9, 64, CollectiveAlgorithm::automatic);
  r.ranks = strided_group(64, 0, 4);  // x = 0: the y-z plane
  const auto e = m.estimate(r);
  CHECK(e.algorithm == CollectiveAlgorithm::hierarchical);
  CHECK(busbw(1e9, 64, e.time) == Approx(4.0 * kIciLink).epsilon(1e-9));
}

TEST_CASE("the step model's collective on a TPU cluster uses the ICI torus, not the host NICs",
          "[collectives]") {
  // 64 chips: the derived torus is 4 x 4 x 4 with 270/6 = 45 GB/s links; the nodes keep no NICs.
  const ClusterSpec c = tpu_cluster(16);
  const auto topo = TopologyCollectives::of(c);
  CHECK(cluster_fabric(c).topology.network == NetworkKind::torus);
  CHECK(cluster_fabric(c).topology.node.nics == 0);
  const double s = 1e9;
  // Whole torus (what `clustersim collective` runs): 2·3·45 GB/s.
  const Seconds whole = topo->time(CollectiveOp::all_reduce, Bytes(s), {.size = 64});
  CHECK(busbw(s, 64, whole) == Approx(270e9).epsilon(1e-9));
  const auto cli =
      topo->model().estimate(request(CollectiveOp::all_reduce, s, 64, CollectiveAlgorithm::automatic));
  CHECK(cli.time.value() == Approx(whole.value()).epsilon(1e-12));
  // Data-parallel groups of a tp = 4 job (stride 4, four y-z planes at once): 2·2·45 GB/s each.
  const Seconds dp = topo->time(CollectiveOp::all_reduce, Bytes(s),
                                {.size = 16, .stride = 4, .first = 0, .count = 4, .group_stride = 1});
  CHECK(busbw(s, 16, dp) == Approx(180e9).epsilon(1e-9));
  // Tensor-parallel groups (4 consecutive chips, one x ring each): one bidirectional ring, 2·45 GB/s.
  const Seconds tp = topo->time(CollectiveOp::all_reduce, Bytes(s),
                                {.size = 4, .stride = 1, .first = 0, .count = 16, .group_stride = 4});
  CHECK(busbw(s, 4, tp) == Approx(90e9).epsilon(1e-9));
}

// TPU slices as the chips are wired and as JAX lays a MaxText mesh on them (docs/collectives.md, "TPU
// slices"). TPU v5e: a 2D torus of at most 16 x 16 chips, only full 16-chip axes wrap (Google Cloud TPU
// v5e docs; jax-ml/scaling-book tpus.md), 400 GB/s bidirectional ICI per chip = 50 GB/s per link per
// direction over 4 links. JAX mesh_utils._create_device_mesh_for_nd_torus gives the most
// network-intensive logical axis (tensor) whole physical axes, more axes first.
namespace {

ClusterSpec v5e_cluster(int hosts) {
  ClusterSpec c;
  c.name = "v5e-test";
  c.nodes = hosts;
  c.node.devices_per_node = 8;
  c.node.fabric = NodeFabric::torus_ici;
  c.node.intra = LinkSpec{BytesPerSecond(200e9), Seconds(0), 1.0, Duplex::full};
  c.node.nics = 2;
  c.node.nic = LinkSpec{BytesPerSecond(12.5e9), Seconds(0), 0.9, Duplex::full};
  c.node.ici = IciSpec{.dims = 2, .max_dim = 16, .wrap_multiple = 16};
  c.network.topology = "torus";
  return c;
}

}  // namespace

TEST_CASE("lead_dims_first assigns the tensor axis whole torus dimensions as JAX does", "[collectives]") {
  CHECK(lead_dims_first({8, 8, 16}, 16) == std::vector<int>{16, 8, 8});
  CHECK(lead_dims_first({4, 8, 8}, 8) == std::vector<int>{8, 4, 8});
  CHECK(lead_dims_first({4, 4, 16}, 16) == std::vector<int>{4, 4, 16});  // two axes preferred to one
  CHECK(lead_dims_first({8, 16, 16}, 128) == std::vector<int>{8, 16, 16});
  CHECK(lead_dims_first({8, 8, 8}, 16) == std::vector<int>{8, 8, 8});  // no whole-axis fit: unchanged
  CHECK(lead_dims_first({16, 16}, 1) == std::vector<int>{16, 16});
}

TEST_CASE("a TPU v5e slice is a 16 x 16 2D torus of 50 GB/s links, larger jobs stack 16-row slices",
          "[collectives]") {
  const ClusterTopologySpec pod = cluster_fabric(v5e_cluster(32)).topology;
  CHECK(pod.network == NetworkKind::torus);
  CHECK(pod.torus.dims == std::vector<int>{16, 16});
  CHECK(pod.torus.wrap);
  CHECK(pod.torus.cube == 0);
  CHECK(pod.torus.link.bandwidth.value() == Approx(50e9));
  CHECK(cluster_fabric(v5e_cluster(128)).topology.torus.dims == std::vector<int>{16, 64});
  const ClusterTopologySpec half = cluster_fabric(v5e_cluster(16)).topology;  // 8 x 16: no full 16 x axis
  CHECK(half.torus.dims == std::vector<int>{8, 16});
  CHECK_FALSE(half.torus.wrap);
}

TEST_CASE("TP collective on a v5e 16x16 slice runs on one ICI ring per group at the closed-form busbw",
          "[collectives]") {
  const ClusterSpec c = v5e_cluster(32);
  const auto mapped = torus_mapped_cluster(c, 16);
  REQUIRE(mapped);
  const auto topo = TopologyCollectives::of(*mapped);
  const double s = 1e9;
  // 16 tensor-parallel groups of 16 consecutive chips, each one wrapped x ring: a bidirectional ring,
  // busbw = 2 · 50 GB/s (all 16 rings at once, disjoint links).
  const Seconds tp = topo->time(CollectiveOp::all_reduce, Bytes(s),
                                {.size = 16, .stride = 1, .first = 0, .count = 16, .group_stride = 16});
  CHECK(busbw(s, 16, tp) == Approx(2.0 * 50e9).epsilon(1e-9));
  // The FSDP/DP groups (stride 16): the y rings, the same closed form.
  const Seconds dp = topo->time(CollectiveOp::all_reduce, Bytes(s),
                                {.size = 16, .stride = 16, .first = 0, .count = 16, .group_stride = 1});
  CHECK(busbw(s, 16, dp) == Approx(2.0 * 50e9).epsilon(1e-9));
  // The whole pod: 2 · D · B with D = 2.
  const Seconds whole = topo->time(CollectiveOp::all_reduce, Bytes(s), {.size = 256});
  CHECK(busbw(s, 256, whole) == Approx(4.0 * 50e9).epsilon(1e-9));
}

TEST_CASE("tp = 16 on a TPU v5p 8x8x16 slice fills the 16-chip axis, not two partial 8-chip rings",
          "[collectives]") {
  ClusterSpec c = tpu_cluster(256);  // 1,024 chips: derived 8 x 8 x 16
  REQUIRE(cluster_fabric(c).topology.torus.dims == std::vector<int>{8, 8, 16});
  const ConcurrentGroups tp_groups{.size = 16, .stride = 1, .first = 0, .count = 64, .group_stride = 16};
  const auto mapped = torus_mapped_cluster(c, 16);
  REQUIRE(mapped);
  CHECK(cluster_fabric(*mapped).topology.torus.dims == std::vector<int>{16, 8, 8});
  const double s = 1e9;
  const Seconds on_axis = TopologyCollectives::of(*mapped)->time(CollectiveOp::all_reduce, Bytes(s), tp_groups);
  CHECK(busbw(s, 16, on_axis) == Approx(2.0 * kIciLink).epsilon(1e-9));
  // Without the mapping the 16 consecutive chips are an 8-chip x ring times 2 along y: not a sub-torus,
  // costed as routed rings, which is slower.
  const Seconds partial = TopologyCollectives::of(c)->time(CollectiveOp::all_reduce, Bytes(s), tp_groups);
  CHECK(partial.value() > 1.2 * on_axis.value());
  // A derived torus the cluster spells out, or tp = 1, is left alone.
  CHECK_FALSE(torus_mapped_cluster(c, 1));
}
