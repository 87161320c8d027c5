// The work bounds' operation count (sim/scenario/work_bounds.hpp) is the number of pipeline ops the step
// graph actually holds, for every schedule: zb-h1 and dualpipe split each backward into B and W (3 ops per
// micro-batch and stage), v-half runs two chunks per stage with a split backward (6 per micro-batch and
// stage). The count used to be 2·m·pp·vp whatever the schedule: 1.5× too low for zb-h1 and dualpipe, 3× for
// v-half.
#include <filesystem>
#include <string>
#include <vector>

#include "tests/catch.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/graph/step_graph.hpp"
#include "sim/scenario/work_bounds.hpp"

namespace clustersim {
namespace {

Scenario gpt3(const std::vector<config::Override>& set) {
  return config::load_scenario({{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}}, "gpt3-175b-a100-1024",
                               set);
}

// Forward and backward ops (fused, B or W) of the step graph.
double pipeline_ops(const StepGraph& g) {
  double n = 0;
  for (const StepNode& node : g.nodes) {
    n += node.kind == NodeKind::forward || node.kind == NodeKind::backward || node.kind == NodeKind::backward_input ||
         node.kind == NodeKind::backward_weight;
  }
  return n;
}

}  // namespace

TEST_CASE("the work estimate counts the step graph's pipeline ops for every schedule") {
  // GPT-3 175B, 96 layers, TP8 DP16, 1,536 sequences of micro-batch 1: 96 micro-batches per DP rank.
  struct Case {
    std::string schedule;
    int pp, vp;
    std::string micro_batch;
    double per_microbatch_and_stage;  // ops
  };
  for (const Case& c : std::vector<Case>{{"1f1b", 8, 1, "1", 2},
                                         {"interleaved-1f1b", 8, 3, "1", 6},
                                         {"zb-h1", 8, 1, "1", 3},
                                         {"zb-h1", 4, 1, "2", 3},
                                         {"dualpipe", 8, 1, "1", 3},
                                         {"v-half", 8, 1, "1", 6},
                                         {"v-half", 4, 1, "2", 6},
                                         {"v-half", 2, 1, "1", 6},
                                         {"gpipe", 4, 1, "1", 2}}) {
    INFO(c.schedule << " pp=" << c.pp << " vp=" << c.vp << " micro_batch=" << c.micro_batch);
    const int dp = 128 / c.pp;
    const Scenario s = gpt3({{"/parallelism/schedule", "\"" + c.schedule + "\""},
                             {"/parallelism/pp", std::to_string(c.pp)},
                             {"/parallelism/vp", std::to_string(c.vp)},
                             {"/parallelism/dp", std::to_string(dp)},
                             {"/training/micro_batch", c.micro_batch}});
    const double m = s.training.microbatches(s.parallelism.dp);
    const WorkEstimate w = estimate_work(s, false);
    CHECK(w.graph_operations == c.per_microbatch_and_stage * m * c.pp);
    CHECK(w.graph_operations == pipeline_ops(build_step_graph(s)));
  }
}

}  // namespace clustersim
