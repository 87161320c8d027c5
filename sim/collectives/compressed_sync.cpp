#include "sim/collectives/compressed_sync.hpp"

#include "models/transformer_cost.hpp"

namespace clustersim {

CompressedSyncCost compressed_sync_cost(const GradientCompression& c, const GradientPayload& payload,
                                        GroupPlacement group, const TwoLevelFabric& fabric, const DeviceSpec& device) {
  CompressedSyncCost out;
  out.sync = compress_gradients(c, payload);
  const CollectiveOp op =
      out.sync.collective == SyncCollective::all_gather ? CollectiveOp::all_gather : CollectiveOp::all_reduce;
  for (Bytes b : out.sync.wire) out.comm += collective_time(op, b, group, fabric);
  const Bytes plain(payload.elements * payload.base_bytes_per_element);
  out.wire_uncompressed = plain;
  out.comm_uncompressed = collective_time(CollectiveOp::all_reduce, plain, group, fabric);
  out.codec = codec_time(out.sync, device);
  const CompressedSync none = compress_gradients(GradientCompression{}, payload);
  out.break_even_Bps = break_even_bandwidth(none, out.sync, group.size, out.codec);
  return out;
}

CompressedSyncCost compression_summary(const Scenario& s, const TwoLevelFabric& fabric) {
  const ParallelismSpec& par = s.parallelism;
  const TrainingSpec& tr = s.training;
  const ParameterCount pc = parameter_count(s.model);
  const double total = pc.per_layer * s.model.layers + pc.embedding + pc.head;
  GradientPayload p;
  p.elements = total / (static_cast<double>(par.tp) * par.pp);
  p.base_bytes_per_element = bytes_per_element(tr.gradient_precision);
  p.dp = par.dp * par.cp;
  if (tr.compression.scheme == CompressionScheme::power_sgd) {
    p.matrices = transformer_gradient_matrices(s.model, par.tp);
    for (GradientMatrix& m : p.matrices) m.count /= par.pp;
  }
  const GroupPlacement g = place_group(p.dp, par.tp, s.cluster.node.devices_per_node);
  return compressed_sync_cost(tr.compression, p, g, fabric, s.cluster.node.device);
}

}  // namespace clustersim
