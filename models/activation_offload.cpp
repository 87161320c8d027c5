#include "models/activation_offload.hpp"

#include <algorithm>
#include <vector>

namespace clustersim {

OffloadPassTime offload_forward_time(int layers, int offloaded, Seconds layer_forward, Seconds copy) {
  OffloadPassTime r;
  if (offloaded <= 0 || layers <= offloaded) return r;
  const double f = layer_forward.value(), c = copy.value();
  std::vector<double> done(static_cast<std::size_t>(offloaded), 0.0);
  double t = 0.0, stream = 0.0, waited = 0.0;  // compute clock; offload stream free from; waits
  for (int j = 0; j < layers; ++j) {
    // fwd_step(j): layer j - 1's copy is queued (its tensors are ready when its forward ended) ...
    if (j >= 1 && j - 1 < offloaded) {
      stream = std::max(stream, t) + c;
      done[static_cast<std::size_t>(j - 1)] = stream;
    }
    // ... then the compute stream waits for the copy due before this layer's forward.
    const int due = j - (layers - offloaded);
    if (due >= 0 && done[static_cast<std::size_t>(due)] > t) {
      waited += done[static_cast<std::size_t>(due)] - t;
      t = done[static_cast<std::size_t>(due)];
    }
    t += f;
  }
  r.exposed = Seconds(waited);
  r.busy = Seconds(offloaded * c);
  return r;
}

OffloadPassTime offload_backward_time(int layers, int offloaded, Seconds layer_backward, Seconds copy) {
  OffloadPassTime r;
  if (offloaded <= 0 || layers <= offloaded) return r;
  const double b = layer_backward.value(), c = copy.value();
  std::vector<double> done(static_cast<std::size_t>(offloaded), 0.0);
  double t = 0.0, stream = 0.0, waited = 0.0;
  for (int j = layers - 1; j >= 0; --j) {
    // bwd_step(j): the reload mapped to this layer is queued behind the compute stream's work so far.
    const int reload = j - (layers - 1 - offloaded);
    if (reload >= 0 && reload < offloaded) {
      stream = std::max(stream, t) + c;
      done[static_cast<std::size_t>(reload)] = stream;
    }
    if (j < offloaded && done[static_cast<std::size_t>(j)] > t) {
      waited += done[static_cast<std::size_t>(j)] - t;
      t = done[static_cast<std::size_t>(j)];
    }
    t += b;
  }
  r.exposed = Seconds(waited);
  r.busy = Seconds(offloaded * c);
  return r;
}

}  // namespace clustersim
