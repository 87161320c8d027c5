#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/dp_mode_effect.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "models/moe_load.hpp"
#include "schedules/pipeline_deps.hpp"
#include "sim/collectives/multislice.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/engine/straggler_effect.hpp"
#include "sim/graph/op_cost.hpp"

namespace clustersim {

namespace {

bool is_pipeline_op(NodeKind k) {
  return k != NodeKind::dp_sync && k != NodeKind::optimizer;
}

// One resource's node order and how far evaluate_timeline() has run it.
struct Lane {
  const int* ids = nullptr;
  std::size_t size = 0;
  std::size_t next = 0;
  Seconds free_at{0};
};

// Whether the graph's compute streams still start with the plan's pipeline ops in the plan's stage
// ranges (build_step_graph lays them out so; a graph reordered since would not).
bool streams_match(const StepGraph& g, const PipelinePlan& plan) {
  const std::size_t stages = plan.stage_begin.size() - 1;
  if (plan.stage_begin.empty() || g.order.size() != stages ||
      static_cast<std::size_t>(plan.stage_begin.back()) > g.nodes.size() ||
      static_cast<std::size_t>(plan.stage_begin.back()) != plan.steps.size()) {
    return false;
  }
  for (std::size_t st = 0; st < stages; ++st) {
    const std::vector<int>& ord = g.order[st][0];
    const int first = plan.stage_begin[st];
    const auto count = static_cast<std::size_t>(plan.stage_begin[st + 1] - first);
    if (ord.size() < count) return false;
    // Differences OR-ed together (no branch per id: the compiler checks four ids per instruction).
    const unsigned* ids = reinterpret_cast<const unsigned*>(ord.data());
    unsigned diff = 0;
    for (std::size_t j = 0; j < count; ++j) diff |= ids[j] ^ (static_cast<unsigned>(first) + static_cast<unsigned>(j));
    if (diff != 0) return false;
  }
  return true;
}

// What summarize_step adds up over a stage's pipeline ops from their times, in stream order: the waits
// before them (pipeline transfer up to each node's delay, bubble beyond) and their latest end.
struct PlanStageSums {
  Seconds pp{0};
  Seconds bubble{0};
  Seconds pipeline_max{0};
};

// The plan's pipeline ops straight through: each starts when its stream is free and its dependency's
// output has arrived. `free_at[st]`: when stage st's compute stream is free. With `sums`, each stage's
// waits and latest end as summarize_step counts them (the same additions in the same order: the stream
// predecessor's end is the stream's free time). False (and nothing to be trusted in `times` or `sums`)
// if a node's dependency is not the plan's, it waits on its dependency's start, or it is no pipeline op.
template <bool kSums>
bool walk_plan(const StepGraph& g, const PipelinePlan& plan, NodeTiming* times, Seconds* free_at,
               PlanStageSums* sums) {
  const StepNode* nodes = g.nodes.data();
  for (const PipelinePlan::Step& step : plan.steps) {
    const StepNode& node = nodes[static_cast<std::size_t>(step.id)];
    if (node.dep != step.dep || node.starts_with_dep) return false;
    Seconds ready(0);
    if (step.dep >= 0) ready = times[static_cast<std::size_t>(step.dep)].end + node.dep_delay;
    Seconds& lane_free = free_at[static_cast<std::size_t>(step.stage)];
    const Seconds start = max(lane_free, ready);
    const Seconds end = start + node.duration;
    times[static_cast<std::size_t>(step.id)] = {start, end};
    if constexpr (kSums) {
      if (!is_pipeline_op(node.kind)) return false;
      PlanStageSums& sum = sums[static_cast<std::size_t>(step.stage)];
      const Seconds gap = start - lane_free;
      if (gap.value() > 0) {
        const Seconds pp_part = min(gap, node.dep_delay);
        sum.pp += pp_part;
        sum.bubble += gap - pp_part;
      }
      sum.pipeline_max = max(sum.pipeline_max, end);
    }
    lane_free = end;
  }
  return true;
}

// evaluate_timeline; with `sums` (one per stage) also the plan walk's per-stage sums, and true if they
// were filled (the plan walk ran), false if the general walk ran instead.
bool evaluate(const StepGraph& g, std::vector<NodeTiming>& t, std::vector<PlanStageSums>* sums);

bool evaluate(const StepGraph& g, std::vector<NodeTiming>& t, std::vector<PlanStageSums>* sums) {
  const std::size_t n = g.nodes.size();
  t.assign(n, NodeTiming{});
  // Finished flags as int rather than char: a char store may alias anything, so with char the compiler
  // reloads every loop bound and pointer after each node.
  std::vector<int> done(n, 0);
  std::vector<Lane> lanes;
  lanes.reserve(2 * g.order.size());
  for (const auto& stage_order : g.order) {
    for (const std::vector<int>& ord : stage_order) lanes.push_back({ord.data(), ord.size(), 0, Seconds(0)});
  }
  const StepNode* nodes = g.nodes.data();
  NodeTiming* times = t.data();
  int* finished = done.data();
  std::size_t remaining = n;
  bool planned = false;
  // The schedule's pipeline ops in the plan's order (build_step_graph), without walking the streams
  // round-robin, when the graph's streams and dependencies are still the plan's (checked: a graph changed
  // since it was built is left to the general walk below). Any order in which each node follows its
  // dependency and its stream predecessor gives every node the same start and end.
  if (g.pipeline_order && streams_match(g, *g.pipeline_order)) {
    const PipelinePlan& plan = *g.pipeline_order;
    const std::size_t stages = g.order.size();
    thread_local std::vector<Seconds> free_at;
    free_at.assign(stages, Seconds(0));
    if (sums != nullptr) sums->assign(stages, PlanStageSums{});
    planned = sums != nullptr ? walk_plan<true>(g, plan, times, free_at.data(), sums->data())
                              : walk_plan<false>(g, plan, times, free_at.data(), nullptr);
    if (planned) {
      const std::size_t ops = plan.steps.size();
      std::fill(finished, finished + ops, 1);
      remaining -= ops;
      for (std::size_t st = 0; st < stages; ++st) {
        Lane& lane = lanes[2 * st];
        lane.next = static_cast<std::size_t>(plan.stage_begin[st + 1] - plan.stage_begin[st]);
        lane.free_at = free_at[st];
      }
    }
  }
  while (remaining > 0) {
    bool progress = false;
    for (Lane& lane : lanes) {
      std::size_t i = lane.next;
      Seconds free_at = lane.free_at;
      while (i < lane.size) {
        const auto id = static_cast<std::size_t>(lane.ids[i]);
        const StepNode& node = nodes[id];
        Seconds ready(0);
        if (node.dep >= 0) {
          const auto d = static_cast<std::size_t>(node.dep);
          if (!finished[d]) break;
          ready = node.starts_with_dep ? times[d].start : times[d].end + node.dep_delay;
        }
        const Seconds start = max(free_at, ready);
        Seconds end = start + node.duration;
        if (node.starts_with_dep && node.dep >= 0) {
          end = max(end, times[static_cast<std::size_t>(node.dep)].end + node.tail);
        }
        times[id] = {start, end};
        finished[id] = 1;
        free_at = end;
        ++i;
      }
      if (i != lane.next) {
        progress = true;
        remaining -= i - lane.next;
        lane.next = i;
        lane.free_at = free_at;
      }
    }
    CS_ASSERT(progress, "step graph has a dependency cycle (pipeline schedule deadlock)");
  }
  return planned;
}

}  // namespace

std::vector<NodeTiming> evaluate_timeline(const StepGraph& g) {
  std::vector<NodeTiming> t;
  evaluate(g, t, nullptr);
  return t;
}


namespace {

// Extended Euclid: g = gcd(a, b) = a·x + b·y.
std::int64_t ext_gcd(std::int64_t a, std::int64_t b, std::int64_t& x, std::int64_t& y) {
  if (b == 0) {
    x = 1;
    y = 0;
    return a;
  }
  std::int64_t x1 = 0, y1 = 0;
  const std::int64_t g = ext_gcd(b, a % b, x1, y1);
  x = y1;
  y = x1 - (a / b) * y1;
  return g;
}

// Layers l in [first, last) with l ≡ r (mod k) that are MoE layers (TransformerSpec::moe_layers_in's
// rule: l >= first_dense_layers, (l − first_dense_layers) % layer_freq == 0), in closed form (the two
// congruences combined, Chinese remainder theorem): O(1) whatever the layer count.
int moe_layers_in_class(const TransformerSpec& m, int first, int last, std::int64_t r, std::int64_t k) {
  if (!m.moe.enabled() || m.moe.layer_freq <= 0) return 0;
  const std::int64_t f = m.moe.layer_freq, d = m.moe.first_dense_layers;
  const std::int64_t lo = std::max<std::int64_t>(first, d), hi = last;
  if (lo >= hi) return 0;
  std::int64_t u = 0, v = 0;
  const std::int64_t g = ext_gcd(k, f, u, v);  // k·u + f·v = g
  const std::int64_t diff = d - r;
  if (((diff % g) + g) % g != 0) return 0;
  // l = r + k·t with k·t ≡ d − r (mod f): t ≡ (d − r)/g · u (mod f/g).
  const std::int64_t fg = f / g;
  const std::int64_t t = ((((diff / g) % fg) * (((u % fg) + fg) % fg)) % fg + fg) % fg;
  const std::int64_t period = k / g * f;  // lcm(k, f)
  const std::int64_t x = r + k * t;       // one solution; every solution is x + period·j
  // Solutions <= y: floor((y − x) / period) + 1 (may be <= 0).
  const auto upto = [&](std::int64_t y) {
    const std::int64_t q = y - x;
    return (q >= 0 ? q / period : -((-q + period - 1) / period)) + 1;
  };
  return static_cast<int>(upto(hi - 1) - upto(lo - 1));
}

}  // namespace

double zero_bubble_weight_share(const Scenario& s, const MemoryInputs& in) {
  const int moe = in.moe_layers_on_stage, dense = in.layers_on_stage - moe;
  const TransformerSpec& m = s.model;
  MemoryInputs run = in;
  run.recompute = s.training.recompute;
  const double stored = stage_layer_activation_bytes(m, run).value();
  double kept = dense * layer_weight_grad_kept_bytes(m, in.shape).value();
  if (moe > 0) kept += moe * layer_weight_grad_kept_bytes(m, in.shape, LayerKind::moe).value();
  return stored > 0.0 ? kept / stored : 1.0;
}

MemoryInputs memory_inputs(const Scenario& s, const ScheduleSpec& spec, int stage) {
  const ParallelismSpec& par = s.parallelism;
  const TrainingSpec& tr = s.training;
  MemoryInputs in;
  in.shape.micro_batch = tr.micro_batch;
  in.shape.seq_len = tr.seq_len;
  in.shape.tp = par.tp;
  in.shape.cp = par.cp;
  in.shape.sequence_parallel = par.sequence_parallel;
  in.shape.flash_attention = tr.flash_attention;
  in.shape.precision = tr.precision;
  in.shape.ep = par.ep;
  in.shape.etp = par.etp;
  in.shape.moe_load = moe_rank_load(s.model.moe, par.ep);
  in.shape.fp8_activation_cache = tr.fp8_activation_cache;
  in.shape.fp8_saved_inputs = tr.fp8_saved_inputs;
  in.shape.core_attn_recomputed = tr.core_attn_recomputed();
  in.shape.saves_dots_only = tr.saves_dots_only();
  in.shape.fp8_scaling = tr.fp8_scaling;
  in.shape.fp8_blockwise = tr.fp8_blockwise;
  in.shape.recompute_norm_mla_up = tr.recompute_norm_mla_up;
  // Layers of all the stage's chunks: with dualpipe two model stages (its two copies of the model).
  in.chunks = spec.chunks;
  in.layers_on_stage = 0;
  // Layer-level selective recomputation: torchtitan counts the blocks it wraps on a rank from 1, over its
  // model chunks in order, and recomputes block i in full when i % k == 0 (pytorch/torchtitan 1f029641b5,
  // torchtitan/distributed/activation_checkpoint.py `_apply_layer_sac`: `_layer_sac_count += 1`,
  // `if not ac_freq or _layer_sac_count % ac_freq == 0`): floor(layers / k) of the rank's blocks.
  in.recompute_by_layer = tr.recompute == Recompute::selective && tr.selective_policy == SelectivePolicy::layer;
  const int every = std::max(1, tr.selective_layer_interval);
  int counted = 0;
  for (int c = 0; c < spec.chunks; ++c) {
    const LayerRange lr = virtual_stage_layers(par, s.model.layers, virtual_stage(spec, stage, c));
    in.layers_on_stage += lr.count;
    in.moe_layers_on_stage += s.model.moe_layers_in(lr.first, lr.first + lr.count);
    if (in.recompute_by_layer && lr.count > 0) {
      // Layer l of the chunk is block counted + (l − first) + 1 of the rank: recomputed when l ≡ first −
      // counted − 1 (mod k).
      const std::int64_t k = every;
      in.recomputed_layers_on_stage += static_cast<int>((counted + lr.count) / k - counted / k);
      const std::int64_t r = (((lr.first - counted - 1) % k) + k) % k;
      in.recomputed_moe_layers_on_stage += moe_layers_in_class(s.model, lr.first, lr.first + lr.count, r, k);
      counted += lr.count;
    }
    // The layers the precision recipe keeps in BF16, counted as the op-cost model counts them.
    ChunkRole kept;
    set_bf16_layers(kept, s, lr.first, lr.count);
    in.bf16_layers_on_stage += kept.bf16_layers;
    in.bf16_moe_layers_on_stage += kept.bf16_moe_layers;
  }
  in.ep = par.ep;
  in.etp = par.etp;
  in.expert_dp = std::max(1, par.tp * par.cp * slice_dp(s) / (par.ep * par.etp));
  in.inflight_chunk_microbatches = peak_inflight_activations(spec, stage);
  if (is_auto_zero_bubble(spec.kind)) {
    // zb-1p / zb-2p: walk the searched order, a forward storing one micro-batch's activations of the
    // stage and a B freeing all of them but what the deferred W keeps, that share taken from the memory
    // model's own terms (layer_weight_grad_kept_bytes over layer_activation_bytes under the run's
    // recompute and flash settings; dense and MoE layers weighted by their counts). The search itself
    // bounds its memory with the authors' M_W / M_F = 32h / (34h + 5as), which assumes the attention
    // scores are stored; with flash attention or any recompute the memory model stores none, a W keeps
    // about 32/34 of a micro-batch, and the walk holds more than the search's p resp. 2p.
    const double share = zero_bubble_weight_share(s, in);
    in.inflight_chunk_microbatches = peak_activation_memory(spec, stage, Bytes(1.0), Bytes(share)).value();
  }
  // Whether a chunk of the stage holds the embedding (first model stage) or the head (last); with
  // dualpipe both the first and the last rank hold both.
  in.first_stage = false;
  in.last_stage = false;
  for (int c = 0; c < spec.chunks; ++c) {
    in.first_stage = in.first_stage || virtual_stage(spec, stage, c) == 0;
    in.last_stage = in.last_stage || virtual_stage(spec, stage, c) == virtual_stage_count(spec) - 1;
  }
  if (in.last_stage && s.model.mtp_depth > 0) {
    // Multi-token-prediction modules on the last model stage: a block of the last layer's kind each,
    // plus the 2h x h projection and two norms (graph_builder.cpp counts the same parameters).
    const int d = s.model.mtp_depth;
    in.layers_on_stage += d;
    if (s.model.moe.is_moe_layer(s.model.layers - 1)) in.moe_layers_on_stage += d;
    const double h = s.model.hidden;
    in.extra_parameters = d * (2.0 * h * h + 2.0 * h);
  }
  in.pp = par.pp;
  // Activation offloading runs with pp = 1 only (sim/config): the model's first n layers are this stage's.
  if (tr.activation_offload_layers > 0 && par.pp == 1) {
    in.offload_layers = tr.activation_offload_layers;
    in.offload_moe_layers = s.model.moe_layers_in(0, tr.activation_offload_layers);
  }
  // ZeRO shards over the data-parallel replicas of one slice (a multi-slice job replicates its states
  // across slices: MaxText's FSDP on ICI, data parallelism over DCN; sim/collectives/multislice.hpp).
  in.dp = slice_dp(s) * par.cp;
  in.zero_stage = par.zero_stage;
  in.recompute = tr.recompute;
  in.optimizer = tr.optimizer;
  in.master_weights_fp32 = tr.master_weights_fp32;
  in.gradient_precision = tr.gradient_precision;
  return in;
}

namespace {

// Weight streaming: the wafer's SRAM holds the activations, two of the largest piece's weights (double
// buffer) and one piece's gradients; weights, gradients and optimizer states of the whole model live in
// the external store (MemoryX), whose capacity is checked too.
void summarize_streaming(const Scenario& s, const StreamingStep& st, StepResult& r) {
  const MemoryBreakdown whole = r.memory;  // pp = tp = 1, zero_stage 0: the whole model's states
  MemoryBreakdown sram;
  sram.activations = whole.activations;
  sram.weights = st.largest_piece * 2.0;
  sram.gradients = st.largest_piece_grads;
  // The memory model's fixed GPU runtime reserve (CUDA context, NCCL) has no wafer counterpart.
  sram.other = max(Bytes(0), whole.other - Bytes(kRuntimeReserveBytes));
  r.memory = sram;
  r.stages.front().memory = sram;
  StreamingResult x;
  const double m = st.microbatches;
  x.compute = (st.forward.compute + st.backward.compute) * m;
  x.streaming = (st.forward.streaming + st.backward.streaming) * m + st.boundary;
  x.exposed = (st.forward.exposed() + st.backward.exposed()) * m + st.boundary;
  x.boundary = st.boundary;
  x.microbatches = st.microbatches;
  x.bandwidth = st.bandwidth;
  x.weights = st.weights;
  x.memoryx = whole.weights + whole.gradients + whole.optimizer;
  x.memoryx_capacity = s.cluster.node.weight_streaming->memoryx_capacity;
  r.fits = r.memory.total() <= r.memory_capacity && x.memoryx <= x.memoryx_capacity;
  r.streaming = x;
}

}  // namespace

namespace {

// One stage's walk over its compute-stream order in summarize_step(), resumable: the first part runs
// up to the stage's optimizer (whose exposed sync needs the step's pipeline end t_pipe, known only
// when every stage has been walked), the second from there with t_pipe.
struct StageWalk {
  StageSummary sum;
  Seconds prev_end{0};
  Seconds pipeline_max{0};  // latest end of the stage's pipeline ops walked so far
  std::size_t next = 0;     // position in the order
};

// kAllComm false: every cost of the graph has zero cp/dp/ep/pp time (dense models without ZeRO-3 and
// with pipeline transfers off the ops: GPT-3 in the benchmark), so those four additions per node are
// skipped. Exact: each sum starts at +0 and only ever adds finite terms or max(0, ·) >= +0, so it is
// never -0 and adding a zero (of either sign) leaves it unchanged bit for bit.
template <bool kAllComm>
void walk_stage(const StepGraph& g, const NodeTiming* times, const std::vector<int>& ids, StageWalk& w,
                const Seconds* t_pipe) {
  const StepNode* nodes = g.nodes.data();
  const OpCost* costs = g.costs.data();
  const int* order = ids.data();
  const std::size_t size = ids.size();
  // Sums kept in plain double locals, added in the same order as into the stage's summary: stores into
  // memory could alias the costs read (a load and a store per field per node), and fields of a struct
  // invite the vectoriser to pack pairs of sums with shuffles per node.
  StageSummary& sum = w.sum;
  double compute = sum.compute.value(), overlap = sum.overlap_slowdown.value(), recompute = sum.recompute.value(),
         bound = sum.compute_bound.value(), tp = sum.tp_exposed.value(), cp = sum.cp_exposed.value(),
         dp = sum.dp_exposed.value(), ep = sum.ep_exposed.value(), pp = sum.pp_exposed.value(),
         bubble = sum.bubble.value();
  double prev_end = w.prev_end.value(), pipeline_max = w.pipeline_max.value(),
         pipeline_end = sum.pipeline_end.value();
  std::size_t i = w.next;
  for (; i < size; ++i) {
    const auto id = static_cast<std::size_t>(order[i]);
    const StepNode& node = nodes[id];
    const double start = times[id].start.value(), end = times[id].end.value();
    if (node.kind == NodeKind::optimizer) {
      if (t_pipe == nullptr) break;  // first part: stop before the optimizer
      sum.optimizer = node.duration;
      dp += max(Seconds(0), Seconds(start) - max(Seconds(pipeline_end), *t_pipe)).value();
      sum.end = Seconds(end);
      continue;
    }
    if (is_pipeline_op(node.kind)) pipeline_max = max(Seconds(pipeline_max), Seconds(end)).value();
    const OpCost& c = costs[static_cast<std::size_t>(node.cost)];
    compute += c.compute.value();
    overlap += c.overlap_slowdown.value();
    recompute += c.recompute.value();
    bound += c.compute_bound.value();
    tp += c.tp_comm.value();
    if constexpr (kAllComm) {
      cp += c.cp_comm.value();
      dp += c.dp_comm.value();
      ep += c.ep_comm.value();
      pp += c.pp_comm.value();
    }
    const double gap = start - prev_end;
    if (gap > 0) {
      const double pp_part = min(Seconds(gap), node.dep_delay).value();
      pp += pp_part;
      bubble += gap - pp_part;
    }
    prev_end = end;
    pipeline_end = end;
  }
  sum.compute = Seconds(compute);
  sum.overlap_slowdown = Seconds(overlap);
  sum.recompute = Seconds(recompute);
  sum.compute_bound = Seconds(bound);
  sum.tp_exposed = Seconds(tp);
  sum.cp_exposed = Seconds(cp);
  sum.dp_exposed = Seconds(dp);
  sum.ep_exposed = Seconds(ep);
  sum.pp_exposed = Seconds(pp);
  sum.bubble = Seconds(bubble);
  sum.pipeline_end = Seconds(pipeline_end);
  w.prev_end = Seconds(prev_end);
  w.pipeline_max = Seconds(pipeline_max);
  w.next = i;
}

// Whether any cost of the graph has cp, dp, ep or pp time that is not exactly zero (NaN counts).
bool any_comm_beyond_tp(const std::vector<OpCost>& costs) {
  for (const OpCost& c : costs) {
    if (!(c.cp_comm.value() == 0.0 && c.dp_comm.value() == 0.0 && c.ep_comm.value() == 0.0 &&
          c.pp_comm.value() == 0.0)) {
      return true;
    }
  }
  return false;
}

// The first part of a stage's walk when the plan walk has added up the pipeline ops' waits and latest
// end (`pre`) and no cost has cp/dp/ep/pp time: the pipeline ops' costs in stream order (the
// same additions as walk_stage makes; those four skipped as there), their waits and end from the plan
// walk, then walk_stage from the first node after them.
void walk_stage_planned(const StepGraph& g, const NodeTiming* times, const std::vector<int>& ids, int first,
                        int count, const PlanStageSums& pre, StageWalk& w) {
  const StepNode* nodes = g.nodes.data();
  const OpCost* costs = g.costs.data();
  double compute = 0, overlap = 0, recompute = 0, bound = 0, tp = 0;
  for (int id = first; id < first + count; ++id) {
    const OpCost& c = costs[static_cast<std::size_t>(nodes[static_cast<std::size_t>(id)].cost)];
    compute += c.compute.value();
    overlap += c.overlap_slowdown.value();
    recompute += c.recompute.value();
    bound += c.compute_bound.value();
    tp += c.tp_comm.value();
  }
  StageSummary& sum = w.sum;
  sum.compute = Seconds(compute);
  sum.overlap_slowdown = Seconds(overlap);
  sum.recompute = Seconds(recompute);
  sum.compute_bound = Seconds(bound);
  sum.tp_exposed = Seconds(tp);
  sum.pp_exposed = pre.pp;
  sum.bubble = pre.bubble;
  const Seconds last_end = count > 0 ? times[static_cast<std::size_t>(first + count - 1)].end : Seconds(0);
  sum.pipeline_end = last_end;
  w.prev_end = last_end;
  w.pipeline_max = pre.pipeline_max;
  w.next = static_cast<std::size_t>(count);
  walk_stage<false>(g, times, ids, w, nullptr);
}

// summarize_step; `pre`: the plan walk's per-stage sums of this timeline (evaluate()), or null.
StepResult summarize(const Scenario& s, const StepGraph& g, std::vector<NodeTiming> timeline, std::string engine,
                     const std::vector<PlanStageSums>* pre) {
  const ParallelismSpec& par = s.parallelism;
  const int p = par.pp;
  StepResult r;
  r.engine = std::move(engine);
  r.devices = s.cluster.devices();
  r.microbatches = g.schedule.microbatches;
  r.stages.resize(static_cast<std::size_t>(p));

  // One walk over each stage's compute stream gives its sums and the latest end t_pipe of any pipeline
  // op (every node is on one stream of one stage: evaluate_timeline runs them all): first up to each
  // optimizer, then, with t_pipe, the optimizer and whatever follows it. The maximum is exact in any
  // order (every partial maximum starts at +0, so even signed zeros come out the same).
  const bool all_comm = any_comm_beyond_tp(g.costs);
  thread_local std::vector<StageWalk> walks;
  walks.assign(static_cast<std::size_t>(p), StageWalk{});
  const bool planned = pre != nullptr && !all_comm && g.pipeline_order && pre->size() == static_cast<std::size_t>(p) &&
                       g.pipeline_order->stage_begin.size() == static_cast<std::size_t>(p) + 1;
  Seconds t_pipe(0);
  for (int st = 0; st < p; ++st) {
    StageWalk& w = walks[static_cast<std::size_t>(st)];
    const std::vector<int>& ids = g.order[static_cast<std::size_t>(st)][0];
    if (all_comm) {
      walk_stage<true>(g, timeline.data(), ids, w, nullptr);
    } else if (planned) {
      const std::vector<int>& begin = g.pipeline_order->stage_begin;
      walk_stage_planned(g, timeline.data(), ids, begin[static_cast<std::size_t>(st)],
                         begin[static_cast<std::size_t>(st) + 1] - begin[static_cast<std::size_t>(st)],
                         (*pre)[static_cast<std::size_t>(st)], w);
    } else {
      walk_stage<false>(g, timeline.data(), ids, w, nullptr);
    }
    // Pipeline ops after the optimizer or on the data-parallel channel (none in built graphs).
    for (std::size_t i = w.next; i < ids.size(); ++i) {
      const auto id = static_cast<std::size_t>(ids[i]);
      if (is_pipeline_op(g.nodes[id].kind)) w.pipeline_max = max(w.pipeline_max, timeline[id].end);
    }
    for (const int id : g.order[static_cast<std::size_t>(st)][1]) {
      if (is_pipeline_op(g.nodes[static_cast<std::size_t>(id)].kind)) {
        w.pipeline_max = max(w.pipeline_max, timeline[static_cast<std::size_t>(id)].end);
      }
    }
    t_pipe = max(t_pipe, w.pipeline_max);
  }
  for (int st = 0; st < p; ++st) {
    StageWalk& w = walks[static_cast<std::size_t>(st)];
    const std::vector<int>& ids = g.order[static_cast<std::size_t>(st)][0];
    if (all_comm) {
      walk_stage<true>(g, timeline.data(), ids, w, &t_pipe);
    } else {
      walk_stage<false>(g, timeline.data(), ids, w, &t_pipe);
    }
    StageSummary& ss = r.stages[static_cast<std::size_t>(st)];
    w.sum.bubble += max(Seconds(0), t_pipe - w.sum.pipeline_end);
    ss = w.sum;
    ss.memory = memory_per_device(s.model, memory_inputs(s, g.schedule, st));
  }

  double bubble_sum = 0.0;
  double mem_max = -1.0;
  for (int st = 0; st < p; ++st) {
    const StageSummary& ss = r.stages[static_cast<std::size_t>(st)];
    if (ss.end > r.step_time) {
      r.step_time = ss.end;
      r.critical_stage = st;
    }
    if (ss.memory.total().value() > mem_max) {
      mem_max = ss.memory.total().value();
      r.memory = ss.memory;
      r.memory_stage = st;
    }
  }
  if (is_auto_zero_bubble(g.schedule.kind)) {
    // Values the zb-1p / zb-2p search and its memory walk take from outside the input.
    const AutoScheduleCosts& c = g.schedule.auto_costs;
    const std::string_view kind = g.schedule.kind == ScheduleKind::zero_bubble_1p ? "zb-1p" : "zb-2p";
    r.schedule_assumptions.push_back(fmt::format(
        "{} search op times F {} us, B {} us, W {} us, p2p {} us: the median over the stages of this simulator's "
        "op costs, truncated to whole microseconds (the authors' runtime profiles its own)",
        kind, c.forward, c.backward_input, c.backward_weight, c.p2p));
    r.schedule_assumptions.push_back(fmt::format(
        "{} search memory, in the authors' units (per token of a layer, proportional to bytes): an F adds M_F = "
        "34h + 5as = {} units, a W frees M_W = 32h = {} units, limit {} x M_F (the authors' "
        "formulas, zb_schedules.py at f68d3879, used only as the search's input)",
        kind, c.forward_memory, c.weight_memory, auto_activation_limit(g.schedule)));
    const MemoryInputs in = memory_inputs(s, g.schedule, r.memory_stage);
    r.schedule_assumptions.push_back(fmt::format(
        "activation memory: a deferred W keeps {:.3f} of a micro-batch's activations (32/34 of the memory model's "
        "stored non-score terms; the search counts {:.3f}); peak {:.2f} micro-batches on stage {}",
        zero_bubble_weight_share(s, in),
        static_cast<double>(c.weight_memory) / static_cast<double>(c.forward_memory),
        in.inflight_chunk_microbatches, r.memory_stage));
    if (g.schedule.stages == 1) {
      r.schedule_assumptions.emplace_back("pp 1: the search runs with one stage (the authors' runtime refuses it)");
    }
  }
  for (const StageSummary& ss : r.stages) bubble_sum += ss.bubble / r.step_time;
  r.bubble_fraction = bubble_sum / p;
  // The interleaving factor v = V/p: 1 for dualpipe, whose textbook figure is thus 1F1B's; 2 for v-half
  // (two chunks per rank), about the p/(2m) of Qi et al. 2024 for V-Half with equal F, B and W.
  const double m = g.schedule.microbatches, v = virtual_stage_count(g.schedule) / static_cast<double>(p);
  r.bubble_fraction_textbook = (p - 1.0) / (v * m + p - 1.0);

  const StageSummary& crit = r.stages[static_cast<std::size_t>(r.critical_stage)];
  r.comm_exposed.tp = crit.tp_exposed;
  r.comm_exposed.cp = crit.cp_exposed;
  r.comm_exposed.pp = crit.pp_exposed;
  r.comm_exposed.dp = crit.dp_exposed;
  r.comm_exposed.ep = crit.ep_exposed;

  const TrainingSpec& tr = s.training;
  const double devices = r.devices;
  const double peak = s.cluster.node.device.peak_for(tr.precision).value();
  r.tokens_per_step = static_cast<double>(tr.global_batch) * tr.seq_len;
  r.tokens_per_s = r.tokens_per_step / r.step_time.value();
  r.model_flops_per_step = model_flops_per_step(s.model, tr.seq_len, tr.global_batch).value();
  const double replicas_ranks = static_cast<double>(par.dp) * par.tp * par.cp;
  const double recompute_flops =
      (g.hardware_flops_per_replica - g.model_flops_per_replica).value() * replicas_ranks;
  r.hardware_flops_per_step = r.model_flops_per_step + recompute_flops;
  r.tflops_per_device = r.model_flops_per_step / r.step_time.value() / devices / 1e12;
  r.hw_tflops_per_device = r.hardware_flops_per_step / r.step_time.value() / devices / 1e12;
  r.mfu = r.model_flops_per_step / (r.step_time.value() * devices * peak);
  r.hfu = r.hardware_flops_per_step / (r.step_time.value() * devices * peak);
  r.memory_capacity = s.cluster.node.device.memory_capacity;
  r.fits = r.memory.total() <= r.memory_capacity;
  if (g.streaming) summarize_streaming(s, *g.streaming, r);
  if (g.offload) {
    const OffloadStep& o = *g.offload;
    OffloadResult x;
    x.layers = o.layers;
    x.device_bytes_saved = r.memory.offloaded;
    x.host_bytes_per_step = o.bytes_per_microbatch * static_cast<double>(o.microbatches);
    x.bandwidth = o.bandwidth;
    x.copy_time = (o.forward.busy + o.backward.busy) * static_cast<double>(o.microbatches);
    x.exposed = (o.forward.exposed + o.backward.exposed) * static_cast<double>(o.microbatches);
    x.hbm_slowdown = o.hbm_slowdown * static_cast<double>(o.microbatches);
    r.offload = x;
  }
  r.timeline = std::move(timeline);
  apply_dp_mode(s, g, r);
  return r;
}

}  // namespace

StepResult summarize_step(const Scenario& s, const StepGraph& g, std::vector<NodeTiming> timeline,
                          std::string engine) {
  return summarize(s, g, std::move(timeline), std::move(engine), nullptr);
}

StepResult run_analytic(const Scenario& s) {
  auto g = std::make_shared<StepGraph>(build_step_graph(s));
  apply_device_stragglers(s, *g);
  // The timeline and, from the plan walk, each stage's waits: summarize then does not walk the times
  // of the pipeline ops again.
  thread_local std::vector<PlanStageSums> sums;
  std::vector<NodeTiming> timeline;
  const bool planned = evaluate(*g, timeline, &sums);
  StepResult r = summarize(s, *g, std::move(timeline), "analytic", planned ? &sums : nullptr);
  r.graph = std::move(g);
  return r;
}

}  // namespace clustersim
