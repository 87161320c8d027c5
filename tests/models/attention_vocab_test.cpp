// Two framework-dependent terms: which fused attention kernel runs (FlashAttention-2, FlashAttention v1,
// the Triton FlashAttention; Dao 2023 §4.1) and vocabulary parallelism (Yeung et al., MLSys 2025), which
// spreads the embedding and the output layer over all pipeline ranks.
#include "tests/catch.hpp"

#include "models/roofline.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/graph/op_cost.hpp"
#include "tests/engine/fixtures.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

const Kernel& flash_kernel(const LayerKernels& ks) {
  for (const Kernel& k : ks) {
    if (k.cls == KernelClass::attention) return k;
  }
  FAIL("no flash-attention kernel");
  return *ks.begin();
}

// Compute time of the layer's flash-attention kernel (forward or backward) on the catalog A100.
double attention_seconds(AttentionKernel kernel, bool backward) {
  Scenario s = scenario(dgx_a100_cluster(1), gpt(4, 4096, 32, 16384), 1, 1, 1, 8);
  s.training.attention_kernel = kernel;
  const OpCostModel model(s);
  const LayerKernels ks = backward ? layer_backward_kernels(s.model, model.shape(), true, true)
                                   : layer_forward_kernels(s.model, model.shape());
  const KernelTime t = kernel_time(s.cluster.node.device, flash_kernel(ks));
  return t.compute_bound.value();
}

}  // namespace

TEST_CASE("attention kernel rates are the ratios Dao 2023 §4.1 measured against FlashAttention-2", "[models]") {
  // "around 2x faster than FlashAttention" (v1): forward and backward.
  CHECK(attention_kernel_rate(AttentionKernel::flash1).forward == Approx(0.5));
  CHECK(attention_kernel_rate(AttentionKernel::flash1).backward == Approx(0.5));
  // "around 1.3-1.5x faster than FlashAttention in Triton in the forward pass and around 2x faster in the
  // backward pass".
  const AttentionKernelRate triton = attention_kernel_rate(AttentionKernel::triton_flash);
  CHECK(1.0 / triton.forward >= 1.3);
  CHECK(1.0 / triton.forward <= 1.5);
  CHECK(triton.backward == Approx(0.5));
  CHECK(attention_kernel_rate(AttentionKernel::flash2).forward == 1.0);
}

TEST_CASE("a Triton FlashAttention layer spends 1.3-1.5x the forward and 2x the backward attention time", "[models]") {
  const double fwd2 = attention_seconds(AttentionKernel::flash2, false);
  const double bwd2 = attention_seconds(AttentionKernel::flash2, true);
  REQUIRE(fwd2 > 0);
  REQUIRE(bwd2 > 0);
  const double fwd_ratio = attention_seconds(AttentionKernel::triton_flash, false) / fwd2;
  const double bwd_ratio = attention_seconds(AttentionKernel::triton_flash, true) / bwd2;
  CHECK(fwd_ratio >= 1.3);
  CHECK(fwd_ratio <= 1.5);
  CHECK(bwd_ratio == Approx(2.0).epsilon(1e-9));
  CHECK(attention_seconds(AttentionKernel::flash1, false) / fwd2 == Approx(2.0).epsilon(1e-9));
  // Only the attention core changes: a GEMM of the same layer costs the same.
  Scenario s = scenario(dgx_a100_cluster(1), gpt(4, 4096, 32, 16384), 1, 1, 1, 8);
  const LayerKernels a = layer_forward_kernels(s.model, OpCostModel(s).shape());
  s.training.attention_kernel = AttentionKernel::triton_flash;
  const LayerKernels b = layer_forward_kernels(s.model, OpCostModel(s).shape());
  CHECK(kernel_time(s.cluster.node.device, *a.begin()).total.value() ==
        kernel_time(s.cluster.node.device, *b.begin()).total.value());
}

