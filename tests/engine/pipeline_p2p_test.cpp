// pipeline_p2p "deepspeed": DeepSpeed's PipelineEngine transfers (microsoft/DeepSpeed 29bee73,
// runtime/pipe/p2p.py and engine.py; big-science branch from a096d32d7, master from e2fdd254e) block the
// compute stream; activations and gradients go as 1/tp slices (is_pipe_partitioned = is_grad_partitioned
// = is_model_parallel) and are all-gathered over TP on receipt.
#include "tests/catch.hpp"

#include "fixtures.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/graph/op_cost.hpp"
#include "sim/graph/step_graph.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {
Scenario four_stages(bool deepspeed) {
  Scenario s = scenario(dgx_a100_cluster(4), gpt(8, 4096, 32), 8, 4, 1, 64);
  s.cluster.node.device.efficiency = a100_calibration();
  s.training.recompute = Recompute::full;
  s.parallelism.pipeline_p2p_blocking = deepspeed;
  return s;
}
}  // namespace

TEST_CASE("DeepSpeed's blocking transfers: partitioned activations and gradients, charged to both ends",
          "[p2p]") {
  const Scenario s = four_stages(true);
  const OpCostModel model(s);
  ChunkRole middle{2, 0, false, false, 0};
  middle.has_prev = middle.has_next = true;
  ChunkRole first{2, 0, true, false, 0};
  first.has_next = true;
  const ChunkCosts mid = model.chunk_costs(middle);
  const ChunkCosts head = model.chunk_costs(first);
  // A middle stage receives and sends one activation slice in its forward and one gradient slice each way
  // in its backward; the first stage only sends its output and receives its output's gradient.
  CHECK(mid.forward.pp_comm.value() == Approx(2 * head.forward.pp_comm.value()));
  CHECK(mid.backward.pp_comm.value() == Approx(2 * head.backward.pp_comm.value()));
  // The gradient goes as a 1/tp PartitionedTensor like the activation (_exec_send_grads): the same bytes.
  CHECK(head.backward.pp_comm.value() == Approx(head.forward.pp_comm.value()));
  CHECK(head.forward.pp_comm.value() > 0);
  // Megatron's transfers are not in the op (they are the graph's transfer delay).
  const Scenario m = four_stages(false);
  const ChunkCosts mid_megatron = OpCostModel(m).chunk_costs(middle);
  CHECK(mid_megatron.forward.pp_comm.value() == 0);
  // TP all-gathers on top of the layers' own TP collectives: one in the forward (part_input.full()), two
  // before the backward (part_output.full() and part_grad.full(), _exec_backward_pass).
  const double gather_fwd = mid.forward.tp_comm.value() - mid_megatron.forward.tp_comm.value();
  const double gather_bwd = mid.backward.tp_comm.value() - mid_megatron.backward.tp_comm.value();
  CHECK(gather_fwd > 0);
  CHECK(gather_bwd == Approx(2 * gather_fwd));
  // No pipeline, nothing to send.
  Scenario one = scenario(dgx_a100_cluster(1), gpt(8, 4096, 32), 8, 1, 1, 16);
  one.parallelism.pipeline_p2p_blocking = true;
  CHECK(OpCostModel(one).chunk_costs(ChunkRole{8, 0, true, true, 0}).forward.pp_comm.value() == 0);
}

TEST_CASE("blocking transfers lengthen the step and are reported as pipeline communication", "[p2p]") {
  const StepResult megatron = run_analytic(four_stages(false));
  const StepResult deepspeed = run_analytic(four_stages(true));
  CHECK(deepspeed.step_time.value() > megatron.step_time.value());
  CHECK(deepspeed.comm_exposed.pp.value() > megatron.comm_exposed.pp.value());
  // The transfers are inside the ops: no dependency delay is left on the graph.
  for (const StepNode& n : deepspeed.graph->nodes) CHECK(n.dep_delay.value() == 0);
}
