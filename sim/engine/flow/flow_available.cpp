// A build with the flow engine (CLUSTERSIM_FLOW_ENGINE=ON): see flow_availability.hpp.
#include <string>

#include "sim/engine/flow/flow_availability.hpp"

namespace clustersim::flow {

bool flow_engine_available() {
  return true;
}

std::string flow_engine_status() {
  return std::string("flow engine: built (SimGrid ") + CLUSTERSIM_SIMGRID_FOUND + ")";
}

FlowEngineUnavailable::FlowEngineUnavailable()
    : std::invalid_argument("this build has the flow engine (FlowEngineUnavailable is never thrown)") {}

}  // namespace clustersim::flow
