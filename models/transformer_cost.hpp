// Per-layer cost of a dense decoder-only transformer on one tensor-parallel rank.
//
// Kernels follow Megatron-LM's layer (Narayanan et al. SC'21; Korthikanti et al. 2022 §4): layernorm,
// QKV GEMM (column-parallel, GQA-aware), attention core (QK^T, softmax, dropout, AV — or one fused flash
// kernel), output projection (row-parallel), dropout+residual, layernorm, MLP (GeLU 4h or SwiGLU), dropout+
// residual. FLOPs are 2·M·N·K per GEMM. Bytes are HBM traffic of the kernel at the compute precision.
//
// Precision mix (NVIDIA Transformer Engine, the FP8 recipe of Megatron-Core and NeMo): with FP8 training
// only the linear layers' GEMMs (QKV, projection, MLP) run in FP8 (inputs 1 byte, output in BF16);
// attention stays BF16 unless `fp8_attention`, the LM head and the embedding stay BF16, and activations,
// norms and element-wise kernels move BF16 tensors. Every FP8 GEMM input is cast (and transposed, with its
// amax) by a memory-bound kernel: the activation per micro-batch (read 2 B, write 1 B + 1 B transposed per
// element), its output gradient in the backward likewise, and the weight once per step (Transformer
// Engine caches the FP8 weight across the micro-batches of a step: `is_first_microbatch`), amortised here
// over the step's micro-batches. Transformer Engine user guide, "Using FP8 with Transformer Engine"
// (delayed scaling, amax history; FP8 GEMM inputs with higher-precision outputs).
//
// Model FLOPs follow the PaLM/Korthikanti convention (Korthikanti Eq. 7, generalised to GQA and SwiGLU):
// attention counts the full s×s score matrix even when a causal flash kernel skips half of it; the
// executed FLOPs (`Kernel::exec_flops`) are what the device actually runs.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include "models/precision.hpp"
#include "models/training_options.hpp"
#include "models/transformer.hpp"
#include "sim/core/units.hpp"

