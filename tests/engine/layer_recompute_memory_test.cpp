// Selective recomputation by layer (training.selective_recompute "layer", every k-th block recomputed in
// full; models/memory_model.cpp stage_layer_activation_bytes, sim/engine/analytic_engine.cpp memory_inputs):
// a recomputed block keeps only its input, the others every activation.
#include "tests/catch.hpp"

#include <vector>

#include "fixtures.hpp"
#include "models/memory_model.hpp"
#include "schedules/pipeline_schedule.hpp"
#include "sim/engine/analytic_engine.hpp"

using namespace clustersim;
using namespace clustersim::testing;

TEST_CASE("layer-level selective recompute with k = 2: half the blocks keep their input only",
          "[layer-recompute]") {
  // GPT shape, h = 1024, a = 16, f = 4h, GELU, FP16, TP 1, flash attention, 2048 tokens per micro-batch.
  // Per token a block keeps (Korthikanti et al. 2022 Eq. 1 with flash attention): the residual-stream norm
  // inputs 2·2h, two dropout masks 2h, the QKV and FC1 inputs 2·2h, Q K V 3·2h, the attention output 2h,
  // FC1 output 2·4h and GELU output 2·4h = 34h, plus the kernel's FP32 log-sum-exp 4 bytes per head;
  // a block recomputed in full keeps its input, 2h.
  const TransformerSpec m = gpt(8, 1024, 16, 2048);
  const double h = 1024, a = 16, tokens = 2048;
  const double kept = tokens * (34.0 * h + 4.0 * a);
  const double input = tokens * 2.0 * h;
  MemoryInputs in;
  in.shape.micro_batch = 1;
  in.shape.seq_len = 2048;
  in.shape.precision = Precision::fp16;
  in.shape.flash_attention = true;
  in.layers_on_stage = 8;
  in.first_stage = false;
  in.last_stage = false;
  in.recompute = Recompute::selective;
  CHECK(layer_activation_bytes(m, in.shape, Recompute::none).value() == Approx(kept));
  CHECK(layer_activation_bytes(m, in.shape, Recompute::full).value() == Approx(input));
  const MemoryBreakdown before = memory_per_device(m, in);  // the attention policy: every block keeps all
  CHECK(before.activations.value() == Approx(8 * kept));
  in.recompute_by_layer = true;
  in.recomputed_layers_on_stage = 4;  // blocks 2, 4, 6, 8 of the stage
  const MemoryBreakdown layer = memory_per_device(m, in);
  CHECK(layer.activations.value() == Approx(4 * kept + 4 * input));
  // Recomputing a block materialises its activations again for its backward, as under full recompute.
  CHECK(layer.other.value() == Approx(kRuntimeReserveBytes + kept));
  // Two micro-batches in flight hold twice the stored bytes.
  in.inflight_chunk_microbatches = 2;
  CHECK(memory_per_device(m, in).activations.value() == Approx(2 * (4 * kept + 4 * input)));
}

TEST_CASE("the layer policy recomputes floor(layers / k) blocks of a rank, MoE ones counted where they fall",
          "[layer-recompute]") {
  // 12 layers, MoE from layer 1 every second layer (1, 3, 5, 7, 9, 11), one stage: block i (1-based) is
  // recomputed when i % k == 0 (torchtitan _apply_layer_sac), i.e. layer i - 1.
  Scenario s = scenario(dgx_a100_cluster(1), gpt(12, 1024, 16, 2048), 1, 1, 1, 8);
  s.model.moe.num_experts = 8;
  s.model.moe.top_k = 2;
  s.model.moe.ffn_hidden = 1024;
  s.model.moe.first_dense_layers = 1;
  s.model.moe.layer_freq = 2;
  s.training.recompute = Recompute::selective;
  s.training.selective_policy = SelectivePolicy::layer;
  ScheduleSpec spec;
  for (int k = 1; k <= 13; ++k) {
    s.training.selective_layer_interval = k;
    const MemoryInputs in = memory_inputs(s, spec, 0);
    int moe = 0;
    for (int l = k - 1; l < 12; l += k) moe += s.model.moe.is_moe_layer(l) ? 1 : 0;
    CHECK(in.recompute_by_layer);
    CHECK(in.recomputed_layers_on_stage == 12 / k);
    CHECK(in.recomputed_moe_layers_on_stage == moe);
  }
  // k = 3: layers 2, 5, 8, 11, of which 5 and 11 are MoE layers.
  s.training.selective_layer_interval = 3;
  CHECK(memory_inputs(s, spec, 0).recomputed_moe_layers_on_stage == 2);
  // Other policies: off.
  s.training.selective_policy = SelectivePolicy::op;
  CHECK_FALSE(memory_inputs(s, spec, 0).recompute_by_layer);
  CHECK(memory_inputs(s, spec, 0).recomputed_layers_on_stage == 0);
}

TEST_CASE("the layer policy's count continues over a rank's interleaved chunks", "[layer-recompute]") {
  // 12 layers, pp 2, vp 2: stage 0 holds layers 0-2 and 6-8 (blocks 1-6 of the rank); k = 2 recomputes
  // blocks 2, 4, 6 = layers 1, 6, 8; stage 1 holds 3-5 and 9-11, the same positions: layers 4, 9, 11.
  Scenario s = scenario(dgx_a100_cluster(1), gpt(12, 1024, 16, 2048), 1, 2, 1, 8);
  s.model.moe.num_experts = 8;
  s.model.moe.top_k = 2;
  s.model.moe.ffn_hidden = 1024;
  s.model.moe.first_dense_layers = 1;
  s.model.moe.layer_freq = 2;  // MoE: 1, 3, 5, 7, 9, 11
  s.parallelism.vp = 2;
  s.parallelism.schedule = ScheduleKind::interleaved_1f1b;
  s.training.recompute = Recompute::selective;
  s.training.selective_policy = SelectivePolicy::layer;
  s.training.selective_layer_interval = 2;
  ScheduleSpec spec;
  spec.kind = ScheduleKind::interleaved_1f1b;
  spec.stages = 2;
  spec.microbatches = 4;
  spec.chunks = 2;
  const MemoryInputs first = memory_inputs(s, spec, 0);
  REQUIRE(first.layers_on_stage == 6);
  CHECK(first.recomputed_layers_on_stage == 3);
  CHECK(first.recomputed_moe_layers_on_stage == 1);  // layer 1
  const MemoryInputs second = memory_inputs(s, spec, 1);
  CHECK(second.recomputed_layers_on_stage == 3);
  CHECK(second.recomputed_moe_layers_on_stage == 2);  // layers 9 and 11
}

TEST_CASE("a run under the layer policy stores less than under the attention policy, more than full recompute",
          "[layer-recompute]") {
  Scenario s = scenario(dgx_a100_cluster(1), gpt(8, 1024, 16, 2048), 1, 1, 1, 8);
  s.training.recompute = Recompute::selective;
  s.training.selective_policy = SelectivePolicy::attention;
  const double attention = run_analytic(s).memory.activations.value();
  s.training.selective_policy = SelectivePolicy::layer;
  s.training.selective_layer_interval = 2;
  const double layer = run_analytic(s).memory.activations.value();
  s.training.recompute = Recompute::full;
  const double full = run_analytic(s).memory.activations.value();
  CHECK(layer < attention);
  CHECK(layer > full);
  // Per micro-batch: half the blocks (4 of 8) keep 2h per token instead of 34h + 4a.
  const double tokens = 2048, h = 1024, a = 16;
  CHECK(attention - layer == Approx(4 * tokens * (34 * h + 4 * a - 2 * h)));
}
