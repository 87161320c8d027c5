#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "sim/collectives/algorithm_phases.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim {

namespace {

// Depth of a heap-shaped binary tree of n nodes: ⌊log2 n⌋.
int heap_depth(std::size_t n) {
  int d = 0;
  while ((std::size_t{2} << d) <= n) ++d;
  return d;
}

// Heap-shaped tree over `order` (position p's parent is (p−1)/2): child -> parent (up) or parent ->
// child (down) transfers of `bytes`.
void add_tree(const std::vector<int>& order, double bytes, bool up, bool down, Phase& p) {
  for (std::size_t i = 1; i < order.size(); ++i) {
    const int child = order[i];
    const int parent = order[(i - 1) / 2];
    if (up) p.transfers.push_back({child, parent, bytes});
    if (down) p.transfers.push_back({parent, child, bytes});
  }
}

std::vector<int> tree_order(const TopologyGraph& g, const PhaseRequest& r) {
  // Node-grouped order keeps subtrees inside nodes as far as the heap shape allows.
  return rings(g, r.ranks, RingOrder::topology_aware).front();
}

// With one communicator limited to `nics` NICs per node and direction (nics_per_communicator; the ring's
// limit_rings in ring_phases.cpp): NCCL's trees run on the communicator's channels, the ring's, so a node's
// tree crossings leave and enter it through the same at most `nics` NICs. A node whose crossings use more
// NICs than that in either direction sends and receives them through `nics` leaders, its highest-numbered
// local members on distinct NICs (as the hierarchical leaders and the ring kept last): every crossing of
// such a node is split evenly over its leaders, with a hand-off inside the node from the sender to the
// leader (or from the leader to the receiver), pipelined in the same phase. The same bytes cross the
// nodes; only the NICs they use change. Unchanged when every node's crossings already use no more than
// `nics` NICs per direction, or when a device has no NIC.
void limit_crossings(const TopologyGraph& g, const std::vector<int>& ranks, int nics, Phase& p) {
  if (nics <= 0) return;
  const int per_node = g.devices_per_node();
  std::map<int, std::set<int>> used;  // node · 2 + direction (0 out, 1 in) -> NICs its crossings use
  for (const Transfer& t : p.transfers) {
    const int na = t.src / per_node, nb = t.dst / per_node;
    if (na == nb) continue;
    const int out = g.nic_of_device(t.src), in = g.nic_of_device(t.dst);
    if (out < 0 || in < 0) return;
    used[2 * na].insert(out);
    used[2 * nb + 1].insert(in);
  }
  std::set<int> limited;  // nodes whose crossings use more than `nics` NICs in a direction
  for (const auto& [key, set] : used) {
    if (static_cast<int>(set.size()) > nics) limited.insert(key / 2);
  }
  if (limited.empty()) return;
  // Each limited node's leaders: its group members from the highest device down, one per NIC not yet
  // taken, the first `nics`.
  std::map<int, std::vector<int>> leaders;
  std::vector<int> sorted = ranks;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  for (int d : sorted) {
    const int node = d / per_node;
    if (!limited.contains(node)) continue;
    std::vector<int>& l = leaders[node];
    if (static_cast<int>(l.size()) >= nics) continue;
    const int nic = g.nic_of_device(d);
    if (std::none_of(l.begin(), l.end(), [&](int x) { return g.nic_of_device(x) == nic; })) l.push_back(d);
  }
  std::vector<Transfer> out;
  out.reserve(p.transfers.size());
  for (const Transfer& t : p.transfers) {
    const int na = t.src / per_node, nb = t.dst / per_node;
    if (na == nb) {
      out.push_back(t);
      continue;
    }
    const std::vector<int> from = limited.contains(na) ? leaders[na] : std::vector<int>{t.src};
    const std::vector<int> to = limited.contains(nb) ? leaders[nb] : std::vector<int>{t.dst};
    const double cross = t.bytes / static_cast<double>(from.size() * to.size());
    for (int a : from) {
      if (a != t.src) out.push_back({t.src, a, t.bytes / static_cast<double>(from.size())});
      for (int b : to) out.push_back({a, b, cross});
    }
    for (int b : to) {
      if (b != t.dst) out.push_back({b, t.dst, t.bytes / static_cast<double>(to.size())});
    }
  }
  p.transfers = std::move(out);
}

}  // namespace

