// Dependency and lifetime rules between pipeline ops.
//
// Virtual stages: the model's layers run through virtual stages 0 .. V-1 in order, each a slice of
// layers / V layers. With v chunks per stage, chunk c on pipeline stage s is virtual stage k = c * p + s
// (round-robin chunk assignment, Narayanan et al. SC'21 Section 2.2.2), V = v * p; without interleaving
// k = s. DualPipe (two chunks per stage) maps chunk 0 on stage s to model stage s and chunk 1 to model
// stage p-1-s, V = p: the forward direction (chunk 0) runs the model from stage 0 to p-1 and the reverse
// direction (chunk 1) from stage p-1 to 0 (DeepSeek-AI 2024, arXiv:2412.19437 Section 3.2.1).
// V-Half (two chunks per stage in V placement) maps chunk 0 on stage s to virtual stage s and chunk 1 to
// 2p-1-s, V = 2p: a microbatch runs stages 0..p-1 on chunk 0, then p-1..0 on chunk 1, so the turn of the V
// (virtual stages p-1 and p) and the loss's first and last layers (0 and 2p-1) share a device (Qi et al.
// 2024, arXiv:2405.15362; zbv_greedy.py's layer_group_idx).
//
// Data dependencies (the op whose output an op consumes):
//   forward  of mb on virtual stage k   <- forward of mb on k-1 (none for k = 0: it reads the batch)
//   backward of mb on virtual stage k   <- backward of mb on k+1; on the last virtual stage, its own
//                                          forward (the loss)
//   backward_input on k                 <- backward_input of mb on k+1 (or own forward on the last)
//   backward_weight                     <- backward_input of the same mb and chunk, same stage
// In DualPipe "k-1" and "k+1" are taken in the chunk of the microbatch's direction, so a forward-direction
// op reads from stage s-1 and a reverse-direction op from stage s+1.
// Every backward also reads the activations its own forward stored; that forward always precedes it in
// the stage's op order, so it is a same-stage ordering, not listed here.
#pragma once

#include <optional>

#include "schedules/pipeline_op.hpp"
#include "schedules/pipeline_schedule.hpp"
#include "sim/core/units.hpp"

namespace clustersim {

struct OpRef {
  int stage = 0;  // physical pipeline stage that runs `op`
  PipelineOp op;

