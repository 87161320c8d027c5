#include "sim/report/topology_report.hpp"

#include <fmt/format.h>

#include "sim/core/unit_parse.hpp"

namespace clustersim {

namespace {
std::string bw(BytesPerSecond b) { return format_quantity(b.value(), Dimension::bandwidth); }
}  // namespace

nlohmann::json topology_json(const std::string& cluster, const TopologyGraph& g, const TopologySummary& s) {
  nlohmann::json j;
  j["cluster"] = cluster;
  j["description"] = g.description();
  j["nodes"] = s.nodes;
  j["devices"] = s.devices;
  j["nics"] = s.nics;
  j["switches"] = s.switches;
  j["switches_by_role"] = nlohmann::json::object();
  for (const SwitchRoleCount& c : s.switches_by_role) j["switches_by_role"][std::string(to_string(c.role))] = c.count;
  j["links_by_kind"] = nlohmann::json::object();
  for (const LinkKindCount& c : s.links_by_kind) {
    j["links_by_kind"][std::string(to_string(c.kind))] = {{"count", c.count},
                                                          {"total_bandwidth_Bps", c.total_bandwidth.value()}};
  }
  j["bisection_bandwidth_Bps"] = s.bisection.value();
  j["diameter_hops"] = s.hops.diameter;
  j["average_hops"] = s.hops.average;
  j["hops_exact"] = s.hops.exact;
  j["hop_sources"] = s.hops.sources;
  j["oversubscription"] = nlohmann::json::array();
  for (const TierOversubscription& o : s.oversubscription) {
    j["oversubscription"].push_back({{"role", std::string(to_string(o.role))},
                                     {"tier", o.tier},
                                     {"down_Bps", o.down.value()},
                                     {"up_Bps", o.up.value()},
                                     {"ratio", o.ratio()}});
  }
  return j;
}

std::string topology_text(const std::string& cluster, const TopologyGraph& g, const TopologySummary& s) {
  std::string out = fmt::format("{}: {}\n", cluster, g.description());
  out += fmt::format("  endpoints     {} devices, {} NICs, {} nodes\n", s.devices, s.nics, s.nodes);
  out += fmt::format("  switches      {}", s.switches);
  for (const SwitchRoleCount& c : s.switches_by_role) out += fmt::format("  {} {}", c.count, to_string(c.role));
  out += "\n  links\n";
  for (const LinkKindCount& c : s.links_by_kind) {
    out += fmt::format("    {:<18} {:>8}  total {}\n", to_string(c.kind), c.count, bw(c.total_bandwidth));
  }
  out += fmt::format("  bisection     {} per direction\n", bw(s.bisection));
  out += fmt::format("  hops          diameter {}, average {:.3f} ({} from {} sources)\n", s.hops.diameter,
                     s.hops.average, s.hops.exact ? "exact" : "sampled", s.hops.sources);
  for (const TierOversubscription& o : s.oversubscription) {
    out += fmt::format("  oversubscription {} (tier {}): {:.2f}:1 ({} down / {} up)\n", to_string(o.role), o.tier,
                       o.ratio(), bw(o.down), bw(o.up));
  }
  return out;
}

}  // namespace clustersim
