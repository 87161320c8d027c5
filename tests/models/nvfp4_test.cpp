// NVFP4 training (training.precision "fp4"): linear GEMMs at the device's FP4 peak, their inputs quantised
// by Transformer Engine's NVFP4 recipe (models/transformer_cost.hpp kNvfp4*), attention and the LM head in
// BF16, and the quantised weight copies in memory (docs/model.md, "NVFP4").
#include "tests/catch.hpp"

#include "models/memory_model.hpp"
#include "models/roofline.hpp"
#include "models/transformer_cost.hpp"
#include "sim/config/catalog_entries.hpp"
#include "sim/graph/op_cost.hpp"
#include "tests/engine/fixtures.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

LayerShape shape_at(Precision p) {
  LayerShape s;
  s.micro_batch = 1;
  s.seq_len = 8192;
  s.tp = 1;
  s.precision = p;
  s.flash_attention = true;
  s.microbatches = 8;
  return s;
}

}  // namespace

TEST_CASE("NVFP4 quantisation bytes: amax pass, row-wise cast, column-wise Hadamard cast", "[models][fp4]") {
  // Activations and gradients: 2 B (amax) + 2 x (2 B read + 0.5 B values + 1/16 B E4M3 scales).
  CHECK(kNvfp4InputCastBytes == Approx(7.125));
  // Weights (16x16 blocks, no transform): 2 B amax + 2 B read + two copies of 0.5 + 1/256 B.
  CHECK(kNvfp4WeightCastBytes == Approx(5.0078125));
  // More traffic per element than any FP8 recipe but the row-wise one (two FP8 casts per axis).
  CHECK(kNvfp4InputCastBytes > fp8_cast_bytes_per_element(Fp8Scaling::tensorwise));
  CHECK(kNvfp4InputCastBytes < fp8_cast_bytes_per_element(Fp8Scaling::rowwise));
  CHECK(bytes_per_element(Precision::fp4) == 0.5);
}

TEST_CASE("NVFP4 GEMM on B200: faster than FP8, but by less than 2x once its casts count", "[models][fp4]") {
  const DeviceSpec dev = config::load_device(catalog(), "b200");
  REQUIRE(dev.peak_for(Precision::fp4).value() == Approx(2.0 * dev.peak_for(Precision::fp8).value()));
  const double m = 8192, n = 8192, k = 8192;
  const auto time_of = [&](Precision p) {
    LayerKernels ks;
    ks.add(linear_input_cast_kernel(p, m, n, k, 1));
    ks.add(gemm_kernel("g", m, n, k, p, 2.0));
    return kernels_time(dev, ks).total.value();
  };
  const double fp8 = time_of(Precision::fp8);
  const double fp4 = time_of(Precision::fp4);
  // The GEMM alone runs at twice the rate (same efficiency form, twice the peak).
  const double g8 = kernel_time(dev, gemm_kernel("g", m, n, k, Precision::fp8, 2.0)).total.value();
  const double g4 = kernel_time(dev, gemm_kernel("g", m, n, k, Precision::fp4, 2.0)).total.value();
  CHECK(g8 / g4 > 1.9);
  CHECK(fp4 < fp8);
  CHECK(fp8 / fp4 < 2.0);
  CHECK(fp8 / fp4 > 1.2);
  // The NVFP4 cast is three kernels (amax, row-wise, column-wise).
  CHECK(linear_input_cast_kernel(Precision::fp4, m, n, k, 1).extra_kernels == 2);
}

TEST_CASE("NVFP4 layer: linear GEMMs at fp4, attention and activations in BF16, casts forward and backward",
          "[models][fp4]") {
  const TransformerSpec m = llama3_8b_block();
  const LayerShape s = shape_at(Precision::fp4);
  const LayerKernels fwd = layer_forward_kernels(m, s);
  int fp4_gemms = 0, casts = 0;
  for (const Kernel& k : fwd) {
    if (k.cls == KernelClass::gemm) {
      CHECK(k.precision == Precision::fp4);
      ++fp4_gemms;
    }
    if (k.cls == KernelClass::attention) CHECK(k.precision == Precision::bf16);
    if (k.fp8_cast) {
      ++casts;
      CHECK(k.cast_bytes == Approx(kNvfp4InputCastBytes));
    }
  }
  CHECK(fp4_gemms == 4);  // qkv, proj, fc1, fc2
  CHECK(casts == 4);
  // The backward quantises each output gradient once more (dgrad and wgrad read it).
  int bwd_casts = 0;
  for (const Kernel& k : layer_backward_kernels(m, s, true, true)) bwd_casts += k.fp8_cast ? 1 : 0;
  CHECK(bwd_casts == 4);
  // Element-wise kernels move BF16 bytes as in FP8 training: the same norm traffic.
  const auto norm_bytes = [&](Precision p) {
    for (const Kernel& k : layer_forward_kernels(m, shape_at(p)))
      if (k.name == "layernorm") return k.bytes.value();
    return 0.0;
  };
  CHECK(norm_bytes(Precision::fp4) == norm_bytes(Precision::fp8));
}

