// ALiBi positions (Press et al. 2022): no position table, and without a fused attention kernel the
// Megatron-DeepSpeed score buffer is the broadcast bias, copied into the scores and read back by QK^T
// (models/transformer_cost.cpp).
#include "tests/catch.hpp"

#include <string_view>

#include "models/transformer_cost.hpp"
#include "tests/engine/fixtures.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

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
