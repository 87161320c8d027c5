#include <set>

#include "sim/collectives/algorithm_phases.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim {

namespace {

bool is_one_of(CollectiveOp op, std::initializer_list<CollectiveOp> ops) {
  for (CollectiveOp o : ops) {
    if (o == op) return true;
  }
  return false;
}

std::string op_text(const PhaseRequest& r) {
  return std::string(to_string(r.op));
}

}  // namespace

std::optional<std::string> not_applicable(const TopologyGraph& g, const PhaseRequest& r,
                                          CollectiveAlgorithm a) {
  using enum CollectiveOp;
  if (a == CollectiveAlgorithm::automatic) return std::nullopt;
  const std::string name(to_string(a));
  if (r.ranks.size() < 2) return "a collective needs at least 2 ranks";
  const auto unsupported = [&] { return name + " does not implement " + op_text(r); };
  switch (a) {
    case CollectiveAlgorithm::automatic:
      return std::nullopt;
    case CollectiveAlgorithm::ring:
      if (!is_one_of(r.op, {all_reduce, reduce_scatter, all_gather, broadcast, reduce})) return unsupported();
      return std::nullopt;
    case CollectiveAlgorithm::double_binary_tree:
      if (!is_one_of(r.op, {all_reduce, broadcast, reduce})) return unsupported();
      return std::nullopt;
    case CollectiveAlgorithm::halving_doubling:
    case CollectiveAlgorithm::hierarchical:
      if (!is_one_of(r.op, {all_reduce, reduce_scatter, all_gather})) return unsupported();
      if (a == CollectiveAlgorithm::hierarchical && hierarchy_dimensions(g, r).sizes.empty()) {
        return "hierarchical needs the ranks spread evenly over >= 2 nodes with >= 2 per node, or a "
               "sub-torus (whole torus dimensions)";
      }
      return std::nullopt;
    case CollectiveAlgorithm::direct:
      if (!is_one_of(r.op, {all_to_all, all_gather, reduce_scatter, all_reduce, send_recv}))
        return unsupported();
      return std::nullopt;
    case CollectiveAlgorithm::pairwise:
      if (r.op != all_to_all) return unsupported();
      return std::nullopt;
    case CollectiveAlgorithm::nvls:
      if (!is_one_of(r.op, {all_reduce, reduce_scatter, all_gather})) return unsupported();
      if (!r.nvls_switch)
        return std::string("nvls needs NVSwitches that reduce in-network (collectives.nvls_efficiency)");
      if (!in_one_nvswitch_domain(g, r.ranks))
        return std::string("nvls needs all ranks on one NVSwitch domain");
      return std::nullopt;
    case CollectiveAlgorithm::sharp: {
      if (r.op != all_reduce) return unsupported();
      if (!r.sharp_network) return std::string("sharp needs a fat-tree whose switches reduce in-network");
      const auto by_node = ranks_by_node(g, r.ranks);
      if (by_node.size() < 2 || ranks_per_node(by_node) < 1)
        return std::string("sharp needs the ranks spread evenly over >= 2 nodes");
      return std::nullopt;
    }
  }
  return unsupported();
}

std::vector<Phase> expand(const TopologyGraph& g, const PhaseRequest& r, CollectiveAlgorithm a) {
  const auto why = not_applicable(g, r, a);
  CS_ASSERT(!why && a != CollectiveAlgorithm::automatic,
            why ? *why : std::string("expand needs a concrete algorithm"));
  std::set<int> distinct(r.ranks.begin(), r.ranks.end());
  CS_ASSERT(distinct.size() == r.ranks.size(), "the ranks of a group must be distinct");
  switch (a) {
    case CollectiveAlgorithm::ring:
      return ring_phases(g, r);
    case CollectiveAlgorithm::double_binary_tree:
      return tree_phases(g, r);
    case CollectiveAlgorithm::halving_doubling:
      return halving_doubling_phases(g, r);
    case CollectiveAlgorithm::direct:
      return direct_phases(r);
    case CollectiveAlgorithm::pairwise:
      return pairwise_phases(r);
    case CollectiveAlgorithm::hierarchical:
      return hierarchical_phases(g, r);
    case CollectiveAlgorithm::nvls:
      return nvls_phases(g, r);
    case CollectiveAlgorithm::sharp:
      return sharp_phases(g, r);
    case CollectiveAlgorithm::automatic:
      break;
  }
  return {};
}

}  // namespace clustersim
