// The kernel cost terms of models/roofline.* and models/transformer_cost.*, each against its source.
#include "tests/catch.hpp"

#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "models/roofline.hpp"
#include "sim/config/catalog_entries.hpp"
#include "sim/graph/step_graph.hpp"
#include "tests/engine/fixtures.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace {

DeviceSpec device(const char* name) {
  return config::load_device(catalog(), name);
}

double seconds_per_flop(const DeviceSpec& d, const Kernel& k) {
  return kernel_time(d, k).total.value() / k.exec_flops.value();
}

}  // namespace

TEST_CASE("a GEMM one tile past a full wave is slower per FLOP than one exactly on the wave") {
  const DeviceSpec h100 = device("h100-sxm5-80gb");
  REQUIRE(h100.sm_count == 132);
  // 12 x 11 tiles of 128 x 128 = 132 tiles: exactly one wave; one more tile row needs a second wave.
  const double k = 8192;
  const Kernel on_wave = gemm_kernel("on", 12 * 128, 11 * 128, k, Precision::bf16, 2);
  const Kernel past_wave = gemm_kernel("past", 12 * 128, 12 * 128, k, Precision::bf16, 2);
  CHECK(gemm_wave_efficiency(132, 12 * 128, 11 * 128, k) == Approx(1.0));
  CHECK(gemm_wave_efficiency(132, 12 * 128, 12 * 128, k) < 0.6);
  CHECK(seconds_per_flop(h100, past_wave) > 1.5 * seconds_per_flop(h100, on_wave));
  // Without an SM count (TPU, wafer) there is no quantisation.
  CHECK(gemm_wave_efficiency(0, 12 * 128, 12 * 128, k) == 1.0);
}

TEST_CASE("a GEMM with fewer tiles than SMs splits its reduction over the idle SMs") {
  // 2 x 2 tiles of 128 x 256 on 108 SMs: split-K fills 27 slices per tile (K / 27 >= 256).
  CHECK(gemm_wave_efficiency(108, 256, 512, 65536) > 0.9);
  // A short reduction cannot be split: most SMs idle.
  CHECK(gemm_wave_efficiency(108, 256, 512, 256) < 0.1);
}

// github.com/NVIDIA/Megatron-LM/issues/396: a 13B GPT on H100 went from 0.34 to 0.24 s/step with Transformer
// Engine FP8 (1.42x), and NVIDIA's answer: the 2x of FP8 is the arithmetic alone, casts and memory traffic
// eat into it.
TEST_CASE("FP8 speed-up of an 8192^3 GEMM with its input casts on H100 lies within the measured 1.3-1.7x") {
  const DeviceSpec h100 = device("h100-sxm5-80gb");
  const double n = 8192;
  const Kernel bf16 = gemm_kernel("bf16", n, n, n, Precision::bf16, 2);
  LayerKernels fp8;
  fp8.add(fp8_cast_kernel(n, n, n, 1));
  fp8.add(gemm_kernel("fp8", n, n, n, Precision::fp8, 2));
  const double speedup = kernel_time(h100, bf16).total.value() / kernels_time(h100, fp8).total.value();
  INFO(fmt::format("FP8 / BF16 speed-up {:.2f}x", speedup));
  CHECK(speedup > 1.3);
  CHECK(speedup < 1.7);
}

// Blackwell entries carry the H100's GEMM ceiling (fitted on BF16 records) scaled by one public table of
// measured matmul ceilings (stas00/ml-engineering 744d01e, compute/accelerator/README.md, "Maximum Achievable
// Matmul FLOPS comparison table", BF16): H100 SXM 794.5, B200 SXM 1,745.0, GB200 SXM 1,822.0, B300 SXM 1,769.0
// TFLOP/s. Without the scaling the model's ratios would be the dense-peak ratios, 2.28x, 2.53x and 2.28x.
TEST_CASE("large BF16 GEMMs on B200, GB200 and B300 run at the measured matmul-ceiling ratios to H100, not the peak ratios") {
  const DeviceSpec h100 = device("h100-sxm5-80gb");
  const double n = 16384;
  const Kernel g = gemm_kernel("bf16", n, n, n, Precision::bf16, 2);
  const auto ratio = [&](const char* name) { return seconds_per_flop(h100, g) / seconds_per_flop(device(name), g); };
  INFO(fmt::format("B200 / H100 {:.3f}x (measured {:.3f}x); GB200 / H100 {:.3f}x (measured {:.3f}x)", ratio("b200"),
                   1745.0 / 794.5, ratio("gb200"), 1822.0 / 794.5));
  CHECK(ratio("b200") == Approx(1745.0 / 794.5).epsilon(0.015));
  CHECK(ratio("gb200") == Approx(1822.0 / 794.5).epsilon(0.015));
  CHECK(ratio("b300") == Approx(1769.0 / 794.5).epsilon(0.015));
  // GB200 runs matmuls only about 4 % faster than B200 although its dense peak is 11 % higher.
  CHECK(ratio("gb200") / ratio("b200") < 1.06);
}

