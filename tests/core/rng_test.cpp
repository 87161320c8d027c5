#include "tests/catch.hpp"

#include <cmath>

#include "sim/core/rng.hpp"

using namespace clustersim;

TEST_CASE("the same seed and stream give the same draws, another stream differs") {
  RngStream a(42, 1), b(42, 1), c(42, 2);
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next_u64();
    CHECK(x == b.next_u64());
    (void)c;
  }
  CHECK(RngStream(42, 1).next_u64() != RngStream(42, 2).next_u64());
}

TEST_CASE("exponential draws have the requested mean within sampling error") {
  RngStream r(7);
  const int n = 200000;
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += r.exponential(0.5);
  CHECK(sum / n == Approx(2.0).epsilon(0.02));
}

TEST_CASE("below(n) stays in range and binomial has mean n*p") {
  RngStream r(9);
  for (int i = 0; i < 1000; ++i) CHECK(r.below(7) < 7);
  double sum = 0;
  for (int i = 0; i < 2000; ++i) sum += static_cast<double>(r.binomial(1000, 0.01));
  CHECK(sum / 2000 == Approx(10.0).epsilon(0.05));
}
