// What FP8 linear layers keep for the backward (models/memory_model.cpp layer_activation_bytes): Transformer
// Engine keeps the FP8 cast of each linear input (1 byte per element plus the recipe's scales) and frees the
// BF16 tensor, except the attention output, which the attention backward keeps in BF16 too; torchao's
// Float8Linear from v0.9 keeps the BF16 input (training.fp8_keep_bf16_inputs).
#include "tests/catch.hpp"

#include "models/memory_model.hpp"
#include "sim/config/catalog_entries.hpp"
#include "tests/engine/fixtures.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

LayerShape llama_shape(Precision p) {
  LayerShape s;
  s.micro_batch = 1;
  s.seq_len = 8192;
  s.precision = p;
  return s;
}

}  // namespace

TEST_CASE("Transformer Engine's FP8 layers keep 1-byte copies of their linear inputs, torchao's BF16 ones") {
  const TransformerSpec m = config::load_model(catalog(), "llama3-70b");
  const double bf16 = layer_activation_bytes(m, llama_shape(Precision::bf16), Recompute::none).value();
  LayerShape s = llama_shape(Precision::fp8);
  const double te = layer_activation_bytes(m, s, Recompute::none).value();
  s.fp8_keep_bf16_inputs = true;
  CHECK(layer_activation_bytes(m, s, Recompute::none).value() == Approx(bf16));
  // Per token, h = 8192, f = 28672: the two norm outputs (QKV and FC1 inputs) and the FC2 input go from
  // 2 bytes to 1; the attention output (8192 wide) gains a 1-byte copy for the output projection.
  const double h = 8192, f = 28672, o = 8192;
  CHECK(bf16 - te == Approx(8192 * (2 * h + f - o)));
  CHECK(te < bf16);

  // MXFP8 adds one E8M0 scale byte per 32 elements of each FP8 copy; blockwise one FP32 per 128.
  s.fp8_keep_bf16_inputs = false;
  s.fp8_scaling = Fp8Scaling::mxfp8;
  const double mx = layer_activation_bytes(m, s, Recompute::none).value();
  CHECK(mx - te == Approx(8192 * (2 * h + f + o) / 32.0));
  s.fp8_scaling = Fp8Scaling::blockwise;
  CHECK(layer_activation_bytes(m, s, Recompute::none).value() - te == Approx(8192 * (2 * h + f + o) * 4.0 / 128.0));
}

TEST_CASE("MoE experts under Transformer Engine FP8 keep the expert input and the SwiGLU output in FP8") {
  const TransformerSpec m = config::load_model(catalog(), "qwen3-30b-a3b");
  LayerShape s = llama_shape(Precision::fp8);
  s.seq_len = 4096;
  s.ep = 8;
  s.fp8_keep_bf16_inputs = true;
  const double bf16 = layer_activation_bytes(m, s, Recompute::none, LayerKind::moe).value();
  s.fp8_keep_bf16_inputs = false;
  const double te = layer_activation_bytes(m, s, Recompute::none, LayerKind::moe).value();
  // Dense part as above (2h norm outputs, minus the attention output's extra copy: 32 heads x 128), then per
  // routed copy (top 8): the expert input (h) and the SwiGLU output (768) at 1 byte instead of 2; the SwiGLU
  // input (2 x 768) stays BF16.
  const double h = 2048, f = 768, o = 32 * 128;
  CHECK(bf16 - te == Approx(4096 * (2 * h - o + 8 * (h + f))));
}
