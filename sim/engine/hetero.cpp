#include "sim/engine/hetero.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "models/memory_model.hpp"
#include "models/transformer_cost.hpp"
#include "schedules/pipeline_deps.hpp"
#include "schedules/pipeline_schedule.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/graph/op_cost.hpp"

namespace clustersim {
namespace {

double peak_of(const NodeSpec& n, Precision p) { return n.device.peak_for(p).value(); }

// Energy of one step of a pool: every device at idle power for the step plus (TDP − idle) while it
// computes, and the hosts' power for the step (an approximation of sim/energy's per-state model).
void pool_energy(const ClusterPool& pool, Seconds step, PoolResult& out) {
  const DeviceSpec& d = pool.node.device;
  const double dev = out.devices * (d.idle_power.value() * step.value() +
                                    (d.tdp.value() - d.idle_power.value()) * out.compute.value());
  out.energy_j = dev + pool.nodes * pool.node.host_power.value() * step.value();
  out.mean_power_w = out.energy_j / step.value();
}

PoolResult pool_base(const ClusterPool& pool, Precision precision) {
  PoolResult r;
  r.node = pool.node.name;
  r.device = pool.node.device.name;
  r.nodes = pool.nodes;
  r.devices = pool.devices();
  r.peak_flops = peak_of(pool.node, precision);
  r.capacity = pool.node.device.memory_capacity;
  return r;
}

Seconds mean_compute(const StepResult& r, int first, int count) {
  Seconds sum(0);
  for (int st = first; st < first + count; ++st) sum += r.stages[static_cast<std::size_t>(st)].compute;
  return sum / static_cast<double>(count);
}

// MFU/HFU relative to the pools' summed peak: the engine's figure rescaled by (devices · peak of the
// scenario it ran on) / Σ devices_p · peak_p (exactly 1 for one pool).
void rescale_utilisation(const Scenario& s, double ran_capacity, StepResult& r) {
  double capacity = 0;
  for (const ClusterPool& p : s.cluster.pools) capacity += p.devices() * peak_of(p.node, s.training.precision);
  const double f = ran_capacity / capacity;
  r.mfu *= f;
  r.hfu *= f;
}

// ---------------------------------------------------------------------------------------------------
// hetero: data

StepResult run_data(const Scenario& s, HeteroResult& h) {
  const ParallelismSpec& par = s.parallelism;
  const TrainingSpec& tr = s.training;
  const int P = static_cast<int>(s.cluster.pools.size());
  const int per_replica = par.tp * par.pp * par.cp;
  const long long M = tr.global_batch / tr.micro_batch;
  std::vector<int> replicas;
  int D = 0;
  for (const ClusterPool& p : s.cluster.pools) {
    replicas.push_back(p.devices() / per_replica);
    D += replicas.back();
  }
  const auto run = [&](int pool, int n) {
    Scenario ps = pool_scenario(s, pool, s.cluster.pools[static_cast<std::size_t>(pool)].nodes);
    ps.parallelism.dp = replicas[static_cast<std::size_t>(pool)];
    ps.training.global_batch = tr.micro_batch * ps.parallelism.dp * n;
    return run_analytic(ps);
  };
  const int n0 = static_cast<int>(std::max(1LL, M / D));  // the equal split (sim/config: D divides M)
  std::vector<long long> mb(static_cast<std::size_t>(P));
  std::vector<double> slope(static_cast<std::size_t>(P), 0.0);
  std::vector<StepResult> at_n0;
  for (int p = 0; p < P; ++p) at_n0.push_back(run(p, n0));
  if (h.split == HeteroSplit::equal) {
    for (int p = 0; p < P; ++p) mb[static_cast<std::size_t>(p)] = static_cast<long long>(n0) * replicas[static_cast<std::size_t>(p)];
  } else {
    // The marginal time of one more micro-batch per replica, from the engine at n0 and n0 + 1.
    std::vector<double> base;
    for (int p = 0; p < P; ++p) {
      const StepResult more = run(p, n0 + 1);
      base.push_back(at_n0[static_cast<std::size_t>(p)].step_time.value());
      slope[static_cast<std::size_t>(p)] = std::max(1e-12, more.step_time.value() - base.back());
    }
    mb = water_fill(M, replicas, n0, base, slope);
  }
  std::vector<StepResult> runs;
  Seconds slowest(0);
  for (int p = 0; p < P; ++p) {
    const int r = replicas[static_cast<std::size_t>(p)];
    const long long m = mb[static_cast<std::size_t>(p)];
    const int n = static_cast<int>((m + r - 1) / r);
    runs.push_back(n == n0 ? at_n0[static_cast<std::size_t>(p)] : run(p, n));
    PoolResult pr = pool_base(s.cluster.pools[static_cast<std::size_t>(p)], tr.precision);
    pr.stages = par.pp;
    pr.replicas = r;
    pr.microbatches = m;
    pr.microbatches_per_replica = n;
    pr.unit_time = Seconds(slope[static_cast<std::size_t>(p)]);
    pr.pool_step = runs.back().step_time;
    pr.compute = mean_compute(runs.back(), 0, par.pp);
    pr.memory = runs.back().memory.total();
    pr.fits = runs.back().fits;
    if (pr.pool_step > slowest) {
      slowest = pr.pool_step;
      h.bottleneck = p;
    }
    h.pools.push_back(pr);
  }
  // Between pools: a ring all-reduce of the whole gradient over the pools, each pool's share through
  // its nodes' inter-pool links (2(P−1)/P of it, Patarasuk & Yuan 2009), after the slowest pool.
  if (P > 1) {
    const ParameterCount pc = parameter_count(s.model);
    const double grad = (pc.layers(pc.dense_layers, pc.moe_layers) + pc.embedding + pc.head) *
                        bytes_per_element(tr.gradient_precision);
    int least_nodes = s.cluster.pools.front().nodes;
    for (const ClusterPool& p : s.cluster.pools) least_nodes = std::min(least_nodes, p.nodes);
    const BytesPerSecond link = h.inter_pool_bandwidth * static_cast<double>(least_nodes);
    h.inter_pool = Bytes(2.0 * (P - 1.0) / P * grad) / link + s.cluster.inter_pool.latency * (2.0 * (P - 1.0));
  }
  const StepResult& b = runs[static_cast<std::size_t>(h.bottleneck)];
  StepResult r = b;
  r.step_time = slowest + h.inter_pool;
  r.devices = s.cluster.devices();
  double flops = 0, hw = 0;
  for (int p = 0; p < P; ++p) {
    const StepResult& x = runs[static_cast<std::size_t>(p)];
    const double share = static_cast<double>(mb[static_cast<std::size_t>(p)]) /
                         (static_cast<double>(replicas[static_cast<std::size_t>(p)]) * h.pools[static_cast<std::size_t>(p)].microbatches_per_replica);
    flops += x.model_flops_per_step * share;
    hw += x.hardware_flops_per_step * share;
  }
  const double ran = b.devices * peak_of(s.cluster.pools[static_cast<std::size_t>(h.bottleneck)].node, tr.precision);
  r.mfu = b.mfu * (b.step_time / r.step_time) * (flops / b.model_flops_per_step) * (b.devices / static_cast<double>(r.devices));
  r.hfu = b.hfu * (b.step_time / r.step_time) * (hw / b.hardware_flops_per_step) * (b.devices / static_cast<double>(r.devices));
  rescale_utilisation(s, ran * (r.devices / static_cast<double>(b.devices)), r);
  r.model_flops_per_step = flops;
  r.hardware_flops_per_step = hw;
  r.tokens_per_step = static_cast<double>(tr.global_batch) * tr.seq_len;
  r.tokens_per_s = r.tokens_per_step / r.step_time.value();
  r.tflops_per_device = r.model_flops_per_step / r.step_time.value() / r.devices / 1e12;
  r.hw_tflops_per_device = r.hardware_flops_per_step / r.step_time.value() / r.devices / 1e12;
  // Memory: the pool closest to (or furthest over) its capacity.
  double worst = -1;
  r.fits = true;
  for (int p = 0; p < P; ++p) {
    const PoolResult& pr = h.pools[static_cast<std::size_t>(p)];
    r.fits = r.fits && pr.fits;
    const double ratio = pr.memory.value() / pr.capacity.value();
    if (ratio > worst) {
      worst = ratio;
      r.memory = runs[static_cast<std::size_t>(p)].memory;
      r.memory_stage = runs[static_cast<std::size_t>(p)].memory_stage;
      r.memory_capacity = pr.capacity;
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------------
// hetero: pipeline

StepResult run_pipeline(const Scenario& s, HeteroResult& h) {
  const ParallelismSpec& par = s.parallelism;
  const TrainingSpec& tr = s.training;
  const int P = static_cast<int>(s.cluster.pools.size());
  const int stage_devices = par.tp * par.cp * par.dp;
  const int all = s.cluster.devices();
  std::vector<int> pool_of_stage;
  for (int p = 0; p < P; ++p) {
    PoolResult pr = pool_base(s.cluster.pools[static_cast<std::size_t>(p)], tr.precision);
    pr.first_stage = static_cast<int>(pool_of_stage.size());
    pr.stages = pr.devices / stage_devices;
    pr.replicas = par.dp;
    for (int k = 0; k < pr.stages; ++k) pool_of_stage.push_back(p);
    h.pools.push_back(pr);
  }
  CS_ASSERT(static_cast<int>(pool_of_stage.size()) == par.pp, "sim/config: the pools' stages make pp");
  // Each pool's cost model: the whole pipeline laid out on that pool's nodes.
  std::vector<Scenario> ps;
  for (int p = 0; p < P; ++p) {
    ps.push_back(pool_scenario(s, p, all / s.cluster.pools[static_cast<std::size_t>(p)].node.devices_per_node));
  }
  const ScheduleSpec spec =
      schedule_spec(par.schedule, par.pp, tr.microbatches(par.dp), par.vp, v_half_vocab_slots(par));
  const int V = virtual_stage_count(spec);
  const int L = s.model.layers;
  for (int p = 0; p < P; ++p) {
    // The pool's rate: forward + backward of one micro-batch through the model's layers, per layer.
    const OpCostModel m(ps[static_cast<std::size_t>(p)]);
    ChunkRole whole{L, s.model.moe_layers_in(0, L), false, false, 0};
    set_bf16_layers(whole, s, 0, L);
    const ChunkCosts cc = m.chunk_costs(whole);
    h.pools[static_cast<std::size_t>(p)].unit_time = (cc.forward.duration() + cc.backward.duration()) / L;
  }
  std::vector<int> split = par.pipeline_layers;
  h.layers_stated = !split.empty();
  if (split.empty() && h.split == HeteroSplit::proportional) {
    std::vector<int> vpool(static_cast<std::size_t>(V));
    for (int st = 0; st < par.pp; ++st) {
      for (int c = 0; c < spec.chunks; ++c) {
        vpool[static_cast<std::size_t>(virtual_stage(spec, st, c))] = pool_of_stage[static_cast<std::size_t>(st)];
      }
    }
    std::vector<double> per_layer;
    for (const PoolResult& pr : h.pools) per_layer.push_back(pr.unit_time.value());
    split = proportional_layers(L, vpool, per_layer);
  }
  for (Scenario& x : ps) x.parallelism.pipeline_layers = split;
  // The graph of the first pool's layout, with every other pool's stages spliced in from its own graph
  // (the same schedule and layer split build the same nodes in the same order).
  std::vector<StepGraph> graphs;
  for (const Scenario& x : ps) graphs.push_back(build_step_graph(x));
  auto g = std::make_shared<StepGraph>(graphs.front());
  for (std::size_t i = 0; i < g->nodes.size(); ++i) {
    const int q = pool_of_stage[static_cast<std::size_t>(g->nodes[i].stage)];
    if (q == 0) continue;
    const StepGraph& gq = graphs[static_cast<std::size_t>(q)];
    CS_ASSERT(gq.nodes.size() == g->nodes.size(), "pool graphs share the schedule");
    g->nodes[i] = gq.nodes[i];
    if (g->nodes[i].cost >= 0) {
      g->costs[static_cast<std::size_t>(g->nodes[i].cost)] = gq.costs[static_cast<std::size_t>(g->nodes[i].cost)];
    }
  }
  // Pool boundaries: every rank of a stage sends its activation slice at once, through the inter-pool
  // links of the fewer nodes of the two stages.
  if (P > 1) {
    const double act = static_cast<double>(tr.micro_batch) * tr.seq_len * s.model.hidden *
                       std::max(2.0, bytes_per_element(tr.precision)) * par.dp;
    int least_nodes = 1 << 30;
    for (const ClusterPool& p : s.cluster.pools) {
      least_nodes = std::min(least_nodes, std::max(1, stage_devices / p.node.devices_per_node));
    }
    h.inter_pool = Bytes(act) / (h.inter_pool_bandwidth * static_cast<double>(least_nodes)) + s.cluster.inter_pool.latency;
    for (StepNode& n : g->nodes) {
      if (n.dep < 0 || n.dep_delay.value() <= 0) continue;
      const int a = pool_of_stage[static_cast<std::size_t>(n.stage)];
      const int b = pool_of_stage[static_cast<std::size_t>(g->nodes[static_cast<std::size_t>(n.dep)].stage)];
      if (a != b) n.dep_delay = max(n.dep_delay, h.inter_pool);
    }
  }
  StepResult r = summarize_step(ps.front(), *g, evaluate_timeline(*g), "analytic");
  r.graph = g;
  rescale_utilisation(s, all * peak_of(s.cluster.pools.front().node, tr.precision), r);
  // Memory per stage against its own pool's device.
  double worst = -1;
  Seconds heaviest(-1);
  r.fits = true;
  for (int st = 0; st < par.pp; ++st) {
    const int q = pool_of_stage[static_cast<std::size_t>(st)];
    StageSummary& ss = r.stages[static_cast<std::size_t>(st)];
    if (q != 0) ss.memory = memory_per_device(s.model, memory_inputs(ps[static_cast<std::size_t>(q)], g->schedule, st));
    PoolResult& pr = h.pools[static_cast<std::size_t>(q)];
    pr.memory = max(pr.memory, ss.memory.total());
    pr.fits = pr.memory <= pr.capacity;
    const double ratio = ss.memory.total().value() / pr.capacity.value();
    if (ratio > worst) {
      worst = ratio;
      r.memory = ss.memory;
      r.memory_stage = st;
      r.memory_capacity = pr.capacity;
    }
    if (ss.compute > heaviest) {
      heaviest = ss.compute;
      h.bottleneck = q;
    }
  }
  for (int p = 0; p < P; ++p) {
    PoolResult& pr = h.pools[static_cast<std::size_t>(p)];
    r.fits = r.fits && pr.fits;
    pr.compute = mean_compute(r, pr.first_stage, pr.stages);
    for (int st = pr.first_stage; st < pr.first_stage + pr.stages; ++st) {
      for (int c = 0; c < spec.chunks; ++c) {
        pr.layers += virtual_stage_layers(ps.front().parallelism, L, virtual_stage(spec, st, c)).count;
      }
    }
  }
  h.pipeline_layers = split;
  if (h.pipeline_layers.empty()) {
    for (int k = 0; k < V; ++k) h.pipeline_layers.push_back(virtual_stage_layers(ps.front().parallelism, L, k).count);
  }
  return r;
}

}  // namespace

Scenario pool_scenario(const Scenario& s, int pool, int nodes) {
  Scenario x = s;
  x.cluster.node = s.cluster.pools[static_cast<std::size_t>(pool)].node;
  x.cluster.comm.nvls_efficiency = s.cluster.pools[static_cast<std::size_t>(pool)].nvls_efficiency;
  x.cluster.nodes = nodes;
  x.cluster.pools.clear();
  return x;
}

std::vector<int> proportional_layers(int layers, const std::vector<int>& stage_pool,
                                     const std::vector<double>& per_layer_time) {
  const std::size_t V = stage_pool.size();
  std::vector<double> w(V);
  double sum = 0;
  for (std::size_t k = 0; k < V; ++k) {
    w[k] = 1.0 / per_layer_time[static_cast<std::size_t>(stage_pool[k])];
    sum += w[k];
  }
  std::vector<int> out(V);
  std::vector<std::pair<double, std::size_t>> rest;
  int given = 0;
  for (std::size_t k = 0; k < V; ++k) {
    const double exact = layers * w[k] / sum;
    out[k] = static_cast<int>(std::floor(exact));
    given += out[k];
    rest.emplace_back(exact - out[k], k);
  }
  std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; given < layers; ++i, ++given) ++out[rest[i % V].second];
  // At least one layer per virtual stage: take from the largest (the lowest index among equals).
  for (std::size_t k = 0; k < V; ++k) {
    while (out[k] == 0) {
      const auto big = std::max_element(out.begin(), out.end());
      --*big;
      ++out[k];
    }
  }
  return out;
}

std::vector<long long> water_fill(long long total, const std::vector<int>& replicas, int n0,
                                  const std::vector<double>& base, const std::vector<double>& slope) {
  const std::size_t P = replicas.size();
  std::vector<long long> m(P);
  std::vector<long long> level(P, 1);
  long long rest = total;
  for (std::size_t p = 0; p < P; ++p) {
    m[p] = replicas[p];
    rest -= replicas[p];
  }
  while (rest > 0) {
    std::size_t best = 0;
    double best_t = 0;
    for (std::size_t p = 0; p < P; ++p) {
      const double t = base[p] + slope[p] * static_cast<double>(level[p] + 1 - n0);
      if (p == 0 || t < best_t) {
        best = p;
        best_t = t;
      }
    }
    const long long give = std::min<long long>(replicas[best], rest);
    m[best] += give;
    ++level[best];
    rest -= give;
  }
  return m;
}

StepResult run_hetero(const Scenario& s) {
  CS_ASSERT(!s.cluster.pools.empty(), "run_hetero needs cluster.pools");
  HeteroResult h;
  h.mode = s.parallelism.hetero;
  h.split = s.parallelism.hetero_split;
  h.inter_pool_bandwidth = s.cluster.inter_pool.bandwidth * s.cluster.inter_pool.efficiency;
  StepResult r = h.mode == HeteroMode::pipeline ? run_pipeline(s, h) : run_data(s, h);
  for (std::size_t p = 0; p < h.pools.size(); ++p) {
    PoolResult& pr = h.pools[p];
    pr.busy = pr.compute / r.step_time;
    pool_energy(s.cluster.pools[p], r.step_time, pr);
  }
  r.hetero = std::move(h);
  return r;
}

}  // namespace clustersim
