// What FP8 linear layers keep for the backward (models/memory_model.cpp layer_activation_bytes,
// training.fp8_saved_inputs): Transformer Engine keeps the FP8 cast of each linear input (1 byte per element
// plus the recipe's scales) and frees the BF16 tensor unless something else holds it; Megatron-Core from 0.15
// lets the attention output projection keep its BF16 input under recipes other than delayed; torchao's
// Float8Linear from v0.9 keeps BF16 inputs.
#include "tests/catch.hpp"

#include "models/memory_model.hpp"
#include "sim/config/catalog_entries.hpp"
#include "tests/engine/fixtures.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

LayerShape shape(Precision p, int seq = 8192) {
  LayerShape s;
  s.micro_batch = 1;
  s.seq_len = seq;
  s.precision = p;
  return s;
}

double bytes(const TransformerSpec& m, const LayerShape& s, Recompute r = Recompute::none,
             LayerKind kind = LayerKind::dense) {
  return layer_activation_bytes(m, s, r, kind).value();
}

// A MoE layer's stored bytes under the BF16 layout minus under Transformer Engine's FP8 copies.
double moe_fp8_saving(const char* model, int ep) {
  const TransformerSpec m = config::load_model(catalog(), model);
  LayerShape s = shape(Precision::fp8, 4096);
  s.ep = ep;
  s.fp8_saved_inputs = Fp8SavedInputs::bf16;
  const double bf16 = bytes(m, s, Recompute::none, LayerKind::moe);
  s.fp8_saved_inputs = Fp8SavedInputs::fp8;
  return bf16 - bytes(m, s, Recompute::none, LayerKind::moe);
}

}  // namespace

TEST_CASE("Transformer Engine's FP8 layers keep 1-byte copies of their linear inputs, torchao's BF16 ones") {
  const TransformerSpec m = config::load_model(catalog(), "llama3-70b");
  const double bf16 = bytes(m, shape(Precision::bf16));
  LayerShape s = shape(Precision::fp8);
  s.fp8_saved_inputs = Fp8SavedInputs::bf16;
  CHECK(bytes(m, s) == Approx(bf16));
  s.fp8_saved_inputs = Fp8SavedInputs::fp8;
  const double te = bytes(m, s);
  // Per token, h = 8192, f = 28672: the two norm outputs (QKV and FC1 inputs) and the FC2 input go from
  // 2 bytes to 1; the attention output (8192 wide), kept in BF16 by the fused attention, gains a 1-byte copy
  // for the output projection.
  const double h = 8192, f = 28672, o = 8192;
  CHECK(bf16 - te == Approx(8192 * (2 * h + f - o)));

  // MXFP8 adds one E8M0 scale byte per 32 elements of each FP8 copy; blockwise one FP32 per 128.
  s.fp8_scaling = Fp8Scaling::mxfp8;
  const double mx = bytes(m, s);
  CHECK(mx - te == Approx(8192 * (2 * h + f + o) / 32.0));
  s.fp8_scaling = Fp8Scaling::blockwise;
  CHECK(bytes(m, s) - te == Approx(8192 * (2 * h + f + o) * 4.0 / 128.0));
}

TEST_CASE("Megatron-Core's output projection keeps the BF16 attention output except under delayed scaling") {
  const TransformerSpec m = config::load_model(catalog(), "llama3-70b");
  LayerShape s = shape(Precision::fp8);
  s.fp8_scaling = Fp8Scaling::tensorwise;
  const double te = bytes(m, s);
  s.fp8_saved_inputs = Fp8SavedInputs::fp8_bf16_proj;
  const double mcore = bytes(m, s);
  CHECK(te - mcore == Approx(8192 * 8192.0));  // the output projection's FP8 copy of 8192 elements per token
  s.fp8_scaling = Fp8Scaling::delayed;          // set_save_original_input only for recipes other than delayed
  s.fp8_saved_inputs = Fp8SavedInputs::fp8;
  const double delayed_te = bytes(m, s);
  s.fp8_saved_inputs = Fp8SavedInputs::fp8_bf16_proj;
  CHECK(bytes(m, s) == Approx(delayed_te));
}

