#include "sim/scenario/work_bounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace clustersim {
namespace {

// The smallest --max-cost factor that admits `value` under `bound` (rounded up to 2 significant digits).
std::string factor_needed(double value, double bound) {
  const double f = value / bound;
  const double magnitude = std::pow(10.0, std::floor(std::log10(f)) - 1.0);
  return fmt::format("{:g}", std::ceil(f / magnitude) * magnitude);
}

double graph_operations(const Scenario& s) {
  const auto& p = s.parallelism;
  const auto& t = s.training;
  const double per_step = static_cast<double>(t.micro_batch) * p.dp;
  const double m = per_step > 0 ? std::max(1.0, std::floor(t.global_batch / per_step)) : 1.0;
  return 2.0 * m * p.pp * p.vp;
}

}  // namespace

WorkEstimate estimate_work(const Scenario& s, bool flow_engine) {
  WorkEstimate w;
  w.devices = static_cast<std::int64_t>(s.cluster.nodes) * s.cluster.node.devices_per_node;
  w.flow = flow_engine;
  const auto& topo = s.cluster.comm.topology;
  w.flow_classes = s.flow.flow_classes && s.flow.symmetry_reduction && topo && topo->network != NetworkKind::none;
  const auto add = [&w](const Scenario& job) {
    w.graph_operations += graph_operations(job);
    const auto& t = job.training;
    const double per_step = static_cast<double>(t.micro_batch) * job.parallelism.dp;
    if (per_step > 0)
      w.micro_batches =
          std::max<std::int64_t>(w.micro_batches, t.global_batch / static_cast<std::int64_t>(per_step));
  };
  if (s.jobs.empty()) {
    add(s);
  } else {
    for (const JobSpec& j : s.jobs) add(j.scenario);
    if (flow_engine) w.flow_replayed_operations = w.graph_operations;
  }
  return w;
}

std::optional<std::string> work_over_bounds(const WorkEstimate& w, double scale) {
  const double ops_bound = kMaxGraphOperations * scale;
  if (w.graph_operations > ops_bound) {
    return fmt::format(
        "the step graph would hold {:.3g} operations ({} micro-batches per step; about {:.3g} GB and {:.3g} "
        "s "
        "to simulate), over the bound of {:.3g}: raise it with --max-cost {} or use fewer micro-batches",
        w.graph_operations, w.micro_batches, w.graph_operations * 450e-9, w.graph_operations * 2e-6,
        ops_bound, factor_needed(w.graph_operations, kMaxGraphOperations));
  }
  const double replay_bound = kMaxFlowReplayedOperations * scale;
  if (w.flow && w.flow_replayed_operations > replay_bound) {
    return fmt::format(
        "the flow engine would replay {:.3g} operations of several jobs one by one ({} micro-batches per step; "
        "about {:.3g} s to simulate), over the bound of {:.3g}: raise it with --max-cost {}, use fewer "
        "micro-batches or --engine analytic",
        w.flow_replayed_operations, w.micro_batches, w.flow_replayed_operations * 1e-3, replay_bound,
        factor_needed(w.flow_replayed_operations, kMaxFlowReplayedOperations));
  }
  const double device_bound = w.flow_classes ? kMaxFlowClassDevices : kMaxFlowDevices;
  const double flow_bound = device_bound * scale;
  if (w.flow && static_cast<double>(w.devices) > flow_bound) {
    return fmt::format(
        "the flow engine would simulate {} devices (at least {:.3g} flows and {:.3g} GB), over the bound of "
        "{:.0f} "
        "devices: raise it with --max-cost {} or use --engine analytic",
        w.devices, 64.0 * static_cast<double>(w.devices),
        (w.flow_classes ? 8e3 : 12e3) * static_cast<double>(w.devices) / 1e9, flow_bound,
        factor_needed(static_cast<double>(w.devices), device_bound));
  }
  return std::nullopt;
}

std::optional<std::string> sweep_over_bound(double points, double scale) {
  const double bound = kMaxSweepPoints * scale;
  if (points <= bound) return std::nullopt;
  return fmt::format(
      "the sweep has {:.4g} points, over the bound of {:.3g} per invocation: split it with "
      "--shard i/n or raise the bound with --max-cost {}",
      points, bound, factor_needed(points, kMaxSweepPoints));
}

}  // namespace clustersim