TEST_CASE("FP8 training runs only the linear layers in FP8: attention and the LM head stay BF16") {
  TransformerSpec m = gpt(1, 4096, 32, 4096);
  LayerShape shape;
  shape.seq_len = 4096;
  shape.precision = Precision::fp8;
  int casts = 0, fp8_gemms = 0;
  for (const Kernel& k : layer_forward_kernels(m, shape)) {
    if (k.fp8_cast) ++casts;
    if (k.cls == KernelClass::gemm && k.precision == Precision::fp8) ++fp8_gemms;
    if (k.cls == KernelClass::attention) CHECK(k.precision == Precision::bf16);
  }
  CHECK(fp8_gemms == 4);  // QKV, projection, fc1, fc2
  CHECK(casts == 4);      // one cast per FP8 GEMM input
  for (const Kernel& k : head_forward_kernels(m, shape)) CHECK(k.precision == Precision::bf16);
  // Backward: each FP8 GEMM's output gradient is cast too.
  int bwd_casts = 0;
  for (const Kernel& k : layer_backward_kernels(m, shape, true, true)) bwd_casts += k.fp8_cast ? 1 : 0;
  CHECK(bwd_casts == 4);
  shape.fp8_attention = true;
  for (const Kernel& k : layer_forward_kernels(m, shape)) {
    if (k.cls == KernelClass::attention) CHECK(k.precision == Precision::fp8);
  }
}

// pytorch/benchmark commit ff65cb6: FlashAttention-3 forward on H100, head dim 128, 16K tokens per batch:
// 430 TFLOP/s at s = 512 and 621 TFLOP/s at 16K (0.69x); 566 at 2K (0.91x).
TEST_CASE("flash attention runs slower per FLOP at short sequences and small heads, as measured") {
  DeviceEfficiency e;
  const double at_16k = attention_shape_efficiency(e, 16384, 0);
  CHECK(attention_shape_efficiency(e, 512, 0) / at_16k == Approx(430.0 / 621.0).margin(0.03));
  CHECK(attention_shape_efficiency(e, 2048, 0) / at_16k == Approx(566.0 / 621.0).margin(0.03));
  e.attention_half_head_dim = 63;  // H100 (FlashAttention-3 S3)
  CHECK(attention_shape_efficiency(e, 4096, 64) < attention_shape_efficiency(e, 4096, 128));
}

// NVIDIA/cudnn-frontend benchmark/sdpa_benchmark_training/results/{h200,gb200,gb300}_919_only_cudnn/
// llama3.1_*.csv (df73764ad / afa9f7c0b): one suite, cuDNN 9.19 called directly, BF16, top_left causal,
// 64 query / 8 KV heads, head dim 128, batch 1. Forward / backward TFLOP/s at s = 2K, 4K, 8K, 16K, 32K.
namespace cudnn919 {
constexpr double kSeq[5] = {2048, 4096, 8192, 16384, 32768};
constexpr double kH200[5][2] = {{484, 370}, {591, 474}, {644, 541}, {673, 579}, {688, 581}};
constexpr double kGb200[5][2] = {{1042, 836}, {1335, 1132}, {1598, 1311}, {1687, 1402}, {1720, 1473}};
constexpr double kGb300[5][2] = {{1266, 906}, {1672, 1195}, {1887, 1385}, {1968, 1490}, {2014, 1549}};
// Forward + backward (backward = 2.5x the forward FLOPs), TFLOP/s.
double combined(const double (&fb)[2]) { return 3.5 / (1.0 / fb[0] + 2.5 / fb[1]); }
}  // namespace cudnn919

