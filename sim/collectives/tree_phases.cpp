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
// tree crossings leave and enter it through at most `nics` NICs. A node whose crossings use more NICs than
// that in a direction keeps the `nics` NICs that carry the most crossing bytes in that direction (ties: the
// higher NIC) and moves each crossing on another NIC, whole, onto the kept NIC carrying the least so far
// (in transfer order), through that NIC's leader — the node's highest-numbered group member on it — with a
// hand-off inside the node from the sender to the leader (or from the leader to the receiver), pipelined in
// the same phase. The same bytes cross the nodes; the busiest NIC keeps its load and no kept NIC loses any,
// so a limit never lowers the NIC-uplink bottleneck (moving a crossing to another NIC also moves it to
// another leaf or spine hash, so where the leaf-spine links bind a limit can still come out faster).
// Transfers inside an NVLink domain over several nodes (NVL72) cross no NIC and are left alone. Unchanged
// when every node's crossings already use no more than `nics` NICs per direction, or when a device has no NIC.
void limit_crossings(const TopologyGraph& g, const std::vector<int>& ranks, int nics, Phase& p) {
  if (nics <= 0) return;
  const int per_node = g.devices_per_node();
  const int unit = nic_free_unit(g);  // transfers inside an NVLink domain over several nodes use no NIC
  const auto crosses = [&](const Transfer& t) { return t.src / unit != t.dst / unit; };
  // node · 2 + direction (0 out, 1 in) -> crossing bytes per NIC
  std::map<int, std::map<int, double>> load;
  for (const Transfer& t : p.transfers) {
    const int na = t.src / per_node, nb = t.dst / per_node;
    if (!crosses(t)) continue;
    const int out = g.nic_of_device(t.src), in = g.nic_of_device(t.dst);
    if (out < 0 || in < 0) return;
    load[2 * na][out] += t.bytes;
    load[2 * nb + 1][in] += t.bytes;
  }
  // Per limited node and direction: the kept NICs with their leader and the bytes assigned so far.
  struct Kept {
    int nic = 0, leader = -1;
    double bytes = 0.0;
  };
  std::map<int, std::vector<Kept>> kept;
  for (const auto& [key, per_nic] : load) {
    if (static_cast<int>(per_nic.size()) <= nics) continue;
    std::vector<std::pair<double, int>> by_load;
    for (const auto& [nic, bytes] : per_nic) by_load.emplace_back(bytes, nic);
    std::sort(by_load.begin(), by_load.end(), std::greater<>());
    std::vector<Kept>& k = kept[key];
    for (std::size_t i = 0; i < static_cast<std::size_t>(nics); ++i) {
      const auto [bytes, nic] = by_load[i];
      k.push_back({.nic = nic, .leader = -1, .bytes = bytes});
    }
  }
  if (kept.empty()) return;
  for (auto& [key, k] : kept) {
    const int node = key / 2;
    for (Kept& x : k) {
      for (int d : ranks) {
        if (d / per_node == node && g.nic_of_device(d) == x.nic) x.leader = std::max(x.leader, d);
      }
      CS_ASSERT(x.leader >= 0, "a kept NIC carries a crossing of a group member");
    }
  }
  // The device a crossing of `key` at `device` goes through: itself when its NIC is kept, else the leader
  // of the least-loaded kept NIC, which takes the crossing's bytes.
  const auto endpoint = [&](int key, int device, double bytes) {
    const auto it = kept.find(key);
    if (it == kept.end()) return device;
    std::vector<Kept>& k = it->second;
    const int nic = g.nic_of_device(device);
    if (std::any_of(k.begin(), k.end(), [&](const Kept& x) { return x.nic == nic; })) return device;
    Kept* least = &k.front();
    for (Kept& x : k) {
      if (x.bytes < least->bytes) least = &x;
    }
    least->bytes += bytes;
    return least->leader;
  };
  std::vector<Transfer> out;
  out.reserve(p.transfers.size());
  for (const Transfer& t : p.transfers) {
    const int na = t.src / per_node, nb = t.dst / per_node;
    if (!crosses(t)) {
      out.push_back(t);
      continue;
    }
    const int from = endpoint(2 * na, t.src, t.bytes);
    const int to = endpoint(2 * nb + 1, t.dst, t.bytes);
    if (from != t.src) out.push_back({t.src, from, t.bytes});
    out.push_back({from, to, t.bytes});
    if (to != t.dst) out.push_back({to, t.dst, t.bytes});
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
