#include "sim/collectives/collective_model.hpp"

#include <stdexcept>

#include "topologies/build_topology.hpp"

namespace clustersim {

CollectiveModel::CollectiveModel(const ClusterTopologySpec& spec, CollectiveModelOptions options)
    : graph_(build_topology(spec)), options_(options) {
  if (spec.network == NetworkKind::torus) torus_dims_ = spec.torus.dims;
  if (spec.network != NetworkKind::fat_tree) options_.sharp_network = false;
}

std::vector<CollectiveAlgorithm> CollectiveModel::auto_candidates(CollectiveOp op) {
  using A = CollectiveAlgorithm;
  switch (op) {
    case CollectiveOp::all_reduce: return {A::ring, A::double_binary_tree, A::nvls, A::sharp, A::hierarchical};
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather: return {A::ring, A::nvls, A::hierarchical};
    case CollectiveOp::all_to_all: return {A::direct};
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce: return {A::ring, A::double_binary_tree};
    case CollectiveOp::send_recv: return {A::direct};
  }
  return {A::ring};
}

PhaseRequest CollectiveModel::phase_request(const CollectiveRequest& r) const {
  PhaseRequest p;
  p.op = r.op;
  p.bytes = r.bytes.value();
  p.ranks = r.ranks;
  p.root = r.root;
  p.ring_order = r.ring_order;
  p.torus_dims = torus_dims_;
  p.sharp_network = options_.sharp_network;
  p.nvls_switch = options_.nvls;
  p.communicator_nics = options_.communicator_nics;
  for (int rank : r.ranks) {
    if (rank < 0 || rank >= graph_.device_count()) {
      throw std::invalid_argument("rank " + std::to_string(rank) + " is outside the cluster's " +
                                  std::to_string(graph_.device_count()) + " devices");
    }
  }
  if (r.root < 0 || static_cast<std::size_t>(r.root) >= r.ranks.size()) {
    throw std::invalid_argument("root index " + std::to_string(r.root) + " is outside the group");
  }
  return p;
}

bool CollectiveModel::applicable(const CollectiveRequest& r, CollectiveAlgorithm a) const {
  return !not_applicable(graph_, phase_request(r), a).has_value();
}

std::vector<Phase> CollectiveModel::phases(const CollectiveRequest& r, CollectiveAlgorithm a) const {
  const PhaseRequest p = phase_request(r);
  if (auto why = not_applicable(graph_, p, a)) throw std::invalid_argument(*why);
  return expand(graph_, p, a);
}

CollectiveEstimate CollectiveModel::cost(const CollectiveRequest& r, CollectiveAlgorithm a) const {
  CollectiveEstimate e;
  e.algorithm = a;
  for (Phase& p : phases(r, a)) {
    PhaseEstimate pe{p.name, cost_phase(graph_, p, options_.efficiency)};
    e.time += pe.cost.time;
    e.phases.push_back(std::move(pe));
  }
  if (e.time.value() > 0.0) {
    e.algbw = r.bytes.value() / e.time.value();
    e.busbw = e.algbw * bus_bandwidth_factor(r.op, static_cast<int>(r.ranks.size()));
  }
  return e;
}

CollectiveEstimate CollectiveModel::estimate(const CollectiveRequest& r) const {
  if (r.ranks.size() < 2) throw std::invalid_argument("a collective needs at least 2 ranks");
  if (r.algorithm != CollectiveAlgorithm::automatic) return cost(r, r.algorithm);
  const PhaseRequest p = phase_request(r);
  std::optional<CollectiveEstimate> best;
  for (CollectiveAlgorithm a : auto_candidates(r.op)) {
    if (not_applicable(graph_, p, a)) continue;
    CollectiveEstimate e = cost(r, a);
    if (!best || e.time < best->time) best = std::move(e);
  }
  if (!best) throw std::invalid_argument(std::string("no algorithm implements ") + std::string(to_string(r.op)));
  return *best;
}

}  // namespace clustersim
