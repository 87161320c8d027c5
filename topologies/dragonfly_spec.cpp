#include "topologies/dragonfly_spec.hpp"

#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace clustersim {
namespace {
/// Largest dragonfly model (routers + local-link table + group pairs + global links), ~1 GB
/// (docs/limits.md).
constexpr double kMaxDragonflyEntries = 33554432;  // 2^25
}  // namespace

std::vector<FieldProblem> DragonflySpec::validate(int nodes, int nics_per_node) const {
  std::vector<FieldProblem> out;
  auto at_least = [&](int v, int lo, const char* key) {
    if (v >= lo) return true;
    out.push_back({key, "must be >= " + std::to_string(lo) + ", got " + std::to_string(v)});
    return false;
  };
  bool ok = at_least(groups, 1, "groups");
  ok = at_least(routers_per_group, 1, "routers_per_group") && ok;
  ok = at_least(hosts_per_router, 1, "hosts_per_router") && ok;
  ok = at_least(global_links_per_router, 0, "global_links_per_router") && ok;
  if (!ok) return out;
  // The model holds g·a routers, a g·a·a local-link table, g·g group pairs and up to g·a·h global links;
  // past kMaxDragonflyEntries (2^25) entries it would take gigabytes before any simulation starts.
  const double g = groups, a = routers_per_group, h = global_links_per_router;
  const double entries = g * a + g * a * a + g * g + g * a * h;
  if (entries > kMaxDragonflyEntries) {
    out.push_back({"groups", fmt::format("a dragonfly of {} groups x {} routers ({} global links each) would "
                                         "hold {:.3g} routers, local-link entries and group pairs, over the "
                                         "bound of {:.3g} (docs/limits.md)",
                                         groups, routers_per_group, global_links_per_router, entries,
                                         kMaxDragonflyEntries)});
    return out;
  }
  const std::int64_t ports_per_group = static_cast<std::int64_t>(routers_per_group) * global_links_per_router;
  if (groups > 1 && global_links_per_router == 0) {
    out.push_back({"global_links_per_router",
                   "a dragonfly with " + std::to_string(groups) + " groups needs global links, got 0"});
  } else if (groups - 1 > ports_per_group) {
    out.push_back({"groups", std::to_string(groups) + " groups need " + std::to_string(groups - 1) +
                                 " global links per group to link every pair directly, but " +
                                 std::to_string(routers_per_group) + " routers x " +
                                 std::to_string(global_links_per_router) + " give " +
                                 std::to_string(ports_per_group)});
  }
  if (routers_per_group > 1) append_under(out, "local", validate_link_params(local));
  if (groups > 1) append_under(out, "global", validate_link_params(global));
  if (nics_per_node < 1) {
    out.push_back({"nics_per_node", "a dragonfly network needs at least one NIC per node"});
    return out;
  }
  const std::int64_t ports = static_cast<std::int64_t>(groups) * routers_per_group * hosts_per_router;
  const std::int64_t needed = static_cast<std::int64_t>(nodes) * nics_per_node;
  if (ports < needed) {
    out.push_back({"hosts_per_router",
                   std::to_string(groups) + " groups x " + std::to_string(routers_per_group) + " routers x " +
                       std::to_string(hosts_per_router) + " hosts serve " + std::to_string(ports) +
                       " NIC ports, but " + std::to_string(nodes) + " nodes x " +
                       std::to_string(nics_per_node) + " NICs need " + std::to_string(needed)});
  }
  return out;
}

}  // namespace clustersim