namespace {

// Forward and backward compute time of the flash kernel on the catalog A100 with its
// attention_flash2_rate set to `flash2_rate` (0.62: the isolated-kernel ratio on H100, used as a test value).
std::pair<double, double> attention_pair(AttentionKernel kernel, double flash2_rate) {
  Scenario s = scenario(dgx_a100_cluster(1), gpt(4, 4096, 32, 16384), 1, 1, 1, 8);
  s.cluster.node.device.efficiency.attention_flash2_rate = flash2_rate;
  s.training.attention_kernel = kernel;
  const OpCostModel model(s);
  const KernelTime f = kernel_time(s.cluster.node.device, flash_kernel(layer_forward_kernels(s.model, model.shape())));
  const KernelTime b = kernel_time(s.cluster.node.device,
                                   flash_kernel(layer_backward_kernels(s.model, model.shape(), true, true)));
  return {f.compute_bound.value(), b.compute_bound.value()};
}

}  // namespace

TEST_CASE("FlashAttention-derived kernels run at the device's attention_flash2_rate, native and cudnn at its rate",
          "[models]") {
  // The default kernel is the device's native one (the kernel its `attention` efficiency describes).
  CHECK(Scenario{}.training.attention_kernel == AttentionKernel::native);
  const auto native = attention_pair(AttentionKernel::native, 0.62);
  REQUIRE(native.first > 0);
  REQUIRE(native.second > 0);
  // cuDNN is the native kernel of the H100 entries: same time whatever the FlashAttention-2 ratio.
  const auto cudnn = attention_pair(AttentionKernel::cudnn, 0.62);
  CHECK(cudnn.first == Approx(native.first).epsilon(1e-12));
  CHECK(cudnn.second == Approx(native.second).epsilon(1e-12));
  // FlashAttention-2 at 0.62 of it (Shah et al. 2024, FlashAttention-3 Figs. 5-6, H100, head dim 128):
  // forward and backward 1/0.62 = 1.61x the time.
  const auto fa2 = attention_pair(AttentionKernel::flash2, 0.62);
  CHECK(fa2.first / native.first == Approx(1.0 / 0.62).epsilon(1e-9));
  CHECK(fa2.second / native.second == Approx(1.0 / 0.62).epsilon(1e-9));
  // The Dao 2023 ratios stack on it: FlashAttention v1 at 0.5 of FlashAttention-2 on the same device.
  const auto fa1 = attention_pair(AttentionKernel::flash1, 0.62);
  CHECK(fa1.first / fa2.first == Approx(2.0).epsilon(1e-9));
  // Where the native kernel is FlashAttention-2 (rate 1, the A100 entry), flash-2 equals native.
  const auto a100_fa2 = attention_pair(AttentionKernel::flash2, 1.0);
  CHECK(a100_fa2.first == Approx(attention_pair(AttentionKernel::native, 1.0).first).epsilon(1e-12));
  CHECK(flash2_family(AttentionKernel::triton_flash));
  CHECK_FALSE(flash2_family(AttentionKernel::cudnn));
  CHECK_FALSE(flash2_family(AttentionKernel::native));
}

namespace {

// 32 layers of a 4B GPT with a 256K vocabulary over 8 pipeline stages (Yeung et al. 2025, Table 5 setup).
Scenario vocab_pipeline(VocabParallel v) {
  Scenario s = scenario(dgx_a100_cluster(1), gpt(32, 3072, 24, 2048, 256008), 1, 8, 1, 128);
  s.cluster.node.device.efficiency = a100_calibration();
  s.parallelism.vocab_parallel = v;
  s.model.tied_embeddings = false;
  return s;
}

}  // namespace

TEST_CASE("vocabulary parallelism moves the output layer's work off the last stage", "[models]") {
  const Scenario none = vocab_pipeline(VocabParallel::none);
  const Scenario vocab = vocab_pipeline(VocabParallel::vocab_1);
  const OpCostModel a(none), b(vocab);
  const int layers = 32 / 8;
  // Without it the last stage carries the whole head; with it every stage carries 1/8 of head and embedding.
  const ChunkCosts last = a.chunk_costs({.layers = layers, .has_head = true});
  const ChunkCosts first = a.chunk_costs({.layers = layers, .has_embedding = true});
  const ChunkCosts plain = a.chunk_costs({.layers = layers});
  const ChunkCosts spread = b.chunk_costs({.layers = layers, .vocab_share = 1.0 / 8});
  const double total_none = first.forward.model_flops.value() + last.forward.model_flops.value() +
                            6 * plain.forward.model_flops.value();
  CHECK(8 * spread.forward.model_flops.value() == Approx(total_none).epsilon(1e-12));
  CHECK(spread.forward.duration().value() < last.forward.duration().value());
  CHECK(spread.forward.duration().value() > plain.forward.duration().value());

  // The step: the 256K head (about 6 layers of work) no longer stalls the pipeline.
  const double t_none = run_analytic(none).step_time.value();
  const double t_vocab = run_analytic(vocab).step_time.value();
  CHECK(t_vocab < 0.8 * t_none);
  // The interlaced pipeline runs the activation broadcasts and reductions synchronously: slower.
  const double t_interlaced = run_analytic(vocab_pipeline(VocabParallel::interlaced)).step_time.value();
  CHECK(t_interlaced > t_vocab);
  CHECK(t_interlaced < t_none);
}

