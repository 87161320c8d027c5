// The s4u::Engine of a flow simulation, configured as the flow engine needs it: CM02 network model
// (no LV08 TCP bandwidth ×0.97 / latency ×13 factors), no cross-traffic of acknowledgements (flows are
// RDMA/NVLink transfers on full-duplex links), no TCP window bound, and SimGrid's logging silenced
// (library code does not print). One per process (child_process.hpp).
#pragma once

#include <memory>

namespace simgrid::s4u {
class Engine;
}

namespace clustersim::flow {

class SimgridEngine {
 public:
  SimgridEngine();
  ~SimgridEngine();
  SimgridEngine(const SimgridEngine&) = delete;
  SimgridEngine& operator=(const SimgridEngine&) = delete;

 private:
  std::unique_ptr<simgrid::s4u::Engine> engine_;
};

}  // namespace clustersim::flow
