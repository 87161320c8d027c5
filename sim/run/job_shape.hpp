// The step-level figures the run model consumes: produced by the step model (engine + cost model) and
// passed in as plain values, so the run layer needs nothing but these numbers.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/diagnostics.hpp"
#include "sim/core/units.hpp"

namespace clustersim::run {

/// Steps a batch-size ramp runs at a smaller batch than the final one (sim/run/batch_ramp.hpp), each phase
/// with the step model's figures at its batch.
struct RampPhase {
  std::int64_t batch = 0;      // sequences per step, > 0
  std::int64_t steps = 0;      // > 0
  double tokens_per_step = 0;  // > 0
  Seconds step_time{0};        // > 0
};

struct JobShape {
  Seconds step_time{0};           // failure-free, straggler-free wall time of one optimizer step, > 0
  double tokens_per_step = 0;     // global batch × sequence length, > 0
  int devices = 0;                // accelerators in the job, > 0
  int devices_per_node = 0;       // > 0, divides devices
  int nics_per_node = 1;          // scale-out NIC links per node, >= 0
  int nodes_per_leaf_switch = 1;  // nodes below one leaf (ToR/rail) switch, > 0
  int dp = 1;                     // data-parallel replicas, > 0, divides devices
  /// Checkpointed state held by each rank (weights and optimizer state at their stored precisions).
  Bytes weights_bytes_per_rank{0};
  Bytes optimizer_bytes_per_rank{0};
  /// Whether that state is sharded across DP replicas (ZeRO/FSDP) or replicated dp times.
  bool weights_sharded_across_dp = false;
  bool optimizer_sharded_across_dp = false;
  /// Copies of the sharded state: a multi-slice TPU job shards ZeRO/FSDP state within a slice, so each
  /// of its `shard_copies` slices holds a whole copy (> 0, divides dp).
  int shard_copies = 1;
  /// The run's first steps when the batch ramps up (in order); the run continues at step_time and
  /// tokens_per_step (the final batch). Empty: no ramp.
  std::vector<RampPhase> ramp;

  [[nodiscard]] int nodes() const { return devices / devices_per_node; }
  /// Unique bytes of one checkpoint: per-rank state × devices, divided by dp where replicated and by
  /// shard_copies where sharded.
  [[nodiscard]] Bytes checkpoint_bytes() const;
  /// Problems by member name (e.g. "dp"). These figures come from the step model, so a problem here is
  /// a bug upstream: the run model asserts that there is none.
  [[nodiscard]] std::vector<FieldProblem> validate() const;
};

}  // namespace clustersim::run
