#include "sim/collectives/phase.hpp"

#include <algorithm>

#include "sim/core/diagnostics.hpp"

namespace clustersim {

std::vector<double> link_loads(const TopologyGraph& g, const Phase& p) {
  std::vector<double> load(2 * g.link_count(), 0.0);
  Route r;
  for (const Transfer& t : p.transfers) {
    if (t.src == t.dst || t.bytes <= 0.0) continue;
    // Adaptive routing spreads the transfer evenly over its equal-cost paths (1 path with ECMP).
    const int paths = g.path_count(t.src, t.dst);
    const double share = t.bytes / static_cast<double>(paths);
    for (int k = 0; k < paths; ++k) {
      g.path_into(t.src, t.dst, k, r);
      for (const RouteStep& s : r) load[2 * static_cast<std::size_t>(s.link) + (s.forward ? 0 : 1)] += share;
    }
  }
  for (const LinkLoad& l : p.in_network) {
    CS_ASSERT(l.link >= 0 && static_cast<std::size_t>(l.link) < g.link_count(), "in-network load on a link that does not exist");
    load[2 * static_cast<std::size_t>(l.link) + (l.forward ? 0 : 1)] += l.bytes;
  }
  return load;
}

namespace {

Seconds route_latency(const TopologyGraph& g, const Route& r) {
  Seconds worst(0);
  for (const RouteStep& s : r) worst = max(worst, g.link(s.link).latency);
  return worst;
}

}  // namespace

PhaseCost cost_phase(const TopologyGraph& g, const Phase& p, const LinkEfficiency& eff) {
  PhaseCost c;
  Seconds alpha(0);
  Route r;
  for (const Transfer& t : p.transfers) {
    if (t.src == t.dst) continue;
    g.route_into(t.src, t.dst, r);
    alpha = max(alpha, route_latency(g, r));
  }
  for (const LinkLoad& l : p.in_network) alpha = max(alpha, g.link(l.link).latency);

  const std::vector<double> load = link_loads(g, p);
  double worst = 0.0;
  for (std::size_t i = 0; i < g.link_count(); ++i) {
    const Link& link = g.link(static_cast<LinkId>(i));
    const double bytes = link.duplex == Duplex::half ? load[2 * i] + load[2 * i + 1] : std::max(load[2 * i], load[2 * i + 1]);
    if (bytes <= 0.0) continue;
    const double e = p.engine == PhaseEngine::nvls    ? eff.nvls
                     : p.engine == PhaseEngine::sharp ? eff.sharp
                                                      : eff.of(link.kind);
    CS_ASSERT(e > 0.0 && e <= 1.0, "link efficiency must be in (0, 1]");
    const double t = bytes / (link.bandwidth.value() * e);
    if (t > worst) {
      worst = t;
      c.bottleneck = static_cast<LinkId>(i);
      c.bottleneck_bytes = bytes;
    }
  }
  c.latency = alpha * static_cast<double>(p.latency_steps);
  c.bandwidth = Seconds(worst);
  c.time = c.latency + c.bandwidth;
  return c;
}

}  // namespace clustersim