namespace {
// The model's share of the BF16 peak for a causal call over `s` tokens at head dim `head_dim`.
double attention_share_of_peak(const DeviceSpec& d, double s, double head_dim = 128) {
  Kernel fa{"flash_attention", KernelClass::attention, Flops(2e15), Flops(1e15), Bytes(1e9), true};
  fa.precision = Precision::bf16;
  fa.attn_keys = 0.5 * s;
  fa.attn_head_dim = head_dim;
  return fa.exec_flops.value() / kernel_time(d, fa).compute_bound.value() / d.peak_for(Precision::bf16).value();
}
}  // namespace

// Blackwell's attention terms are H100's fitted ones carried over by that suite's Blackwell : Hopper ratio
// (docs/model.md, "Attention on Blackwell"): at every measured length the model's share of peak, over the
// H100 family's, is the suite's Blackwell share over H200's, within 2 %. The HGX parts take their superchip
// part's terms (the suite has no B200 or B300 run).
TEST_CASE("Blackwell attention follows one cuDNN suite's Blackwell : Hopper ratio at every sequence length") {
  using namespace cudnn919;
  const DeviceSpec hopper = device("h200-sxm-141gb");
  for (const auto& [name, rates] : {std::pair{"gb200", &kGb200}, std::pair{"gb300", &kGb300}}) {
    const DeviceSpec bw = device(name);
    for (int i = 0; i < 5; ++i) {
      INFO(name << " at s = " << kSeq[i]);
      const double measured = (combined((*rates)[i]) / bw.peak_for(Precision::bf16).value() * 1e12) /
                              (combined(kH200[i]) / hopper.peak_for(Precision::bf16).value() * 1e12);
      const double model = attention_share_of_peak(bw, kSeq[i]) / attention_share_of_peak(hopper, kSeq[i]);
      CHECK(model == Approx(measured).epsilon(0.02));
    }
  }
  for (const auto& [hgx, superchip] : {std::pair{"b200", "gb200"}, std::pair{"b300", "gb300"}}) {
    INFO(hgx);
    CHECK(device(hgx).efficiency.attention_efficiency == device(superchip).efficiency.attention_efficiency);
    CHECK(device(hgx).efficiency.attention_half_keys == device(superchip).efficiency.attention_half_keys);
  }
  // The H100 family keeps the FlashAttention-3 fit.
  CHECK(hopper.efficiency.attention_half_keys == 240.0);
  CHECK(device("h100-sxm5-80gb").efficiency.attention_half_keys == 240.0);
}

// A longer ramp (more keys to half rate) makes short calls dearer and leaves long ones nearly alone.
TEST_CASE("attention_half_keys sets where the sequence ramp reaches half rate") {
  DeviceEfficiency e;
  e.attention_half_keys = 400;
  CHECK(attention_shape_efficiency(e, 400, 0) == Approx(0.5));
  DeviceEfficiency h100;
  CHECK(attention_shape_efficiency(e, 1024, 0) < 0.92 * attention_shape_efficiency(h100, 1024, 0));
  CHECK(attention_shape_efficiency(e, 65536, 0) > 0.99 * attention_shape_efficiency(h100, 65536, 0));
}

// The softmax exponentials run on the special-function units beside the tensor cores; the catalog's head-dim
// term d / (d + h) puts h at the head dimension where they cost as much as the matmuls, peak / (4 · exp rate):
// H100 989 / (4 · 3.9) = 63 (FlashAttention-3 §3), GB200 2500 / (4 · 5) = 125 (Verda's GB300 NVL72 table,
// per-GPU "SFU EX2"). GB300's doubled exponential rate (10.7 TeraExponentials/s) would give 58.4, but the one
// cuDNN run that measured GB200 and GB300 at several head dims (results/{gb200,gb300}_919_only_cudnn, BF16,
// causal, forward + backward) has GB300 : GB200 flat across them, so GB300 and B300 take GB200's 125 and the
// doubled rate shows only in the level. (NVIDIA's larger Blackwell Ultra softmax gains are FP8 forward
// figures: the same run's DeepSeek-V3 shapes, FP8 forward at 32K, 3389 against 2599 TFLOP/s, 1.30x.)
namespace cudnn919 {
// Forward / backward TFLOP/s: gpt_oss (head dim 64, 64 query / 8 KV heads, window 1024, batch 2) at 32K and
// dsv3 (d_qk 192, d_v 128, 128 heads, deterministic backward) at 8K.
constexpr double kGb200d64[2] = {632, 660}, kGb300d64[2] = {748, 689}, kH200d64[2] = {358, 299};
constexpr double kGb200d192[2] = {1527, 1248}, kGb300d192[2] = {1776, 1316}, kH200d192[2] = {643, 442};
}  // namespace cudnn919

