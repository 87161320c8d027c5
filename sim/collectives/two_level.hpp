// Closed-form α–β collective costs on a two-level hierarchy (node fabric + scale-out NICs).
//
// A group of n ranks spans `nodes` nodes with `per_node` ranks in each. Collectives are hierarchical, as
// NCCL runs them across DGX nodes: reduce-scatter inside the node, the inter-node collective on 1/per_node
// of the buffer by every local rank in parallel (each on its share of the node's NICs), all-gather inside
// the node. Ring phases cost (Thakur, Rabenseifner & Gropp 2005; Chan et al. 2007):
//   reduce-scatter / all-gather of S bytes over k ranks:  (k−1)·α + (k−1)/k · S / B
//   all-reduce:                                          2(k−1)·α + 2(k−1)/k · S / B
// S is always the full (unsharded) buffer, as in nccl-tests. B is the link bandwidth times its protocol
// efficiency (catalog). Contention between different groups is not modelled here (flow engine's job),
// except that the node's NICs are shared evenly by all devices of the node.
#pragma once

#include "sim/core/units.hpp"

namespace clustersim {

enum class CollectiveOp { all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, send_recv, reduce };

struct TwoLevelFabric {
  BytesPerSecond intra_bandwidth{0};  // per device per direction, after protocol efficiency
  Seconds intra_latency{0};
  BytesPerSecond inter_bandwidth{0};  // per device share of the node's NICs, after protocol efficiency
  Seconds inter_latency{0};
};

struct GroupPlacement {
  int size = 1;      // ranks in the group
  int per_node = 1;  // ranks of the group inside one node (divides size)
  [[nodiscard]] int nodes() const { return size / per_node; }
};

/// Placement of a group whose consecutive members are `stride` global ranks apart, with ranks numbered
/// node-major (`devices_per_node` per node).
/// The placement a flat ring sees: every hop between ranks of different nodes goes through the sending
/// rank's own NIC, so the whole buffer crosses one NIC per rank (per_node = 1) instead of 1/k of it.
[[nodiscard]] GroupPlacement flat_ring(GroupPlacement g);

GroupPlacement place_group(int size, int stride, int devices_per_node);

/// Time of one collective of S bytes (full buffer) over the group.
Seconds collective_time(CollectiveOp op, Bytes bytes, GroupPlacement g, const TwoLevelFabric& f);

/// Ring-phase time of one level: `steps` = k−1 hops moving (k−1)/k of `bytes` each way.
Seconds ring_phase(Bytes bytes, int k, BytesPerSecond bw, Seconds latency);

}  // namespace clustersim
