#include "sim/plan/strategy.hpp"

#include <fmt/format.h>

#include "sim/config/framework_profile.hpp"

namespace clustersim::plan {

const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
  }
  return "none";
}

ParallelismSpec parallelism_of(const Strategy& st) {
  ParallelismSpec p;
  p.tp = st.tp;
  p.pp = st.pp;
  p.dp = st.dp;
  p.cp = st.cp;
  p.vp = st.vp;
  p.ep = st.ep;
  p.etp = st.etp;
  p.zero_stage = st.zero_stage;
  p.schedule = st.schedule;
  p.sequence_parallel = st.sequence_parallel;
  return p;
}

void apply(const Strategy& st, Scenario& s) {
  s.cluster.nodes = st.nodes;
  // The strategy's fields over the experiment's: what the search does not choose stays the experiment's
  // (TP-comm overlap and its scope, the DP collective, pipeline p2p, MoE overlap and its SMs, vocabulary
  // parallelism, the split rule).
  const ParallelismSpec chosen = parallelism_of(st);
  ParallelismSpec p = s.parallelism;
  p.tp = chosen.tp;
  p.pp = chosen.pp;
  p.dp = chosen.dp;
  p.cp = chosen.cp;
  p.vp = chosen.vp;
  p.ep = chosen.ep;
  p.etp = chosen.etp;
  p.zero_stage = chosen.zero_stage;
  p.schedule = chosen.schedule;
  p.sequence_parallel = chosen.sequence_parallel;
  // A framework profile's rules for keys the experiment leaves to it follow the strategy's tp, pp and ZeRO
  // stage, as a run of this strategy with those stated would get them (Scenario::ProfileRules).
  const Scenario::ProfileRules& r = s.profile_rules;
  const bool zero3 = st.zero_stage == 3;
  if (r.tp_comm_overlap) p.tp_comm_overlap = st.tp > 1;
  if (r.pipeline_p2p_blocking >= 0) p.pipeline_p2p_blocking = st.pp > 1 && r.pipeline_p2p_blocking == 1;
  if (r.overlap_grad_reduce >= 0)
    s.training.overlap_grad_reduce = r.overlap_grad_reduce == 1 || (r.overlap_grad_reduce == 2 && zero3 && st.pp == 1);
  if (zero3 && r.dp_flat_ring_zero3 >= 0) {
    p.dp_flat_ring = r.dp_flat_ring_zero3 == 1;
  } else if (!zero3 && r.dp_flat_ring >= 0) {
    p.dp_flat_ring = r.dp_flat_ring == 1;
  }
  // An MoE overlap the experiment leaves to its schedule (compute with dualpipe) follows the strategy's
  // schedule; its SM partition for the all-to-all needs that overlap, so it stays only where the overlap
  // does (the planner says so: planner.cpp).
  if (p.moe_overlap_defaulted) {
    p.moe_overlap = st.schedule == ScheduleKind::dualpipe ? MoeOverlap::compute : MoeOverlap::none;
    if (p.moe_overlap != MoeOverlap::compute) p.ep_comm_sms_reserved = false;
  }
  if (st.recompute == Recompute::selective) {
    if (r.selective_policy) s.training.selective_policy = *r.selective_policy;
    if (s.training.selective_policy == SelectivePolicy::layer && r.selective_layer_interval > 0)
      s.training.selective_layer_interval = r.selective_layer_interval;
  }
  // The layer split is the strategy's: a stated pipeline_split rule splits its pp·vp stages (the space holds
  // only depths it can split); without one the split is even (an explicit pipeline_layers or
  // pipeline_layout is for the experiment's own depth: the planner says so).
  p.pipeline_layers.clear();
  p.pipeline_layout.clear();
  if (!p.pipeline_split.empty() && st.pp * st.vp > 1) {
    if (auto split = config::pipeline_split_layers(p.pipeline_split, s.model.layers, st.pp * st.vp)) {
      p.pipeline_layers = *split;
    }
  }
  s.parallelism = std::move(p);
  s.training.micro_batch = st.micro_batch;
  s.training.recompute = st.recompute;
  // The batch ramp's batches must split into the strategy's micro_batch·dp and suit its schedule, which
  // sim/config checks for the experiment's own strategy only: the search ranks strategies without the ramp
  // (docs/planning.md), at the final batch throughout.
  s.training.batch_rampup.reset();
}

std::string describe(const Strategy& st, bool with_nodes) {
  std::string out =
      fmt::format("TP{} PP{} DP{} CP{} VP{} mb{} {} recompute={} ZeRO-{}{}", st.tp, st.pp, st.dp, st.cp,
                  st.vp, st.micro_batch, to_string(st.schedule), recompute_name(st.recompute), st.zero_stage,
                  st.sequence_parallel ? " +SP" : "");
  if (st.ep > 1 || st.etp > 1) out += fmt::format(" EP{} ETP{}", st.ep, st.etp);
  if (with_nodes) out += fmt::format(" nodes={}", st.nodes);
  return out;
}

}  // namespace clustersim::plan
