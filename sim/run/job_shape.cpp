#include "sim/run/job_shape.hpp"

#include <fmt/format.h>

namespace clustersim::run {

Bytes JobShape::checkpoint_bytes() const {
  const double n = static_cast<double>(devices);
  const double copies = static_cast<double>(shard_copies);
  const double w = weights_bytes_per_rank.value() * n / (weights_sharded_across_dp ? copies : dp);
  const double o = optimizer_bytes_per_rank.value() * n / (optimizer_sharded_across_dp ? copies : dp);
  return Bytes(w + o);
}

std::vector<FieldProblem> JobShape::validate() const {
  std::vector<FieldProblem> out;
  auto fail = [&out](const char* field, std::string msg) { out.push_back({field, std::move(msg)}); };
  if (!(step_time.value() > 0)) fail("step_time", fmt::format("must be > 0 s, got {:g}", step_time.value()));
  if (!(tokens_per_step > 0)) fail("tokens_per_step", fmt::format("must be > 0, got {:g}", tokens_per_step));
  if (devices <= 0) fail("devices", fmt::format("must be > 0, got {}", devices));
  if (devices_per_node <= 0) {
    fail("devices_per_node", fmt::format("must be > 0, got {}", devices_per_node));
  } else if (devices > 0 && devices % devices_per_node != 0) {
    fail("devices_per_node", fmt::format("{} does not divide devices ({})", devices_per_node, devices));
  }
  if (nics_per_node < 0) fail("nics_per_node", fmt::format("must be >= 0, got {}", nics_per_node));
  if (nodes_per_leaf_switch <= 0) {
    fail("nodes_per_leaf_switch", fmt::format("must be > 0, got {}", nodes_per_leaf_switch));
  }
  if (dp <= 0) {
    fail("dp", fmt::format("must be > 0, got {}", dp));
  } else if (devices > 0 && devices % dp != 0) {
    fail("dp", fmt::format("{} does not divide devices ({})", dp, devices));
  }
  if (shard_copies <= 0 || (dp > 0 && dp % shard_copies != 0)) {
    fail("shard_copies", fmt::format("must be > 0 and divide dp ({}), got {}", dp, shard_copies));
  }
  if (weights_bytes_per_rank.value() < 0) fail("weights_bytes_per_rank", "must be >= 0");
  if (optimizer_bytes_per_rank.value() < 0) fail("optimizer_bytes_per_rank", "must be >= 0");
  for (const RampPhase& r : ramp) {
    if (!(r.batch > 0 && r.steps > 0 && r.tokens_per_step > 0 && r.step_time.value() > 0)) {
      fail("ramp", fmt::format("a phase of batch {}, {} steps, {:g} tokens per step, {:g} s per step is not "
                               "positive", r.batch, r.steps, r.tokens_per_step, r.step_time.value()));
    }
  }
  return out;
}

}  // namespace clustersim::run
