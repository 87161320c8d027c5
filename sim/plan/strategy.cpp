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
  // The strategy's fields, and the experiment's for what the search does not choose.
  ParallelismSpec p = parallelism_of(st);
  // A framework profile's "with TP > 1" rule is applied to the strategy's tp (Scenario::profile_tp_rules).
  p.tp_comm_overlap = s.profile_tp_rules.tp_comm_overlap ? st.tp > 1 : s.parallelism.tp_comm_overlap;
  p.dp_flat_ring = s.parallelism.dp_flat_ring;
  p.moe_overlap = s.parallelism.moe_overlap;
  p.vocab_parallel = s.parallelism.vocab_parallel;
  // A stated pipeline_split rule splits this strategy's pp·vp stages (the space holds only depths it can
  // split); without one the split is even.
  p.pipeline_split = s.parallelism.pipeline_split;
  if (!p.pipeline_split.empty() && st.pp * st.vp > 1) {
    if (auto split = config::pipeline_split_layers(p.pipeline_split, s.model.layers, st.pp * st.vp)) {
      p.pipeline_layers = *split;
    }
  }
  s.parallelism = std::move(p);  // otherwise pipeline_layers cleared: the search splits layers evenly
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
