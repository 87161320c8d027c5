// What an engine reports for one training step. Every engine fills the same structure.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/memory_model.hpp"
#include "sim/core/units.hpp"
#include "sim/engine/async_sgd.hpp"
#include "sim/graph/step_graph.hpp"

namespace clustersim {

struct NodeTiming {
  Seconds start{0};
  Seconds end{0};
};

/// Time accounting of one pipeline stage (any device of that stage; all DP/TP ranks alike).
struct StageSummary {
  Seconds compute{0};          // device kernels incl. recomputation
  Seconds recompute{0};
  Seconds compute_bound{0};    // part of compute limited by FLOP/s
  Seconds overlap_slowdown{0}; // part of compute: kernels slowed by collectives overlapping them
  Seconds tp_exposed{0};
  Seconds cp_exposed{0};
  Seconds ep_exposed{0};       // MoE all-to-alls not hidden under compute
  Seconds pp_exposed{0};       // waiting on pipeline transfers
  Seconds dp_exposed{0};       // waiting on gradient sync after the last backward, incl. ZeRO-3 gathers
  Seconds optimizer{0};
  Seconds bubble{0};           // idle inside the pipeline phase (fill/drain, imbalance)
  Seconds pipeline_end{0};     // end of this stage's last forward/backward op
  Seconds end{0};              // end of the optimizer step
  MemoryBreakdown memory;
};

struct CommExposed {
  Seconds tp{0}, pp{0}, dp{0}, cp{0}, ep{0};
};

/// Weight streaming of a wafer-scale step (docs/wafer_scale.md): where the time goes and the external
/// store's memory check. The on-wafer SRAM check is StepResult::memory against memory_capacity.
struct StreamingResult {
  Seconds compute{0};    // Σ compute of all passes of the step
  Seconds streaming{0};  // Σ stream time of all passes of the step
  Seconds exposed{0};    // stream time not hidden under compute, incl. the step boundary
  Seconds boundary{0};
  int microbatches = 0;
  BytesPerSecond bandwidth{0};
  Bytes weights{0};               // streamed per pass
  Bytes memoryx{0};               // weights + gradients + optimizer states of the whole model
  Bytes memoryx_capacity{0};
  [[nodiscard]] bool stream_bound() const { return streaming > compute; }
};

/// Activation offloading of a step (training.activation_offload_layers; docs/model.md): what goes to
/// host memory and what the host link costs the step.
struct OffloadResult {
  int layers = 0;                  // offloaded layers (the model's first)
  Bytes device_bytes_saved{0};     // activations held in host memory instead (the peak's drop)
  Bytes host_bytes_per_step{0};    // per device, each direction (out in the forward, back in the backward)
  BytesPerSecond bandwidth{0};     // host link per device per direction, as reached
  Seconds copy_time{0};            // per step: the offload stream's copies (both directions)
  Seconds exposed{0};              // per step: the compute stream's waits for copies
  Seconds hbm_slowdown{0};         // per step: kernels slowed by the copies' HBM traffic
};

/// Data-parallel mode figures (dp_mode other than allreduce; docs/data_parallel_modes.md). Times in s.
struct DataParallelResult {
  DpMode mode = DpMode::allreduce;
  int workers = 0;
  // Parameter-server modes.
  int servers = 0;
  bool colocated = false;
  Seconds round{0};              // push + pull of one synchronous round as the engine ran it
  Seconds round_closed_form{0};  // the same from parameter_server.hpp
  Seconds server_time{0};        // closed form: server-NIC-bound part of a round (push + pull)
  Seconds worker_time{0};        // closed form: worker-NIC-bound part of a round
  bool server_bound = false;
  BytesPerSecond server_nic{0};  // per server, per direction, after efficiency
  Bytes server_bytes_per_round{0};
  double server_nic_utilisation = 0;  // bytes through a server NIC / (bandwidth · time), busier direction
  double server_update_capacity = 0;  // updates/s the server shards absorb (N / round)
  double server_nic_busy = 0;         // fraction of time the server NICs run at full rate:
                                      // updates/s × server_time / N
  // async / ssp (async_sgd.hpp).
  Seconds compute{0};            // a worker's step without push/pull
  double worker_cv = 0;
  int staleness_bound = -1;      // ssp bound, -1 for async
  double updates_per_s = 0;
  Seconds worker_cycle{0};
  double waiting_fraction = 0;
  LagSummary clock_lag, update_lag;
  int simulated_updates = 0;
  // local_sgd.
  int local_steps = 1;
  int datacenters = 1;
  Seconds averaging{0};          // one averaging (all-reduce + cross-datacentre exchange), critical stage
  Seconds amortised{0};          // averaging / H: what each step carries
  Bytes outer_state{0};          // per device: fp32 anchor copy and outer momentum
};

/// One device pool of a heterogeneous job (sim/engine/hetero.hpp).
struct PoolResult {
  std::string node;
  std::string device;
  int nodes = 0;
  int devices = 0;
  int first_stage = 0;              // pipeline: the pool's stages [first_stage, first_stage + stages)
  int stages = 0;
  int layers = 0;                   // pipeline: transformer layers on the pool's stages
  int replicas = 0;                 // data: DP replicas of tp·pp·cp devices
  long long microbatches = 0;       // data: micro-batches the pool runs per step (all its replicas)
  int microbatches_per_replica = 0; // data: the busiest replica's
  Seconds unit_time{0};             // pipeline: fwd+bwd of one layer, one micro-batch; data: marginal
                                    // time of one more micro-batch per replica (the measured rate)
  Seconds pool_step{0};             // data: the pool's own step (its replicas and its gradient sync)
  Seconds compute{0};               // device busy time per step (kernels), mean over the pool's stages
  double busy = 0;                  // compute / the job's step time
  Bytes memory{0};                  // the pool's largest per-device total
  Bytes capacity{0};
  bool fits = true;
  double peak_flops = 0;            // per device at the training precision, FLOP/s
  double energy_j = 0;              // per step: devices at idle power + (TDP − idle) while busy, hosts
  double mean_power_w = 0;
};

struct HeteroResult {
  HeteroMode mode = HeteroMode::data;
  HeteroSplit split = HeteroSplit::proportional;
  std::vector<PoolResult> pools;
  int bottleneck = 0;          // the pool that sets the step (data: slowest pool; pipeline: slowest stage's)
  Seconds inter_pool{0};       // data: gradient all-reduce between pools; pipeline: one boundary transfer
  BytesPerSecond inter_pool_bandwidth{0};  // per node, per direction, as reached
  std::vector<int> pipeline_layers;        // pipeline: per virtual stage, as run
  bool layers_stated = false;
};

struct StepResult {
  std::string engine;
  int devices = 0;
  Seconds step_time{0};
  double tokens_per_step = 0;
  double tokens_per_s = 0;
  double model_flops_per_step = 0;     // FLOP, whole job
  double hardware_flops_per_step = 0;  // FLOP, whole job, incl. recomputation
  double tflops_per_device = 0;        // model TFLOP/s per device
  double hw_tflops_per_device = 0;     // hardware TFLOP/s per device (incl. recompute)
  double mfu = 0;
  double hfu = 0;
  double bubble_fraction = 0;          // mean over stages of bubble / step time (simulated timeline)
  double bubble_fraction_textbook = 0; // (p−1)/(v·m+p−1)
  int microbatches = 0;
  MemoryBreakdown memory;              // the stage with the largest total
  int memory_stage = 0;
  Bytes memory_capacity{0};
  bool fits = true;
  std::optional<StreamingResult> streaming;  // wafer-scale systems
  std::optional<OffloadResult> offload;      // activation offloading
  CommExposed comm_exposed;            // of the critical (last-finishing) stage
  int critical_stage = 0;
  std::vector<StageSummary> stages;
  std::vector<NodeTiming> timeline;    // per StepGraph node
  /// The graph `timeline` belongs to, as the engine evaluated it (device stragglers applied), when the
  /// engine kept it (analytic engine); consumers reuse it instead of rebuilding the graph.
  std::shared_ptr<const StepGraph> graph;
  DataParallelResult data_parallel;    // mode figures (mode allreduce: nothing else set)
  std::optional<HeteroResult> hetero;  // cluster.pools
  /// zb-1p / zb-2p: the search's inputs and the memory walk's W share, values not taken from the input
  /// (printed by the report as assumptions). Empty for the other schedules.
  std::vector<std::string> schedule_assumptions;
};

}  // namespace clustersim