TEST_CASE("with the attention core recomputed as a checkpoint, its output survives only as the projection's input") {
  const TransformerSpec m = config::load_model(catalog(), "llama3-70b");
  LayerShape s = shape(Precision::fp8);
  const double none = bytes(m, s, Recompute::none);
  // The default selective policy (attention) re-runs nothing of a fused attention: the same bytes.
  CHECK(bytes(m, s, Recompute::selective) == Approx(none));
  s.core_attn_recomputed = true;  // selective_recompute core-attn: Megatron-Core's core_attn checkpoint
  CHECK(none - bytes(m, s, Recompute::selective) == Approx(8192 * 2.0 * 8192));  // the kernel's BF16 copy
  // In BF16 the kernel and the projection share one tensor: the checkpoint keeps it as the projection's input.
  LayerShape b = shape(Precision::bf16);
  b.core_attn_recomputed = true;
  CHECK(bytes(m, b, Recompute::none) == Approx(bytes(m, b, Recompute::selective)));
  // Megatron-Core keeps the projection's BF16 input whatever the recompute (attention.py): under the core_attn
  // checkpoint that is 2 bytes where the FP8 copy took 1.
  s.fp8_scaling = Fp8Scaling::tensorwise;
  const double fp8_copy = bytes(m, s, Recompute::selective);
  s.fp8_saved_inputs = Fp8SavedInputs::fp8_bf16_proj;
  CHECK(bytes(m, s, Recompute::selective) == Approx(fp8_copy + 8192 * 8192.0));
}

TEST_CASE("MoE layers under Transformer Engine FP8: the router keeps the BF16 norm output, experts FP8 copies") {
  // Per token: the attention norm output (h) at 1 byte, the attention output (32 heads x 128) gains a 1-byte
  // copy, the MLP norm output stays BF16 (the router's input); per routed copy (top 8) the expert input (h)
  // and the SwiGLU output (768) at 1 byte; the SwiGLU input (2 x 768) stays BF16.
  const double h = 2048, f = 768, o = 32 * 128;
  CHECK(moe_fp8_saving("qwen3-30b-a3b", 8) == Approx(4096 * (h - o + 8 * (h + f))));
}

TEST_CASE("MLA under Transformer Engine FP8: two down-projections, two FP8 copies of the input norm") {
  // Per token: the input norm's output (h = 7168) as two 1-byte copies (no saving), the latents' norm
  // outputs (1536 + 512) at 1 byte, the attention output (128 x 128) gains a copy, the MLP norm output stays
  // BF16 and the shared expert's FC1 adds its 1-byte copy; per routed copy (top 8) the expert input and the
  // SwiGLU output (2048), and the shared expert's SwiGLU output (2048), at 1 byte.
  const double h = 7168, f = 2048, o = 128 * 128;
  CHECK(moe_fp8_saving("deepseek-v3-671b", 64) == Approx(4096 * ((1536 + 512) - o - h + 8 * (h + f) + f)));
}

TEST_CASE("JAX's dots policy keeps the layer input and the weight matmuls' outputs the backward reads",
          "[models][memory][dots]") {
  // MaxText's 2023 64B decoder shape (hidden 10240, 32 x 256 MHA heads, ReLU MLP 32768, parallel block) at
  // TP 4 with the activations sharded over the tensor axis: per token the layer input, Q, K, V and the MLP
  // input GEMM's output, in BF16. The output projection's and the MLP's outputs only feed adds: JAX does not
  // keep them (remat_partial_eval saves residuals only).
  TransformerSpec m = config::load_model(catalog(), "gpt3-175b");
  m.hidden = 10240;
  m.heads = 32;
  m.kv_heads = 32;
  m.head_dim_override = 256;
  m.ffn_hidden = 32768;
  m.mlp = MlpKind::gelu;  // a two-matrix MLP (ReLU is costed as one)
  m.parallel_block = true;
  LayerShape s = shape(Precision::bf16, 2048);
  s.micro_batch = 16;
  s.tp = 4;
  s.sequence_parallel = true;
  s.flash_attention = true;
  s.saves_dots_only = true;
  const double tokens = 16.0 * 2048.0;
  const double expected = tokens * 2.0 * (10240.0 / 4.0 + (3.0 * 32.0 * 256.0 + 32768.0) / 4.0);
  CHECK(bytes(m, s, Recompute::selective) == Approx(expected));
  // A sequential block also keeps the output projection's result: the second norm's backward reads the
  // mid-layer residual, rebuilt from it.
  TransformerSpec seq = m;
  seq.parallel_block = false;
  CHECK(bytes(seq, s, Recompute::selective) == Approx(expected + tokens * 2.0 * 10240.0 / 4.0));
  // About 0.45 of this model's attention-core policy on this shape (0.39 of Korthikanti's 34·s·b·h/t), above
  // full recomputation (the layer input only).
  LayerShape meg = s;
  meg.saves_dots_only = false;
  CHECK(bytes(m, s, Recompute::selective) < 0.5 * bytes(m, meg, Recompute::selective));
  CHECK(bytes(m, s, Recompute::selective) > bytes(m, s, Recompute::full));
  // Only under selective recomputation: without it the flag changes nothing.
  CHECK(bytes(m, s, Recompute::none) == Approx(bytes(m, meg, Recompute::none)));
}
