// Kernels a selective-recomputation policy re-runs before a layer's backward (training_options.hpp,
// SelectivePolicy). The attention-core policy is the attention_core flag of each kernel; this file holds
// torchtitan's op-level policy.
#pragma once

#include "models/transformer.hpp"
#include "models/transformer_cost.hpp"

namespace clustersim {

/// Kernels torchtitan's op-level selective activation checkpointing re-runs before the backward of one
/// layer, from the layer's forward kernels `fwd` (torchtitan parallelisms/parallelize_llama.py, 2024:
/// `_save_list` = {aten.mm, SDPA flash/efficient, reduce_scatter}; the policy saves their outputs except
/// every second aten.mm of a block and recomputes every other op):
///  - every element-wise kernel (norms, activation, residual adds) and every FP8 input cast;
///  - a flash-attention kernel is saved; an unfused attention core (bmm, softmax) is recomputed;
///  - linear GEMMs: with FP8 (torch._scaled_mm is not in the save list) all of them; otherwise every
///    second mm of the block in execution order. torchtitan's Llama block runs wq, wk, wv, wo, then w1,
///    w3, w2 (SwiGLU) or w1, w2 (GELU), so wk, wo and w3 (SwiGLU) or w2 (GELU) are recomputed: the K share
///    of the fused QKV GEMM, the output projection, and half of the SwiGLU input GEMM or the GELU output
///    GEMM. GEMMs of other blocks (MLA projections, shared experts) recompute half of each; grouped expert
///    GEMMs (_grouped_mm, not saved) all.
LayerKernels op_sac_recompute_kernels(const TransformerSpec& m, const LayerShape& s, const LayerKernels& fwd);

/// Kernels JAX's checkpoint_dots_with_no_batch_dims (MaxText remat_policy 'minimal'; SelectivePolicy::dots)
/// re-runs before the backward of one layer, from its forward kernels `fwd`: every kernel that is not a
/// weight matmul — element-wise kernels (norms, activation function, residual adds, FP8 casts) and the
/// attention core (the flash kernel, whose output and log-sum-exp are not dots; unfused, its QK^T and PV
/// einsums, which have batch dimensions) — and grouped expert GEMMs (batched over experts). Linear GEMMs
/// are not re-run: their outputs are saved.
LayerKernels dots_recompute_kernels(const LayerKernels& fwd);

}  // namespace clustersim
