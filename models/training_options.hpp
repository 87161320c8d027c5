// Training-recipe choices that the cost and memory models depend on.
#pragma once

namespace clustersim {

enum class Recompute { none, selective, full };  // Korthikanti et al. 2022 §5
enum class Optimizer { adam, sgd };

// Which fused (flash) attention kernel a framework runs. The cost model's attention efficiency
// (DeviceEfficiency::attention_efficiency) is FlashAttention-2's; the others run at a fraction of it
// (attention_kernel_rate, models/transformer_cost.cpp).
enum class AttentionKernel { flash2, flash1, triton_flash };

/// Throughput of `k`'s forward and backward kernels relative to FlashAttention-2 on the same shape.
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
      break;
  }
  return {};
}

}  // namespace clustersim
