#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/dp_mode_effect.hpp"

#include <algorithm>

#include "models/moe_load.hpp"
#include "schedules/pipeline_deps.hpp"
#include "sim/collectives/multislice.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/engine/straggler_effect.hpp"

namespace clustersim {

namespace {

// One resource's node order and how far evaluate_timeline() has run it.
struct Lane {
  const int* ids = nullptr;
  std::size_t size = 0;
  std::size_t next = 0;
  Seconds free_at{0};
};

}  // namespace

std::vector<NodeTiming> evaluate_timeline(const StepGraph& g) {
  const std::size_t n = g.nodes.size();
  std::vector<NodeTiming> t(n);
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
  // The schedule's pipeline ops in an order known to respect dependencies and streams (build_step_graph):
  // evaluated straight through, without walking the streams round-robin. Each node is checked to be the
  // next on its stage's compute stream with its dependency done; the first that is not (a graph changed
  // since it was built) leaves the rest to the general walk below, which continues from where this stops.
  if (g.pipeline_order && g.order.size() * 2 == lanes.size()) {
    for (const int id32 : *g.pipeline_order) {
      const auto id = static_cast<std::size_t>(id32);
      if (id >= n) break;
      const StepNode& node = nodes[id];
      if (node.stage < 0 || static_cast<std::size_t>(node.stage) >= g.order.size()) break;
      Lane& lane = lanes[2 * static_cast<std::size_t>(node.stage)];
      if (lane.next >= lane.size || lane.ids[lane.next] != id32) break;
      Seconds ready(0);
      if (node.dep >= 0) {
        const auto d = static_cast<std::size_t>(node.dep);
        if (!finished[d]) break;
        ready = node.starts_with_dep ? times[d].start : times[d].end + node.dep_delay;
      }
      const Seconds start = max(lane.free_at, ready);
      Seconds end = start + node.duration;
      if (node.starts_with_dep && node.dep >= 0) {
        end = max(end, times[static_cast<std::size_t>(node.dep)].end + node.tail);
      }
      times[id] = {start, end};
      finished[id] = 1;
      lane.free_at = end;
      ++lane.next;
      --remaining;
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
  return t;
}

namespace {

bool is_pipeline_op(NodeKind k) {
  return k != NodeKind::dp_sync && k != NodeKind::optimizer;
}

}  // namespace

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
  in.shape.fp8_blockwise = tr.fp8_blockwise;
  in.shape.recompute_norm_mla_up = tr.recompute_norm_mla_up;
  // Layers of all the stage's chunks: with dualpipe two model stages (its two copies of the model).
  in.chunks = spec.chunks;
  in.layers_on_stage = 0;
  for (int c = 0; c < spec.chunks; ++c) {
    const LayerRange lr = virtual_stage_layers(par, s.model.layers, virtual_stage(spec, stage, c));
    in.layers_on_stage += lr.count;
    in.moe_layers_on_stage += s.model.moe_layers_in(lr.first, lr.first + lr.count);
  }
  in.ep = par.ep;
  in.etp = par.etp;
  in.expert_dp = std::max(1, par.tp * par.cp * slice_dp(s) / (par.ep * par.etp));
  in.inflight_chunk_microbatches = peak_inflight_activations(spec, stage);
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

StepResult summarize_step(const Scenario& s, const StepGraph& g, std::vector<NodeTiming> timeline,
                          std::string engine) {
  const ParallelismSpec& par = s.parallelism;
  const int p = par.pp;
  StepResult r;
  r.engine = std::move(engine);
  r.devices = s.cluster.devices();
  r.microbatches = g.schedule.microbatches;
  r.stages.resize(static_cast<std::size_t>(p));

  // Latest end of any pipeline op. Four running maxima (max is exact in any order, so the result is the
  // same to the bit) break the loop-carried dependency of one; local pointers avoid reloading the vectors.
  Seconds t_pipe(0);
  {
    const StepNode* nodes = g.nodes.data();
    const NodeTiming* times = timeline.data();
    const std::size_t n = g.nodes.size();
    Seconds part[4] = {Seconds(0), Seconds(0), Seconds(0), Seconds(0)};
    std::size_t id = 0;
    for (; id + 4 <= n; id += 4) {
      for (std::size_t k = 0; k < 4; ++k) {
        if (is_pipeline_op(nodes[id + k].kind)) part[k] = max(part[k], times[id + k].end);
      }
    }
    for (; id < n; ++id) {
      if (is_pipeline_op(nodes[id].kind)) part[0] = max(part[0], times[id].end);
    }
    t_pipe = max(max(part[0], part[1]), max(part[2], part[3]));
  }
  for (int st = 0; st < p; ++st) {
    StageSummary& ss = r.stages[static_cast<std::size_t>(st)];
    // Sums kept in locals (same order of additions as into `ss`): stores into `ss` could alias the costs
    // read, which would force a load and a store per field per node.
    StageSummary sum;
    Seconds prev_end(0);
    for (int id : g.order[static_cast<std::size_t>(st)][0]) {
      const StepNode& node = g.nodes[static_cast<std::size_t>(id)];
      const NodeTiming& nt = timeline[static_cast<std::size_t>(id)];
      if (node.kind == NodeKind::optimizer) {
        sum.optimizer = node.duration;
        sum.dp_exposed += max(Seconds(0), nt.start - max(sum.pipeline_end, t_pipe));
        sum.end = nt.end;
        continue;
      }
      const OpCost& c = g.costs[static_cast<std::size_t>(node.cost)];
      sum.compute += c.compute;
      sum.overlap_slowdown += c.overlap_slowdown;
      sum.recompute += c.recompute;
      sum.compute_bound += c.compute_bound;
      sum.tp_exposed += c.tp_comm;
      sum.cp_exposed += c.cp_comm;
      sum.dp_exposed += c.dp_comm;
      sum.ep_exposed += c.ep_comm;
      sum.pp_exposed += c.pp_comm;
      const Seconds gap = nt.start - prev_end;
      if (gap.value() > 0) {
        const Seconds pp_part = min(gap, node.dep_delay);
        sum.pp_exposed += pp_part;
        sum.bubble += gap - pp_part;
      }
      prev_end = nt.end;
      sum.pipeline_end = nt.end;
    }
    sum.bubble += max(Seconds(0), t_pipe - sum.pipeline_end);
    ss = sum;
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
  for (const StageSummary& ss : r.stages) bubble_sum += ss.bubble / r.step_time;
  r.bubble_fraction = bubble_sum / p;
  // The interleaving factor v = V/p: 1 for dualpipe, whose textbook figure is thus 1F1B's.
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
  r.timeline = std::move(timeline);
  apply_dp_mode(s, g, r);
  return r;
}

StepResult run_analytic(const Scenario& s) {
  auto g = std::make_shared<StepGraph>(build_step_graph(s));
  apply_device_stragglers(s, *g);
  StepResult r = summarize_step(s, *g, evaluate_timeline(*g), "analytic");
  r.graph = std::move(g);
  return r;
}

}  // namespace clustersim
