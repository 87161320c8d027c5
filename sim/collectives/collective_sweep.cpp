#include "sim/collectives/collective_sweep.hpp"

#include <cmath>
#include <stdexcept>

namespace clustersim {

std::vector<CollectiveRow> sweep_collective(const CollectiveModel& m, const CollectiveSweepSpec& spec) {
  if (spec.ranks < 2 || spec.ranks > m.graph().device_count()) {
    throw std::invalid_argument("--ranks " + std::to_string(spec.ranks) + ": expected 2.." +
                                std::to_string(m.graph().device_count()) + " (the cluster's devices)");
  }
  if (!(spec.factor > 1.0)) throw std::invalid_argument("--factor must be > 1");
  if (!(spec.min.value() > 0.0) || spec.max < spec.min) throw std::invalid_argument("expected 0 < --min <= --max");
  CollectiveRequest req;
  req.op = spec.op;
  req.algorithm = spec.algorithm;
  req.ring_order = spec.ring_order;
  req.ranks = strided_group(spec.ranks);
  std::vector<CollectiveRow> rows;
  for (double s = spec.min.value(); s <= spec.max.value() * (1.0 + 1e-12); s *= spec.factor) {
    CollectiveRow row;
    // nccl-tests rounds the size down to whole elements per rank for the split operations.
    const double element = spec.element.value();
    row.count = static_cast<long long>(std::floor(s / element));
    row.size = Bytes(static_cast<double>(row.count) * element);
    req.bytes = row.size;
    row.estimate = m.estimate(req);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace clustersim
