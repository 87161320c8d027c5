// Time of a kernel on a device: roofline with shape-dependent achieved efficiency.
//
//   t = max(exec_flops / (peak(p) · eff), bytes / (hbm_bandwidth · memory_efficiency)) + kernel_overhead
//   GEMM:      eff = gemm_max · F / (F + F_half) · q_tile_wave(M, N, K)
//              (a grouped GEMM of G expert problems uses F / G, the FLOPs of one problem)
//   attention: eff = attention · L / (L + L_half) · d / (d + d_half)
//
// p is the kernel's own precision (FP8 training runs only its linear GEMMs at the FP8 peak:
// transformer_cost.hpp). The saturating F / (F + F_half) captures launch latency and the pipeline fill
// of small GEMMs; its constants are calibrated once per device against published runs (docs/model.md
// section 5), never per run. The shape terms are below, each with its source.
#pragma once

#include "models/device.hpp"
#include "models/transformer_cost.hpp"

namespace clustersim {

/// Split of a kernel sequence's time into compute-bound and memory-bound seconds (for energy states).
struct KernelTime {
  Seconds total{0};
  Seconds compute_bound{0};  // time of kernels limited by FLOP/s
  Seconds memory_bound{0};   // time of kernels limited by HBM bandwidth (incl. launch overhead)
  Flops exec_flops{0};
  Flops model_flops{0};
  KernelTime& operator+=(const KernelTime& o);
};

/// Tile and wave quantisation of a GEMM (NVIDIA Deep Learning Performance Guide, "Matrix Multiplication
/// Background", sections "Tile Quantization" and "Wave Quantization"): the output is computed in
/// tm x tn tiles, one per SM at a time, so a GEMM costs ceil(tiles / SMs) full waves of whole tiles.
/// Returns useful work / work paid for, in (0, 1], for the best of the tile shapes cuBLAS chooses from
/// for large GEMMs (128x128, 128x256, 256x128; CUTLASS default tile shapes for Ampere and Hopper); with
/// fewer tiles than SMs the reduction is split (split-K) over the idle SMs. 1 when the shape or the SM
/// count is unknown.
double gemm_wave_efficiency(int sm_count, double m, double n, double k, double batch = 1.0);

/// Flash-attention efficiency relative to long sequences and large heads, in (0, 1]:
///   L / (L + L_half) · d / (d + d_half)
/// L = keys a query tile iterates over per call. The sequence term is a fixed per-tile cost of about two
/// 128-key blocks (prologue, epilogue, writing O): L_half = DeviceEfficiency::attention_half_keys, 240 on
/// every entry but Blackwell's (docs/model.md, "Attention on Blackwell"), fitted to FlashAttention-3 forward
/// TFLOP/s on H100 at head dim 128 and 16K tokens per batch (pytorch/benchmark commit ff65cb6, "Fix dimension
/// order for FlashAttention-3": 430, 517, 566, 590, 614, 621 TFLOP/s at s = 512 ... 16K, within 2 % of the
/// fit), the same shape as FlashAttention-2 on A100 (Dao 2023, Figure 4: TFLOP/s rise with sequence
/// length from 512 to 16K and are lower at head dim 64 than 128). The head-dim term is the exponential
/// cost per score (DeviceEfficiency::attention_half_head_dim).
double attention_shape_efficiency(const DeviceEfficiency& e, double keys, double head_dim);

/// Efficiency (fraction of the FP8 peak) of an FP8 GEMM with blockwise scaling — 1x128 activation tiles,
/// 128x128 weight blocks, tensor-core partial sums promoted to FP32 on CUDA cores every 128 elements of K
/// (DeepSeek-V3 §3.3.2; DeepGEMM):
///   0.7388 · K / (K + 726) · q_tile_wave(M, N, K, batch)
/// Every output tile pays a fixed cost (pipeline prologue, the promotion drain, the BF16 epilogue) worth
/// ~726 elements of its K loop, so short reductions run far below the peak (K = 512: 0.30) however large
/// M and N are. Both constants are fitted to DeepGEMM's published H800 TFLOP/s (its first release's
/// README: the ten compute-bound dense and contiguous grouped rows, all within 2.1 %); they describe
/// DeepGEMM on Hopper and replace the per-tensor constants gemm_max · F / (F + F_half) for such GEMMs.
double blockwise_fp8_gemm_efficiency(int sm_count, double m, double n, double k, double batch = 1.0);

KernelTime kernel_time(const DeviceSpec& d, const Kernel& k);
KernelTime kernels_time(const DeviceSpec& d, const LayerKernels& ks);

/// Slowdown of compute kernels while a collective runs under them for `overlapped` seconds:
///   overlapped · (c · min(1, 16 / SMs) + (1 − c) · min(1, 2 · B_comm / (HBM bandwidth · memory_efficiency)))
/// c = compute-bound share of the overlapped kernels' time. NCCL runs one CTA per channel, each on an
/// SM of its own that compute kernels cannot share, and uses 16 SMs on a DGX-class node (8 NICs,
/// NVLink; S. Jeaugey in github.com/NVIDIA/nccl/issues/689): compute-bound kernels lose that share of the
/// SMs. NCCL stages the data it moves through HBM, storing then reading it back, so a collective at B_comm
/// takes at least 2·B_comm of HBM bandwidth (S. Jeaugey in github.com/NVIDIA/nccl/issues/1428, where kernels
/// overlapping an A100 all-gather ran 1.8x longer): memory-bound kernels lose that share. 0 for
/// devices without an SM count. `comm_sms` > 0 replaces the 16 SMs by the count a communication library
/// is given (DeepSeek-V3 §3.2.2: its all-to-all kernels run on 20 of the H800's 132 SMs).
Seconds overlap_slowdown(const DeviceSpec& d, Seconds overlapped, double compute_bound_share,
                         BytesPerSecond comm_bandwidth, double comm_sms = 0.0);

/// Slowdown of compute-bound kernels launched on sm_count − comm_sms SMs because a communication library
/// holds comm_sms of them for the whole layer (a fixed SM partition rather than SMs taken only while the
/// collective runs): compute_bound · comm_sms / (SMs − comm_sms). DeepSeek's DualPipe does this: in
/// deepseek-ai/profile-data train.json (one overlapped forward/backward chunk pair of DeepSeek-V3, EP64)
/// every FP8 GEMM is launched with 112 blocks on the 132-SM H800 while the DeepEP kernels hold 20 (V3
/// report §3.2.2). 0 for devices without an SM count; comm_sms ≤ 0 means the 16 of overlap_slowdown.
Seconds reserved_sm_slowdown(const DeviceSpec& d, Seconds compute_bound, double comm_sms);

/// Time of a purely bandwidth-bound pass over `bytes` of HBM traffic (optimizer step, copies).
Seconds memory_pass_time(const DeviceSpec& d, Bytes bytes);

}  // namespace clustersim
