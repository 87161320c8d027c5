// The SimGrid 3.32 platform of a FabricLayout (the only place that creates SimGrid zones, hosts, links).
//
// Each device has two endpoints: an NVLink endpoint "v<d>" in its node's star zone (NVSwitch) and a
// scale-out endpoint "d<d>" in its leaf group's star zone, where it also computes. Leaf zones hang off a
// root star zone through their uplink. All links are SPLITDUPLEX (full-duplex hardware). A "clock" host
// of huge speed runs bounded executions as timed waits. Preconditions: an s4u::Engine exists in this
// process, created with the CM02 network model and no cross-traffic (see flow_engine.cpp).
#pragma once

#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/engine/flow/fabric_layout.hpp"

namespace clustersim::flow {

class SimgridPlatform {
 public:
  /// `device_speed[d]` in [0,1]: fraction of nominal speed of device d (empty: all 1).
  SimgridPlatform(const FabricLayout& layout, const std::vector<double>& device_speed);

  /// Host that computes for device d (and sends its scale-out flows).
  [[nodiscard]] simgrid::s4u::Host* compute_host(int device) const { return compute_[static_cast<std::size_t>(device)]; }
  /// Endpoint used for a flow between two devices (NVLink endpoint when both are in one node).
  [[nodiscard]] simgrid::s4u::Host* endpoint(int device, bool intra_node) const;
  [[nodiscard]] simgrid::s4u::Host* clock_host() const { return clock_; }

  /// Nominal work rate of compute hosts: an op of t seconds is an execution of t·kWorkRate flops.
  static constexpr double kWorkRate = 1e9;
  /// Speed of the clock host; each timed wait is bounded to kWorkRate.
  static constexpr double kClockSpeed = 1e18;

 private:
  std::vector<simgrid::s4u::Host*> compute_, nvl_;
  simgrid::s4u::Host* clock_ = nullptr;
};

}  // namespace clustersim::flow
