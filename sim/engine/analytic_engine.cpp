#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/dp_mode_effect.hpp"

#include <algorithm>

#include "models/moe_load.hpp"
#include "schedules/pipeline_deps.hpp"
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
  in.expert_dp = std::max(1, par.tp * par.cp * par.dp / (par.ep * par.etp));
  in.inflight_chunk_microbatches = peak_inflight_activations(spec, stage);
  // Whether a chunk of the stage holds the embedding (first model stage) or the head (last); with
  // dualpipe both the first and the last rank hold both.
  in.first_stage = false;
  in.last_stage = false;
  for (int c = 0; c < spec.chunks; ++c) {
    in.first_stage = in.first_stage || virtual_stage(spec, stage, c) == 0;
    in.last_stage = in.last_stage || virtual_stage(spec, stage, c) == virtual_stage_count(spec) - 1;
  }
  in.pp = par.pp;
  in.dp = par.dp * par.cp;
  in.zero_stage = par.zero_stage;
  in.recompute = tr.recompute;
  in.optimizer = tr.optimizer;
  in.master_weights_fp32 = tr.master_weights_fp32;
  in.gradient_precision = tr.gradient_precision;
  return in;
}

StepResult summarize_step(const Scenario& s, const StepGraph& g, std::vector<NodeTiming> timeline,
                          std::string engine) {
  const ParallelismSpec& par = s.parallelism;
  const int p = par.pp;
  StepResult r;
  r.engine = std::move(engine);
  r.devices = s.cluster.devices();
  r.microbatches = g.schedule.microbatches;
  r.stages.resize(static_cast<std::size_t>(p));

  Seconds t_pipe(0);
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    if (is_pipeline_op(g.nodes[id].kind)) t_pipe = max(t_pipe, timeline[id].end);
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