namespace clustersim {

enum class KernelClass { gemm, attention, elementwise };

/// Per-TP-rank sharding and shape of one micro-batch through one layer.
struct LayerShape {
  int micro_batch = 1;             // b
  int seq_len = 2048;              // s (full sequence; cp shards it)
  int tp = 1;                      // t
  int cp = 1;                      // context-parallel degree (sequence split across ranks)
  bool sequence_parallel = false;  // norms/dropouts run on s/t tokens
  bool flash_attention = true;
  AttentionKernel attention_kernel = AttentionKernel::native;  // which flash kernel (training_options.hpp)
  Precision precision = Precision::bf16;  // training (linear-layer GEMM) precision
  bool fp8_attention = false;             // FP8 training: attention kernels in FP8 too
  int microbatches = 1;                   // per step: FP8 weight casts are amortised over them
  Fp8Scaling fp8_scaling = Fp8Scaling::delayed;  // FP8 scaling recipe (cast traffic, GEMM kernel)
  bool eager_elementwise = false;  // eager PyTorch: unfused norm/rotary/SwiGLU passes (eager_kernels.hpp)
  // Q, K, V and the SwiGLU gate/up projections as separate linear layers (torchtitan's Llama: wq, wk, wv,
  // w1, w3) instead of Megatron's fused linear_qkv / linear_fc1: one GEMM each, in FP8 each casting its
  // own input, and the input gradients summed in the backward (docs/model.md, "Separate projections").
  bool separate_projections = false;
  // Mixture-of-experts layers (unused for dense layers): expert-parallel and expert-tensor-parallel
  // degrees, and the token load of the busiest EP rank over the mean (moe_load.hpp).
  int ep = 1;
  int etp = 1;
  double moe_load = 1.0;
  // Activation storage (memory only; the recomputation's time is charged by sim/graph): linear-layer
  // inputs cached in FP8 (DeepSeek-V3 §3.3.4), RMSNorm outputs and MLA up-projections recomputed
  // (DeepSeek-V3 §3.2.3).
  bool fp8_activation_cache = false;
  bool recompute_norm_mla_up = false;
  // FP8 training without that cache: what each FP8 linear layer keeps of its input for the backward
  // (training_options.hpp Fp8SavedInputs; memory and offloaded bytes).
  Fp8SavedInputs fp8_saved_inputs = Fp8SavedInputs::fp8;
  // Selective recomputation re-runs the attention core as one checkpoint (Megatron-Core core_attn): the
  // fused attention's output is then not kept by the kernel (memory and offloaded bytes).
  bool core_attn_recomputed = false;
  // Selective recomputation under JAX's checkpoint_dots_with_no_batch_dims (SelectivePolicy::dots): a
  // layer keeps its input and its weight matmuls' outputs only (memory and offloaded bytes).
  bool saves_dots_only = false;
  // FP8 linear GEMMs with blockwise scaling and CUDA-core promotion (DeepSeek-V3 §3.3.2): their
  // efficiency follows DeepGEMM's measured shape dependence (roofline.hpp), not the per-tensor constants.
  bool fp8_blockwise = false;
  // MXFP8 (fp8_scaling mxfp8): every FP8 GEMM first rearranges the E8M0 scales of each of its two
  // operands into the layout the block-scaled tensor cores read, one small kernel per operand
  // (Transformer Engine v2.7-v2.11 pytorch/csrc/extensions/gemm.cpp: swizzle_scaling_factors(A) and (B)
  // before nvte_cublas_gemm; grouped GEMMs: one multi-tensor swizzle per operand list). From v2.12
  // (#2486) the quantisers write GEMM-ready scales and this is false (docs/model.md, "MXFP8").
  bool mxfp8_separate_swizzle = false;
};

/// Which kind of transformer layer: a dense MLP or a mixture-of-experts feed-forward.
enum class LayerKind { dense, moe };

struct Kernel {
  std::string_view name;
  KernelClass cls = KernelClass::gemm;
  Flops model_flops{0};                   // counted for MFU
  Flops exec_flops{0};                    // executed on the device
  Bytes bytes{0};                         // HBM traffic
  bool attention_core = false;            // recomputed by selective recomputation
  Precision precision = Precision::bf16;  // the peak this kernel computes at
  // GEMM shape, for tile and wave quantisation: `batch` independent M x N outputs, reduction K (0 = unknown).
  double m = 0, n = 0, k = 0, batch = 1;
  // Flash attention: keys one query tile iterates over per call (causal: half the key length) and head dim.
  double attn_keys = 0, attn_head_dim = 0;
  // Flash attention: speed of the kernel implementation relative to FlashAttention-2 (forward; the
  // backward kernel copies attn_bwd_rate into attn_rate).
  double attn_rate = 1.0, attn_bwd_rate = 1.0;
  // A FlashAttention-2-derived kernel (flash2_family): its rate is also scaled by the device's
  // attention_flash2_rate (models/roofline.cpp).
  bool attn_flash2_family = false;
  bool fp8_cast = false;  // cast/transpose/amax of an FP8 GEMM input (m x k of its GEMM)
  double cast_bytes = 4.0;  // fp8_cast: HBM bytes per element of the recipe (fp8_cast_bytes_per_element)
  double impl_efficiency = 1.0;  // GEMM kernel speed relative to the device's calibrated GEMM (row-wise FP8)
  bool grouped = false;   // grouped GEMM of `batch` expert problems (MoE): each fills the pipeline alone
  bool fp8_blockwise = false;  // FP8 GEMM with blockwise scaling and CUDA-core promotion (roofline.hpp)
  // Small kernels launched with this one (MXFP8 scale swizzles of a GEMM's operands): each costs the
  // device's kernel_overhead, and together they move `extra_bytes` of HBM traffic (roofline.cpp).
  int extra_kernels = 0;
  double extra_bytes = 0;
  bool forward_only = false;  // no backward pass (a copy of a constant: the ALiBi bias)
};

/// Up to 64 kernels of one layer pass (fixed capacity: no allocation in sweeps).
struct LayerKernels {
  static constexpr int kCapacity = 64;
  // Room for kCapacity kernels, of which items[0, count) are constructed (by add()). A list is built
  // per layer pass, a dozen times per step graph; a value-initialised array constructed every slot
  // (64 x 176 bytes, ~11 KiB of stores per list) for the handful of kernels a pass has. In an anonymous
  // union the slots stay unconstructed until added; copies copy the added kernels only.
  union {
    Kernel items[kCapacity];
  };
  int count = 0;

