// Training-recipe choices that the cost and memory models depend on.
#pragma once

namespace clustersim {

enum class Recompute { none, selective, full };  // Korthikanti et al. 2022 §5
enum class Optimizer { adam, sgd };

// What "selective" recomputation re-runs before the backward (docs/model.md, "Selective recomputation
// policies"):
//  - attention: the attention core only (Korthikanti et al. 2022 §5; nothing with flash attention);
//  - op: torchtitan's op-level SAC (torchtitan parallelisms/parallelize_llama.py, 2024: the outputs of
//    aten.mm, SDPA and reduce_scatter are saved except every second mm of a block; everything else,
//    the FP8 _scaled_mm included, is recomputed);
//  - layer: every k-th transformer block fully recomputed (torchtitan selective_ac_option = "k");
//  - core_attn: Megatron-Core's `--recompute-modules core_attn` (its default module list): the core
//    attention module runs under tensor_parallel.checkpoint, so its forward runs again before the
//    backward, and with Transformer Engine that module is the fused (flash) attention kernel itself
//    (NVIDIA/Megatron-LM d98e8a64dd, megatron/core/transformer/attention.py: checkpoint_core_attention
//    and _checkpointed_attention_forward; transformer_config.py: recompute_modules defaults to
//    ["core_attn"]). Unfused attention: the same kernels as `attention`; flash attention: the flash
//    forward once more.
//  - dots: JAX's jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims (MaxText remat_policy
//    'minimal', MaxText/layers/models.py at 76bd53b0f): the outputs of the weight matmuls (dot_generals
//    without batch dimensions) and the layer's input (the scanned carry) are saved, everything else is
//    recomputed before the backward: norms, activation functions, residual adds, the attention core
//    (its QK^T and PV einsums have batch dimensions; the Pallas flash kernel's output and log-sum-exp are
//    not dots), and the tensor-parallel gathers of the GEMM inputs. Dense, non-MLA layers only.
enum class SelectivePolicy { attention, op, layer, core_attn, dots };

// What an FP8 linear layer keeps of its input for the backward (memory, and the bytes activation offloading
// moves; docs/model.md, "what FP8 layers keep"), in FP8 training without the DeepSeek-V3 activation cache:
//  - fp8: the FP8 cast it made for the forward GEMM (Transformer Engine; torchao up to v0.8 tensor-wise);
//  - fp8_bf16_proj: as fp8, but under any recipe other than delayed the attention output projection keeps
//    its original BF16 input, the tensor the attention backward holds anyway (Megatron-Core from 0.15 with
//    Transformer Engine from 2.6: set_save_original_input on linear_proj);
//  - bf16: the BF16 input (torchao's Float8Linear from v0.9).
enum class Fp8SavedInputs { fp8, fp8_bf16_proj, bf16 };

// FP8 scaling recipe of the linear layers (docs/model.md, "FP8 scaling recipes"):
//  - delayed: Transformer Engine, amax from history, one fused cast-transpose per GEMM input;
//  - tensorwise: dynamic per-tensor scaling (torchao Float8Linear default): an amax pass, then the cast;
//  - rowwise: dynamic per-row scaling (torchao "rowwise"): each input is scaled along both axes (an amax
//    and a cast per axis) and the GEMM runs CUTLASS's row-wise scaled kernel.
//  - blockwise: DeepSeek-V3 §3.3.2 1x128 activation tiles and 128x128 weight blocks with partial sums
//    promoted to CUDA cores every 128 elements of K (DeepGEMM kernels; GEMM speed from
//    blockwise_fp8_gemm_efficiency, models/roofline.hpp); its casts are fused into the producing kernels
//    and counted as one cast-transpose pass, as delayed scaling.
//  - mxfp8: OCP microscaling (Blackwell block-scaled tensor cores): one E8M0 scale per 32 consecutive
//    elements along K. Transformer Engine's MXFP8Quantizer writes a row-wise and a column-wise FP8 copy,
//    each with its scales, in one pass (the column-wise copy is quantised from the high-precision tensor,
//    not transposed: its blocks run along the other axis), so a cast moves 2 + 1 + 1 + 2/32 bytes per
//    element (NVIDIA/TransformerEngine v2.7 transformer_engine/pytorch/tensor/mxfp8_tensor.py,
//    common/util/cast_kernels.cuh). Its GEMMs run at the per-tensor FP8 rate (no published difference).
enum class Fp8Scaling { delayed, tensorwise, rowwise, blockwise, mxfp8 };
// Which fused (flash) attention kernel a framework runs (docs/model.md, "Attention kernels"):
//  - native: the kernel the device's `attention` efficiency was set for (the default): FlashAttention-2
//    on A100 (Dao 2023), Transformer Engine's cuDNN fused attention on H100/H200/H800 (fitted on
//    Megatron-Core runs; TE selects FusedAttention over flash-attn on sm90 since v1.2, 2023-12:
//    NVIDIA/TransformerEngine 32db39288, transformer_engine/pytorch/attention.py "Select FusedAttention
//    on sm90 ... for performance"; documented in 43569381c, 2024-06; extended to every capability >= sm90,
//    Blackwell included, in 4f33ece48, 2025-03);
//  - cudnn: cuDNN's fused attention (TE FusedAttention, PyTorch's cuDNN SDPA backend): rate 1 of the
//    device constant (on devices whose constant is FlashAttention-2's this equates the two: assumed);
//  - flash2 / flash1 / triton_flash: FlashAttention-2, FlashAttention (v1) and the Triton FlashAttention,
//    at the device's `attention_flash2_rate` (FlashAttention-2 against the native kernel; 1 where the
//    native kernel is FlashAttention-2) times their rate against FlashAttention-2 below.
enum class AttentionKernel { native, flash2, flash1, triton_flash, cudnn };

/// Throughput of `k`'s forward and backward kernels relative to FlashAttention-2 on the same shape
/// (`native` and `cudnn`: relative to the device's own attention rate, see flash2_family).
/// Dao 2023 (FlashAttention-2, arXiv 2307.08691) §4.1, A100: FlashAttention-2 is "around 2x faster than
/// FlashAttention" (v1, forward and backward) and "around 1.3-1.5x faster than FlashAttention in Triton in
/// the forward pass and around 2x faster in the backward pass": flash1 0.5 / 0.5, triton_flash 1/1.4
/// (the middle of 1.3-1.5) / 0.5. Measured on A100 only; other devices are given the same ratios.
struct AttentionKernelRate {
  double forward = 1.0;
  double backward = 1.0;
};
constexpr AttentionKernelRate attention_kernel_rate(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::flash1:
      return {.forward = 0.5, .backward = 0.5};
    case AttentionKernel::triton_flash:
      return {.forward = 1.0 / 1.4, .backward = 0.5};
    case AttentionKernel::flash2:
    case AttentionKernel::native:
    case AttentionKernel::cudnn:
      break;
  }
  return {};
}

/// Whether `k` is a FlashAttention-2-derived kernel, whose rate the device's attention_flash2_rate scales
/// (models/roofline.cpp).
constexpr bool flash2_family(AttentionKernel k) {
  return k == AttentionKernel::flash2 || k == AttentionKernel::flash1 || k == AttentionKernel::triton_flash;
}

}  // namespace clustersim
