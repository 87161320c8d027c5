#include <algorithm>

#include "sim/collectives/algorithm_phases.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim {

Dimensions hierarchy_dimensions(const TopologyGraph& g, const PhaseRequest& r) {
  Dimensions d;
  if (!r.torus_dims.empty() && static_cast<int>(r.ranks.size()) == g.device_count()) {
    std::vector<int> sorted = r.ranks;
    std::sort(sorted.begin(), sorted.end());
    d.sizes = r.torus_dims;
    d.order = sorted;
    d.bidirectional = true;
    return d;
  }
  const auto by_node = ranks_by_node(g, r.ranks);
  const int k = ranks_per_node(by_node);
  if (by_node.size() < 2 || k < 2) return d;
  d.sizes = {k, static_cast<int>(by_node.size())};
  for (const auto& n : by_node) d.order.insert(d.order.end(), n.begin(), n.end());
  return d;
}

namespace {

// All lines of the mixed-radix grid along dimension `dim`.
std::vector<std::vector<int>> lines(const Dimensions& d, std::size_t dim) {
  std::size_t stride = 1;
  for (std::size_t i = 0; i < dim; ++i) stride *= static_cast<std::size_t>(d.sizes[i]);
  const auto len = static_cast<std::size_t>(d.sizes[dim]);
  std::vector<std::vector<int>> out;
  for (std::size_t base = 0; base < d.order.size(); ++base) {
    if ((base / stride) % len != 0) continue;
    std::vector<int> line;
    for (std::size_t i = 0; i < len; ++i) line.push_back(d.order[base + i * stride]);
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace

std::vector<Phase> hierarchical_phases(const TopologyGraph& g, const PhaseRequest& r) {
  const Dimensions d = hierarchy_dimensions(g, r);
  CS_ASSERT(!d.sizes.empty(), "hierarchical needs dimensions");
  const bool scatter = r.op == CollectiveOp::all_reduce || r.op == CollectiveOp::reduce_scatter;
  const bool gather = r.op == CollectiveOp::all_reduce || r.op == CollectiveOp::all_gather;
  CS_ASSERT(scatter || gather, "hierarchical implements all-reduce, reduce-scatter, all-gather");
  std::vector<double> level_bytes;  // buffer each line works on at dimension i
  double b = r.bytes;
  for (int size : d.sizes) {
    level_bytes.push_back(b);
    b /= size;
  }
  std::vector<Phase> out;
  for (std::size_t i = 0; scatter && i < d.sizes.size(); ++i) {
    if (d.sizes[i] < 2) continue;
    out.push_back(ring_pass(lines(d, i), level_bytes[i], "reduce-scatter dim " + std::to_string(i), d.bidirectional));
  }
  for (std::size_t i = d.sizes.size(); gather && i-- > 0;) {
    if (d.sizes[i] < 2) continue;
    out.push_back(ring_pass(lines(d, i), level_bytes[i], "all-gather dim " + std::to_string(i), d.bidirectional));
  }
  return out;
}

}  // namespace clustersim
