// A build without the flow engine (CLUSTERSIM_FLOW_ENGINE=OFF, e.g. SimGrid 4.0 or no SimGrid found): the
// entry points of flow_engine.hpp and collective_probe.hpp exist so that every caller links, and each
// throws FlowEngineUnavailable (flow_availability.hpp). No SimGrid header is included.
#include <string>

#include "sim/engine/flow/collective_probe.hpp"
#include "sim/engine/flow/flow_availability.hpp"
#include "sim/engine/flow/flow_engine.hpp"

namespace clustersim::flow {

namespace {

std::string reason() {
  const std::string found = CLUSTERSIM_SIMGRID_FOUND;
  if (CLUSTERSIM_SIMGRID_SUITABLE)
    return "it was configured with -DCLUSTERSIM_FLOW_ENGINE=OFF (SimGrid " + found +
           " was found); see docs/integrations.md";
  return "CMake option CLUSTERSIM_FLOW_ENGINE is OFF: it needs SimGrid 3.x (3.32 or later), found " + found +
         "; see docs/integrations.md";
}

}  // namespace

bool flow_engine_available() {
  return false;
}

std::string flow_engine_status() {
  return "flow engine: not built (" + reason() + ")";
}

FlowEngineUnavailable::FlowEngineUnavailable()
    : std::invalid_argument("engine \"flow\": this build has no flow engine: " + reason() +
                            " (use the analytic engine: --engine analytic)") {}

FlowRun run_flow(const Scenario&, const FlowOptions&) {
  throw FlowEngineUnavailable();
}

FlowRun run_flow_jobs(const ClusterSpec&, const std::vector<FlowJob>&, const FlowOptions&) {
  throw FlowEngineUnavailable();
}

StepResult run_flow_step(const Scenario&) {
  throw FlowEngineUnavailable();
}

Seconds simulate_collective(const ClusterSpec&, const ParallelismSpec&, CollectiveOp, Bytes,
                            const FlowOptions&) {
  throw FlowEngineUnavailable();
}

}  // namespace clustersim::flow
