#include "sim/collectives/collective_group.hpp"

#include <algorithm>
#include <map>

#include "sim/core/diagnostics.hpp"

namespace clustersim {

std::vector<std::vector<int>> ranks_by_node(const TopologyGraph& g, const std::vector<int>& ranks) {
  std::vector<std::vector<int>> out;
  std::map<int, std::size_t> slot;  // node -> index in out (keyed by int: deterministic)
  // An NVLink domain over several nodes (NVL72: trays of 4 in a 72-GPU domain) is one node for the
  // collective: NCCL's multi-node NVLink support runs the intra-"node" phases over NVLink across trays.
  const int unit = nic_free_unit(g);
  for (int r : ranks) {
    CS_ASSERT(r >= 0 && r < g.device_count(), "rank outside the cluster");
    const int node = r / unit;
    auto [it, fresh] = slot.emplace(node, out.size());
    if (fresh) out.emplace_back();
    out[it->second].push_back(r);
  }
  return out;
}

int ranks_per_node(const std::vector<std::vector<int>>& by_node) {
  if (by_node.empty()) return 0;
  const std::size_t k = by_node.front().size();
  for (const auto& n : by_node) {
    if (n.size() != k) return 0;
  }
  return static_cast<int>(k);
}

std::vector<std::vector<int>> rings(const TopologyGraph& g, const std::vector<int>& ranks, RingOrder order) {
  const auto by_node = ranks_by_node(g, ranks);
  const int k = ranks_per_node(by_node);
  if (by_node.size() < 2 || k < 2) {
    std::vector<int> one;
    for (const auto& n : by_node) one.insert(one.end(), n.begin(), n.end());
    return {one};
  }
  std::vector<std::vector<int>> out(static_cast<std::size_t>(k));
  for (int c = 0; c < k; ++c) {
    auto& ring = out[static_cast<std::size_t>(c)];
    for (std::size_t j = 0; j < by_node.size(); ++j) {
      std::vector<int> local;
      for (int i = 0; i < k; ++i) local.push_back(by_node[j][static_cast<std::size_t>((c + i) % k)]);
      if (order != RingOrder::rank_order && j % 2 == 1) std::reverse(local.begin(), local.end());
      ring.insert(ring.end(), local.begin(), local.end());
    }
  }
  if (order == RingOrder::flat) out.resize(1);
  return out;
}

bool in_one_nvswitch_domain(const TopologyGraph& g, const std::vector<int>& ranks) {
  if (ranks.size() < 2 || g.domain_devices() == 0) return false;
  const int domain = g.vertex(ranks.front()).group;
  if (domain < 0) return false;
  for (int r : ranks) {
    if (g.vertex(r).group != domain) return false;
  }
  const Route route = g.route(ranks[0], ranks[1]);
  return !route.empty() && g.link(route.front().link).kind == LinkKind::nvswitch_port;
}

std::vector<int> strided_group(int n, int first, int stride) {
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(first + i * stride);
  return out;
}

}  // namespace clustersim