TEST_CASE("GB300 attention beats GB200's by the suite's BF16 ratio at every head dim") {
  using namespace cudnn919;
  const DeviceSpec h100 = device("h100-sxm5-80gb");
  const DeviceSpec gb200 = device("gb200");
  const DeviceSpec gb300 = device("gb300");
  CHECK(gb200.efficiency.attention_half_head_dim == Approx(2500.0 / (4 * 5.0)).epsilon(0.01));
  CHECK(gb300.efficiency.attention_half_head_dim == gb200.efficiency.attention_half_head_dim);
  CHECK(device("b200").efficiency.attention_half_head_dim == gb200.efficiency.attention_half_head_dim);
  CHECK(device("b300").efficiency.attention_half_head_dim == gb300.efficiency.attention_half_head_dim);
  // Share of peak for a causal call over s tokens at head dim d; each figure at the length it was measured
  // (d = 64: a window of 1024 keys, as a 2K-token causal call; d = 128 at 32K; d = 192 at 8K).
  const auto share = [](const DeviceSpec& d, double head_dim, double s = 131072) {
    return attention_share_of_peak(d, s, head_dim);
  };
  struct Point {
    double head_dim, tokens, ratio;
  };
  const Point measured[] = {{64, 2048, combined(kGb300d64) / combined(kGb200d64)},
                            {128, 32768, combined(kGb300[4]) / combined(kGb200[4])},
                            {192, 8192, combined(kGb300d192) / combined(kGb200d192)}};
  for (const Point& p : measured) {
    INFO("head dim " << p.head_dim);
    CHECK(share(gb300, p.head_dim, p.tokens) / share(gb200, p.head_dim, p.tokens) == Approx(p.ratio).epsilon(0.03));
  }
  // GB300 reaches about 1.08x the H100 family's share of peak at d = 128 (0.704 against H200's 0.652 in the
  // suite) and stays below 0.30 of its peak end to end (the Qwen3-235B 131K row needs ~0.53: docs/moe.md).
  CHECK(share(gb300, 128) / share(h100, 128) == Approx(1.08).epsilon(0.03));
  CHECK(share(gb300, 128) < 0.30);
}

// Against Hopper the exponential-unit term keeps GB200's head-dim dependence within 6 % of the suite's
// Blackwell : H200 ratios (at d = 64 the window-1024 runs sit at about 1K keys, where the ramp term differs
// too; at d = 192 the dsv3 runs are at 8K tokens): the model's ratio at d over its ratio at 128, against the
// suite's.
TEST_CASE("GB200's head-dim dependence against Hopper's follows the suite within 6 %") {
  using namespace cudnn919;
  const DeviceSpec hopper = device("h200-sxm-141gb");
  const DeviceSpec gb200 = device("gb200");
  const auto model = [&](double s, double d) {
    return attention_share_of_peak(gb200, s, d) / attention_share_of_peak(hopper, s, d);
  };
  const auto frac = [](const double (&fb)[2], double peak) { return combined(fb) / peak; };
  // d = 64: a window of 1024 keys (L about 1K, a 2K-token causal call); d = 192: 8K tokens.
  const double m64 = model(2048, 64) / model(2048, 128);
  const double s64 = (frac(kGb200d64, 2500) / frac(kH200d64, 989)) / (frac(kGb200[0], 2500) / frac(kH200[0], 989));
  CHECK(m64 == Approx(s64).epsilon(0.06));
  const double m192 = model(8192, 192) / model(8192, 128);
  const double s192 =
      (frac(kGb200d192, 2500) / frac(kH200d192, 989)) / (frac(kGb200[2], 2500) / frac(kH200[2], 989));
  CHECK(m192 == Approx(s192).epsilon(0.06));
}

