#include "tests/catch.hpp"

#include <cmath>

#include "collective_test_support.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {
constexpr double kB = 100e9;     // port bandwidth
constexpr double kAlpha = 2e-6;  // per-message latency
}  // namespace

TEST_CASE("ring all-reduce costs 2(n-1)a + 2(n-1)/n S/B on a contention-free ring", "[collectives]") {
  for (int n : {2, 4, 8, 16}) {
    const CollectiveModel m(nvswitch_node(n, kB, kAlpha), {});
    for (double s : {8.0, 1e6, 1e9}) {
      const auto e = m.estimate(request(CollectiveOp::all_reduce, s, n, CollectiveAlgorithm::ring));
      const double expect = 2.0 * (n - 1) * kAlpha + 2.0 * (n - 1) / n * s / kB;
      INFO("n = " << n << ", S = " << s);
      CHECK(e.time.value() == Approx(expect).epsilon(1e-12));
      CHECK(e.algorithm == CollectiveAlgorithm::ring);
      REQUIRE(e.phases.size() == 2);
    }
  }
}

TEST_CASE("ring reduce-scatter and all-gather cost (n-1)a + (n-1)/n S/B", "[collectives]") {
  const int n = 8;
  const CollectiveModel m(nvswitch_node(n, kB, kAlpha), {});
  for (CollectiveOp op : {CollectiveOp::reduce_scatter, CollectiveOp::all_gather}) {
    const auto e = m.estimate(request(op, 1e9, n, CollectiveAlgorithm::ring));
    CHECK(e.time.value() == Approx((n - 1) * kAlpha + (n - 1.0) / n * 1e9 / kB).epsilon(1e-12));
  }
}

TEST_CASE("busbw = algbw * 2(n-1)/n for all-reduce and reaches the link rate for large buffers", "[collectives]") {
  const int n = 8;
  const CollectiveModel m(nvswitch_node(n, kB, kAlpha), {});
  const auto e = m.estimate(request(CollectiveOp::all_reduce, 8e9, n, CollectiveAlgorithm::ring));
  CHECK(e.algbw == Approx(8e9 / e.time.value()));
  CHECK(e.busbw == Approx(e.algbw * 2.0 * (n - 1) / n));
  CHECK(e.busbw == Approx(kB).epsilon(1e-3));
  CHECK(bus_bandwidth_factor(CollectiveOp::all_gather, n) == Approx(7.0 / 8.0));
  CHECK(bus_bandwidth_factor(CollectiveOp::all_to_all, n) == Approx(7.0 / 8.0));
  CHECK(bus_bandwidth_factor(CollectiveOp::broadcast, n) == 1.0);
}

TEST_CASE("tree and halving-doubling latency terms grow with log2 n, ring's with n", "[collectives]") {
  for (int n : {4, 8, 16, 32, 64}) {
    const CollectiveModel m(nvswitch_node(n, kB, kAlpha), {});
    const double log_n = std::log2(n);
    const auto tree = m.estimate(request(CollectiveOp::all_reduce, 0.0, n, CollectiveAlgorithm::double_binary_tree));
    const auto hd = m.estimate(request(CollectiveOp::all_reduce, 0.0, n, CollectiveAlgorithm::halving_doubling));
    const auto ring = m.estimate(request(CollectiveOp::all_reduce, 0.0, n, CollectiveAlgorithm::ring));
    INFO("n = " << n);
    CHECK(tree.time.value() == Approx(2.0 * log_n * kAlpha));
    CHECK(hd.time.value() == Approx(2.0 * log_n * kAlpha));
    CHECK(ring.time.value() == Approx(2.0 * (n - 1) * kAlpha));
  }
}

TEST_CASE("halving-doubling moves 2(n-1)/n of the buffer per rank, also for non powers of two", "[collectives]") {
  const CollectiveModel m8(nvswitch_node(8, kB, 0.0), {});
  const auto hd = m8.estimate(request(CollectiveOp::all_reduce, 1e9, 8, CollectiveAlgorithm::halving_doubling));
  CHECK(hd.time.value() == Approx(2.0 * 7.0 / 8.0 * 1e9 / kB));
  const CollectiveModel m6(nvswitch_node(6, kB, kAlpha), {});
  const auto odd = m6.estimate(request(CollectiveOp::all_reduce, 0.0, 6, CollectiveAlgorithm::halving_doubling));
  CHECK(odd.time.value() == Approx((2.0 * 2.0 + 2.0) * kAlpha));  // log2 4 each way + fold in/out
}

TEST_CASE("double binary tree all-reduce loads each port with 2S, one tree per half of the buffer", "[collectives]") {
  const int n = 8;
  const CollectiveModel m(nvswitch_node(n, kB, 0.0), {});
  const auto e = m.estimate(request(CollectiveOp::all_reduce, 1e9, n, CollectiveAlgorithm::double_binary_tree));
  // Interior rank of one tree and leaf of the other: S/2 up + 2·S/2 down + S/2 up as a leaf = 2S out.
  CHECK(e.time.value() == Approx(2.0 * 1e9 / kB));
}

TEST_CASE("broadcast chain costs (n-1)a + S/B, all-to-all direct sends S/n to each peer", "[collectives]") {
  const int n = 8;
  const CollectiveModel m(nvswitch_node(n, kB, kAlpha), {});
  const auto b = m.estimate(request(CollectiveOp::broadcast, 1e9, n, CollectiveAlgorithm::ring));
  CHECK(b.time.value() == Approx((n - 1) * kAlpha + 1e9 / kB));
  const auto a2a = m.estimate(request(CollectiveOp::all_to_all, 1e9, n, CollectiveAlgorithm::direct));
  CHECK(a2a.time.value() == Approx(kAlpha + (n - 1.0) / n * 1e9 / kB));
  const auto pw = m.estimate(request(CollectiveOp::all_to_all, 1e9, n, CollectiveAlgorithm::pairwise));
  CHECK(pw.time.value() == Approx((n - 1) * kAlpha + (n - 1.0) / n * 1e9 / kB));
}

TEST_CASE("an algorithm that cannot run the operation is refused with a reason", "[collectives]") {
  const CollectiveModel m(nvswitch_node(8, kB, kAlpha), {});
  CHECK_THROWS_WITH(m.estimate(request(CollectiveOp::all_to_all, 1e6, 8, CollectiveAlgorithm::ring)),
                    Catch::Contains("ring does not implement all-to-all"));
  CHECK_THROWS_WITH(m.estimate(request(CollectiveOp::all_reduce, 1e6, 8, CollectiveAlgorithm::nvls)),
                    Catch::Contains("nvls needs"));
  CHECK_THROWS_WITH(m.estimate(request(CollectiveOp::all_reduce, 1e6, 1, CollectiveAlgorithm::ring)),
                    Catch::Contains("at least 2 ranks"));
}
