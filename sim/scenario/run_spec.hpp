// The `run` section of an experiment as plain value types: how much to train, the failure model, the
// checkpoint policy, recovery and stragglers. sim/config fills these from JSON (keys and units are
// listed in docs/reliability.md); `default_run_spec()` (default_catalog.hpp) gives the catalog defaults.
//
// validate() checks each field on its own and returns every problem by the path of the member at fault
// ("failures[accelerator].weibull_shape", "checkpoint.interval"); sim/config maps the paths to the keys
// of the `run` section. Cross-checks that need the step-level figures (checkpoint interval vs write
// time) live in validate_against_job() (run_plan.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/diagnostics.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/failure_class.hpp"

namespace clustersim::run {

enum class CheckpointMode {
  sync,   // training stalls for the whole write
  async,  // training stalls for the device→host copy; the write drains in the background
};
enum class CheckpointTier {
  storage,      // per-node NVMe / parallel file system (bandwidth per node, capped in aggregate)
  peer_memory,  // in-memory replication to a peer node's host RAM (Gemini-style), no storage write
};

struct CheckpointSpec {
  /// Progress (failure-free training time) between checkpoints; nullopt = `auto` (Young 1974).
  std::optional<Seconds> interval;
  CheckpointMode mode = CheckpointMode::sync;
  CheckpointTier tier = CheckpointTier::storage;
  /// Storage write/read bandwidth of one node and the aggregate cap of the file system (either may be
  /// absent; the storage tier needs at least one write figure). Read defaults to write.
  std::optional<BytesPerSecond> write_bandwidth_per_node;
  std::optional<BytesPerSecond> aggregate_write_bandwidth;
  std::optional<BytesPerSecond> read_bandwidth_per_node;
  std::optional<BytesPerSecond> aggregate_read_bandwidth;
  /// Device→host copy bandwidth per accelerator (async and peer_memory stall on it).
  std::optional<BytesPerSecond> host_copy_bandwidth;
  /// Node→peer-node bandwidth for peer_memory replication and restore.
  std::optional<BytesPerSecond> peer_bandwidth_per_node;
};

enum class RecoveryPolicy {
  hot_spare,        // failed nodes are swapped for spares (pool may be finite); repaired nodes refill it
  wait_for_repair,  // the job waits until the failed nodes are repaired
  elastic,          // restart at once with the DP replicas that lost no node (TorchElastic semantics:
                    // restart from the last checkpoint); repaired nodes rejoin at the next restart
};

struct RecoverySpec {
  RecoveryPolicy policy = RecoveryPolicy::hot_spare;
  std::optional<int> spare_nodes;  // nullopt = unlimited spares (hot_spare only); >= 0
  Seconds spare_swap{0};           // time to bring a spare node into the job, >= 0
  /// Job restart time = restart_base + restart_per_device × devices (scheduler, process launch, model
  /// build, communicator initialisation; the per-device term follows MegaScale's measured scaling).
  Seconds restart_base{0};
  Seconds restart_per_device{0};
};

/// Per-step, per-device slowdowns (transient throttling, noisy neighbours): each device's step time is
/// multiplied by X = L · S, L ~ lognormal(0, sigma) (median 1) and S = 1/slow_speed with probability
/// slow_fraction (else 1), independently per device and per step. A synchronous step lasts
/// max over devices (straggler_model.hpp).
struct StragglerSpec {
  double slow_fraction = 0.0;    // in [0, 1]
  double slow_speed = 1.0;       // in (0, 1]: relative speed of a slow device
  double lognormal_sigma = 0.0;  // >= 0
};

/// One group of spot / preemptible nodes (docs/reliability.md, "Spot capacity"): each node of the group
/// is preempted after an exponential time with mean `mean_time_to_preemption`, with `notice` of warning;
/// its capacity comes back after an exponential time with mean `capacity_return` (0: at once).
struct SpotGroupSpec {
  std::string name;
  int nodes = 0;                          // > 0; groups take the job's nodes in order
  Seconds mean_time_to_preemption{0};     // per node, > 0
  Seconds notice{0};                      // >= 0
  Seconds capacity_return{0};             // mean, >= 0
  double price = 0;                       // USD per device-hour, >= 0
};

/// Spot capacity: node groups that can be preempted, on-demand price of the other nodes and of the
/// comparison run. The job continues elastically with the DP replicas that have all their nodes.
struct SpotSpec {
  std::vector<SpotGroupSpec> groups;  // at least one
  double on_demand_price = 0;         // USD per device-hour, >= 0
  bool checkpoint_on_notice = true;   // write a checkpoint in the notice window when it fits
};

struct RunSpec {
  std::optional<double> tokens;       // tokens to train (exactly one of tokens / steps), > 0
  std::optional<std::int64_t> steps;  // optimizer steps to train, > 0
  std::uint64_t seed = 1;
  int trials = 1000;         // Monte Carlo trials, > 0
  int what_if_trials = 200;  // trials per what-if row (common random numbers), > 0
  FailureModelSpec failures;
  CheckpointSpec checkpoint;
  RecoverySpec recovery;
  StragglerSpec stragglers;
  std::optional<SpotSpec> spot;

  /// Per-field checks. Fields: "" (neither or both of tokens and steps), tokens, steps, trials,
  /// what_if_trials, failures[<class>].<FailureClassSpec member> (class as to_string(ComponentClass)),
  /// checkpoint.*, recovery.*, stragglers.* (CheckpointSpec, RecoverySpec, StragglerSpec members).
  [[nodiscard]] std::vector<FieldProblem> validate() const;
};

std::string_view to_string(CheckpointMode m);
std::string_view to_string(CheckpointTier t);
std::string_view to_string(RecoveryPolicy p);

}  // namespace clustersim::run