TEST_CASE("context parallelism at 2K tokens makes each attention FLOP dearer (smaller blocks per call)") {
  const DeviceSpec a100 = device("a100-sxm4-80gb");
  const TransformerSpec m = gpt(1, 12288, 96, 2048);
  LayerShape one, two;
  two.cp = 2;
  const auto attention = [&](const LayerShape& s) {
    for (const Kernel& k : layer_forward_kernels(m, s)) {
      if (k.cls == KernelClass::attention) return k;
    }
    FAIL("no attention kernel");
    return Kernel{};
  };
  CHECK(seconds_per_flop(a100, attention(two)) > 1.1 * seconds_per_flop(a100, attention(one)));
}

// NCCL occupies 16 SMs on a DGX-class node (github.com/NVIDIA/nccl/issues/689): 16/108 = 14.8 % of an A100's
// SMs, within the 5-20 % slowdown that overlapped collectives cause.
TEST_CASE("a collective hidden under compute-bound kernels slows them by the SM share NCCL takes") {
  const DeviceSpec a100 = device("a100-sxm4-80gb");
  const Seconds slow = overlap_slowdown(a100, Seconds(1.0), 1.0, BytesPerSecond(200e9));
  CHECK(slow.value() == Approx(16.0 / 108.0));
  CHECK(slow.value() > 0.05);
  CHECK(slow.value() < 0.20);
  // Memory-bound kernels lose the HBM bandwidth the collective stages its data through (2x its rate).
  const Seconds mem = overlap_slowdown(a100, Seconds(1.0), 0.0, BytesPerSecond(200e9));
  CHECK(mem.value() ==
        Approx(2.0 * 200e9 / (a100.memory_bandwidth.value() * a100.efficiency.memory_efficiency)));
}

TEST_CASE("tensor-parallel overlap costs compute time, reported as overlap slowdown") {
  Scenario s = scenario(dgx_a100_cluster(1), gpt(8, 8192, 64), 8, 1, 1, 8);
  const ChunkCosts plain = OpCostModel(s).chunk_costs(ChunkRole{8, false, false});
  s.parallelism.tp_comm_overlap = true;
  const ChunkCosts hidden = OpCostModel(s).chunk_costs(ChunkRole{8, false, false});
  CHECK(plain.forward.overlap_slowdown.value() == 0.0);
  CHECK(hidden.forward.overlap_slowdown.value() > 0.0);
  CHECK(hidden.forward.compute.value() ==
        Approx(plain.forward.compute.value() + hidden.forward.overlap_slowdown.value()));
  CHECK(hidden.forward.tp_comm < plain.forward.tp_comm);
}

TEST_CASE("every pipeline op pays the device's fixed op overhead, so deep interleaving costs time") {
  Scenario s = scenario(dgx_a100_cluster(1), gpt(8, 4096, 32), 1, 8, 1, 64);
  const auto fwd = [&](Seconds overhead) {
    s.cluster.node.device.efficiency.op_overhead = overhead;
    return OpCostModel(s).chunk_costs(ChunkRole{1, false, false}).forward.compute;
  };
  CHECK((fwd(Seconds(100e-6)) - fwd(Seconds(0))).value() == Approx(100e-6));
}

// Adam per parameter: gradient norm (read g), fused Adam (read g + master/m/v, write master/m/v + the
// 2-byte copy), zeroing the gradient buffer (write g): 38 B with fp32 gradients.
TEST_CASE("the Adam step is a memory-bound pass over 38 bytes per parameter with fp32 gradients") {
  Scenario s = scenario(dgx_a100_cluster(1), gpt(8, 4096, 32), 8, 1, 1, 8);
  s.parallelism.dp = 1;
  const StepGraph g = build_step_graph(s);
  const ParameterCount pc = parameter_count(s.model);
  // Every TP rank holds 1/8 of the parameters, except the learned position table, which it holds whole.
  const double params = (pc.total() - pc.position_table) / 8.0 + pc.position_table;
  for (const StepNode& n : g.nodes) {
    if (n.kind != NodeKind::optimizer) continue;
    CHECK(n.duration.value() ==
          Approx(memory_pass_time(s.cluster.node.device, Bytes(38.0 * params)).value()));
  }
}

