// The figures `clustersim topo` prints for a TopologyGraph: inventory, bisection, hops, oversubscription.
//
// Everything is computed on the built graph (not from the spec), so it shows what was actually wired,
// e.g. the real oversubscription of a partially filled fat-tree.
#pragma once

#include <vector>

#include "sim/core/units.hpp"
#include "topologies/hop_stats.hpp"
#include "topologies/topology_graph.hpp"

namespace clustersim {

struct SwitchRoleCount {
  SwitchRole role = SwitchRole::none;
  int count = 0;
};

struct LinkKindCount {
  LinkKind kind = LinkKind::nvlink;
  int count = 0;
  BytesPerSecond total_bandwidth{0};  // sum of per-direction bandwidths
};

/// Oversubscription of one switch tier: bandwidth of all its links towards lower tiers (NICs, leaves)
/// over the bandwidth of all its links towards higher tiers. Reported for fat-tree leaves and spines
/// that have uplinks; 1 means non-blocking.
struct TierOversubscription {
  SwitchRole role = SwitchRole::none;
  int tier = 0;
  BytesPerSecond down{0};
  BytesPerSecond up{0};
  [[nodiscard]] double ratio() const { return down / up; }
};

struct TopologySummary {
  int nodes = 0;
  int devices = 0;
  int nics = 0;
  int switches = 0;
  std::vector<SwitchRoleCount> switches_by_role;       // role order, non-zero only
  std::vector<LinkKindCount> links_by_kind;            // LinkKind order, non-zero only
  BytesPerSecond bisection{0};                         // see bisection.hpp
  HopStats hops;                                       // see hop_stats.hpp
  std::vector<TierOversubscription> oversubscription;  // by tier, lowest first
};

std::vector<TierOversubscription> tier_oversubscription(const TopologyGraph& g);

/// All figures; `max_hop_sources` bounds the BFS sources of hop_statistics().
TopologySummary summarize(const TopologyGraph& g, int max_hop_sources = 64);

}  // namespace clustersim
