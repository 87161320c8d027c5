#include "sim/collectives/collective_sweep.hpp"

#include <cmath>
#include <stdexcept>

#include "sim/collectives/multislice.hpp"

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

std::vector<CollectiveRow> sweep_multislice_all_reduce(const CollectiveModel& slice, const ClusterSpec& cluster,
                                                       const CollectiveSweepSpec& spec) {
  const int n = slice_count(cluster);
  const int d = slice.graph().device_count();
  if (n < 2 || spec.op != CollectiveOp::all_reduce || spec.ranks != n * d) {
    throw std::invalid_argument("a multi-slice sweep is an all-reduce over all " + std::to_string(n * d) + " chips");
  }
  CollectiveSweepSpec part = spec;
  part.ranks = d;
  part.op = CollectiveOp::reduce_scatter;
  const std::vector<CollectiveRow> rs = sweep_collective(slice, part);
  part.op = CollectiveOp::all_gather;
  const std::vector<CollectiveRow> ag = sweep_collective(slice, part);
  std::vector<CollectiveRow> rows;
  const double N = static_cast<double>(n) * d;
  for (std::size_t i = 0; i < rs.size() && i < ag.size(); ++i) {
    CollectiveRow row;
    row.size = rs[i].size;
    row.count = rs[i].count;
    row.ici = rs[i].estimate.time + ag[i].estimate.time;
    row.dcn = dcn_all_reduce_time(cluster, row.size / static_cast<double>(d));
    CollectiveEstimate& e = row.estimate;
    e.algorithm = rs[i].estimate.algorithm;
    e.time = row.ici + row.dcn;
    e.phases = rs[i].estimate.phases;
    e.phases.insert(e.phases.end(), ag[i].estimate.phases.begin(), ag[i].estimate.phases.end());
    e.algbw = e.time.value() > 0 ? row.size.value() / e.time.value() : 0.0;
    e.busbw = e.algbw * 2.0 * (N - 1.0) / N;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace clustersim