TEST_CASE("blockwise-scaled FP8 GEMMs reproduce DeepGEMM's published H800 TFLOP/s") {
  // deepseek-ai/DeepGEMM README (first release, H800, NVCC 12.8): M x N x K -> TFLOP/s; grouped rows are
  // G contiguous groups of M rows each. The fitted form must stay within 3 % of every compute-bound row.
  const DeviceSpec h800 = device("h800-sxm-80gb");
  struct Row {
    double groups, m, n, k, tflops;
  };
  const Row rows[] = {{1, 4096, 2112, 7168, 1058},  {1, 4096, 24576, 1536, 990}, {1, 4096, 32768, 512, 590},
                      {1, 4096, 7168, 16384, 1358}, {1, 4096, 4096, 7168, 1304}, {1, 4096, 7168, 2048, 1025},
                      {4, 8192, 4096, 7168, 1297},  {4, 8192, 7168, 2048, 1099}, {8, 4096, 4096, 7168, 1288},
                      {8, 4096, 7168, 2048, 1093}};
  for (const Row& r : rows) {
    Kernel g = gemm_kernel("fc", r.m, r.n, r.k, Precision::fp8, 2.0);
    g.batch = r.groups;
    g.grouped = r.groups > 1;
    g.exec_flops = g.model_flops = Flops(2.0 * r.groups * r.m * r.n * r.k);
    g.bytes = Bytes(r.groups * (r.m * r.k + r.k * r.n) + 2.0 * r.groups * r.m * r.n);
    g.fp8_blockwise = true;
    const KernelTime t = kernel_time(h800, g);
    const double tflops = g.exec_flops.value() / (t.total.value() - h800.efficiency.kernel_overhead.value()) / 1e12;
    INFO(fmt::format("{} x {} x {} x {}: {:.0f} TFLOP/s vs {:.0f}", r.groups, r.m, r.n, r.k, tflops, r.tflops));
    CHECK(tflops == Approx(r.tflops).epsilon(0.03));
  }
  // A short reduction pays the per-tile fixed cost: K = 512 runs at under half the K = 16384 rate.
  CHECK(blockwise_fp8_gemm_efficiency(132, 4096, 32768, 512) <
        0.5 * blockwise_fp8_gemm_efficiency(132, 4096, 7168, 16384));
}

// Context parallelism with causal masking as Megatron-Core runs it (Transformer Engine's P2P ring with
// load balancing, `AttnFuncWithCPAndKVP2P` in transformer_engine/pytorch/attention/dot_product_attention/
// context_parallel.py): the sequence is cut into 2·cp chunks and rank r holds chunks r and 2·cp − 1 − r.
// Ring step 0 runs the causal kernel on the rank's own two chunks; at step i > 0 the K/V of rank r − i
// arrive, and the rank runs all its queries against the first of those chunks (i ≤ r) or its second query
// chunk against both (i > r): half a block on every step, so every rank executes the same work. This
// counts each rank's unmasked (query, key) chunk pairs directly and checks that the flash kernel's
// executed FLOPs are exactly that (causal on the diagonal blocks, half of the s/cp × s rectangle in
// total), and that its per-call key length is the ½ · s/cp the shape term sees (docs/moe.md, "Fourth pass").
TEST_CASE("load-balanced causal context parallelism: each rank executes exactly its ring steps' blocks") {
  for (const int cp : {2, 4, 8}) {
    const int s = 131072;
    TransformerSpec m = gpt(1, 4096, 64, s);
    m.kv_heads = 4;
    m.head_dim_override = 128;
    LayerShape shape;
    shape.seq_len = s;
    shape.cp = cp;
    shape.tp = 4;
    Kernel fa;
    for (const Kernel& k : layer_forward_kernels(m, shape)) {
      if (k.cls == KernelClass::attention) fa = k;
    }
    REQUIRE(fa.exec_flops.value() > 0);
    const double c = static_cast<double>(s) / (2 * cp);  // chunk length
    // Unmasked (query, key) pairs of query chunk qc against key chunk kc: full below the diagonal,
    // c·(c+1)/2 on it, none above.
    const auto pairs = [&](int qc, int kc) { return qc > kc ? c * c : (qc == kc ? c * (c + 1) / 2 : 0.0); };
    const double flops_per_pair = 2.0 * (m.heads / shape.tp) * (2.0 * m.head_dim());  // QK^T + AV, local heads
    for (int r = 0; r < cp; ++r) {
      const std::array<int, 2> mine{r, 2 * cp - 1 - r};
      double rank_pairs = 0;
      for (int i = 0; i < cp; ++i) {
        const int src = (r - i + cp) % cp;  // whose K/V this ring step holds
        const std::array<int, 2> theirs{src, 2 * cp - 1 - src};
        for (int q : mine) {
          for (int k : theirs) rank_pairs += pairs(q, k);
        }
      }
      // The kernel counts s²/(2·cp) pairs per rank; the causal diagonal adds c/2 per diagonal block.
      CHECK(fa.exec_flops.value() == Approx(rank_pairs * flops_per_pair).epsilon(1e-4));
    }
    CHECK(fa.model_flops.value() == Approx(2.0 * fa.exec_flops.value()));  // full-square model FLOPs
    CHECK(fa.attn_keys == Approx(0.5 * s / cp));
  }
}

