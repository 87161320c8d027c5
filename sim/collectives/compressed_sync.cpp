#include "sim/collectives/compressed_sync.hpp"

#include "models/transformer_cost.hpp"
#include "topologies/derived_topology.hpp"

namespace clustersim {

ConcurrentGroups dp_groups(const ParallelismSpec& par) {
  return {.size = par.dp * par.cp, .stride = par.tp, .first = 0, .count = par.tp, .group_stride = 1};
}

CollectiveChoice dp_choice(const ParallelismSpec& par) {
  if (!par.dp_flat_ring) return {};
  return {.algorithm = CollectiveAlgorithm::ring, .ring_order = RingOrder::flat};
}

CompressedSyncCost compressed_sync_cost(const GradientCompression& c, const GradientPayload& payload,
                                        const TopologyCollectives& topo, const ConcurrentGroups& dp,
                                        CollectiveChoice choice, const DeviceSpec& device) {
  CompressedSyncCost out;
  out.sync = compress_gradients(c, payload);
  const CollectiveOp op =
      out.sync.collective == SyncCollective::all_gather ? CollectiveOp::all_gather : CollectiveOp::all_reduce;
  for (Bytes b : out.sync.wire) out.comm += topo.time(op, b, dp, choice);
  const Bytes plain(payload.elements * payload.base_bytes_per_element);
  out.wire_uncompressed = plain;
  out.comm_uncompressed = topo.time(CollectiveOp::all_reduce, plain, dp, choice);
  out.codec = codec_time(out.sync, device);
  const CompressedSync none = compress_gradients(GradientCompression{}, payload);
  out.break_even_Bps = break_even_bandwidth(none, out.sync, dp.size, out.codec);
  return out;
}

CompressedSyncCost compression_summary(const Scenario& s) {
  const ParallelismSpec& par = s.parallelism;
  const TrainingSpec& tr = s.training;
  const ParameterCount pc = parameter_count(s.model);
  const double total = pc.total();
  GradientPayload p;
  p.elements = total / (static_cast<double>(par.tp) * par.pp);
  p.base_bytes_per_element = bytes_per_element(tr.gradient_precision);
  p.dp = par.dp * par.cp;
  if (tr.compression.scheme == CompressionScheme::power_sgd) {
    p.matrices = transformer_gradient_matrices(s.model, par.tp);
    for (GradientMatrix& m : p.matrices) m.count /= par.pp;
  }
  const auto mapped = torus_mapped_cluster(s.cluster, par.tp);  // as sim/graph/op_cost.cpp
  return compressed_sync_cost(tr.compression, p, *TopologyCollectives::of(mapped ? *mapped : s.cluster), dp_groups(par),
                              dp_choice(par), s.cluster.node.device);
}

}  // namespace clustersim
