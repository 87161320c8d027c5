// The SimGrid 3.32 platform of a FabricLayout (the only place that creates SimGrid zones, hosts, links).
//
// Each device has two endpoints: an NVLink endpoint "v<d>" in its node's star zone (NVSwitch) and a
// scale-out endpoint "d<d>" in its leaf group's star zone, where it also computes. Leaf zones hang off a
// root star zone through their uplink. All links are SPLITDUPLEX (full-duplex hardware). A "clock" host
// of huge speed runs bounded executions as timed waits. Preconditions: an s4u::Engine exists in this
// process, created with the CM02 network model and no cross-traffic (see flow_engine.cpp).
//
// Topology mode (FabricLayout::topology() set): one SimGrid link per TopologyGraph link (SPLITDUPLEX, or
// SHARED for half-duplex links), with zero latency (the replay waits each route's α, as the closed form
// charges it: the largest link latency on the route, not their sum). SimGrid routes are per zone, not per
// device pair, so every device pair that exchanges flows gets a source host "p<src>.<dst>" in one star
// zone whose UP links are exactly the graph route src → dst; all flows end at one "sink" host with no
// links. Compute runs on hosts "d<device>" without links. Memory is O(pairs · route length), not O(n²).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/engine/flow/fabric_layout.hpp"

namespace clustersim::flow {

class SimgridPlatform {
 public:
  /// `device_speed[d]` in [0,1]: fraction of nominal speed of device d (empty: all 1).
  /// `pairs`: the (src, dst) device pairs that will exchange flows (used in topology mode only).
  SimgridPlatform(const FabricLayout& layout, const std::vector<double>& device_speed,
                  const std::vector<std::pair<int, int>>& pairs = {});

  /// Host that computes for device d (and sends its scale-out flows).
  [[nodiscard]] simgrid::s4u::Host* compute_host(int device) const {
    return compute_[static_cast<std::size_t>(device)];
  }
  /// Endpoint used for a flow between two devices (NVLink endpoint when both are in one node).
  [[nodiscard]] simgrid::s4u::Host* endpoint(int device, bool intra_node) const;
  /// Source and destination hosts of a flow src → dst (route.intra_node from FabricLayout::route).
  [[nodiscard]] std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*> endpoints(int src, int dst,
                                                                              bool intra_node) const;
  [[nodiscard]] simgrid::s4u::Host* clock_host() const { return clock_; }

  /// Nominal work rate of compute hosts: an op of t seconds is an execution of t·kWorkRate flops.
  static constexpr double kWorkRate = 1e9;
  /// Speed of the clock host; each timed wait is bounded to kWorkRate.
  static constexpr double kClockSpeed = 1e18;

 private:
  void build_two_level(const FabricLayout& layout, const std::vector<double>& device_speed);
  void build_topology(const FabricLayout& layout, const std::vector<double>& device_speed,
                      const std::vector<std::pair<int, int>>& pairs);
  static std::uint64_t pair_key(int src, int dst) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
           static_cast<std::uint32_t>(dst);
  }

  std::vector<simgrid::s4u::Host*> compute_, nvl_;
  simgrid::s4u::Host* clock_ = nullptr;
  simgrid::s4u::Host* sink_ = nullptr;                           // topology mode
  std::unordered_map<std::uint64_t, simgrid::s4u::Host*> pair_;  // topology mode: pair_key → source host
};

}  // namespace clustersim::flow
