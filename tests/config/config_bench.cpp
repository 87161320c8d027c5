// Timing of the configuration layer for sweeps (label: bench). Target from the issue: resolve + validate
// an experiment from an already-loaded document in < 50 us.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>

#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

TEST_CASE("building a sweep point from a loaded document takes microseconds", "[config][bench]") {
  ExperimentLoader loader(bundled_catalog());
  auto doc = loader.load("gpt3-175b-a100-1024");
  const std::vector<Override> point{{"/parallelism/tp", "4"},
                                    {"/parallelism/dp", "32"},
                                    {"/cluster/node/device/memory/capacity", "40 GiB"}};
  constexpr int kIterations = 20000;
  using clock = std::chrono::steady_clock;

  auto time_per_build = [&](auto&& build) {
    int checksum = 0;
    const auto start = clock::now();
    for (int i = 0; i < kIterations; ++i) checksum += build().parallelism.tp;
    const std::chrono::duration<double, std::micro> elapsed = clock::now() - start;
    CHECK(checksum > 0);
    return elapsed.count() / kIterations;
  };
  const double plain = time_per_build([&] { return loader.build(doc); });
  const double copied = time_per_build([&] { return loader.build(doc, point); });
  const double in_place = time_per_build([&] { return loader.build_in_place(doc, point); });
  std::cout << "config build, no overrides:            " << plain << " us\n"
            << "config build, 3 overrides (copy):      " << copied << " us\n"
            << "config build, 3 overrides (in place):  " << in_place << " us\n";
  CHECK(in_place < 50.0);
}
