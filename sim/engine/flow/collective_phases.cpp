#include "sim/engine/flow/collective_phases.hpp"

#include <algorithm>

#include "sim/core/diagnostics.hpp"

namespace clustersim::flow {

namespace {

struct Ring {
  bool intra = true;  // ring among the k ranks of a node, else among the n nodes (same local rank)
  int size = 1;
  Bytes bytes{0};  // buffer the ring runs on
  Seconds alpha{0};
};

void add_ring(std::vector<FlowPhase>& out, const Ring& ring, const RankLayout& layout, int stage, int k,
              int n, Fidelity fidelity) {
  if (ring.size <= 1) return;
  const int steps = ring.size - 1;
  const int members = k * n;
  auto phase_flows = [&](Bytes per_flow) {
    FlowPhase ph;
    for (int t = 0; t < layout.tp(); ++t) {
      for (int j = 0; j < members; ++j) {
        const int q = j / k, l = j % k;
        const int next = ring.intra ? q * k + (l + 1) % k : ((q + 1) % n) * k + l;
        ph.flows.push_back({layout.device(stage, j, t), layout.device(stage, next, t), per_flow});
      }
    }
    return ph;
  };
  if (fidelity == Fidelity::exact) {
    for (int i = 0; i < steps; ++i) out.push_back(phase_flows(ring.bytes / static_cast<double>(ring.size)));
  } else {
    FlowPhase ph = phase_flows(ring.bytes * (static_cast<double>(steps) / ring.size));
    ph.extra_latency = ring.alpha * (steps - 1);
    out.push_back(std::move(ph));
  }
}

}  // namespace

TwoLevelRing two_level_ring(const ClusterSpec& cluster, const ParallelismSpec& par) {
  const NodeSpec& node = cluster.node;
  const int size = par.dp * par.cp, stride = par.tp, g = node.devices_per_node;
  TwoLevelRing r;
  if (stride < g) {
    r.per_node = std::min(size, std::max(1, g / stride));
    while (size % r.per_node != 0) --r.per_node;
  }
  r.nodes = size / r.per_node;
  r.intra_alpha = node.intra.latency;
  // A node without NICs only talks to itself.
  r.inter_alpha = node.nics > 0 ? node.nic.latency : node.intra.latency;
  return r;
}

std::vector<FlowPhase> collective_phases(CollectiveOp op, Bytes bytes, const RankLayout& layout, int stage,
                                         const TwoLevelRing& ring, Fidelity fidelity) {
  const int k = ring.per_node, n = ring.nodes;
  CS_ASSERT(k * n == layout.replicas(), "the collective spans the dp·cp group");
  const Ring intra{true, k, bytes, ring.intra_alpha};
  const Ring inter{false, n, bytes / static_cast<double>(k), ring.inter_alpha};
  std::vector<FlowPhase> out;
  const bool scatter = op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter;
  const bool gather = op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather;
  CS_ASSERT(scatter || gather, "only ring reductions and gathers expand into phases");
  if (scatter) {
    add_ring(out, intra, layout, stage, k, n, fidelity);
    add_ring(out, inter, layout, stage, k, n, fidelity);
  }
  if (gather) {
    add_ring(out, inter, layout, stage, k, n, fidelity);
    add_ring(out, intra, layout, stage, k, n, fidelity);
  }
  return out;
}

std::vector<FlowPhase> topology_phases(CollectiveOp op, Bytes bytes, const RankLayout& layout, int stage,
                                       const FabricLayout& fabric, Fidelity fidelity) {
  std::vector<std::vector<int>> groups(static_cast<std::size_t>(layout.tp()));
  for (int t = 0; t < layout.tp(); ++t) {
    for (int j = 0; j < layout.replicas(); ++j)
      groups[static_cast<std::size_t>(t)].push_back(layout.device(stage, j, t));
  }
  return group_phases(op, bytes, groups, fabric, fidelity);
}

namespace {

// Phases of groups on the topology graph itself (device ids of the graph).
std::vector<FlowPhase> graph_phases(CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups,
                                    const FabricLayout& fabric, Fidelity fidelity) {
  const TopologyCollectives* topo = fabric.topology();
  const TopologyCollectives::Schedule sched = topo->schedule(op, bytes, groups);
  const TopologyGraph& graph = topo->model().graph();
  std::vector<FlowPhase> out;
  for (const Phase& ph : sched.phases) {
    if (ph.engine != PhaseEngine::links || !ph.in_network.empty()) {
      FlowPhase wait;
      wait.extra_latency = cost_phase(graph, ph, topo->model().options().efficiency).time;
      out.push_back(std::move(wait));
      continue;
    }
    Seconds alpha(0);
    for (const Transfer& tr : ph.transfers) {
      if (tr.src != tr.dst) alpha = max(alpha, fabric.route_latency(fabric.route(tr.src, tr.dst)));
    }
    const int steps = fidelity == Fidelity::exact ? std::max(1, ph.latency_steps) : 1;
    for (int i = 0; i < steps; ++i) {
      FlowPhase fp;
      fp.flows.reserve(ph.transfers.size());
      for (const Transfer& tr : ph.transfers) fp.flows.push_back({tr.src, tr.dst, Bytes(tr.bytes / steps)});
      fp.extra_latency =
          alpha * (fidelity == Fidelity::exact ? std::min(1, ph.latency_steps) : ph.latency_steps);
      out.push_back(std::move(fp));
    }
  }
  return out;
}

}  // namespace

std::vector<FlowPhase> group_phases(CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups,
                                    const FabricLayout& fabric, Fidelity fidelity, bool* crossed) {
  CS_ASSERT(fabric.topology() != nullptr, "topology phases need a topology-mode fabric");
  if (crossed != nullptr) *crossed = false;
  if (fabric.slices() <= 1) return graph_phases(op, bytes, groups, fabric, fidelity);
  // Several slices: each slice's groups on its copy of the graph (slice-local ids), the phases of all
  // slices merged index by index. A group spanning slices has no torus schedule.
  const int per = fabric.slice_devices();
  std::vector<std::vector<std::vector<int>>> by_slice(static_cast<std::size_t>(fabric.slices()));
  for (const auto& g : groups) {
    if (g.empty()) continue;
    const int k = g.front() / per;
    std::vector<int> local;
    for (int d : g) {
      if (d / per != k) {
        if (crossed != nullptr) *crossed = true;
        return {};
      }
      local.push_back(d - k * per);
    }
    by_slice[static_cast<std::size_t>(k)].push_back(std::move(local));
  }
  std::vector<FlowPhase> out;
  for (int k = 0; k < fabric.slices(); ++k) {
    const auto& gs = by_slice[static_cast<std::size_t>(k)];
    if (gs.empty()) continue;
    std::vector<FlowPhase> phases = graph_phases(op, bytes, gs, fabric, fidelity);
    if (out.size() < phases.size()) out.resize(phases.size());
    for (std::size_t i = 0; i < phases.size(); ++i) {
      out[i].extra_latency = max(out[i].extra_latency, phases[i].extra_latency);
      for (const FlowSpec& f : phases[i].flows) out[i].flows.push_back({f.src + k * per, f.dst + k * per, f.bytes});
    }
  }
  return out;
}

std::vector<FlowPhase> multislice_phases(bool reduce_scatter, bool all_gather, Bytes bytes, Seconds dcn_latency,
                                         const RankLayout& layout, int stage, const FabricLayout& fabric,
                                         Fidelity fidelity) {
  const int n = fabric.slices();
  CS_ASSERT(n > 1 && layout.replicas() % n == 0, "a multi-slice sync spans the slices");
  const int per_slice = layout.replicas() / n;
  std::vector<std::vector<int>> groups;  // the in-slice data-parallel groups of every slice
  for (int k = 0; k < n; ++k) {
    for (int t = 0; t < layout.tp(); ++t) {
      std::vector<int> g;
      for (int j = 0; j < per_slice; ++j) g.push_back(layout.device(stage, k * per_slice + j, t));
      groups.push_back(std::move(g));
    }
  }
  std::vector<FlowPhase> out;
  if (reduce_scatter && per_slice > 1) out = group_phases(CollectiveOp::reduce_scatter, bytes, groups, fabric, fidelity);
  // The DCN ring all-reduce of each chip's 1/per_slice shard with the chips at its position in the other
  // slices: 2(n−1) steps of shard/n to the next slice's chip (phase fidelity: one flow of 2(n−1)/n · shard,
  // then the other α; exact: every step).
  const Bytes shard = bytes / static_cast<double>(per_slice);
  const int steps = 2 * (n - 1);
  const int flows_steps = fidelity == Fidelity::exact ? steps : 1;
  for (int i = 0; i < flows_steps; ++i) {
    FlowPhase ph;
    for (int k = 0; k < n; ++k) {
      for (int j = 0; j < per_slice; ++j) {
        for (int t = 0; t < layout.tp(); ++t) {
          const int src = layout.device(stage, k * per_slice + j, t);
          const int dst = layout.device(stage, (k + 1) % n * per_slice + j, t);
          ph.flows.push_back({src, dst, shard * (static_cast<double>(steps) / n / flows_steps)});
        }
      }
    }
    ph.extra_latency = dcn_latency * (fidelity == Fidelity::exact ? 1.0 : static_cast<double>(steps));
    out.push_back(std::move(ph));
  }
  if (all_gather && per_slice > 1) {
    std::vector<FlowPhase> ag = group_phases(CollectiveOp::all_gather, bytes, groups, fabric, fidelity);
    out.insert(out.end(), ag.begin(), ag.end());
  }
  return out;
}

}  // namespace clustersim::flow
