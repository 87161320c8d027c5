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

// The node's leaders when one communicator may use only `nics` of the node's NICs (NCCL's rings of one
// communicator leave and enter a node through as many NICs as they have node crossings; the node catalog's
// `nics_per_communicator`): positions into each node's local ranks (d.order, k per node), chosen on the
// first node from its highest-numbered device down, one per NIC not yet taken (NCCL's intra-node ring
// ends at the last device, which sends to the next node), applied to every node. Empty when the group's
// local ranks already use no more than `nics` NICs.
std::vector<int> leader_positions(const TopologyGraph& g, const Dimensions& d, int nics) {
  std::vector<int> taken;
  std::vector<int> positions;  // one per NIC, highest local position first
  for (int i = d.sizes[0]; i-- > 0;) {
    const int nic = g.nic_of_device(d.order[static_cast<std::size_t>(i)]);
    if (std::find(taken.begin(), taken.end(), nic) != taken.end()) continue;
    taken.push_back(nic);
    positions.push_back(i);
  }
  if (static_cast<int>(positions.size()) <= nics) return {};
  positions.resize(static_cast<std::size_t>(nics));
  std::sort(positions.begin(), positions.end());
  return positions;
}

// Two-level algorithm through `leaders` (positions) per node: the node reduce-scatters as usual, each
// rank hands its shard to a leader (non-leaders to leaders in turn), the leaders all-reduce the shards
// they hold across the nodes (c rings, each on its leader's shards: S/c when the leaders lead equally
// many ranks), and the way back mirrors it. Reduce-scatter stops after the
// leaders' inter-node reduce-scatter and hands each rank its piece; all-gather runs the mirror of that.
std::vector<Phase> leader_phases(const Dimensions& d, const std::vector<int>& leaders, CollectiveOp op,
                                 double bytes) {
  const int k = d.sizes[0];
  const int nodes = d.sizes[1];
  const auto c = static_cast<int>(leaders.size());
  const auto rank_at = [&](int node, int pos) { return d.order[static_cast<std::size_t>(node * k + pos)]; };
  // Each local position's leader, an index into `leaders` (a leader leads itself; the others go to the
  // leaders in turn), and the shards each leader holds after the hand-off.
  std::vector<int> lead(static_cast<std::size_t>(k));
  std::vector<double> led(static_cast<std::size_t>(c), 0.0);
  int next = 0;
  for (int pos = 0; pos < k; ++pos) {
    const auto it = std::find(leaders.begin(), leaders.end(), pos);
    const int i = it != leaders.end() ? static_cast<int>(it - leaders.begin()) : next++ % c;
    lead[static_cast<std::size_t>(pos)] = i;
    led[static_cast<std::size_t>(i)] += 1.0;
  }
  const std::vector<std::vector<int>> node_lines = lines(d, 0);
  std::vector<std::vector<int>> leader_lines(static_cast<std::size_t>(c));
  for (int n = 0; n < nodes; ++n) {
    for (int i = 0; i < c; ++i) leader_lines[static_cast<std::size_t>(i)].push_back(rank_at(n, leaders[static_cast<std::size_t>(i)]));
  }
  // Every non-leader exchanges `share` bytes with its leader (to it: towards true).
  const auto hand = [&](double share, bool towards, const std::string& what) {
    Phase p;
    p.name = what;
    p.latency_steps = 1;
    for (int n = 0; n < nodes; ++n) {
      for (int pos = 0; pos < k; ++pos) {
        const int l = leaders[static_cast<std::size_t>(lead[static_cast<std::size_t>(pos)])];
        if (l == pos) continue;
        const int a = rank_at(n, pos), b = rank_at(n, l);
        p.transfers.push_back(towards ? Transfer{a, b, share} : Transfer{b, a, share});
      }
    }
    return p;
  };
  const double S = bytes;
  const double piece = S / (static_cast<double>(k) * nodes);  // one rank's reduce-scatter result
  // The leaders' rings across the nodes, all at once: leader i's ring works on its led[i] shards of S/k
  // (leaders that lead more ranks carry more).
  const auto across = [&](const std::string& what) {
    Phase p;
    p.name = what;
    for (int i = 0; i < c; ++i) {
      Phase one = ring_pass({leader_lines[static_cast<std::size_t>(i)]}, led[static_cast<std::size_t>(i)] * S / k, what);
      p.latency_steps = std::max(p.latency_steps, one.latency_steps);
      p.transfers.insert(p.transfers.end(), one.transfers.begin(), one.transfers.end());
    }
    return p;
  };
  std::vector<Phase> out;
  if (op == CollectiveOp::all_gather) {
    out.push_back(hand(piece, true, "all-gather: pieces to the node's leaders"));
    out.push_back(across("all-gather across nodes (leaders)"));
    out.push_back(hand(S / k, false, "all-gather: leaders to their ranks"));
    out.push_back(ring_pass(node_lines, S, "all-gather dim 0"));
    return out;
  }
  out.push_back(ring_pass(node_lines, S, "reduce-scatter dim 0"));
  out.push_back(hand(S / k, true, "reduce-scatter: shards to the node's leaders"));
  out.push_back(across("reduce-scatter across nodes (leaders)"));
  if (op == CollectiveOp::reduce_scatter) {
    out.push_back(hand(piece, false, "reduce-scatter: leaders to their ranks"));
    return out;
  }
  out.push_back(across("all-gather across nodes (leaders)"));
  out.push_back(hand(S / k, false, "all-gather: leaders to their ranks"));
  out.push_back(ring_pass(node_lines, S, "all-gather dim 0"));
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
  if (r.communicator_nics > 0 && d.sizes.size() == 2 && d.sizes[0] > 1 && d.sizes[1] > 1 && !d.bidirectional) {
    const std::vector<int> leaders = leader_positions(g, d, r.communicator_nics);
    if (!leaders.empty()) return leader_phases(d, leaders, r.op, r.bytes);
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