  LayerKernels() {}  // NOLINT: the slots are constructed by add()
  LayerKernels(const LayerKernels& o) : count(o.count) {
    for (int i = 0; i < count; ++i) std::construct_at(&items[i], o.items[i]);
  }
  LayerKernels& operator=(const LayerKernels& o) {
    if (this != &o) {
      count = o.count;
      for (int i = 0; i < count; ++i) std::construct_at(&items[i], o.items[i]);
    }
    return *this;
  }
  ~LayerKernels() {}  // Kernel is trivially destructible
  void add(const Kernel& k) {
    if (count >= kCapacity) throw std::out_of_range("LayerKernels: more than 64 kernels in one layer pass");
    std::construct_at(&items[count], k);
    ++count;
  }
  [[nodiscard]] const Kernel* begin() const { return items; }
  [[nodiscard]] const Kernel* end() const { return items + count; }
};
static_assert(std::is_trivially_destructible_v<Kernel> && std::is_trivially_copyable_v<Kernel>);

/// One GEMM M x N x K computing at `p` (inputs at p's width), its output `out_bytes` per element.
Kernel gemm_kernel(std::string_view name, double m, double n, double k, Precision p, double out_bytes);
/// The cast/transpose/amax of an FP8 GEMM's inputs: the M x K activation, plus the K x N weight once per
/// step (amortised over `microbatches`).
Kernel fp8_cast_kernel(double m, double n, double k, int microbatches);
/// The input cast of a linear GEMM at `p`: fp8_cast_kernel for FP8, the NVFP4 quantisation
/// (kNvfp4InputCastBytes on the activation, kNvfp4WeightCastBytes on the weight once per step) for fp4.
Kernel linear_input_cast_kernel(Precision p, double m, double n, double k, int microbatches);

/// HBM bytes per element of the cast of one FP8 GEMM input under `scaling`: delayed 4 (read BF16 2 B,
/// write FP8 1 B + its transpose 1 B; amax from history), tensorwise 6 (an amax pass reading 2 B first),
/// rowwise 10 (per axis: an amax pass 2 B and a cast 2 B read + 1 B written, for both axes), mxfp8
/// 4.0625 (read 2 B, write the row-wise and column-wise FP8 copies, 1 B each, and one E8M0 scale byte per
/// 32 elements for each copy).
double fp8_cast_bytes_per_element(Fp8Scaling scaling);
/// Bytes one MXFP8 scale swizzle moves per element of its operand: the E8M0 scales (one byte per 32
/// elements) read and written once.
inline constexpr double kMxfp8SwizzleBytesPerElement = 2.0 / 32.0;
/// Speed of the row-wise scaled FP8 GEMM relative to the tensor-wise one: 0.95, the middle of "most
/// shapes are within 90-100% of tensor-wise efficiency" (pytorch/pytorch issue 147971, H100, fast-accum).
inline constexpr double kRowwiseFp8GemmEfficiency = 0.95;

/// NVFP4 (training.precision "fp4"; Transformer Engine v2.12 5671fd36, recipe NVFP4BlockScaling in
/// transformer_engine/common/recipe/__init__.py, quantiser NVFP4Quantizer::quantize_impl in
/// transformer_engine/pytorch/csrc/quantizer.cpp). Values are E2M1 (half a byte); one E4M3 scale byte
/// per 16 consecutive elements (1D), per 16x16 block for weights (2D), plus one FP32 scale per tensor.
inline constexpr double kNvfp4ScaleBytesPerElement = 1.0 / 16.0;
/// HBM bytes per element of quantising an activation or an output gradient (1D blocks; the column-wise
/// copy that feeds the wgrad GEMM takes a 16x16 random Hadamard transform): three kernels, each reading
/// the BF16 tensor: nvte_hadamard_transform_amax (the tensor's amax and that of its transformed
/// transpose, 2 B), nvte_quantize_v2 for the row-wise copy (2 B read, 0.5 + 1/16 B written) and
/// nvte_hadamard_transform_cast_fusion_columnwise for the column-wise copy (the same bytes; the transform
/// runs on the tensor cores inside the cast, so it adds no pass). 7.125 B.
inline constexpr double kNvfp4InputCastBytes = 2.0 + 2.0 * (2.0 + 0.5 + kNvfp4ScaleBytesPerElement);
/// Kernels of that quantisation beyond the first (amax, row-wise cast, column-wise transform-cast).
inline constexpr int kNvfp4InputCastExtraKernels = 2;
/// HBM bytes per element of quantising a weight (2D 16x16 blocks, no Hadamard transform): an amax pass
/// (nvte_compute_amax, 2 B) and one cast writing the row-wise and column-wise copies (2 B read,
/// 2 x (0.5 + 1/256) B written). Once per step: the quantised weight is reused by every micro-batch.
inline constexpr double kNvfp4WeightCastBytes = 2.0 + 2.0 + 2.0 * (0.5 + 1.0 / 256.0);

/// Forward kernels of one layer on one TP rank. Attention is multi-head/GQA (QKV GEMM) or multi-head
/// latent attention (down- and up-projections, DeepSeek-V2 §2.1). A MoE layer (`kind` = moe) replaces
/// the MLP by: router GEMM and top-k, permutation of the rank's tokens into expert order, the local
/// experts' FC1/activation/FC2 as grouped GEMMs over the tokens this rank receives (T/t · top_k · etp on
/// average, times `moe_load` on the busiest rank, which sets the layer time), the un-permutation with the
/// routing weights, and the shared experts as a TP-sharded dense MLP. The dispatch/combine all-to-alls
/// are communication (sim/graph), not kernels. Model FLOPs count the mean load; executed FLOPs the
/// busiest rank's.
LayerKernels layer_forward_kernels(const TransformerSpec& m, const LayerShape& s,
                                   LayerKind kind = LayerKind::dense);

/// Backward kernels of one layer: each GEMM becomes an input-gradient and a weight-gradient GEMM of
/// the same FLOPs; attention backward executes 2.5x the forward FLOPs for flash kernels (FlashAttention-2
/// recomputes the scores; Dao 2023 §3.1.2) and 2x otherwise; elementwise kernels move 2x the bytes.
/// `weight_grad` selects the W half (for zero-bubble schedules); `input_grad` the B half.
LayerKernels layer_backward_kernels(const TransformerSpec& m, const LayerShape& s, bool input_grad,
                                    bool weight_grad, LayerKind kind = LayerKind::dense);
/// The same from the layer's forward kernels `fwd` = layer_forward_kernels(m, s, kind), built once by a
/// caller that needs them anyway (the op cost model derives three backward lists from one forward list).
LayerKernels layer_backward_kernels(const TransformerSpec& m, const LayerShape& s, const LayerKernels& fwd,
                                    bool input_grad, bool weight_grad, LayerKind kind = LayerKind::dense);

/// Tensor-parallel collectives of one layer pass on one TP rank (Megatron column/row splits, Shoeybi et al.
/// 2019 §3; Korthikanti et al. 2022 §4.2.2 for sequence parallelism). The backward pass issues the same
/// collectives on the gradients. A sequential block reduces after attention and again after the MLP: two
/// all-reduces, or with sequence parallelism two all-gathers (before each column-parallel GEMM) and two
/// reduce-scatters. A parallel block (`TransformerSpec::parallel_block`) sums the two row-parallel
/// outputs before one reduction and gathers the shared normed input once: one of each.
struct TpCollectives {
  int all_reduce = 0;
  int all_gather = 0;
  int reduce_scatter = 0;
  [[nodiscard]] int total() const { return all_reduce + all_gather + reduce_scatter; }
};
/// None when tp = 1.
TpCollectives layer_tp_collectives(const TransformerSpec& m, const LayerShape& s);

/// Embedding lookup (first stage) and LM head + cross-entropy (last stage), forward, on one TP rank.
LayerKernels embedding_forward_kernels(const TransformerSpec& m, const LayerShape& s);
LayerKernels head_forward_kernels(const TransformerSpec& m, const LayerShape& s);
LayerKernels head_backward_kernels(const TransformerSpec& m, const LayerShape& s, bool input_grad,
                                   bool weight_grad);
/// The same from `fwd` = head_forward_kernels(m, s).
LayerKernels head_backward_kernels(const LayerKernels& fwd, bool input_grad, bool weight_grad);

/// Parameter counts (whole model, no sharding).
struct ParameterCount {
  double per_layer = 0;          // one dense transformer layer incl. norms and biases
  double moe_layer_shared = 0;   // one MoE layer without its routed experts: attention, norms, router,
                                 // shared experts (sharded like a dense layer: by tp)
  double moe_layer_experts = 0;  // the routed experts of one MoE layer (sharded by ep·etp)
  double embedding = 0;          // token (+ learned position) embedding
  double position_table = 0;     // the learned position table inside `embedding`: replicated on every TP
                                 // rank (Megatron's position embedding is a plain torch.nn.Embedding;
                                 // only the word table is vocabulary-parallel)
  double head = 0;               // LM head if untied (0 if tied) + final norm
  int dense_layers = 0;          // layers of each kind in the whole model
  int moe_layers = 0;
  /// Parameters of `dense` dense layers and `moe` MoE layers (no embedding or head).
  [[nodiscard]] double layers(int dense, int moe) const {
    return per_layer * dense + (moe_layer_shared + moe_layer_experts) * moe;
  }
  [[nodiscard]] double total() const { return layers(dense_layers, moe_layers) + embedding + head; }
};
ParameterCount parameter_count(const TransformerSpec& m);

/// Parameters one token activates (MoE: top_k routed + shared experts; dense: all but the embedding
/// table lookups count). Embedding and head included.
double active_parameters(const TransformerSpec& m);

/// Model FLOPs of one training step for `tokens` tokens: 3x the forward FLOPs (Korthikanti Eq. 7),
/// generalised to GQA, SwiGLU, multi-head latent attention (2·s²·heads·(d_qk + d_v) per layer for the
/// full score matrix) and MoE layers (the top_k routed experts, shared experts and router a token runs).
Flops model_flops_per_step(const TransformerSpec& m, int seq_len, double sequences);

/// Bytes of the activation tensor passed between pipeline stages for one micro-batch (b·s·h elements).
Bytes boundary_activation_bytes(const TransformerSpec& m, const LayerShape& s);

}  // namespace clustersim
