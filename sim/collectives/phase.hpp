// One phase of a collective algorithm: concurrent transfers between devices (routed on the
// TopologyGraph) and in-network loads (bytes a switch reduction or multicast puts on given links),
// repeated over `latency_steps` dependent message steps.
//
// Contention-free α–β cost of a phase (cost_phase): every transfer is routed; the bytes each link
// carries are summed per direction (both directions together on half-duplex links); then
//   t = latency_steps · α + max_link  load(link) / (bandwidth(link) · efficiency(link))
// where α is the largest route latency of any transfer (a route's latency is the largest latency of
// its links: link latencies in the catalogs are per-message software + wire latencies of that link
// class, not per hop). The bandwidth term assumes the phase is pipelined (chunks of all steps stream
// through the bottleneck), which is how NCCL runs rings and trees (Thakur et al. 2005; NCCL docs).
#pragma once

#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "topologies/topology_graph.hpp"

namespace clustersim {

/// Device-to-device bytes (ranks are device ids == global ranks).
struct Transfer {
  int src = 0;
  int dst = 0;
  double bytes = 0.0;
};

/// Bytes a switch-side operation puts on one link in one direction (in-network reduction).
struct LinkLoad {
  LinkId link = -1;
  bool forward = true;
  double bytes = 0.0;
};

/// Who moves the bytes of a phase: devices over links at the links' protocol efficiency, or an
/// in-network reduction at its own efficiency (applied to every load of the phase).
enum class PhaseEngine { links, nvls, sharp };

struct Phase {
  std::string name;             // "reduce-scatter ring", "inter-node all-reduce dim 1", ...
  int latency_steps = 0;        // dependent message steps (α terms)
  std::vector<Transfer> transfers;
  std::vector<LinkLoad> in_network;
  PhaseEngine engine = PhaseEngine::links;
};

/// Protocol efficiency per link kind (fraction of line rate a large collective reaches) and of the
/// in-network reductions. Calibrated in the node catalog (intra_link / nic efficiency).
struct LinkEfficiency {
  double by_kind[kLinkKindCount] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  double nvls = 1.0;   // NVLink SHARP all-reduce: fraction of the NVSwitch port rate
  double sharp = 1.0;  // InfiniBand SHARP: fraction of the NIC rate
  [[nodiscard]] double of(LinkKind k) const { return by_kind[static_cast<int>(k)]; }
};

struct PhaseCost {
  Seconds time{0};
  Seconds latency{0};     // latency_steps · α
  Seconds bandwidth{0};   // the bottleneck link's load / effective bandwidth
  LinkId bottleneck = -1;  // -1 when the phase moves no bytes
  double bottleneck_bytes = 0.0;
};

PhaseCost cost_phase(const TopologyGraph& g, const Phase& p, const LinkEfficiency& eff);

/// Bytes per (link, direction) of a phase: index 2·link + (forward ? 0 : 1).
std::vector<double> link_loads(const TopologyGraph& g, const Phase& p);

}  // namespace clustersim
