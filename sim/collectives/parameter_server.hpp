// Parameter-server push/pull of data-parallel workers (dp_mode parameter_server, async, ssp).
//
// Li et al., "Scaling Distributed Machine Learning with the Parameter Server", OSDI'14, §3–4: the
// parameters are partitioned by key range over `servers` shards; every step each worker pushes its
// gradient (each shard receives 1/servers of it) and pulls the updated weights (1/servers from each
// shard). A synchronous round is a push phase (every worker's gradient to the shards) and, after the
// shards aggregated and updated, a pull phase. NICs are full duplex; each phase is bound by the busier
// end:
//
//   dedicated servers (own NICs of B_s each, per direction):
//     push = max(N·G / (S·B_s), G / B_w) + α        pull = max(N·W / (S·B_s), W / B_w) + α
//   so with few servers a round costs N·(G+W)/(S·B_s): 2·model bytes·N/(S·B_s) when G = W.
//   colocated servers (shard k on the first device of node ⌊k·nodes/S⌋, sharing that device's NIC share
//   B_w; workers of the server's own node reach it over the node fabric, not the NIC):
//     push = max((N − d)·G / (S·B_w), G·f / B_w) + α, f = 1 when some node has no shard, else (S−1)/S
//
// N workers (one device each), S shards, d devices per node, G = parameters × gradient bytes, W =
// parameters × weight bytes, B_w = nics · NIC bandwidth · NIC efficiency / d (a device's share of its
// node's NICs), α = NIC latency. The flow engine replays the same two phases as flows to the server hosts
// (sim/engine/flow/ps_phases.hpp), so leaf uplinks and shared NICs add their contention there.
#pragma once

#include "sim/core/units.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim {

struct PsShape {
  int workers = 1;
  int servers = 1;
  bool colocated = false;
  int devices_per_node = 1;
  int nodes = 1;
  Bytes gradient{0};            // pushed per worker per step (whole model)
  Bytes weights{0};             // pulled per worker per step
  BytesPerSecond worker_nic{0}; // per worker device, per direction
  BytesPerSecond server_nic{0}; // per server shard, per direction
  Seconds latency{0};
};

struct PsRound {
  Seconds push{0}, pull{0};                   // each phase: the busier end + α
  Seconds server_push{0}, server_pull{0};     // server-NIC-bound part of each phase
  Seconds worker_push{0}, worker_pull{0};     // worker-NIC-bound part of each phase
  Bytes server_bytes{0};                      // through one server's NIC in a round (both directions)
  [[nodiscard]] Seconds total() const { return push + pull; }
  [[nodiscard]] bool server_bound() const {
    return server_push + server_pull > worker_push + worker_pull;
  }
};

/// The push/pull shape of a scenario whose dp_mode uses servers, for `params` parameters per worker.
PsShape ps_shape(const Scenario& s, double params);
/// One synchronous round (every worker pushes, then pulls) in closed form.
PsRound ps_round(const PsShape& p);
/// Device that hosts colocated shard k: the first device of node ⌊k·nodes/servers⌋.
int colocated_server_device(int k, int servers, int nodes, int devices_per_node);

}  // namespace clustersim
