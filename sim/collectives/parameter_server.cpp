#include "sim/collectives/parameter_server.hpp"

#include <algorithm>

#include "models/precision.hpp"

namespace clustersim {

PsShape ps_shape(const Scenario& s, double params) {
  const DpModeSpec& d = s.parallelism.data_parallel;
  const NodeSpec& node = s.cluster.node;
  PsShape p;
  p.workers = s.parallelism.dp;
  p.servers = d.servers;
  p.colocated = d.placement == ServerPlacement::colocated;
  p.devices_per_node = std::max(1, node.devices_per_node);
  p.nodes = s.cluster.nodes;
  p.gradient = Bytes(params * bytes_per_element(s.training.gradient_precision));
  p.weights = Bytes(params * std::max(2.0, bytes_per_element(s.training.precision)));
  const double node_nic = node.nics * node.nic.bandwidth.value() * node.nic.efficiency;
  p.worker_nic = BytesPerSecond(node_nic / p.devices_per_node);
  p.server_nic = p.colocated ? p.worker_nic
                 : d.server_nic.value() > 0 ? BytesPerSecond(d.server_nic.value() * node.nic.efficiency)
                                            : BytesPerSecond(node_nic);
  p.latency = node.nic.latency;
  return p;
}

PsRound ps_round(const PsShape& p) {
  PsRound r;
  const double n = p.workers, srv = p.servers;
  if (p.colocated) {
    const double remote = std::max(0.0, n - p.devices_per_node);
    const double f = p.servers < p.nodes ? 1.0 : (srv - 1.0) / srv;
    r.server_push = p.gradient * (remote / srv) / p.server_nic;
    r.server_pull = p.weights * (remote / srv) / p.server_nic;
    r.worker_push = p.gradient * f / p.worker_nic;
    r.worker_pull = p.weights * f / p.worker_nic;
    r.server_bytes = (p.gradient + p.weights) * (remote / srv);
  } else {
    r.server_push = p.gradient * (n / srv) / p.server_nic;
    r.server_pull = p.weights * (n / srv) / p.server_nic;
    r.worker_push = p.gradient / p.worker_nic;
    r.worker_pull = p.weights / p.worker_nic;
    r.server_bytes = (p.gradient + p.weights) * (n / srv);
  }
  r.push = max(r.server_push, r.worker_push) + p.latency;
  r.pull = max(r.server_pull, r.worker_pull) + p.latency;
  return r;
}

int colocated_server_device(int k, int servers, int nodes, int devices_per_node) {
  const long long node = static_cast<long long>(k) * nodes / servers;
  return static_cast<int>(node) * devices_per_node;
}

}  // namespace clustersim
