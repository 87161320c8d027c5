#include "sim/scenario/work_bounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "schedules/pipeline_schedule.hpp"

namespace clustersim {
namespace {

// The smallest --max-cost factor that admits `value` under `bound` (rounded up to 2 significant digits).
std::string factor_needed(double value, double bound) {
  const double f = value / bound;
  const double magnitude = std::pow(10.0, std::floor(std::log10(f)) - 1.0);
  return fmt::format("{:g}", std::ceil(f / magnitude) * magnitude);
}

// The pipeline ops the step graph holds: pp stages × the schedule's ops per stage (F and B per micro-batch
// and chunk, plus W where the backward is split: 1.5× for zb-h1 and dualpipe, 6m per stage for v-half), the
// count the schedule's op lists have (schedules/pipeline_schedule.hpp ops_per_stage). In floating point: a
// step too large for an int is estimated (and refused), not overflowed.
double graph_operations(const Scenario& s) {
  const auto& p = s.parallelism;
  const auto& t = s.training;
  const double per_step = static_cast<double>(t.micro_batch) * p.dp;
  const double m = per_step > 0 ? std::max(1.0, std::floor(t.global_batch / per_step)) : 1.0;
  return static_cast<double>(p.pp) * ops_per_stage(p.schedule, m, p.vp);
}

}  // namespace

WorkEstimate estimate_work(const Scenario& s, bool flow_engine) {
  WorkEstimate w;
  w.devices = static_cast<std::int64_t>(s.cluster.nodes) * s.cluster.node.devices_per_node;
  w.flow = flow_engine;
  w.flow_classes = s.flow.flow_classes && s.flow.symmetry_reduction && s.cluster.flow_topology_mode();
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
        w.graph_operations, w.micro_batches, w.graph_operations * kGraphOperationBytes / 1e9,
        w.graph_operations * kGraphOperationSeconds,
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

RunEstimate estimate_run(const WorkEstimate& w) {
  // The analytic engine (also run beside the flow engine): kGraphOperationSeconds and kGraphOperationBytes
  // per graph operation (work_bounds.hpp: how they were measured), ~30 MiB of process (catalogs, code).
  constexpr double kMiB = 1048576.0;
  RunEstimate e;
  e.cpu_seconds = 0.02 + w.graph_operations * kGraphOperationSeconds;
  e.peak_bytes = 30 * kMiB + w.graph_operations * kGraphOperationBytes;
  e.path = "analytic";
  if (!w.flow) return e;
  const double d = static_cast<double>(std::max<std::int64_t>(1, w.devices));
  if (w.flow_replayed_operations > 0) {
    // Several jobs on one fabric: every operation replayed as flows, ~1 ms of CPU each (work_bounds.hpp).
    e.cpu_seconds += w.flow_replayed_operations * 1e-3;
    e.peak_bytes += 12e3 * d;
    e.path = "flow (jobs)";
  } else if (w.flow_classes) {
    // Flow classes (fluid_net.hpp), fitted to tools/bench_flow_scaling.sh on Llama-3-405B TP8 PP16:
    // 1,024 GPUs 0.1 s 41 MiB; 4,096 0.2 s 61 MiB; 16,384 0.8 s 144 MiB; 32,768 2.0 s 255 MiB;
    // 98,304 8.5 s 711 MiB.
    e.cpu_seconds += 0.06 + 0.72 * std::pow(d / 16384.0, 1.32);
    e.peak_bytes += 4 * kMiB + 7.0 * 1024.0 * d;
    e.path = "flow classes";
  } else {
    // One SimGrid flow per flow (implicit fabrics, flow.flow_classes false): fitted to the same script
    // with FLOW_CLASSES=0: 512 GPUs 0.2 s 37 MiB; 1,024 0.4 s 41 MiB; 2,048 1.0 s 48 MiB; 4,096 3.0 s
    // 72 MiB; 16,384 18.9 s 186 MiB.
    e.cpu_seconds += 0.03 + 3.0 * std::pow(d / 4096.0, 1.4);
    e.peak_bytes += 10.0 * 1024.0 * d;
    e.path = "flow (SimGrid)";
  }
  return e;
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