// LayerKernels keeps its 64 slots unconstructed until add() (no value-initialised array per list):
// begin()/end() must give exactly the kernels added, copies and assignments must carry exactly those,
// and a 65th kernel must be refused rather than written past the end.
TEST_CASE("LayerKernels holds exactly the kernels added, through copies and assignments") {
  const TransformerSpec m = gpt(24, 4096, 32);
  LayerShape shape;
  shape.micro_batch = 2;
  shape.seq_len = 2048;
  shape.tp = 2;
  const LayerKernels fwd = layer_forward_kernels(m, shape);
  REQUIRE(fwd.count > 4);
  const auto same = [](const Kernel& a, const Kernel& b) {
    return a.name == b.name && a.cls == b.cls && a.model_flops.value() == b.model_flops.value() &&
           a.exec_flops.value() == b.exec_flops.value() && a.bytes.value() == b.bytes.value() && a.m == b.m &&
           a.n == b.n && a.k == b.k && a.attention_core == b.attention_core;
  };
  // A copy, and an assignment over a longer list: the same kernels, in order, and no more.
  const LayerKernels copy = fwd;  // NOLINT(performance-unnecessary-copy-initialization): the copy is tested
  LayerKernels longer;
  for (int i = 0; i < fwd.count + 3; ++i) longer.add(gemm_kernel("filler", 1, 1, 1, Precision::bf16, 2.0));
  longer = fwd;
  for (const LayerKernels* l : std::array<const LayerKernels*, 2>{&copy, &longer}) {
    REQUIRE(l->count == fwd.count);
    REQUIRE(l->end() - l->begin() == fwd.count);
    for (int i = 0; i < fwd.count; ++i) CHECK(same(l->begin()[i], fwd.begin()[i]));
  }
  // The costs of the copy are the original's, bit for bit.
  const DeviceSpec dev = dgx_a100_cluster(1).node.device;
  CHECK(kernels_time(dev, copy).total.value() == kernels_time(dev, fwd).total.value());
  // Added one by one: each added kernel is the one read back.
  LayerKernels built;
  for (const Kernel& k : fwd) {
    built.add(k);
    CHECK(same(built.begin()[built.count - 1], k));
  }
  CHECK(built.count == fwd.count);
  // Capacity: 64 kernels fit, the 65th is refused.
  LayerKernels full;
  for (int i = 0; i < LayerKernels::kCapacity; ++i) full.add(fwd.begin()[i % fwd.count]);
  CHECK(full.count == LayerKernels::kCapacity);
  CHECK_THROWS_AS(full.add(fwd.begin()[0]), std::out_of_range);
  CHECK(full.count == LayerKernels::kCapacity);
}

