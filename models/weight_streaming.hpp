// Weight streaming (Cerebras wafer-scale systems): the closed form of one training step.
//
// Weights live in an external store (MemoryX) and stream, piece by piece (embedding, each layer, head),
// through the broadcast/reduce fabric (SwarmX) into every wafer; gradients stream back and are reduced
// on the way; the optimizer runs in the store. The wafer's SRAM holds activations and the pieces in
// flight. With double buffering the next piece streams while the current one computes, so a pass over
// the pieces takes Σ_i n_i·max(c_i, s_i) with c_i the piece's compute and s_i its streaming time:
//   forward : s_i = W_i / B                     (weights in)
//   backward: s_i = max(W_i, G_i) / B           (weights in and gradients out at once, full duplex)
// with B the per-system stream bandwidth. Every micro-batch streams the weights again (forward and
// backward). At the step boundary the updated weights of the first piece must arrive before compute
// starts and the first piece's gradients (the last computed) must drain: W_1/B + G_1/B + the fabric's
// tree latency ⌈log2 N⌉·α are not hidden. Everything here is a pure function of its inputs.
#pragma once

#include <span>

#include "sim/core/units.hpp"

namespace clustersim {

/// One kind of streamed piece of the model (the embedding, a transformer layer, the head) and how many
/// of it a pass runs.
struct StreamedPiece {
  double count = 1;
  Seconds forward{0};   // compute of one forward pass of the piece for one micro-batch
  Seconds backward{0};  // compute of its backward pass (incl. recomputation)
  Bytes weights{0};     // streamed in per pass
  Bytes gradients{0};   // streamed out per backward pass
};

struct StreamedPass {
  Seconds time{0};       // Σ n·max(c, s)
  Seconds compute{0};    // Σ n·c
  Seconds streaming{0};  // Σ n·s
  [[nodiscard]] Seconds exposed() const { return time - compute; }
};

/// Forward pass over `pieces` in order at stream bandwidth `bandwidth` (bytes/s per direction).
StreamedPass streamed_forward(std::span<const StreamedPiece> pieces, BytesPerSecond bandwidth);
/// Backward pass: weights in and gradients out concurrently.
StreamedPass streamed_backward(std::span<const StreamedPiece> pieces, BytesPerSecond bandwidth);

/// The part of a step that is never hidden: fill of the first piece's weights, drain of its gradients
/// and the broadcast/reduce tree's latency over `systems` systems (⌈log2 systems⌉ hops of `hop_latency`
/// each way).
Seconds streaming_step_boundary(const StreamedPiece& first, BytesPerSecond bandwidth, int systems,
                                Seconds hop_latency);

}  // namespace clustersim
