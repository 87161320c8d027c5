// ALiBi positions (Press et al. 2022): no position table, and without a fused attention kernel the
// Megatron-DeepSpeed score buffer is the broadcast bias, copied into the scores and read back by QK^T
// (models/transformer_cost.cpp).
#include "tests/catch.hpp"

#include <string_view>

#include "models/memory_model.hpp"
#include "models/roofline.hpp"
#include "models/transformer_cost.hpp"
#include "sim/config/catalog_entries.hpp"
#include "sim/graph/op_cost.hpp"
#include "tests/engine/fixtures.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

DeviceSpec device(const char* name) {
  return config::load_device(catalog(), name);
}

double bytes_of(const LayerKernels& ks) {
  double b = 0;
  for (const Kernel& k : ks) b += k.bytes.value();
  return b;
}

int count_named(const LayerKernels& ks, std::string_view name) {
  int n = 0;
  for (const Kernel& k : ks) n += k.name == name ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("ALiBi without flash attention writes and reads the score matrix once more, in the forward only",
          "[models]") {
  TransformerSpec learned = gpt(4, 4096, 32, 2048);
  TransformerSpec alibi = learned;
  alibi.position = PositionKind::alibi;
  LayerShape s;
  s.micro_batch = 2;
  s.tp = 4;
  s.flash_attention = false;
  const LayerKernels fl = layer_forward_kernels(learned, s);
  const LayerKernels fa = layer_forward_kernels(alibi, s);
  // Local score matrix: b · heads/tp · s · s elements of 2 bytes (BF16).
  const double scores = 2.0 * (32 / 4) * 2048.0 * 2048.0;
  CHECK(count_named(fa, "alibi_bias") == 1);
  CHECK(count_named(fl, "alibi_bias") == 0);
  CHECK(bytes_of(fa) - bytes_of(fl) == Approx(2.0 * 2.0 * scores));
  // The bias is a constant: no gradient, so the backward passes are the same.
  CHECK(bytes_of(layer_backward_kernels(alibi, s, true, true)) ==
        Approx(bytes_of(layer_backward_kernels(learned, s, true, true))));
  // Recomputed with the core attention (selective recomputation re-runs it).
  for (const Kernel& k : fa) {
    if (k.name == std::string_view("alibi_bias")) CHECK(k.attention_core);
  }
}

TEST_CASE("ALiBi inside a fused attention kernel costs what rotary positions' attention costs", "[models]") {
  TransformerSpec rotary = gpt(4, 4096, 32, 4096);
  rotary.position = PositionKind::rotary;
  TransformerSpec alibi = rotary;
  alibi.position = PositionKind::alibi;
  LayerShape s;
  s.flash_attention = true;
  CHECK(count_named(layer_forward_kernels(alibi, s), "alibi_bias") == 0);
  CHECK(count_named(layer_forward_kernels(alibi, s), "flash_attention") == 1);
  const DeviceSpec h100 = device("h100-sxm5-80gb");
  CHECK(kernels_time(h100, layer_forward_kernels(alibi, s)).total.value() ==
        kernels_time(h100, layer_forward_kernels(rotary, s)).total.value());
  CHECK(kernels_time(h100, layer_backward_kernels(alibi, s, true, true)).total.value() ==
        kernels_time(h100, layer_backward_kernels(rotary, s, true, true)).total.value());
}

// The backward's context-parallel window is 2.5x the forward attention core that has a backward: the
// forward-only bias copy is not in it, so unfused ALiBi with cp 2 exposes as much ring traffic in the
// backward as learned positions do (the forward window, which includes the copy, hides more).
TEST_CASE("the ALiBi bias copy does not widen the backward's context-parallel window", "[models]") {
  Scenario learned = scenario(dgx_a100_cluster(2), gpt(4, 8192, 64, 512), 8, 1, 1, 8);
  learned.parallelism.cp = 2;
  learned.parallelism.dp = 1;
  learned.training.flash_attention = false;
  Scenario alibi = learned;
  alibi.model.position = PositionKind::alibi;
  const ChunkCosts a = OpCostModel(alibi).chunk_costs(ChunkRole{4, false, false});
  const ChunkCosts l = OpCostModel(learned).chunk_costs(ChunkRole{4, false, false});
  INFO("fwd cp " << l.forward.cp_comm.value() << " bwd cp " << l.backward.cp_comm.value() << " alibi bwd "
                 << a.backward.cp_comm.value());
  REQUIRE(l.backward.cp_comm.value() > 0.0);
  CHECK(a.forward.compute > l.forward.compute);
  CHECK(a.backward.cp_comm.value() == Approx(l.backward.cp_comm.value()));
}

TEST_CASE("ALiBi has no position table: the embedding holds the vocabulary only", "[models]") {
  TransformerSpec learned = gpt(4, 4096, 32, 2048);
  TransformerSpec alibi = learned;
  alibi.position = PositionKind::alibi;
  const double table = 2048.0 * 4096.0;
  CHECK(parameter_count(learned).embedding - parameter_count(alibi).embedding == Approx(table));
  LayerShape s;
  CHECK(bytes_of(embedding_forward_kernels(alibi, s)) < bytes_of(embedding_forward_kernels(learned, s)));
}

TEST_CASE("a learned position table is whole on every TP rank, ALiBi and rotary hold none", "[models][memory]") {
  TransformerSpec learned = gpt(4, 4096, 32, 2048);
  const ParameterCount pc = parameter_count(learned);
  CHECK(pc.position_table == Approx(2048.0 * 4096));
  CHECK(pc.embedding == Approx(static_cast<double>(learned.vocab) * 4096 + 2048.0 * 4096));
  MemoryInputs in;
  in.shape.tp = 8;
  in.layers_on_stage = 4;
  in.first_stage = true;
  in.last_stage = false;
  in.pp = 2;
  // Megatron shards only the word table over TP (VocabParallelEmbedding); the position embedding is a
  // plain torch.nn.Embedding, so each of the 8 ranks holds all of it.
  const double expected = (pc.per_layer * 4 + static_cast<double>(learned.vocab) * 4096) / 8 + 2048.0 * 4096;
  CHECK(stage_parameters(learned, in) == Approx(expected));
  in.first_stage = false;
  CHECK(stage_parameters(learned, in) == Approx(pc.per_layer * 4 / 8));
  TransformerSpec alibi = learned;
  alibi.position = PositionKind::alibi;
  CHECK(parameter_count(alibi).position_table == 0.0);
  in.first_stage = true;
  CHECK(stage_parameters(alibi, in) ==
        Approx((parameter_count(alibi).per_layer * 4 + static_cast<double>(alibi.vocab) * 4096) / 8));
}
