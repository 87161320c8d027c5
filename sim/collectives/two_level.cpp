#include "sim/collectives/two_level.hpp"

#include <algorithm>

#include "sim/core/diagnostics.hpp"

namespace clustersim {

GroupPlacement place_group(int size, int stride, int devices_per_node) {
  CS_ASSERT(size >= 1 && stride >= 1 && devices_per_node >= 1, "group shape must be positive");
  GroupPlacement g;
  g.size = size;
  if (stride >= devices_per_node) {
    g.per_node = 1;
  } else {
    g.per_node = std::min(size, std::max(1, devices_per_node / stride));
    while (size % g.per_node != 0) --g.per_node;
  }
  return g;
}

GroupPlacement flat_ring(GroupPlacement g) {
  if (g.nodes() > 1) g.per_node = 1;
  return g;
}

Seconds ring_phase(Bytes bytes, int k, BytesPerSecond bw, Seconds latency) {
  if (k <= 1 || bytes.value() <= 0.0) return Seconds(0);
  const double steps = k - 1;
  return latency * steps + Seconds(steps / k * bytes.value() / bw.value());
}

Seconds collective_time(CollectiveOp op, Bytes bytes, GroupPlacement g, const TwoLevelFabric& f) {
  if (g.size <= 1 || bytes.value() <= 0.0) return Seconds(0);
  const int k = g.per_node;
  const int n = g.nodes();
  const Bytes inter_bytes = bytes / static_cast<double>(k);  // each local rank handles 1/k of the buffer
  switch (op) {
    case CollectiveOp::all_reduce:
      return 2.0 * ring_phase(bytes, k, f.intra_bandwidth, f.intra_latency) +
             2.0 * ring_phase(inter_bytes, n, f.inter_bandwidth, f.inter_latency);
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
      return ring_phase(bytes, k, f.intra_bandwidth, f.intra_latency) +
             ring_phase(inter_bytes, n, f.inter_bandwidth, f.inter_latency);
    case CollectiveOp::all_to_all: {
      // Each rank sends (size−1)/size of its buffer: the intra-node share over NVLink, the rest over NICs.
      const double remote = static_cast<double>(g.size - k) / g.size;
      const double local = static_cast<double>(k - 1) / g.size;
      const Seconds t_local = Seconds(local * bytes.value() / f.intra_bandwidth.value()) +
                              (k > 1 ? f.intra_latency : Seconds(0));
      const Seconds t_remote = Seconds(remote * bytes.value() / f.inter_bandwidth.value()) +
                               (n > 1 ? f.inter_latency : Seconds(0));
      return max(t_local, t_remote);
    }
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
      // Pipelined ring broadcast (a reduce is the same chain run backwards): one pass of the buffer through each level.
      return Seconds(bytes.value() / f.intra_bandwidth.value()) * (k > 1 ? 1.0 : 0.0) +
             Seconds(bytes.value() / f.inter_bandwidth.value()) * (n > 1 ? 1.0 : 0.0) +
             f.intra_latency * (k - 1) + f.inter_latency * (n - 1);
    case CollectiveOp::send_recv:
      if (n > 1) return f.inter_latency + Seconds(bytes.value() / f.inter_bandwidth.value());
      return f.intra_latency + Seconds(bytes.value() / f.intra_bandwidth.value());
  }
  return Seconds(0);
}

}  // namespace clustersim
