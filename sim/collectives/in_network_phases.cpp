#include <set>

#include "sim/collectives/algorithm_phases.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim {

namespace {

// NVLS on one NVSwitch domain: each member's port carries `up` bytes towards the switch and `down`
// bytes from it.
void add_nvls_loads(const TopologyGraph& g, const std::vector<int>& members, double up, double down, Phase& p) {
  for (std::size_t i = 0; i < members.size(); ++i) {
    const int m = members[i];
    const int other = members[(i + 1) % members.size()];
    const Route out = g.route(m, other);
    const Route in = g.route(other, m);
    CS_ASSERT(!out.empty() && !in.empty(), "NVLS members must be distinct devices");
    p.in_network.push_back({out.front().link, out.front().forward, up});
    p.in_network.push_back({in.back().link, in.back().forward, down});
  }
}

Phase nvls_phase(const TopologyGraph& g, const std::vector<std::vector<int>>& domains, CollectiveOp op, double bytes) {
  Phase p;
  p.name = std::string("nvls ") + std::string(to_string(op));
  p.engine = PhaseEngine::nvls;
  for (const auto& members : domains) {
    const double n = static_cast<double>(members.size());
    switch (op) {
      case CollectiveOp::all_reduce: add_nvls_loads(g, members, bytes, bytes, p); break;
      case CollectiveOp::reduce_scatter: add_nvls_loads(g, members, bytes, bytes / n, p); break;
      case CollectiveOp::all_gather: add_nvls_loads(g, members, bytes / n, bytes, p); break;
      default: CS_ASSERT(false, "nvls implements all-reduce, reduce-scatter, all-gather");
    }
  }
  p.latency_steps = op == CollectiveOp::all_reduce ? 2 : 1;
  return p;
}

}  // namespace

std::vector<Phase> nvls_phases(const TopologyGraph& g, const PhaseRequest& r) {
  return {nvls_phase(g, {r.ranks}, r.op, r.bytes)};
}

std::vector<Phase> sharp_phases(const TopologyGraph& g, const PhaseRequest& r) {
  const auto by_node = ranks_by_node(g, r.ranks);
  const int k = ranks_per_node(by_node);
  CS_ASSERT(by_node.size() >= 2 && k >= 1, "sharp needs an even spread over nodes");
  const bool nvswitch = k >= 2 && r.nvls_switch && in_one_nvswitch_domain(g, by_node.front());
  std::vector<Phase> out;
  if (k >= 2) {
    out.push_back(nvswitch ? nvls_phase(g, by_node, CollectiveOp::reduce_scatter, r.bytes)
                           : ring_pass(by_node, r.bytes, "node reduce-scatter ring"));
  }
  // One in-network all-reduce per rail (local index): the switch tree spanned by the rail's routes to
  // its root carries the rail's share once in each direction (reduced up, multicast down).
  Phase net;
  net.name = "in-network all-reduce (SHARP)";
  net.latency_steps = 2;
  net.engine = PhaseEngine::sharp;
  const double share = r.bytes / k;
  for (int local = 0; local < k; ++local) {
    std::set<LinkId> tree;  // ordered: deterministic load order
    const int root = by_node.front()[static_cast<std::size_t>(local)];
    for (std::size_t j = 1; j < by_node.size(); ++j) {
      const int m = by_node[j][static_cast<std::size_t>(local)];
      for (const RouteStep& s : g.route(m, root)) tree.insert(s.link);
    }
    for (LinkId l : tree) {
      net.in_network.push_back({l, true, share});
      net.in_network.push_back({l, false, share});
    }
  }
  out.push_back(std::move(net));
  if (k >= 2) {
    out.push_back(nvswitch ? nvls_phase(g, by_node, CollectiveOp::all_gather, r.bytes)
                           : ring_pass(by_node, r.bytes, "node all-gather ring"));
  }
  return out;
}

}  // namespace clustersim
