#include "sim/engine/flow/rank_layout.hpp"

#include "sim/core/diagnostics.hpp"

namespace clustersim::flow {

RankLayout::RankLayout(const ParallelismSpec& par)
    : tp_(par.tp), pp_(par.pp), replicas_(par.dp * par.cp) {}

RankLayout::RankLayout(const ParallelismSpec& par, std::vector<int> devices) : RankLayout(par) {
  CS_ASSERT(devices.empty() || static_cast<int>(devices.size()) == ranks(), "placement must list every rank");
  devices_ = std::move(devices);
}

int RankLayout::device(int stage, int replica, int t) const {
  const int r = rank(stage, replica, t);
  return devices_.empty() ? r : devices_[static_cast<std::size_t>(r)];
}

}  // namespace clustersim::flow