TEST_CASE("NVFP4 on a whole B200 layer: faster than FP8, slower than half of it", "[models][fp4]") {
  ClusterSpec c;
  c.name = "test-dgx-b200";
  c.node = config::load_node(catalog(), "dgx-b200");
  c.nodes = 1;
  const auto layer = [&](Precision p) {
    Scenario s = scenario(c, llama3_8b_block(), 1, 1, 1, 64);
    s.training.precision = p;
    s.training.flash_attention = true;
    const ChunkCosts cc = OpCostModel(s).chunk_costs(ChunkRole{.layers = 1});
    return cc.forward.compute.value() + cc.backward.compute.value();
  };
  const double bf16 = layer(Precision::bf16), fp8 = layer(Precision::fp8), fp4 = layer(Precision::fp4);
  CHECK(fp4 < fp8);
  CHECK(fp8 < bf16);
  CHECK(fp4 > 0.5 * fp8);
}

TEST_CASE("NVFP4 memory: BF16 weights plus the row- and column-wise FP4 copies of the quantised layers",
          "[models][fp4]") {
  const TransformerSpec m = llama3_8b_block();
  const double per_layer = parameter_count(m).per_layer;
  const double copies = 2.0 * (0.5 + 1.0 / 256.0);
  MemoryInputs in;
  in.shape = shape_at(Precision::fp8);
  in.layers_on_stage = m.layers;
  in.chunks = 1;
  // A middle stage (no embedding or head): 2 B per parameter (BF16, as FP8 training keeps) + the copies.
  in.first_stage = in.last_stage = false;
  const double fp8 = memory_per_device(m, in).weights.value();
  in.shape = shape_at(Precision::fp4);
  const double fp4 = memory_per_device(m, in).weights.value();
  CHECK(fp4 / fp8 == Approx((2.0 + copies) / 2.0));
  // The embedding and LM head stay BF16: a stage holding them gets no copies of them.
  in.first_stage = in.last_stage = true;
  const double fp4_ends = memory_per_device(m, in).weights.value();
  in.shape = shape_at(Precision::fp8);
  const double fp8_ends = memory_per_device(m, in).weights.value();
  CHECK(fp4_ends - fp8_ends == Approx(copies * per_layer * m.layers));
  // A layer kept in BF16 (bf16_layers_at_start/_end) holds no quantised copy either.
  in.shape = shape_at(Precision::fp4);
  in.bf16_layers_on_stage = 1;
  const double fp4_one_bf16 = memory_per_device(m, in).weights.value();
  CHECK(fp4_ends - fp4_one_bf16 == Approx(copies * per_layer));
}

TEST_CASE("Layers the recipe keeps in BF16 cost BF16 (first_last_layers_bf16)", "[models][fp4]") {
  ClusterSpec c;
  c.name = "test-dgx-b200";
  c.node = config::load_node(catalog(), "dgx-b200");
  c.nodes = 1;
  const auto chunk = [&](Precision p, int start, int end, int first, int count) {
    Scenario s = scenario(c, llama3_8b_block(), 1, 1, 1, 64);  // 4 layers
    s.training.precision = p;
    s.training.flash_attention = true;
    s.training.bf16_layers_start = start;
    s.training.bf16_layers_end = end;
    ChunkRole role{.layers = count};
    set_bf16_layers(role, s, first, count);
    const ChunkCosts cc = OpCostModel(s).chunk_costs(role);
    return std::pair{role.bf16_layers, cc.forward.compute.value() + cc.backward.compute.value()};
  };
  const double fp4_layer = chunk(Precision::fp4, 0, 0, 0, 1).second;
  const double bf16_layer = chunk(Precision::bf16, 0, 0, 0, 1).second;
  REQUIRE(fp4_layer < bf16_layer);
  // Megatron-Core's rule: layer i is BF16 when i < start or i >= layers - end.
  CHECK(chunk(Precision::fp4, 1, 1, 0, 4).first == 2);
  CHECK(chunk(Precision::fp4, 1, 1, 0, 2).first == 1);
  CHECK(chunk(Precision::fp4, 1, 1, 1, 2).first == 0);
  CHECK(chunk(Precision::fp4, 0, 2, 2, 2).first == 2);
  CHECK(chunk(Precision::fp4, 3, 3, 0, 4).first == 4);  // overlapping ranges count each layer once
  // A four-layer chunk with its first and last layers in BF16: two FP4 layers and two BF16 layers (the
  // chunk's fixed per-op cost cancels in the differences).
  const double all_fp4 = chunk(Precision::fp4, 0, 0, 0, 4).second;
  CHECK(chunk(Precision::fp4, 1, 1, 0, 4).second - all_fp4 == Approx(2 * (bf16_layer - fp4_layer)).epsilon(1e-9));
  // Only a quantised precision has layers to keep out: in BF16 the setting changes nothing.
  CHECK(chunk(Precision::bf16, 1, 1, 0, 4).first == 0);
  // FP8 the same way.
  const double fp8_layer = chunk(Precision::fp8, 0, 0, 0, 1).second;
  CHECK(chunk(Precision::fp8, 0, 1, 0, 4).second - chunk(Precision::fp8, 0, 0, 0, 4).second ==
        Approx(bf16_layer - fp8_layer).epsilon(1e-9));
}
