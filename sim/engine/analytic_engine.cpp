#include "sim/engine/analytic_engine.hpp"

#include <algorithm>

#include "schedules/pipeline_deps.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/engine/straggler_effect.hpp"

namespace clustersim {

std::vector<NodeTiming> evaluate_timeline(const StepGraph& g) {
  const std::size_t n = g.nodes.size();
  std::vector<NodeTiming> t(n);
  std::vector<char> done(n, 0);
  const std::size_t stages = g.order.size();
  std::vector<std::array<std::size_t, 2>> next(stages, {0, 0});
  std::vector<std::array<Seconds, 2>> free_at(stages, {Seconds(0), Seconds(0)});
  std::size_t remaining = n;
  while (remaining > 0) {
    bool progress = false;
    for (std::size_t st = 0; st < stages; ++st) {
      for (std::size_t r = 0; r < 2; ++r) {
        const auto& ord = g.order[st][r];
        std::size_t& i = next[st][r];
        while (i < ord.size()) {
          const auto id = static_cast<std::size_t>(ord[i]);
          const StepNode& node = g.nodes[id];
          Seconds ready(0);
          if (node.dep >= 0) {
            const auto d = static_cast<std::size_t>(node.dep);
            if (!done[d]) break;
            ready = node.starts_with_dep ? t[d].start : t[d].end + node.dep_delay;
          }
          const Seconds start = max(free_at[st][r], ready);
          Seconds end = start + node.duration;
          if (node.starts_with_dep && node.dep >= 0) {
            end = max(end, t[static_cast<std::size_t>(node.dep)].end + node.tail);
          }
          t[id] = {start, end};
          done[id] = 1;
          free_at[st][r] = end;
          ++i;
          --remaining;
          progress = true;
        }
      }
    }
    CS_ASSERT(progress, "step graph has a dependency cycle (pipeline schedule deadlock)");
  }
  return t;
}

namespace {

bool is_pipeline_op(NodeKind k) { return k != NodeKind::dp_sync && k != NodeKind::optimizer; }

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
  in.layers_on_stage = s.model.layers / par.pp;
  in.chunks = par.vp;
  in.inflight_chunk_microbatches = peak_inflight_activations(spec, stage);
  in.first_stage = stage == 0;
  in.last_stage = stage == par.pp - 1;
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
    Seconds prev_end(0);
    for (int id : g.order[static_cast<std::size_t>(st)][0]) {
      const StepNode& node = g.nodes[static_cast<std::size_t>(id)];
      const NodeTiming& nt = timeline[static_cast<std::size_t>(id)];
      if (node.kind == NodeKind::optimizer) {
        ss.optimizer = node.duration;
        ss.dp_exposed += max(Seconds(0), nt.start - max(ss.pipeline_end, t_pipe));
        ss.end = nt.end;
        continue;
      }
      const OpCost& c = g.costs[static_cast<std::size_t>(node.cost)];
      ss.compute += c.compute;
      ss.recompute += c.recompute;
      ss.compute_bound += c.compute_bound;
      ss.tp_exposed += c.tp_comm;
      ss.cp_exposed += c.cp_comm;
      ss.dp_exposed += c.dp_comm;
      const Seconds gap = nt.start - prev_end;
      if (gap.value() > 0) {
        const Seconds pp_part = min(gap, node.dep_delay);
        ss.pp_exposed += pp_part;
        ss.bubble += gap - pp_part;
      }
      prev_end = nt.end;
      ss.pipeline_end = nt.end;
    }
    ss.bubble += max(Seconds(0), t_pipe - ss.pipeline_end);
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
  const double m = g.schedule.microbatches, v = g.schedule.chunks;
  r.bubble_fraction_textbook = (p - 1.0) / (v * m + p - 1.0);

  const StageSummary& crit = r.stages[static_cast<std::size_t>(r.critical_stage)];
  r.comm_exposed.tp = crit.tp_exposed;
  r.comm_exposed.cp = crit.cp_exposed;
  r.comm_exposed.pp = crit.pp_exposed;
  r.comm_exposed.dp = crit.dp_exposed;

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
  return r;
}

StepResult run_analytic(const Scenario& s) {
  StepGraph g = build_step_graph(s);
  apply_device_stragglers(s, g);
  return summarize_step(s, g, evaluate_timeline(g), "analytic");
}

}  // namespace clustersim
