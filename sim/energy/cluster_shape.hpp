// How many nodes and devices the energy model accounts for (a projection of ClusterSpec, so this
// layer stays independent of the config types).
#pragma once

namespace clustersim {

struct ClusterShape {
  int nodes = 1;             // > 0
  int devices_per_node = 8;  // > 0

  [[nodiscard]] long long devices() const { return static_cast<long long>(nodes) * devices_per_node; }
};

}  // namespace clustersim