TEST_CASE("vocabulary-parallel collectives: two statistics barriers (vocab-1), one (vocab-2), all (interlaced)",
          "[models]") {
  CHECK(vocab_parallel_comm(VocabParallel::vocab_1).stat_all_reduces == 2);
  CHECK(vocab_parallel_comm(VocabParallel::vocab_2).stat_all_reduces == 1);
  CHECK(vocab_parallel_comm(VocabParallel::vocab_1).activation_exposed == 0);
  CHECK(vocab_parallel_comm(VocabParallel::interlaced).activation_exposed == 1);
  CHECK(vocab_parallel_comm(VocabParallel::none).stat_all_reduces == 0);
}

TEST_CASE("vocab-1 / vocab-2: the activation transfers run under the chunk's kernels and slow them", "[models]") {
  // sail-sg/VocabularyParallelism @6191c3b, vocab_parallel_schedule.py: the LM-head input broadcast (fp32),
  // the embedding all-reduce, the input-gradient all-reduce and the embedding-gradient broadcast are
  // issued asynchronously on side streams while the transformer passes run.
  const int layers = 32 / 8;
  const ChunkRole role{.layers = layers, .vocab_share = 1.0 / 8};
  // OpCostModel keeps a reference to its scenario: the scenarios outlive the models.
  const Scenario s1 = vocab_pipeline(VocabParallel::vocab_1), s2 = vocab_pipeline(VocabParallel::vocab_2);
  const Scenario si = vocab_pipeline(VocabParallel::interlaced), sn = vocab_pipeline(VocabParallel::none);
  const OpCostModel v1(s1);
  const OpCostModel v2(s2);
  const OpCostModel il(si);
  const OpCostModel none(sn);
  const ChunkCosts c1 = v1.chunk_costs(role);
  const ChunkCosts c2 = v2.chunk_costs(role);
  CHECK(c1.forward.overlap_slowdown.value() > 0);
  CHECK(c1.backward.overlap_slowdown.value() > 0);
  CHECK(c1.backward_input.overlap_slowdown.value() > 0);
  // The same transfers in both algorithms: only the statistics barriers (exposed) differ.
  CHECK(c2.forward.overlap_slowdown.value() == Approx(c1.forward.overlap_slowdown.value()).epsilon(1e-12));
  CHECK(c1.forward.tp_comm.value() > c2.forward.tp_comm.value());
  // The slowdown is part of the compute and of the duration.
  const ChunkCosts plain = none.chunk_costs({.layers = layers});
  CHECK(plain.forward.overlap_slowdown.value() == 0);
  // The interlaced pipeline waits for them instead (exposed, no overlap).
  const ChunkCosts ci = il.chunk_costs(role);
  CHECK(ci.forward.overlap_slowdown.value() == 0);
  CHECK(ci.forward.tp_comm.value() > c1.forward.tp_comm.value());

  // Across nodes (dp 8 puts each pipeline group on 8 nodes) the transfers go through the NICs: slower,
  // so they hold the SMs longer and take a larger share of the slower path.
  Scenario wide = vocab_pipeline(VocabParallel::vocab_1);
  wide.cluster.nodes = 8;
  wide.parallelism.dp = 8;
  wide.training.global_batch = 128 * 8;
  const ChunkCosts cw = OpCostModel(wide).chunk_costs(role);
  CHECK(cw.forward.overlap_slowdown.value() > c1.forward.overlap_slowdown.value());
  // The per-rank work is the same; only the slowdown differs.
  CHECK(cw.forward.model_flops.value() == Approx(c1.forward.model_flops.value()).epsilon(1e-12));
}
