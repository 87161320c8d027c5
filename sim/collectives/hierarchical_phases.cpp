#include <algorithm>

#include "sim/collectives/algorithm_phases.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim {

namespace {

// The torus dimensions a group spans when it is a sub-torus: every dimension either whole (all its
// coordinates, so each line is a ring of 1-hop wrap neighbours) or fixed at one coordinate. Device id
// = x + X·(y + Y·z) (dimension 0 fastest). Empty when the group is not such a product.
Dimensions sub_torus(const std::vector<int>& dims, const std::vector<int>& ranks) {
  Dimensions d;
  long long total = 1;
  for (int k : dims) total *= k;
  std::vector<int> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.empty() || sorted.back() >= total) return d;
  const std::size_t n = dims.size();
  std::vector<std::vector<bool>> seen(n);
  for (std::size_t i = 0; i < n; ++i) seen[i].assign(static_cast<std::size_t>(dims[i]), false);
  std::vector<int> count(n, 0);
  for (int rank : sorted) {
    int rest = rank;
    for (std::size_t i = 0; i < n; ++i) {
      const int c = rest % dims[i];
      rest /= dims[i];
      if (!seen[i][static_cast<std::size_t>(c)]) {
        seen[i][static_cast<std::size_t>(c)] = true;
        ++count[i];
      }
    }
  }
  long long product = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (count[i] != 1 && count[i] != dims[i]) return d;
    product *= count[i];
  }
  if (product != static_cast<long long>(sorted.size())) return d;
  for (std::size_t i = 0; i < n; ++i) {
    if (count[i] > 1) d.sizes.push_back(count[i]);
  }
  if (d.sizes.empty()) return d;
  d.order = sorted;  // ascending ids are mixed-radix order over the spanned dimensions
  d.bidirectional = true;
  return d;
}

}  // namespace

Dimensions hierarchy_dimensions(const TopologyGraph& g, const PhaseRequest& r) {
  Dimensions d;
  if (!r.torus_dims.empty() && static_cast<int>(r.ranks.size()) > 1) {
    d = sub_torus(r.torus_dims, r.ranks);
    if (!d.sizes.empty()) return d;
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
  std::vector<Phase> out;
  if (d.bidirectional && d.sizes.size() > 1) {
    // Torus: the buffer is split into D parts (D = spanned dimensions); part j reduce-scatters along
    // dimensions j, j+1, ... (mod D), so in every phase each dimension carries one part and all links of
    // the chip are busy at once (Jouppi et al. 2023; per-chip bus bandwidth 2·D·link).
    const std::size_t dn = d.sizes.size();
    const double part = r.bytes / static_cast<double>(dn);
    const auto pass = [&](std::size_t step, const std::string& what) {
      Phase merged;
      merged.name = what + " step " + std::to_string(step) + " (all dimensions)";
      for (std::size_t j = 0; j < dn; ++j) {
        double bytes = part;
        for (std::size_t s = 0; s < step; ++s) bytes /= d.sizes[(j + s) % dn];
        const std::size_t dim = (j + step) % dn;
        Phase p = ring_pass(lines(d, dim), bytes, what, true);
        merged.latency_steps = std::max(merged.latency_steps, p.latency_steps);
        merged.transfers.insert(merged.transfers.end(), p.transfers.begin(), p.transfers.end());
      }
      return merged;
    };
    for (std::size_t s = 0; scatter && s < dn; ++s) out.push_back(pass(s, "reduce-scatter"));
    for (std::size_t s = dn; gather && s-- > 0;) out.push_back(pass(s, "all-gather"));
    return out;
  }
  std::vector<double> level_bytes;  // buffer each line works on at dimension i
  double b = r.bytes;
  for (int size : d.sizes) {
    level_bytes.push_back(b);
    b /= size;
  }
  for (std::size_t i = 0; scatter && i < d.sizes.size(); ++i) {
    if (d.sizes[i] < 2) continue;
    out.push_back(
        ring_pass(lines(d, i), level_bytes[i], "reduce-scatter dim " + std::to_string(i), d.bidirectional));
  }
  for (std::size_t i = d.sizes.size(); gather && i-- > 0;) {
    if (d.sizes[i] < 2) continue;
    out.push_back(
        ring_pass(lines(d, i), level_bytes[i], "all-gather dim " + std::to_string(i), d.bidirectional));
  }
  return out;
}

}  // namespace clustersim
