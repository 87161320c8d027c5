#include "tests/catch.hpp"

#include "collective_test_support.hpp"
#include "sim/collectives/cluster_fabric.hpp"
#include "sim/collectives/topology_collectives.hpp"

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
