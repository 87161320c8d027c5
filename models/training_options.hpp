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
//  - layer: every k-th transformer block fully recomputed (torchtitan selective_ac_option = "k").
enum class SelectivePolicy { attention, op, layer };

// FP8 scaling recipe of the linear layers (docs/model.md, "FP8 scaling recipes"):
//  - delayed: Transformer Engine, amax from history, one fused cast-transpose per GEMM input;
//  - tensorwise: dynamic per-tensor scaling (torchao Float8Linear default): an amax pass, then the cast;
//  - rowwise: dynamic per-row scaling (torchao "rowwise"): each input is scaled along both axes (an amax
//    and a cast per axis) and the GEMM runs CUTLASS's row-wise scaled kernel.
enum class Fp8Scaling { delayed, tensorwise, rowwise };

}  // namespace clustersim
