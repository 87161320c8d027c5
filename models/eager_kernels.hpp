// Element-wise work that eager PyTorch (no torch.compile) adds to a transformer layer: the fused kernels
// of models/transformer_cost.cpp become the separate passes of the model code. Counted from torchtitan's
// Llama code (torchtitan/models/norms.py RMSNorm, torchtitan/models/llama/model.py apply_rotary_emb and
// FeedForward, 2024); docs/model.md, "Eager element-wise kernels".
#pragma once

#include "models/transformer.hpp"
#include "models/transformer_cost.hpp"

namespace clustersim {

/// Extra HBM bytes per element of an eager RMSNorm over the fused norm's 2e: x.float() (2 B read, 4 B
/// written), pow(2) (4 + 4), mean (4), x * rsqrt (4 + 4), type_as (4 + 2), * weight (2 + 2) = 36 B,
/// against 4 B (read and write BF16) for one fused pass.
inline constexpr double kEagerRmsNormExtraBytes = 36.0 - 4.0;
/// Bytes per element of eager rotary embedding on q and k: float() (2 + 4), complex multiply (4 + 4),
/// type_as (4 + 2). The fused (compiled) layer charges no separate rotary pass.
inline constexpr double kEagerRopeBytes = 20.0;
/// Extra bytes per element of the MLP inner width for eager SwiGLU, silu(w1 x) * w3 x: silu (2 + 2) and
/// the product (2 + 2 read, 2 written) = 10 B against the fused kernel's 6 B (2 B of each of w1 x, w3 x
/// read and 2 B written).
inline constexpr double kEagerSwigluExtraBytes = 10.0 - 6.0;

/// Appends to `ks` (the forward kernels of one dense layer) the extra element-wise kernels of eager
/// execution: the two norms' extra passes (RMSNorm only; a LayerNorm runs as one ATen kernel), rotary
/// embedding of q and k (rotary positions only), and the SwiGLU product (SwiGLU only).
void add_eager_elementwise(LayerKernels& ks, const TransformerSpec& m, const LayerShape& s);

}  // namespace clustersim