// The op cost model derives its backward kernel lists from the forward list it has already built (one
// forward list per layer kind and one for the head, not one per backward list): each backward op's
// kernel time must still be the time of layer_backward_kernels / head_backward_kernels built from
// scratch for that layer kind (a dense list handed to a MoE layer would differ).
TEST_CASE("the op cost model's backward kernels are those of each layer kind, built from scratch") {
  // Mixtral 8x7B on one DGX H100, data parallel only.
  Scenario s = mixtral_64_h100(64);
  s.cluster.nodes = 1;
  s.parallelism = ParallelismSpec{};
  s.parallelism.dp = 8;
  const OpCostModel model(s);
  const DeviceSpec& dev = s.cluster.node.device;
  const Seconds op = dev.efficiency.op_overhead;
  const LayerShape& shape = model.shape();
  for (const LayerKind kind : {LayerKind::dense, LayerKind::moe}) {
    INFO("moe layer: " << (kind == LayerKind::moe));
    const ChunkRole one{1, kind == LayerKind::moe ? 1 : 0, false, false, 0};
    const ChunkCosts c = model.chunk_costs(one);
    const Seconds weight = kernels_time(dev, layer_backward_kernels(s.model, shape, false, true, kind)).total;
    CHECK(c.backward_weight.compute.value() == (weight + op).value());
    CHECK(c.backward_weight.compute.value() != 0.0);
  }
  // The head: W half of the last stage's backward on top of a zero-layer chunk.
  const ChunkRole head{0, 0, false, true, 0};
  const Seconds head_weight = kernels_time(dev, head_backward_kernels(s.model, shape, false, true)).total;
  CHECK(model.chunk_costs(head).backward_weight.compute.value() == (head_weight + op).value());
}

// FlashAttention-2 against a device's native kernel (the kernel its end-to-end `attention` stands for:
// Transformer Engine's cuDNN attention on Hopper and Blackwell). Only the kernel's share s of the fitted
// attention time changes with the kernel, so the entry's rate must be 1 / (1 + (t_fa2 / t_cudnn - 1) * s),
// s = the model's own rate at 4K tokens (causal, head dim 128) over cuDNN's isolated rate there
// (docs/model.md, "Attention kernels"). Kernel figures: FlashAttention-3 Figs. 5-6 (H100); NVIDIA/cudnn-frontend
// benchmark/sdpa_benchmark_training/artifacts (B200, GB200, GB300).
TEST_CASE("catalog attention_flash2_rate follows from the kernel ratio and each entry's own fit") {
  // Forward + backward rate (backward = 2.5x the forward FLOPs) of a kernel pair, TFLOP/s.
  const auto combined = [](double fwd, double bwd) { return 3.5 / (1.0 / fwd + 2.5 / bwd); };
  // The model's own attention rate at 4K tokens, causal, head dim 128, TFLOP/s.
  const auto model_rate = [](const DeviceSpec& d) {
    Kernel fa{"flash_attention", KernelClass::attention, Flops(2e12), Flops(1e12), Bytes(0), true};
    fa.precision = Precision::bf16;
    fa.attn_keys = 2048;  // a causal query tile sees half of 4K keys
    fa.attn_head_dim = 128;
    return fa.exec_flops.value() / kernel_time(d, fa).compute_bound.value() / 1e12;
  };
  const auto rule = [&](const DeviceSpec& d, double fa2_fwd, double fa2_bwd, double cudnn_fwd, double cudnn_bwd) {
    const double cudnn = combined(cudnn_fwd, cudnn_bwd);
    const double share = model_rate(d) / cudnn;
    CHECK(share > 0.3);
    CHECK(share < 0.7);
    return 1.0 / (1.0 + (cudnn / combined(fa2_fwd, fa2_bwd) - 1.0) * share);
  };
  const double hopper = rule(device("h100-sxm5-80gb"), 319, 310, 518, 499);
  for (const char* name : {"h100-sxm5-80gb", "h100-sxm-96gb-hbm2e", "h200-sxm-141gb", "h800-sxm-80gb"}) {
    INFO(name);
    CHECK(device(name).efficiency.attention_flash2_rate == Approx(hopper).margin(0.01));
  }
  CHECK(device("b200").efficiency.attention_flash2_rate ==
        Approx(rule(device("b200"), 343.0, 273.5, 855.7, 701.3)).margin(0.01));
  CHECK(device("gb200").efficiency.attention_flash2_rate ==
        Approx(rule(device("gb200"), 387, 311, 1386, 1054)).margin(0.01));
  const double gb300 = rule(device("gb300"), 366.2, 291.6, 1144.9, 892.6);
  CHECK(device("gb300").efficiency.attention_flash2_rate == Approx(gb300).margin(0.01));
  CHECK(device("b300").efficiency.attention_flash2_rate == device("gb300").efficiency.attention_flash2_rate);
  // Where the native kernel is FlashAttention-2 itself (A100): 1.
  CHECK(device("a100-sxm4-80gb").efficiency.attention_flash2_rate == 1.0);
}
