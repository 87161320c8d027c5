// Parallel attention+MLP blocks (GPT-J, GPT-NeoX use_parallel_residual, PaLM §2): the same FLOPs as the
// sequential block, one tensor-parallel reduction per layer pass instead of two, one norm and one
// residual add.
#include "tests/catch.hpp"

#include <string_view>

#include "sim/engine/analytic_engine.hpp"
#include "sim/graph/op_cost.hpp"
#include "tests/engine/fixtures.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

Scenario gpt_tp8(bool parallel, bool sequence_parallel) {
  Scenario s = scenario(dgx_a100_cluster(2), gpt(8, 6144, 48), 8, 1, 1, 16);
  s.cluster.node.device.efficiency = a100_calibration();
  s.model.parallel_block = parallel;
  s.parallelism.sequence_parallel = sequence_parallel;
  return s;
}

struct Totals {
  double model_flops = 0, exec_flops = 0, bytes = 0;
  int norms = 0, adds = 0;
};

Totals totals(const LayerKernels& ks) {
  Totals t;
  for (const Kernel& k : ks) {
    t.model_flops += k.model_flops.value();
    t.exec_flops += k.exec_flops.value();
    t.bytes += k.bytes.value();
    t.norms += k.name == std::string_view("layernorm") ? 1 : 0;
    t.adds += k.name == std::string_view("dropout_add") ? 1 : 0;
  }
  return t;
}

}  // namespace

TEST_CASE("a parallel block issues half the tensor-parallel collectives of a sequential one", "[models]") {
  for (const bool sp : {false, true}) {
    INFO("sequence_parallel " << sp);
    const Scenario seq = gpt_tp8(false, sp);
    const Scenario par = gpt_tp8(true, sp);
    const TpCollectives a = layer_tp_collectives(seq.model, OpCostModel(seq).shape());
    const TpCollectives b = layer_tp_collectives(par.model, OpCostModel(par).shape());
    CHECK(a.total() == (sp ? 4 : 2));
    CHECK(b.total() * 2 == a.total());
    CHECK(b.all_reduce * 2 == a.all_reduce);
    CHECK(b.all_gather * 2 == a.all_gather);
    CHECK(b.reduce_scatter * 2 == a.reduce_scatter);
  }
  SECTION("without tensor parallelism neither block communicates") {
    Scenario s = gpt_tp8(true, false);
    LayerShape shape;
    shape.tp = 1;
    CHECK(layer_tp_collectives(s.model, shape).total() == 0);
  }
}

TEST_CASE("a parallel block has the FLOPs of the sequential block, one norm and one residual add", "[models]") {
  const Scenario seq = gpt_tp8(false, false);
  const Scenario par = gpt_tp8(true, false);
  const LayerShape shape = OpCostModel(seq).shape();
  const Totals a = totals(layer_forward_kernels(seq.model, shape));
  const Totals b = totals(layer_forward_kernels(par.model, shape));
  CHECK(a.model_flops > 0);
  CHECK(b.model_flops == a.model_flops);
  CHECK(b.exec_flops == a.exec_flops);
  CHECK(a.norms == 2);
  CHECK(b.norms == 1);
  CHECK(a.adds == 2);
  CHECK(b.adds == 1);
  // One norm (2e·T·h) and two dropout-adds (2·(3e+1)·T·h) become one norm and one add of three tensors
  // with two masks ((4e+2)·T·h): 2e + 2·(3e+1) - (4e+2) = 4e bytes per token-element fewer, e = 2 (fp16).
  const double t_h = 2048.0 * 6144.0;
  CHECK(a.bytes - b.bytes == Approx(4.0 * 2.0 * t_h));
  const Totals ab = totals(layer_backward_kernels(seq.model, shape, true, true));
  const Totals bb = totals(layer_backward_kernels(par.model, shape, true, true));
  CHECK(bb.model_flops == ab.model_flops);
  CHECK(bb.exec_flops == ab.exec_flops);
}

TEST_CASE("a parallel block's layer pays half the exposed TP time, forward and backward", "[models]") {
  for (const bool sp : {false, true}) {
    INFO("sequence_parallel " << sp);
    const Scenario seq = gpt_tp8(false, sp);
    const Scenario par = gpt_tp8(true, sp);
    const ChunkCosts a = OpCostModel(seq).chunk_costs(ChunkRole{.layers = 1});
    const ChunkCosts b = OpCostModel(par).chunk_costs(ChunkRole{.layers = 1});
    CHECK(a.forward.tp_comm.value() > 0);
    CHECK(b.forward.tp_comm.value() == Approx(0.5 * a.forward.tp_comm.value()));
    CHECK(b.backward.tp_comm.value() == Approx(0.5 * a.backward.tp_comm.value()));
    CHECK(b.forward.model_flops.value() == a.forward.model_flops.value());
    CHECK(b.backward.model_flops.value() == a.backward.model_flops.value());
  }
  SECTION("the whole step: same model FLOPs, less exposed TP, shorter step") {
    const StepResult a = run_analytic(gpt_tp8(false, true));
    const StepResult b = run_analytic(gpt_tp8(true, true));
    CHECK(b.model_flops_per_step == a.model_flops_per_step);
    // The layers' share halves; the embedding's and the LM head's collectives stay.
    const double ta = a.stages.at(0).tp_exposed.value();
    const double tb = b.stages.at(0).tp_exposed.value();
    CHECK(tb > 0.5 * ta);
    CHECK(tb < 0.6 * ta);
    CHECK(b.step_time < a.step_time);
  }
}
