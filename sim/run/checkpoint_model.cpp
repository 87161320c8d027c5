#include "sim/run/checkpoint_model.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "sim/core/diagnostics.hpp"

namespace clustersim::run {
namespace {

/// Effective bandwidth of a sharded transfer: every node moves its share in parallel, capped in sum.
double effective_bandwidth(std::optional<BytesPerSecond> per_node, std::optional<BytesPerSecond> aggregate,
                           int nodes) {
  double bw = std::numeric_limits<double>::infinity();
  if (per_node) bw = per_node->value() * nodes;
  if (aggregate) bw = std::min(bw, aggregate->value());
  return bw;
}

}  // namespace

CheckpointCosts checkpoint_costs(const CheckpointSpec& spec, const JobShape& job) {
  CheckpointCosts c;
  c.size = job.checkpoint_bytes();
  const int nodes = job.nodes();
  const double size = c.size.value();
  const double copy =
      spec.host_copy_bandwidth ? size / job.devices / spec.host_copy_bandwidth->value() : 0.0;

  if (spec.tier == CheckpointTier::peer_memory) {
    CS_ASSERT(spec.peer_bandwidth_per_node.has_value(), "peer_memory needs peer bandwidth (validate first)");
    const double peer = size / nodes / spec.peer_bandwidth_per_node->value();
    c.write = Seconds(copy + peer);
    c.stall = c.write;
    c.restore = Seconds(peer);
    return c;
  }

  const double write_bw = effective_bandwidth(spec.write_bandwidth_per_node, spec.aggregate_write_bandwidth, nodes);
  CS_ASSERT(std::isfinite(write_bw), "storage tier needs a write bandwidth (validate first)");
  const bool has_read = spec.read_bandwidth_per_node || spec.aggregate_read_bandwidth;
  const double read_bw =
      has_read ? effective_bandwidth(spec.read_bandwidth_per_node, spec.aggregate_read_bandwidth, nodes) : write_bw;
  c.write = Seconds(size / write_bw);
  c.restore = Seconds(size / read_bw);
  if (spec.mode == CheckpointMode::sync) {
    c.stall = c.write;
  } else {
    c.stall = Seconds(copy);
    c.drain = c.write;
  }
  return c;
}

Seconds young_daly_interval(Seconds checkpoint_cost, Seconds job_mtbf) {
  if (checkpoint_cost.value() <= 0 || job_mtbf.value() <= 0) return Seconds(0);
  if (std::isinf(job_mtbf.value())) return job_mtbf;
  return Seconds(std::sqrt(2.0 * checkpoint_cost.value() * job_mtbf.value()));
}

}  // namespace clustersim::run
