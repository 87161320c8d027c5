// Work bounds: how much a prediction would simulate, estimated from the scenario before any simulation,
// and the documented limits above which the CLI and sweeps refuse instead of running for hours.
//
// Estimates (measured on a 2-core machine, docs/limits.md):
//   - analytic engine: the step graph holds pp × the schedule's ops per stage (m micro-batches per step:
//     2·m·vp with a fused backward, 3·m for zb-h1 and dualpipe, 6·m for v-half) compute operations and
//     is charged 0.3 µs and 450 B per operation (kGraphOperationSeconds, kGraphOperationBytes: measured
//     0.14-0.22 µs and ~150 B); the bound is 4·10^6 operations (estimated 1.2 s and 1.8 GB; measured
//     0.54 s and 593 MiB at 3.84·10^6);
//   - flow engine: one SimGrid host per device and ~64-272 flows per device (1,048,576 flows for 16,384
//     H100 in 34 s, 182 MiB); the bound is 65,536 devices; with flow classes (flow.flow_classes and
//     flow.symmetry_reduction on an explicit fabric: no SimGrid, docs/flow_engine.md) ~0.1 ms CPU and
//     ~8 KiB per device (98,304 H100: 10 s CPU, 0.7 GiB), the bound is 262,144 devices;
//   - sweeps: 10^7 points per invocation (after --shard).
// Every bound scales with `scale` (the CLI's --max-cost FACTOR). Devices above 2^24 are refused by the
// configuration itself (sim/config/cross_checks.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/scenario/scenario.hpp"

namespace clustersim {

inline constexpr double kMaxGraphOperations = 4e6;

/// CPU time the analytic engine spends per step-graph operation, for estimate_run and the refusal
/// message. Measured with tools/bench_analytic_ops.sh (release build, `clustersim run gpt3-175b-a100-1024`
/// with global_batch = 16·m, m = 5,000 to 80,000, i.e. 8·10^4 to 3.84·10^6 operations, five runs per size,
/// median of user + system time from /usr/bin/time) on the 2-core machine at load average ≈ 5, 2026-11-26:
/// least-squares slopes of the medians 0.135 µs (interleaved-1f1b vp 3, zb-h1), 0.142 µs (v-half) and
/// 0.216 µs (1f1b) per operation, intercepts 0.02-0.06 s; the median per operation at 0.96·10^6 operations
/// 0.16-0.23 µs. 0.3 µs is above every slope and every median from 1.6·10^5 operations on (the estimate
/// overstates by 1.2-2.2x there), so the estimate errs long; it was 2 µs (about 10x too long) before.
inline constexpr double kGraphOperationSeconds = 0.3e-6;
/// Peak memory per step-graph operation: measured ~151 B (slopes of the same runs' peak RSS, 40 MiB
/// intercept); 450 B is kept as the conservative figure of the memory estimate and the refusal message.
inline constexpr double kGraphOperationBytes = 450.0;
inline constexpr double kMaxFlowDevices = 65536;
inline constexpr double kMaxFlowClassDevices = 262144;
inline constexpr double kMaxSweepPoints = 1e7;

/// What one prediction of `s` would simulate.
struct WorkEstimate {
  std::int64_t devices = 0;        // nodes × devices per node (all jobs' cluster)
  std::int64_t micro_batches = 0;  // per step, largest over jobs
  double graph_operations = 0;     // pp · ops per stage (2·m·vp, 3·m zb-h1/dualpipe, 6·m v-half), summed over jobs
  bool flow = false;               // the flow engine would run
  bool flow_classes = false;       // ... on its flow-class solver (no SimGrid)
  /// Operations the flow engine replays one by one: with several jobs every micro-batch of every job is
  /// simulated as flows (~1 ms of CPU per operation: two 32-GPU jobs of 312 micro-batches, 1,250
  /// operations, take 1.4 s), without the single-job steady-state shortcut.
  double flow_replayed_operations = 0;
};

inline constexpr double kMaxFlowReplayedOperations = 1e4;

WorkEstimate estimate_work(const Scenario& s, bool flow_engine);

/// How long one prediction would take and how much memory it would hold, before it runs (`run --estimate`
/// and the flow engine's progress line). A model, not a measurement: power laws in the device count fitted
/// to the flow-engine scaling curves of docs/flow_engine.md (tools/bench_flow_scaling.sh, CPU time of a
/// 2-core machine) plus the analytic engine's kGraphOperationSeconds and kGraphOperationBytes per graph
/// operation. docs/limits.md
/// states how far off it was measured to be (tools/bench_flow_estimate.sh).
struct RunEstimate {
  double cpu_seconds = 0;  // user + system time of one core
  double peak_bytes = 0;   // peak resident memory
  std::string path;        // which cost model: "analytic", "flow classes", "flow (SimGrid)", "flow (jobs)"
};

RunEstimate estimate_run(const WorkEstimate& w);

/// A sentence naming the estimate, the bound and the --max-cost factor that would lift it, or nullopt when
/// `w` is within the bounds scaled by `scale` (>= 1 raises them).
std::optional<std::string> work_over_bounds(const WorkEstimate& w, double scale);

/// A sentence when a sweep of `points` exceeds its bound scaled by `scale`, else nullopt.
std::optional<std::string> sweep_over_bound(double points, double scale);

}  // namespace clustersim
