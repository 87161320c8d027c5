#include "topologies/dragonfly.hpp"

#include "sim/core/diagnostics.hpp"

namespace clustersim {

namespace {
std::size_t at(std::int64_t i) {
  return static_cast<std::size_t>(i);
}
// Position of group `other` in the ascending list of groups other than `self`.
int other_index(int self, int other) {
  return other < self ? other : other - 1;
}
}  // namespace

std::unique_ptr<Dragonfly> Dragonfly::build(const DragonflySpec& spec, const LinkParams& nic,
                                            TopologyBuilder& builder) {
  std::unique_ptr<Dragonfly> df(new Dragonfly());
  const int g = spec.groups, a = spec.routers_per_group, h = spec.global_links_per_router;
  df->groups_ = g;
  df->routers_ = a;
  df->hosts_ = spec.hosts_per_router;
  const TopologyGraph& tg = builder.partial();
  std::vector<VertexId> router(at(static_cast<std::int64_t>(g) * a));
  for (int r = 0; r < g * a; ++r) router[at(r)] = builder.add_switch(SwitchRole::router, 1, r, r / a);

  const int nics = tg.nic_count();
  df->nic_link_.resize(at(nics));
  for (int n = 0; n < nics; ++n) {
    df->nic_link_[at(n)] =
        builder.add_link(tg.nic_vertex(n), router[at(n / spec.hosts_per_router)], LinkKind::nic_uplink, nic);
  }
  df->local_link_.assign(at(static_cast<std::int64_t>(g) * a * a), -1);
  for (int grp = 0; grp < g; ++grp) {
    for (int i = 0; i < a; ++i) {
      for (int j = i + 1; j < a; ++j) {
        const int ri = grp * a + i, rj = grp * a + j;
        const LinkId l =
            builder.add_link(router[at(ri)], router[at(rj)], LinkKind::dragonfly_local, spec.local);
        df->local_link_[at(static_cast<std::int64_t>(ri) * a + j)] = l;
        df->local_link_[at(static_cast<std::int64_t>(rj) * a + i)] = l;
      }
    }
  }
  // Global links, then the per-ordered-pair lists (counting pass, then filling pass).
  std::vector<std::vector<GlobalLink>> per_pair(at(static_cast<std::int64_t>(g) * g));
  const int ports = a * h;
  for (int round = 0; g > 1 && round * (g - 1) < ports; ++round) {
    for (int i = 0; i < g; ++i) {
      for (int j = i + 1; j < g; ++j) {
        const int qi = round * (g - 1) + other_index(i, j), qj = round * (g - 1) + other_index(j, i);
        if (qi >= ports || qj >= ports) continue;
        const int ri = i * a + qi / h, rj = j * a + qj / h;
        const LinkId l =
            builder.add_link(router[at(ri)], router[at(rj)], LinkKind::dragonfly_global, spec.global);
        per_pair[at(static_cast<std::int64_t>(i) * g + j)].push_back({l, ri, rj, true});
        per_pair[at(static_cast<std::int64_t>(j) * g + i)].push_back({l, rj, ri, false});
      }
    }
  }
  df->pair_offset_.reserve(per_pair.size() + 1);
  df->pair_offset_.push_back(0);
  for (const auto& list : per_pair) {
    df->pair_links_.insert(df->pair_links_.end(), list.begin(), list.end());
    df->pair_offset_.push_back(static_cast<std::int32_t>(df->pair_links_.size()));
  }
  return df;
}

void Dragonfly::push_local(std::int32_t ra, std::int32_t rb, Route& out) const {
  if (ra == rb) return;
  const LinkId l = local_link_[at(static_cast<std::int64_t>(ra) * routers_ + rb % routers_)];
  out.push_back({l, ra < rb});  // local links run from the lower-numbered router
}

void Dragonfly::append_route(std::int32_t src_nic, std::int32_t dst_nic, std::uint64_t hash,
                             Route& out) const {
  const std::int32_t rs = src_nic / hosts_, rd = dst_nic / hosts_;
  out.push_back({nic_link_[at(src_nic)], true});
  const int gs = rs / routers_, gd = rd / routers_;
  if (gs == gd) {
    push_local(rs, rd, out);
  } else {
    const std::size_t pair = at(static_cast<std::int64_t>(gs) * groups_ + gd);
    const std::int32_t lo = pair_offset_[pair], hi = pair_offset_[pair + 1];
    CS_ASSERT(hi > lo, "validated dragonflies link every pair of groups");
    auto cost = [&](const GlobalLink& g) { return (g.from_router != rs) + (g.to_router != rd); };
    int best = 3, ties = 0;
    for (std::int32_t i = lo; i < hi; ++i) {
      const int c = cost(pair_links_[at(i)]);
      if (c < best) best = c, ties = 0;
      if (c == best) ++ties;
    }
    auto pick = static_cast<int>(hash % static_cast<std::uint64_t>(ties));
    for (std::int32_t i = lo; i < hi; ++i) {
      const GlobalLink& g = pair_links_[at(i)];
      if (cost(g) != best || pick-- != 0) continue;
      push_local(rs, g.from_router, out);
      out.push_back({g.link, g.forward});
      push_local(g.to_router, rd, out);
      break;
    }
  }
  out.push_back({nic_link_[at(dst_nic)], false});
}

}  // namespace clustersim
