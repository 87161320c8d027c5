// Parameter-server push/pull of one synchronous round as flows (dp_mode parameter_server, async, ssp):
// a push phase in which every worker sends 1/S of its gradient to each of the S server shards, then a
// pull phase in which every shard sends 1/S of the weights back to each worker (Li et al., OSDI'14 §3;
// the closed form is sim/collectives/parameter_server.hpp). Servers are the dedicated server endpoints
// of the FabricLayout (add_servers) or, colocated, the first device of evenly spaced worker nodes (a
// worker's flows to its own device are skipped). Topology mode adds the route α after each phase (its
// links carry no latency); the two-level platform's links carry it.
#pragma once

#include <vector>

#include "sim/collectives/parameter_server.hpp"
#include "sim/engine/flow/collective_phases.hpp"
#include "sim/engine/flow/fabric_layout.hpp"
#include "sim/engine/flow/rank_layout.hpp"

namespace clustersim::flow {

/// `server_base`: the first dedicated server endpoint, or < 0 for colocated shards.
std::vector<FlowPhase> ps_phases(const PsShape& shape, const RankLayout& layout, const FabricLayout& fabric,
                                 int server_base);

}  // namespace clustersim::flow