  friend bool operator==(const OpRef&, const OpRef&) = default;
};

/// The model stage (virtual stage) that `chunk` of pipeline stage `stage` computes: chunk * p + stage,
/// or for dualpipe stage (chunk 0) and p-1-stage (chunk 1). No checks (callers pass a valid spec with
/// 0 <= stage < p, 0 <= chunk < spec.chunks). O(1).
inline int virtual_stage(const ScheduleSpec& spec, int stage, int chunk) {
  if (spec.kind == ScheduleKind::dualpipe) return chunk == 0 ? stage : spec.stages - 1 - stage;
  if (spec.kind == ScheduleKind::v_half) return chunk == 0 ? stage : 2 * spec.stages - 1 - stage;
  return chunk * spec.stages + stage;
}

/// Number of virtual stages the model's layers are divided into: v * p (2p for v-half), or p for dualpipe
/// (its two chunks per stage are two copies of the model, not a finer split). Each holds layers / this
/// count.
inline int virtual_stage_count(const ScheduleSpec& spec) {
  return spec.kind == ScheduleKind::dualpipe ? spec.stages : spec.chunks * spec.stages;
}

/// The op whose output `op` (run on `stage`) consumes; std::nullopt for a forward of virtual stage 0.
/// Preconditions (std::invalid_argument otherwise): is_valid(spec), 0 <= stage < p,
/// 0 <= op.microbatch < m, 0 <= op.chunk < v, op.kind is a kind the schedule uses
/// (backward_input/backward_weight only in zb-h1 and dualpipe, backward only outside them); in dualpipe
/// op.chunk is the microbatch's direction, op.microbatch / (m/2). O(1), no allocation.
std::optional<OpRef> data_dependency(const ScheduleSpec& spec, int stage, const PipelineOp& op);

/// data_dependency() without its precondition checks, for callers that checked is_valid(spec) once and
/// pass only ops of that schedule (the graph builder resolves every op of a step through it). Violating
/// the preconditions gives an unspecified OpRef, never an exception. O(1), no allocation.
inline std::optional<OpRef> unchecked_data_dependency(const ScheduleSpec& spec, int stage,
                                                      const PipelineOp& op) {
  const int p = spec.stages;
  if (spec.kind == ScheduleKind::dualpipe) {
    // The neighbour in the microbatch's direction: stage s-1 feeds chunk 0's forward, s+1 chunk 1's.
    const int upstream = op.chunk == 0 ? -1 : 1;
    const int k = virtual_stage(spec, stage, op.chunk);
    switch (op.kind) {
      case OpKind::forward:
        if (k == 0) return std::nullopt;
        return OpRef{stage + upstream, op};
      case OpKind::backward:
      case OpKind::backward_input:
        if (k == p - 1) return OpRef{stage, {OpKind::forward, op.microbatch, op.chunk}};
        return OpRef{stage - upstream, op};
      case OpKind::backward_weight:
        return OpRef{stage, {OpKind::backward_input, op.microbatch, op.chunk}};
    }
    return std::nullopt;
  }
  if (spec.kind == ScheduleKind::v_half) {
    // Virtual stage j runs on stage j (chunk 0) for j < p, else on stage 2p-1-j (chunk 1).
    const int k = virtual_stage(spec, stage, op.chunk);
    const auto at = [&](int j, OpKind kind) {
      return j < p ? OpRef{j, {kind, op.microbatch, 0}} : OpRef{2 * p - 1 - j, {kind, op.microbatch, 1}};
    };
    switch (op.kind) {
      case OpKind::forward:
        if (k == 0) return std::nullopt;
        return at(k - 1, OpKind::forward);
      case OpKind::backward:
      case OpKind::backward_input:
        if (k == 2 * p - 1) return OpRef{stage, {OpKind::forward, op.microbatch, op.chunk}};
        return at(k + 1, op.kind);
      case OpKind::backward_weight:
        return OpRef{stage, {OpKind::backward_input, op.microbatch, op.chunk}};
    }
    return std::nullopt;
  }
  const int virtual_stage = op.chunk * p + stage;
  switch (op.kind) {
    case OpKind::forward: {
      if (virtual_stage == 0) return std::nullopt;
      const int k = virtual_stage - 1;
      return OpRef{k % p, {OpKind::forward, op.microbatch, k / p}};
    }
    case OpKind::backward:
    case OpKind::backward_input: {
      if (virtual_stage == spec.chunks * p - 1)
        return OpRef{stage, {OpKind::forward, op.microbatch, op.chunk}};
      const int k = virtual_stage + 1;
      return OpRef{k % p, {op.kind, op.microbatch, k / p}};
    }
    case OpKind::backward_weight:
      return OpRef{stage, {OpKind::backward_input, op.microbatch, op.chunk}};
  }
  return std::nullopt;
}

/// Whether consuming `dep` on `consumer_stage` needs a point-to-point transfer between devices
/// (false when producer and consumer are the same physical stage, e.g. a backward reading its forward,
/// a W reading its B, or two chunks on one stage when p = 1).
inline bool crosses_stage(int consumer_stage, const OpRef& dep) {
  return dep.stage != consumer_stage;
}

/// Peak number of (microbatch, chunk) activation sets that `stage` holds at once under this schedule,
/// in units of one chunk's activations of one microbatch, as a walk of the stage's op order counts it: a
/// forward adds one; the fused backward, or for split backwards the backward_weight, releases it.
/// Closed forms (checked by tests): gpipe m; 1f1b min(p - s, m); interleaved-1f1b
/// min(2(p - s - 1) + (v - 1)p + 1, v m), i.e. v p + p - 1 on stage 0 = p (1 + (p-1)/(p v)) stage-sized
/// units (the interleaved-schedule factor of Korthikanti et al. 2022, arXiv:2205.05198); zb-h1 min(p, m)
/// on every stage, counting a microbatch until its W (Qi et al. 2024, Section 2.1: "all workers
/// maintain the same number of in-flight microbatches"); v-half by the walk (p + 1 chunk sets on stage 0
/// with m >= p and even p: (p + 2)/2 microbatches' worth of a whole stage, against 1F1B's p).
/// Preconditions as build_schedule plus 0 <= stage < p. O(1) with fused backwards (from the warm-up
/// count), O(ops on the stage) for zb-h1; no allocation.
int peak_inflight_activations(const ScheduleSpec& spec, int stage);

/// Peak activation memory of `stage` when a forward stores `per_forward` (M_B) and, for split
/// backwards, the backward_input frees all of it but `kept_for_weight_grad` (M_W), which the
/// backward_weight frees (Qi et al. 2024, Section 2.3 and Table 1). For zb-h1 with m >= p this gives
/// their (p - s) M_B + s M_W on stage s, whose maximum, p M_B on stage 0, equals 1f1b's (Table 2).
/// For fused backwards `kept_for_weight_grad` is unused. With kept_for_weight_grad = per_forward this is
/// peak_inflight_activations() * per_forward. Precondition: both >= 0, plus those of
/// peak_inflight_activations(). O(ops on the stage), no allocation.
Bytes peak_activation_memory(const ScheduleSpec& spec, int stage, Bytes per_forward,
                             Bytes kept_for_weight_grad);

}  // namespace clustersim
