// MXFP8 (fp8_scaling mxfp8): the cast traffic of Transformer Engine's MXFP8 quantiser and the separate
// scale-swizzle kernels every MXFP8 GEMM launches with Transformer Engine v2.7-v2.11
// (models/transformer_cost.hpp LayerShape::mxfp8_separate_swizzle, models/roofline.cpp).
#include "tests/catch.hpp"

#include "models/roofline.hpp"
#include "models/transformer_cost.hpp"
#include "sim/config/catalog_entries.hpp"
#include "sim/graph/op_cost.hpp"
#include "tests/engine/fixtures.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

LayerShape mxfp8_shape(bool separate, Precision p = Precision::fp8) {
  LayerShape s;
  s.micro_batch = 1;
  s.seq_len = 8192;
  s.tp = 1;
  s.precision = p;
  s.fp8_scaling = Fp8Scaling::mxfp8;
  s.mxfp8_separate_swizzle = separate;
  s.microbatches = 8;
  return s;
}

int extra_kernels(const LayerKernels& ks) {
  int n = 0;
  for (const Kernel& k : ks) n += k.extra_kernels;
  return n;
}

double extra_bytes(const LayerKernels& ks) {
  double b = 0;
  for (const Kernel& k : ks) b += k.extra_bytes;
  return b;
}

}  // namespace

TEST_CASE("MXFP8 cast: read BF16, write row- and column-wise FP8 copies and their 1x32 scales", "[models][fp8]") {
  // 2 + 1 + 1 + 2/32 bytes per element: one more byte per 16 elements than a delayed-scaling cast-transpose.
  CHECK(fp8_cast_bytes_per_element(Fp8Scaling::mxfp8) == Approx(4.0625));
  CHECK(fp8_cast_bytes_per_element(Fp8Scaling::mxfp8) > fp8_cast_bytes_per_element(Fp8Scaling::delayed));
  CHECK(fp8_cast_bytes_per_element(Fp8Scaling::mxfp8) < fp8_cast_bytes_per_element(Fp8Scaling::tensorwise));
}

TEST_CASE("MXFP8 separate swizzles: two kernels per FP8 GEMM, forward, dgrad and wgrad", "[models][fp8][mxfp8]") {
  const TransformerSpec m = llama3_8b_block();
  const LayerKernels fwd = layer_forward_kernels(m, mxfp8_shape(true));
  // Four linear GEMMs (qkv, proj, fc1, fc2), each swizzling its two operands' scales.
  CHECK(extra_kernels(fwd) == 8);
  CHECK(extra_kernels(layer_backward_kernels(m, mxfp8_shape(true), true, true)) == 16);
  CHECK(extra_kernels(layer_backward_kernels(m, mxfp8_shape(true), true, false)) == 8);
  CHECK(extra_kernels(layer_backward_kernels(m, mxfp8_shape(true), false, true)) == 8);
  // Fused into the quantisers (Transformer Engine >= 2.12), or not MXFP8 at all: none.
  CHECK(extra_kernels(layer_forward_kernels(m, mxfp8_shape(false))) == 0);
  CHECK(extra_kernels(layer_backward_kernels(m, mxfp8_shape(false), true, true)) == 0);
  CHECK(extra_kernels(layer_forward_kernels(m, mxfp8_shape(true, Precision::bf16))) == 0);
  LayerShape delayed = mxfp8_shape(true);
  delayed.fp8_scaling = Fp8Scaling::delayed;
  CHECK(extra_kernels(layer_forward_kernels(m, delayed)) == 0);

  // The scales they move: one E8M0 byte per 32 elements of each operand, read and written.
  double operands = 0;
  for (const Kernel& k : fwd) {
    if (k.cls == KernelClass::gemm && k.precision == Precision::fp8) operands += k.m * k.k + k.k * k.n;
  }
  CHECK(operands > 0);
  CHECK(extra_bytes(fwd) == Approx(operands * 2.0 / 32.0));

  // Their time: the device's per-kernel overhead each, plus the scale traffic at the HBM rate.
  const DeviceSpec dev = config::load_device(catalog(), "b200");
  const double separate = kernels_time(dev, fwd).total.value();
  const double fused = kernels_time(dev, layer_forward_kernels(m, mxfp8_shape(false))).total.value();
  const double expected = 8 * dev.efficiency.kernel_overhead.value() +
                          extra_bytes(fwd) / (dev.memory_bandwidth.value() * dev.efficiency.memory_efficiency);
  CHECK(separate - fused == Approx(expected).epsilon(1e-9));
}

TEST_CASE("MXFP8 separate swizzles slow a whole layer by 24 kernel overheads and more", "[models][fp8][mxfp8]") {
  ClusterSpec c;
  c.name = "test-dgx-b200";
  c.node = config::load_node(catalog(), "dgx-b200");
  c.nodes = 1;
  const auto layer = [&](bool separate) {
    Scenario s = scenario(c, llama3_8b_block(), 1, 1, 1, 64);
    s.training.precision = Precision::fp8;
    s.training.flash_attention = true;
    s.training.fp8_scaling = Fp8Scaling::mxfp8;
    s.training.mxfp8_separate_swizzle = separate;
    const ChunkCosts cc = OpCostModel(s).chunk_costs(ChunkRole{.layers = 1});
    return cc.forward.compute.value() + cc.backward.compute.value();
  };
  const double overhead = c.node.device.efficiency.kernel_overhead.value();
  const double extra = layer(true) - layer(false);
  CHECK(extra >= 24 * overhead);
  CHECK(extra < 24 * overhead * 1.5);  // the scale bytes are small next to the launches
}
