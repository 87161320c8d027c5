// The tied embedding's gradient all-reduce follows the schedule's placement of the embedding (virtual stage
// 0) and the LM head (the last virtual stage), schedules/pipeline_deps.hpp virtual_stage(): between the
// first and last pipeline rank for 1F1B and interleaved 1F1B (Megatron-Core default_embedding_ranks), none
// under V-Half (both on stage 0: the authors' branch makes the embedding group rank 0 alone) and none under
// DualPipe (each end rank holds both; the copies are summed by the mirrored-stage exchange).
#include "tests/catch.hpp"

#include <vector>

#include "fixtures.hpp"
#include "models/transformer_cost.hpp"
#include "schedules/pipeline_deps.hpp"
#include "schedules/pipeline_schedule.hpp"
#include "sim/collectives/topology_collectives.hpp"
#include "sim/graph/op_cost.hpp"
#include "sim/graph/step_graph.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

constexpr int kStages = 4;

// One DP replica (dp = 1: no data-parallel sync), p = 4 on one node, eight layers, a 51,200-token tied
// vocabulary: the only gradient exchanges left are the tied embedding's and DualPipe's mirrored copies.
Scenario tied_pipeline(ScheduleKind kind, int vp = 1, bool tied = true) {
  TransformerSpec model = gpt(8, 1024, 16, 2048, 51200);
  model.tied_embeddings = tied;
  Scenario s = scenario(dgx_a100_cluster(1), model, 1, kStages, 1, 8);
  s.parallelism.dp = 1;
  s.cluster.node.devices_per_node = kStages;
  s.parallelism.vp = vp;
  s.parallelism.schedule = kind;
  return s;
}

std::vector<const StepNode*> syncs(const StepGraph& g) {
  std::vector<const StepNode*> out;
  for (const StepNode& n : g.nodes) {
    if (n.kind == NodeKind::dp_sync) out.push_back(&n);
  }
  return out;
}

// Every rank of stage `a` all-reducing the tied embedding (vocab x hidden / tp, fp32 gradients) with its
// peer in stage `b`, all at once.
Seconds tied_all_reduce(const Scenario& s, int a, int b) {
  const OpCostModel model(s);
  const int stage_ranks = s.parallelism.tp * s.parallelism.cp * s.parallelism.dp;
  const ConcurrentGroups pairs{.size = 2,
                               .stride = (b - a) * stage_ranks,
                               .first = a * stage_ranks,
                               .count = stage_ranks,
                               .group_stride = 1};
  const double emb = static_cast<double>(s.model.vocab) * s.model.hidden / s.parallelism.tp;
  return model.topology().time(CollectiveOp::all_reduce, Bytes(emb * 4.0), pairs);
}

}  // namespace

TEST_CASE("1F1B and interleaved 1F1B all-reduce the tied embedding between the first and the last stage") {
  for (const int vp : {1, 2}) {
    const Scenario s =
        tied_pipeline(vp == 1 ? ScheduleKind::one_f_one_b : ScheduleKind::interleaved_1f1b, vp);
    const StepGraph g = build_step_graph(s);
    const std::vector<const StepNode*> nodes = syncs(g);
    const Seconds expected = tied_all_reduce(s, 0, kStages - 1);
    INFO("vp " << vp);
    REQUIRE(nodes.size() == 2);
    CHECK(expected.value() > 0.0);
    // The embedding's chunk 0 on stage 0, the head's last chunk on stage p-1.
    CHECK(nodes[0]->stage + nodes[1]->stage == kStages - 1);
    for (const StepNode* n : nodes) {
      CHECK((n->stage == 0 || n->stage == kStages - 1));
      CHECK(n->chunk == (n->stage == 0 ? 0 : vp - 1));
      CHECK(n->duration.value() == Approx(expected.value()).epsilon(1e-12));
    }
    // Untied: nothing to exchange without data parallelism.
    CHECK(syncs(build_step_graph(tied_pipeline(s.parallelism.schedule, vp, false))).empty());
  }
}

TEST_CASE("v-half holds the embedding and the LM head on stage 0: no tied-embedding all-reduce") {
  // Virtual stage 0 (chunk 0) and 2p-1 (chunk 1) are both on stage 0 (virtual_stage()); the authors'
  // Megatron branch makes the embedding group [pp_ranks[0]] and skips a one-rank group's all-reduce.
  const Scenario s = tied_pipeline(ScheduleKind::v_half);
  REQUIRE(virtual_stage(schedule_spec(ScheduleKind::v_half, kStages, 8, 1, 0), 0, 1) == 2 * kStages - 1);
  const StepGraph g = build_step_graph(s);
  CHECK(syncs(g).empty());
  CHECK(g.dp_comm_total.value() == 0.0);
}

TEST_CASE("dualpipe: each end rank holds the embedding and the head, only the mirrored copies are summed") {
  const Scenario s = tied_pipeline(ScheduleKind::dualpipe);
  const StepGraph g = build_step_graph(s);
  const OpCostModel model(s);
  const ParameterCount pc = parameter_count(s.model);
  const int layers_per_stage = s.model.layers / kStages;
  int checked = 0;
  for (const StepNode* n : syncs(g)) {
    if (n->stage != 0 && n->stage != kStages - 1) continue;
    // Stage 0's chunk 0 is virtual stage 0 (the embedding), its chunk 1 virtual stage p-1 (the head: the
    // final norm only, tied); stage p-1 the other way round. Each chunk all-reduces all its parameters
    // (dp = 1) with the mirrored chunk on the other end rank, and nothing else.
    const bool embedding = (n->stage == 0) == (n->chunk == 0);
    const double held = pc.per_layer * layers_per_stage + (embedding ? pc.embedding : pc.head);
    const ConcurrentGroups pairs{
        .size = 2, .stride = (kStages - 1), .first = 0, .count = 1, .group_stride = 1};
    const Seconds expected = model.topology().time(CollectiveOp::all_reduce, Bytes(held * 4.0), pairs);
    INFO("stage " << n->stage << " chunk " << n->chunk);
    CHECK(n->duration.value() == Approx(expected.value()).epsilon(1e-12));
    ++checked;
  }
  CHECK(checked == 4);
}
