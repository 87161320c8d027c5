#include "sim/report/topology_report.hpp"

#include <fmt/format.h>

#include <algorithm>

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

namespace {
struct SliceFigures {
  int n = 1, hosts = 1, devices = 1;
  double per_host = 0, per_slice = 0, bisection = 0;
};
SliceFigures slice_figures(const ClusterSpec& c, const TopologyGraph& slice) {
  SliceFigures f;
  f.n = std::max(1, c.network.slices);
  f.hosts = slice.node_count();
  f.devices = slice.device_count();
  f.per_host = c.network.dcn.bandwidth.value();
  f.per_slice = f.per_host * f.hosts;
  f.bisection = static_cast<double>(f.n / 2) * f.per_slice;
  return f;
}
std::string dcn_source(const ClusterSpec& c) {
  return c.network.dcn_derived ? "assumed: the host's NICs x NIC bandwidth x NIC efficiency"
                               : "network.dcn_bandwidth";
}
}  // namespace

nlohmann::json multi_slice_topology_json(const ClusterSpec& c, const TopologyGraph& slice) {
  const SliceFigures f = slice_figures(c, slice);
  return {{"slices", f.n},
          {"devices", f.n * f.devices},
          {"nodes", f.n * f.hosts},
          {"devices_per_slice", f.devices},
          {"hosts_per_slice", f.hosts},
          {"dcn_links", f.n * f.hosts},
          {"dcn_bandwidth_per_host_Bps", f.per_host},
          {"dcn_latency_s", c.network.dcn.latency.value()},
          {"dcn_bandwidth_source", dcn_source(c)},
          {"dcn_bandwidth_per_slice_Bps", f.per_slice},
          {"dcn_bisection_Bps", f.bisection},
          {"dcn_model",
           "one link per host into a non-blocking data-centre network (no published oversubscription); chips "
           "reach other slices through their host"}};
}

std::string multi_slice_topology_text(const ClusterSpec& c, const TopologyGraph& slice) {
  const SliceFigures f = slice_figures(c, slice);
  std::string out = fmt::format("  slices        {} slices of {} devices on {} hosts (the figures above are one slice's "
                                "torus); {} devices in all\n",
                                f.n, f.devices, f.hosts, f.n * f.devices);
  out += fmt::format("  DCN           {} host links of {} per direction ({}), latency {}, non-blocking\n",
                     f.n * f.hosts, bw(BytesPerSecond(f.per_host)), dcn_source(c),
                     format_quantity(c.network.dcn.latency.value(), Dimension::time));
  out += fmt::format("  DCN per slice {} per direction; between halves of the slices {} per direction\n",
                     bw(BytesPerSecond(f.per_slice)), bw(BytesPerSecond(f.bisection)));
  return out;
}

}  // namespace clustersim
