#include "sim/scenario/run_spec.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace clustersim::run {
namespace {

std::string num(double x) {
  return fmt::format("{:g}", x);
}

class Checker {
 public:
  explicit Checker(std::vector<FieldProblem>& out) : out_(out) {}
  void fail(const std::string& field, std::string message) { out_.push_back({field, std::move(message)}); }
  void positive(const std::string& field, double x) {
    if (!(x > 0.0)) fail(field, "must be > 0, got " + num(x));
  }
  void non_negative(const std::string& field, double x) {
    if (!(x >= 0.0) || std::isinf(x)) fail(field, "must be a finite value >= 0, got " + num(x));
  }
  void optional_positive(const std::string& field, const std::optional<BytesPerSecond>& b) {
    if (b) positive(field, b->value());
  }

 private:
  std::vector<FieldProblem>& out_;
};

void validate_class(Checker& c, const std::string& base, const FailureClassSpec& f) {
  if (!(f.unit_mtbf.value() > 0.0))
    c.fail(base + ".unit_mtbf", "must be > 0, got " + num(f.unit_mtbf.value()));
  c.positive(base + ".weibull_shape", f.weibull_shape);
  c.non_negative(base + ".detection", f.detection.value());
  c.non_negative(base + ".repair", f.repair.value());
  if (f.planned && f.blast_radius != BlastRadius::none) {
    c.fail(base + ".blast_radius", "a planned interruption replaces nothing: blast_radius must be \"none\"");
  }
}

void validate_checkpoint(Checker& c, const CheckpointSpec& k) {
  const std::string base = "checkpoint";
  if (k.interval) c.positive(base + ".interval", k.interval->value());
  c.optional_positive(base + ".write_bandwidth_per_node", k.write_bandwidth_per_node);
  c.optional_positive(base + ".aggregate_write_bandwidth", k.aggregate_write_bandwidth);
  c.optional_positive(base + ".read_bandwidth_per_node", k.read_bandwidth_per_node);
  c.optional_positive(base + ".aggregate_read_bandwidth", k.aggregate_read_bandwidth);
  c.optional_positive(base + ".host_copy_bandwidth", k.host_copy_bandwidth);
  c.optional_positive(base + ".peer_bandwidth_per_node", k.peer_bandwidth_per_node);
  if (k.tier == CheckpointTier::storage && !k.write_bandwidth_per_node && !k.aggregate_write_bandwidth) {
    c.fail(base + ".write_bandwidth_per_node",
           fmt::format("a {} checkpoint to storage needs a write bandwidth (write_bandwidth_per_node and/or "
                       "aggregate_write_bandwidth, e.g. \"2 TB/s\")",
                       to_string(k.mode)));
  }
  if ((k.mode == CheckpointMode::async || k.tier == CheckpointTier::peer_memory) && !k.host_copy_bandwidth) {
    c.fail(base + ".host_copy_bandwidth",
           "async and peer_memory checkpoints stall on the device-to-host copy: give host_copy_bandwidth "
           "(e.g. \"50 GB/s\")");
  }
  if (k.tier == CheckpointTier::peer_memory && !k.peer_bandwidth_per_node) {
    c.fail(base + ".peer_bandwidth_per_node",
           "peer_memory checkpoints need the node-to-node bandwidth (e.g. \"50 GB/s\")");
  }
  if (k.tier == CheckpointTier::peer_memory && k.mode == CheckpointMode::async) {
    c.fail(base + ".mode", "peer_memory replication is modelled as a blocking copy: use mode \"sync\"");
  }
}

void validate_recovery(Checker& c, const RecoverySpec& r) {
  const std::string base = "recovery";
  if (r.spare_nodes && *r.spare_nodes < 0) {
    c.fail(base + ".spare_nodes", "must be >= 0, got " + std::to_string(*r.spare_nodes));
  }
  if (r.spare_nodes && r.policy != RecoveryPolicy::hot_spare) {
    c.fail(base + ".spare_nodes",
           fmt::format("spare nodes only apply to policy \"hot_spare\", not \"{}\"", to_string(r.policy)));
  }
  c.non_negative(base + ".spare_swap", r.spare_swap.value());
  c.non_negative(base + ".restart_base", r.restart_base.value());
  c.non_negative(base + ".restart_per_device", r.restart_per_device.value());
}

void validate_stragglers(Checker& c, const StragglerSpec& s) {
  const std::string base = "stragglers";
  if (!(s.slow_fraction >= 0.0 && s.slow_fraction <= 1.0)) {
    c.fail(base + ".slow_fraction", "must be in [0, 1], got " + num(s.slow_fraction));
  }
  if (!(s.slow_speed > 0.0 && s.slow_speed <= 1.0)) {
    c.fail(base + ".slow_speed",
           "must be in (0, 1] (relative speed of a slow device), got " + num(s.slow_speed));
  }
  if (!(s.lognormal_sigma >= 0.0 && s.lognormal_sigma <= 2.0)) {
    c.fail(base + ".lognormal_sigma", "must be in [0, 2], got " + num(s.lognormal_sigma));
  }
}

void validate_spot(Checker& c, const SpotSpec& s) {
  if (s.groups.empty()) c.fail("spot.groups", "give at least one group of spot nodes");
  c.non_negative("spot.on_demand_price", s.on_demand_price);
  for (std::size_t i = 0; i < s.groups.size(); ++i) {
    const SpotGroupSpec& g = s.groups[i];
    const std::string base = fmt::format("spot.groups[{}]", i);
    if (g.nodes <= 0) c.fail(base + ".nodes", "must be > 0, got " + std::to_string(g.nodes));
    if (!(g.mean_time_to_preemption.value() > 0.0) || std::isinf(g.mean_time_to_preemption.value()))
      c.fail(base + ".mean_time_to_preemption", "must be a finite time > 0, got " + num(g.mean_time_to_preemption.value()));
    c.non_negative(base + ".notice", g.notice.value());
    c.non_negative(base + ".capacity_return", g.capacity_return.value());
    c.non_negative(base + ".price", g.price);
  }
}

}  // namespace

