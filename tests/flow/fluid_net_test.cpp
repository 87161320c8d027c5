// The flow-class solver (sim/engine/flow/fluid_net.hpp): max-min fair per-flow rates with each class's
// multiplicity charged to its links, checked against closed forms on a small two-level fabric.
#include "tests/catch.hpp"

#include <cmath>
#include <vector>

#include "sim/engine/flow/fluid_net.hpp"
#include "tests/flow/flow_fixtures.hpp"

using namespace clustersim;
using namespace clustersim::flow;

namespace {

// Two DGX A100 nodes (one NIC per GPU) in two leaf groups whose up-links carry 8 NICs / 4 = 2 NICs.
FabricLayout two_leaves() {
  return FabricLayout(flowtest::dgx_a100(2, 4.0), 1);
}

std::vector<FlowSpec> cross(int first, int count, double bytes) {
  std::vector<FlowSpec> f;
  for (int d = first; d < first + count; ++d) f.push_back({d, 8 + d, Bytes(bytes)});
  return f;
}

}  // namespace

TEST_CASE("a symmetric send is one flow class whose flows share the oversubscribed up-link max-min",
          "[flow][fluid]") {
  const FabricLayout fabric = two_leaves();
  const double nic = fabric.links()[static_cast<std::size_t>(fabric.nic_of(0))].bandwidth.value();
  const double S = 1e9;
  const FlowGroup g = make_flow_group(cross(0, 8, S), 1.0, fabric);
  REQUIRE(g.classes.size() == 1);
  CHECK(g.classes[0].flows == 8);
  FluidNet net(fabric);
  double done = -1;
  net.start(g, [&](int) { done = net.now(); });
  net.run();
  // 8 flows on an up-link of 2 NICs: each at nic / 4.
  CHECK(std::abs(done - 4 * S / nic) < 1e-9 * done);
}

TEST_CASE("two overlapping sends: rates follow max-min as flows of one class finish and free the link",
          "[flow][fluid]") {
  const FabricLayout fabric = two_leaves();
  const double nic = fabric.links()[static_cast<std::size_t>(fabric.nic_of(0))].bandwidth.value();
  const double S = 1e9;
  const std::vector<FlowSpec> a = cross(0, 8, S), b = cross(0, 4, S / 2);
  const FlowGroup ga = make_flow_group(a, 1.0, fabric), gb = make_flow_group(b, 1.0, fabric);
  FluidNet net(fabric);
  double end_a = -1, end_b = -1;
  net.start(ga, [&](int) { end_a = net.now(); });
  net.start(gb, [&](int) { end_b = net.now(); });
  net.run();
  // 12 flows share 2 NICs' worth of up-link (nic / 6 each): B's half-size flows end at 3 S / nic; A's
  // then move at nic / 4 for the remaining S / 2: 2 S / nic more.
  CHECK(std::abs(end_b - 3 * S / nic) < 1e-9 * end_b);
  CHECK(std::abs(end_a - 5 * S / nic) < 1e-9 * end_a);
}

TEST_CASE("flows of one send with a smaller solo share form their own class and finish later", "[flow][fluid]") {
  const FabricLayout fabric = two_leaves();
  const double nic = fabric.links()[static_cast<std::size_t>(fabric.nic_of(0))].bandwidth.value();
  const double S = 1e9;
  // Devices 0 and 1 both send to device 8 (its NIC carries two flows); device 2 sends to device 10 alone.
  const std::vector<FlowSpec> f = {{0, 8, Bytes(S)}, {1, 8, Bytes(S)}, {2, 10, Bytes(S)}};
  const FlowGroup g = make_flow_group(f, 1.0, fabric);
  REQUIRE(g.classes.size() == 2);
  FluidNet net(fabric);
  std::vector<double> end(2, -1);
  net.start(g, [&](int k) { end[static_cast<std::size_t>(k)] = net.now(); });
  net.run();
  // Up-links carry 3 flows on 2 NICs (2/3 nic each) but device 8's NIC allows nic / 2 to its two flows:
  // they end at 2 S / nic; the lone flow gets the rest of the up-link (nic), ending at S / nic.
  const double lone = std::min(end[0], end[1]), pair = std::max(end[0], end[1]);
  CHECK(std::abs(pair - 2 * S / nic) < 1e-9 * pair);
  CHECK(std::abs(lone - S / nic) < 1e-9 * lone);
}

TEST_CASE("timers run in time order and a zero delay runs at the current time", "[flow][fluid]") {
  const FabricLayout fabric = two_leaves();
  FluidNet net(fabric);
  std::vector<double> seen;
  net.after(2.0, [&] { seen.push_back(net.now()); });
  net.after(1.0, [&] {
    seen.push_back(net.now());
    net.after(0.0, [&] { seen.push_back(net.now() + 10); });
  });
  net.run();
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == 1.0);
  CHECK(seen[1] == 11.0);
  CHECK(seen[2] == 2.0);
}
