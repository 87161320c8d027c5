#include "sim/engine/flow/ps_phases.hpp"

namespace clustersim::flow {

std::vector<FlowPhase> ps_phases(const PsShape& shape, const RankLayout& layout, const FabricLayout& fabric,
                                 int server_base) {
  std::vector<int> servers;
  for (int k = 0; k < shape.servers; ++k) {
    // Colocated: the job-local device index is the replica index (tp = pp = cp = 1).
    servers.push_back(server_base >= 0 ? server_base + k
                                       : layout.device(0, colocated_server_device(k, shape.servers, shape.nodes,
                                                                                  shape.devices_per_node),
                                                       0));
  }
  FlowPhase push, pull;
  const Bytes g = shape.gradient / shape.servers, w = shape.weights / shape.servers;
  Seconds alpha(0);
  for (int r = 0; r < layout.replicas(); ++r) {
    const int worker = layout.device(0, r, 0);
    for (int srv : servers) {
      if (srv == worker) continue;
      push.flows.push_back({worker, srv, g});
      pull.flows.push_back({srv, worker, w});
      if (fabric.topology() != nullptr) alpha = max(alpha, fabric.route_latency(fabric.route(worker, srv)));
    }
  }
  push.extra_latency = alpha;
  pull.extra_latency = alpha;
  return {std::move(push), std::move(pull)};
}

}  // namespace clustersim::flow