std::vector<FieldProblem> RunSpec::validate() const {
  std::vector<FieldProblem> out;
  Checker c(out);
  if (tokens.has_value() == steps.has_value()) {
    c.fail("", "give exactly one of \"tokens\" (e.g. \"15T\") or \"steps\"");
  }
  if (tokens) c.positive("tokens", *tokens);
  if (steps && *steps <= 0) c.fail("steps", "must be > 0, got " + std::to_string(*steps));
  if (trials <= 0) c.fail("trials", "must be > 0, got " + std::to_string(trials));
  if (what_if_trials <= 0) c.fail("what_if_trials", "must be > 0, got " + std::to_string(what_if_trials));
  for (const auto cls : kAllComponentClasses) {
    validate_class(c, fmt::format("failures[{}]", to_string(cls)), failures[index_of(cls)]);
  }
  validate_checkpoint(c, checkpoint);
  validate_recovery(c, recovery);
  validate_stragglers(c, stragglers);
  if (spot) validate_spot(c, *spot);
  return out;
}

std::string_view to_string(CheckpointMode m) {
  return m == CheckpointMode::sync ? "sync" : "async";
}
std::string_view to_string(CheckpointTier t) {
  return t == CheckpointTier::storage ? "storage" : "peer_memory";
}
std::string_view to_string(RecoveryPolicy p) {
  switch (p) {
    case RecoveryPolicy::hot_spare:
      return "hot_spare";
    case RecoveryPolicy::wait_for_repair:
      return "wait_for_repair";
    case RecoveryPolicy::elastic:
      return "elastic";
  }
  return "hot_spare";
}

}  // namespace clustersim::run