std::vector<Phase> tree_phases(const TopologyGraph& g, const PhaseRequest& r) {
  std::vector<int> order = tree_order(g, r);
  const std::size_t n = order.size();
  const int depth = heap_depth(n);
  Phase p;
  if (r.op == CollectiveOp::all_reduce) {
    // Double binary tree: tree B is tree A mirrored, so A's interior ranks are B's leaves.
    p.name = "double binary tree reduce + broadcast";
    p.latency_steps = 2 * depth;
    add_tree(order, r.bytes / 2.0, true, true, p);
    std::reverse(order.begin(), order.end());
    add_tree(order, r.bytes / 2.0, true, true, p);
    limit_crossings(g, r.ranks, r.communicator_nics, p);
    return {p};
  }
  CS_ASSERT(r.op == CollectiveOp::broadcast || r.op == CollectiveOp::reduce, "tree implements all-reduce, broadcast, reduce");
  const int root = r.ranks[static_cast<std::size_t>(r.root)];
  const auto at = std::find(order.begin(), order.end(), root);
  std::rotate(order.begin(), at, order.end());
  const bool reduce = r.op == CollectiveOp::reduce;
  p.name = reduce ? "tree reduce" : "tree broadcast";
  p.latency_steps = depth;
  add_tree(order, r.bytes, reduce, !reduce, p);
  limit_crossings(g, r.ranks, r.communicator_nics, p);
  return {p};
}

std::vector<Phase> halving_doubling_phases(const TopologyGraph& g, const PhaseRequest& r) {
  const std::vector<int> order = rings(g, r.ranks, RingOrder::topology_aware).front();
  const std::size_t n = order.size();
  std::size_t pow2 = 1;
  while (pow2 * 2 <= n) pow2 *= 2;
  const std::size_t extra = n - pow2;
  const double s = r.bytes;
  const bool scatter = r.op == CollectiveOp::all_reduce || r.op == CollectiveOp::reduce_scatter;
  const bool gather = r.op == CollectiveOp::all_reduce || r.op == CollectiveOp::all_gather;
  CS_ASSERT(scatter || gather, "halving-doubling implements all-reduce, reduce-scatter, all-gather");
  std::vector<Phase> out;
  const auto fold = [&](const char* name, double bytes, bool inward) {
    Phase p;
    p.name = name;
    p.latency_steps = 1;
    for (std::size_t i = 0; i < extra; ++i) {
      const int far = order[pow2 + i];
      const int near = order[i];
      p.transfers.push_back(inward ? Transfer{far, near, bytes} : Transfer{near, far, bytes});
    }
    out.push_back(std::move(p));
  };
  const auto exchange = [&](std::size_t distance, double bytes, const std::string& name) {
    Phase p;
    p.name = name;
    p.latency_steps = 1;
    for (std::size_t i = 0; i < pow2; ++i) p.transfers.push_back({order[i], order[i ^ distance], bytes});
    out.push_back(std::move(p));
  };
  if (extra > 0) fold("fold in extra ranks", scatter ? s : s / static_cast<double>(n), true);
  if (scatter) {
    // Halving: nearest partner first, so the largest exchanges stay inside nodes.
    double bytes = s / 2.0;
    for (std::size_t d = 1; d < pow2; d *= 2, bytes /= 2.0) exchange(d, bytes, "halving distance " + std::to_string(d));
  }
  if (gather) {
    double bytes = s / static_cast<double>(pow2);
    for (std::size_t d = pow2 / 2; d >= 1; d /= 2, bytes *= 2.0) exchange(d, bytes, "doubling distance " + std::to_string(d));
  }
  if (extra > 0) fold("hand results to extra ranks", gather ? s : s / static_cast<double>(n), false);
  return out;
}

}  // namespace clustersim
