#include "sim/engine/dp_mode_effect.hpp"

#include <algorithm>

#include "models/precision.hpp"
#include "models/transformer_cost.hpp"
#include "sim/collectives/parameter_server.hpp"

namespace clustersim {
namespace {

// Parameters of one worker replica (tp = pp = cp = ep = 1 for the server modes, sim/config checks it).
double replica_parameters(const TransformerSpec& m) {
  const ParameterCount pc = parameter_count(m);
  return pc.layers(pc.dense_layers, pc.moe_layers) + pc.embedding + pc.head;
}

void rescale_step(Seconds step, StepResult& r) {
  const double k = r.step_time.value() / step.value();
  r.step_time = step;
  r.tokens_per_s = r.tokens_per_step / step.value();
  r.tflops_per_device *= k;
  r.hw_tflops_per_device *= k;
  r.mfu *= k;
  r.hfu *= k;
}

}  // namespace

void apply_dp_mode(const Scenario& s, const StepGraph& g, StepResult& r) {
  const DpModeSpec& d = s.parallelism.data_parallel;
  DataParallelResult& dp = r.data_parallel;
  dp.mode = d.mode;
  if (d.mode == DpMode::allreduce) return;
  dp.workers = s.parallelism.dp;
  if (d.mode == DpMode::local_sgd) {
    dp.local_steps = d.local_steps;
    dp.datacenters = d.datacenters;
    for (std::size_t st = 0; st < g.order.size(); ++st) {
      Seconds sum(0);
      for (int id : g.order[st][1]) sum += g.nodes[static_cast<std::size_t>(id)].duration;
      dp.amortised = max(dp.amortised, sum);
    }
    dp.averaging = dp.amortised * d.local_steps;
    // fp32 anchor (the parameters at the last averaging) and fp32 outer Nesterov momentum per parameter
    // the device holds (DiLoCo, Douillard et al. 2023, Algorithm 1).
    const double held = r.memory.weights.value() / std::max(2.0, bytes_per_element(s.training.precision));
    dp.outer_state = Bytes(held * 8.0);
    r.memory.optimizer += dp.outer_state;
    r.fits = r.memory.total() <= r.memory_capacity;
    return;
  }
  const PsShape shape = ps_shape(s, replica_parameters(s.model));
  const PsRound round = ps_round(shape);
  dp.servers = d.servers;
  dp.colocated = d.placement == ServerPlacement::colocated;
  dp.round_closed_form = round.total();
  dp.server_time = round.server_push + round.server_pull;
  dp.worker_time = round.worker_push + round.worker_pull;
  dp.server_bound = round.server_bound();
  dp.server_nic = shape.server_nic;
  dp.server_bytes_per_round = round.server_bytes;
  // The optimizer states live on the server shards: none on a worker, 1/S on a colocated shard's device.
  r.memory.optimizer = dp.colocated ? r.memory.optimizer / d.servers : Bytes(0);
  r.fits = r.memory.total() <= r.memory_capacity;
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    if (g.nodes[id].kind == NodeKind::dp_sync) dp.round = max(dp.round, r.timeline[id].end - r.timeline[id].start);
  }
  if (dp.round.value() <= 0.0) dp.round = dp.round_closed_form;
  dp.server_update_capacity = dp.workers / dp.round.value();
  // The busier direction of a server NIC: the push phase carries gradients in, the pull weights out.
  const double busier = std::max(shape.gradient.value(), shape.weights.value()) /
                        (shape.gradient.value() + shape.weights.value());
  if (d.mode == DpMode::parameter_server) {
    dp.updates_per_s = dp.workers / r.step_time.value();
    dp.server_nic_utilisation =
        std::min(1.0, round.server_bytes.value() * busier / (shape.server_nic.value() * r.step_time.value()));
    dp.server_nic_busy = std::min(1.0, dp.updates_per_s * dp.server_time.value() / dp.workers);
    return;
  }
  // async / ssp: the worker loop without the synchronous round, through the event simulation.
  dp.compute = max(Seconds(1e-12), r.step_time - dp.round);
  dp.worker_cv = d.worker_cv;
  dp.staleness_bound = d.mode == DpMode::ssp ? d.staleness : -1;
  AsyncInputs in;
  in.workers = dp.workers;
  in.compute = dp.compute;
  in.cv = d.worker_cv;
  in.worker_comm = round.worker_push + round.worker_pull + shape.latency * 2.0;
  in.server_per_update = dp.round / dp.workers;
  in.staleness_bound = dp.staleness_bound;
  in.seed = s.run ? s.run->seed : 1;
  const AsyncResult a = simulate_async(in);
  dp.updates_per_s = a.updates_per_s;
  dp.worker_cycle = a.worker_cycle;
  dp.waiting_fraction = a.waiting;
  dp.clock_lag = a.clock_lag;
  dp.update_lag = a.update_lag;
  dp.simulated_updates = a.updates;
  const Seconds step(dp.workers / a.updates_per_s);
  dp.server_nic_utilisation = std::min(
      1.0, a.updates_per_s * round.server_bytes.value() / dp.workers * busier / shape.server_nic.value());
  dp.server_nic_busy = std::min(1.0, dp.updates_per_s * dp.server_time.value() / dp.workers);
  rescale_step(step, r);
}

}  // namespace clustersim
