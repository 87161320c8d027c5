#include "topologies/topology_summary.hpp"

#include <array>

#include "topologies/bisection.hpp"

namespace clustersim {

namespace {

constexpr int kRoleCount = static_cast<int>(SwitchRole::router) + 1;

bool is_network_tier(SwitchRole r) {
  return r == SwitchRole::leaf || r == SwitchRole::spine || r == SwitchRole::core || r == SwitchRole::router;
}

}  // namespace

std::vector<TierOversubscription> tier_oversubscription(const TopologyGraph& g) {
  std::array<TierOversubscription, kRoleCount> per_role{};
  for (const Link& l : g.links()) {
    const Vertex& a = g.vertex(l.a);
    const Vertex& b = g.vertex(l.b);
    for (const auto& [self, other] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
      if (self->kind != VertexKind::network_switch || !is_network_tier(self->role)) continue;
      TierOversubscription& t = per_role[static_cast<std::size_t>(self->role)];
      t.role = self->role;
      t.tier = self->tier;
      if (other->tier < self->tier) t.down += l.bandwidth;
      if (other->tier > self->tier) t.up += l.bandwidth;
    }
  }
  std::vector<TierOversubscription> out;
  for (const TierOversubscription& t : per_role) {
    if (t.up.value() > 0) out.push_back(t);
  }
  return out;
}

TopologySummary summarize(const TopologyGraph& g, int max_hop_sources) {
  TopologySummary s;
  s.nodes = g.node_count();
  s.devices = g.device_count();
  s.nics = g.nic_count();
  std::array<int, kRoleCount> roles{};
  for (const Vertex& v : g.vertices()) {
    if (v.kind != VertexKind::network_switch) continue;
    ++s.switches;
    ++roles[static_cast<std::size_t>(v.role)];
  }
  for (int r = 0; r < kRoleCount; ++r) {
    if (roles[static_cast<std::size_t>(r)] > 0) {
      s.switches_by_role.push_back({static_cast<SwitchRole>(r), roles[static_cast<std::size_t>(r)]});
    }
  }
  std::array<LinkKindCount, kLinkKindCount> kinds{};
  for (const Link& l : g.links()) {
    LinkKindCount& k = kinds[static_cast<std::size_t>(l.kind)];
    k.kind = l.kind;
    ++k.count;
    k.total_bandwidth += l.bandwidth;
  }
  for (const LinkKindCount& k : kinds) {
    if (k.count > 0) s.links_by_kind.push_back(k);
  }
  s.bisection = bisection_bandwidth(g);
  s.hops = hop_statistics(g, max_hop_sources);
  s.oversubscription = tier_oversubscription(g);
  return s;
}

}  // namespace clustersim
