#include "models/weight_streaming.hpp"

#include <algorithm>
#include <cmath>

namespace clustersim {

StreamedPass streamed_forward(std::span<const StreamedPiece> pieces, BytesPerSecond bandwidth) {
  StreamedPass p;
  for (const StreamedPiece& x : pieces) {
    const Seconds s = x.weights / bandwidth;
    p.time += max(x.forward, s) * x.count;
    p.compute += x.forward * x.count;
    p.streaming += s * x.count;
  }
  return p;
}

StreamedPass streamed_backward(std::span<const StreamedPiece> pieces, BytesPerSecond bandwidth) {
  StreamedPass p;
  for (const StreamedPiece& x : pieces) {
    const Seconds s = max(x.weights, x.gradients) / bandwidth;
    p.time += max(x.backward, s) * x.count;
    p.compute += x.backward * x.count;
    p.streaming += s * x.count;
  }
  return p;
}

Seconds streaming_step_boundary(const StreamedPiece& first, BytesPerSecond bandwidth, int systems,
                                Seconds hop_latency) {
  const double hops = systems > 1 ? std::ceil(std::log2(static_cast<double>(systems))) : 0.0;
  return first.weights / bandwidth + first.gradients / bandwidth + hop_latency * (2.0 * hops);
}

}  // namespace clustersim
