#include <algorithm>
#include <map>
#include <set>

#include "sim/collectives/algorithm_phases.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim {

Phase ring_pass(const std::vector<std::vector<int>>& rs, double bytes_per_ring, std::string name, bool bidirectional) {
  Phase p;
  p.name = std::move(name);
  CS_ASSERT(!rs.empty(), "a ring pass needs a ring");
  const std::size_t n = rs.front().size();
  p.latency_steps = static_cast<int>(n) - 1;
  if (n < 2) return p;
  const double directions = bidirectional ? 2.0 : 1.0;
  const double per_hop = bytes_per_ring / directions * static_cast<double>(n - 1) / static_cast<double>(n);
  for (const auto& ring : rs) {
    CS_ASSERT(ring.size() == n, "rings of one pass have the same length");
    for (std::size_t i = 0; i < n; ++i) {
      const int a = ring[i];
      const int b = ring[(i + 1) % n];
      p.transfers.push_back({a, b, per_hop});
      if (bidirectional) p.transfers.push_back({b, a, per_hop});
    }
  }
  return p;
}

namespace {

// Pipelined chain from ring[0] (broadcast) or towards ring[0] (reduce): n−1 hops of the whole share.
Phase chain(const std::vector<std::vector<int>>& rs, int root_rank, double bytes, bool towards_root) {
  Phase p;
  p.name = towards_root ? "reduce chain" : "broadcast chain";
  const std::size_t n = rs.front().size();
  p.latency_steps = static_cast<int>(n) - 1;
  const double share = bytes / static_cast<double>(rs.size());
  for (const auto& ring : rs) {
    const auto at = static_cast<std::size_t>(std::find(ring.begin(), ring.end(), root_rank) - ring.begin());
    for (std::size_t i = 0; i + 1 < n; ++i) {
      const int a = ring[(at + i) % n];
      const int b = ring[(at + i + 1) % n];
      p.transfers.push_back(towards_root ? Transfer{b, a, share} : Transfer{a, b, share});
    }
  }
  return p;
}

}  // namespace

// With one communicator limited to `nics` NICs per node and direction (nics_per_communicator): only rings
// whose node crossings leave and enter every node through NICs no kept ring uses there in that direction,
// at most `nics` per node and direction, the last rings first (as the hierarchical leaders: the highest
// local members). The rings' order may alternate direction from node to node, so every crossing is
// checked. Unchanged when the rings already use no more than `nics` NICs per node and direction, or never
// leave a node.
static std::vector<std::vector<int>> limit_rings(const TopologyGraph& g, std::vector<std::vector<int>> rs, int nics) {
  if (nics <= 0 || rs.size() < 2) return rs;
  const int per_node = g.devices_per_node();
  const int unit = nic_free_unit(g);  // hops inside an NVLink domain over several nodes use no NIC
  // Per ring: (node · 2 + direction, NIC) of every crossing: the sender's NIC out of its node (0), the
  // receiver's NIC into its node (1).
  std::vector<std::vector<std::pair<int, int>>> uses(rs.size());
  std::map<int, std::set<int>> all;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const auto& ring = rs[i];
    for (std::size_t j = 0; j < ring.size(); ++j) {
      const int a = ring[j], b = ring[(j + 1) % ring.size()];
      if (a / unit == b / unit) continue;
      const int out = g.nic_of_device(a), in = g.nic_of_device(b);
      if (out < 0 || in < 0) return rs;
      uses[i].emplace_back(2 * (a / per_node), out);
      uses[i].emplace_back(2 * (b / per_node) + 1, in);
      all[2 * (a / per_node)].insert(out);
      all[2 * (b / per_node) + 1].insert(in);
    }
    if (uses[i].empty()) return rs;  // inside one node or NVLink domain: no NIC to limit
  }
  if (std::all_of(all.begin(), all.end(), [&](const auto& n) { return static_cast<int>(n.second.size()) <= nics; })) {
    return rs;
  }
  std::map<int, std::set<int>> taken;
  std::vector<std::vector<int>> kept;
  for (std::size_t i = rs.size(); i-- > 0;) {
    const bool free = std::all_of(uses[i].begin(), uses[i].end(), [&](const std::pair<int, int>& x) {
      const auto it = taken.find(x.first);
      return it == taken.end() || (!it->second.contains(x.second) && static_cast<int>(it->second.size()) < nics);
    });
    if (!free) continue;
    for (const auto& [key, nic] : uses[i]) taken[key].insert(nic);
    kept.push_back(rs[i]);
  }
  std::reverse(kept.begin(), kept.end());
  return kept;
}

std::vector<Phase> ring_phases(const TopologyGraph& g, const PhaseRequest& r) {
  const auto rs = limit_rings(g, rings(g, r.ranks, r.ring_order), r.communicator_nics);
  const int root = r.ranks[static_cast<std::size_t>(r.root)];
  const double share = r.bytes / static_cast<double>(rs.size());  // the rings split the buffer
  switch (r.op) {
    case CollectiveOp::all_reduce:
      return {ring_pass(rs, share, "reduce-scatter ring"), ring_pass(rs, share, "all-gather ring")};
    case CollectiveOp::reduce_scatter: return {ring_pass(rs, share, "reduce-scatter ring")};
    case CollectiveOp::all_gather: return {ring_pass(rs, share, "all-gather ring")};
    case CollectiveOp::broadcast: return {chain(rs, root, r.bytes, false)};
    case CollectiveOp::reduce: return {chain(rs, root, r.bytes, true)};
    case CollectiveOp::all_to_all:
    case CollectiveOp::send_recv: break;
  }
  CS_ASSERT(false, "ring does not implement this operation");
  return {};
}

std::vector<Phase> direct_phases(const PhaseRequest& r) {
  Phase p;
  const std::size_t n = r.ranks.size();
  p.latency_steps = 1;
  if (r.op == CollectiveOp::send_recv) {
    // nccl-tests sendrecv: every rank sends S to the next and receives S from the previous.
    p.name = "send/recv";
    for (std::size_t i = 0; i < n; ++i) p.transfers.push_back({r.ranks[i], r.ranks[(i + 1) % n], r.bytes});
    return {p};
  }
  // all-to-all, all-gather, reduce-scatter: every rank sends S/n to every other rank at once.
  p.name = std::string("direct ") + std::string(to_string(r.op));
  const double share = r.bytes / static_cast<double>(n);
  for (int a : r.ranks) {
    for (int b : r.ranks) {
      if (a != b) p.transfers.push_back({a, b, share});
    }
  }
  std::vector<Phase> out{p};
  if (r.op == CollectiveOp::all_reduce) {
    out.front().name = "direct reduce-scatter";
    out.push_back(p);
    out.back().name = "direct all-gather";
  }
  return out;
}

std::vector<Phase> pairwise_phases(const PhaseRequest& r) {
  const std::size_t n = r.ranks.size();
  const double share = r.bytes / static_cast<double>(n);
  std::vector<Phase> out;
  for (std::size_t k = 1; k < n; ++k) {
    Phase p;
    p.name = "pairwise round " + std::to_string(k);
    p.latency_steps = 1;
    for (std::size_t i = 0; i < n; ++i) p.transfers.push_back({r.ranks[i], r.ranks[(i + k) % n], share});
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace clustersim
