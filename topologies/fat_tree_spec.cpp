#include "topologies/fat_tree_spec.hpp"

#include <cmath>
#include <sstream>
#include <string>

namespace clustersim {

namespace {

std::string num(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

int ceil_div(std::int64_t a, std::int64_t b) {
  return static_cast<int>((a + b - 1) / b);
}

}  // namespace

bool split_ports(int radix, double ratio, int* down, int* up) {
  if (!(ratio > 0) || radix < 2) return false;
  const double d = std::round(radix * ratio / (ratio + 1.0));
  // A huge ratio makes radix·ratio infinite: no split (and no cast of inf or of a value outside int).
  if (!(d >= 1.0 && d < radix)) return false;
  *down = static_cast<int>(d);
  *up = radix - *down;
  return *down >= 1 && *up >= 1 && std::abs(static_cast<double>(*down) / *up - ratio) <= 1e-9 * ratio;
}

double FatTreeSpec::ratio(int tier) const {
  const auto i = static_cast<std::size_t>(tier - 1);
  return i < oversubscription.size() ? oversubscription[i] : 1.0;
}

FatTreeShape FatTreeShape::of(const FatTreeSpec& spec, int nodes, int nics_per_node, bool* ok) {
  FatTreeShape s;
  bool good = split_ports(spec.radix, spec.ratio(1), &s.leaf_down, &s.leaf_up);
  if (spec.tiers == 3) {
    good = split_ports(spec.radix, spec.ratio(2), &s.spine_down, &s.spine_up) && good;
  } else {
    s.spine_down = spec.radix;
  }
  if (!good || nics_per_node < 1) {
    if (ok) *ok = false;
    return s;
  }
  s.rails = spec.rail_optimized ? nics_per_node : 1;
  s.nodes_per_leaf = spec.rail_optimized ? s.leaf_down : s.leaf_down / nics_per_node;
  if (s.nodes_per_leaf < 1) {
    if (ok) *ok = false;
    return s;
  }
  s.leaves = ceil_div(nodes, s.nodes_per_leaf) * s.rails;
  s.spines_per_pod = s.leaf_up;
  const std::int64_t ports_per_leaf = static_cast<std::int64_t>(s.nodes_per_leaf) * nics_per_node / s.rails;
  if (spec.tiers == 2) {
    s.leaves_per_pod = s.leaves;
    s.pods = 1;
    s.spines = s.leaf_up;
    s.max_nic_ports = static_cast<std::int64_t>(spec.radix) * ports_per_leaf;
    good = s.leaves <= spec.radix;
  } else {
    s.leaves_per_pod = s.spine_down;
    s.pods = ceil_div(s.leaves, s.leaves_per_pod);
    s.spines = s.pods * s.spines_per_pod;
    s.cores = s.leaf_up * s.spine_up;
    s.max_nic_ports = static_cast<std::int64_t>(spec.radix) * s.spine_down * ports_per_leaf;
    good = s.pods <= spec.radix;
  }
  if (ok) *ok = good;
  return s;
}

std::vector<FieldProblem> FatTreeSpec::validate(int nodes, int nics_per_node) const {
  std::vector<FieldProblem> out;
  if (tiers != 2 && tiers != 3) {
    out.push_back({"tiers", "a fat-tree has 2 or 3 tiers, got " + std::to_string(tiers)});
    return out;
  }
  if (radix < 2) {
    out.push_back({"radix", "switch radix must be >= 2 ports, got " + std::to_string(radix)});
    return out;
  }
  if (!oversubscription.empty() && static_cast<int>(oversubscription.size()) != tiers - 1) {
    out.push_back({"oversubscription", "a " + std::to_string(tiers) + "-tier fat-tree takes " +
                                           std::to_string(tiers - 1) + " oversubscription ratio(s) (leaf" +
                                           (tiers == 3 ? ", spine)" : ")") + ", got " +
                                           std::to_string(oversubscription.size())});
    return out;
  }
  bool ports_ok = true;
  for (int t = 1; t < tiers; ++t) {
    int d = 0, u = 0;
    if (!(ratio(t) >= 1.0) || !split_ports(radix, ratio(t), &d, &u)) {
      out.push_back({"oversubscription[" + std::to_string(t - 1) + "]",
                     "oversubscription " + num(ratio(t)) + " must be >= 1 and split radix " +
                         std::to_string(radix) + " into whole down:up ports (e.g. 1, 3 or 7 for radix 64)"});
      ports_ok = false;
    }
  }
  append_under(out, "leaf_spine", validate_link_params(leaf_spine));
  if (tiers == 3) append_under(out, "spine_core", validate_link_params(spine_core));
  if (nics_per_node < 1) {
    out.push_back({"nics_per_node", "a fat-tree network needs at least one NIC per node"});
    return out;
  }
  if (!ports_ok) return out;
  // The top tier is built whole: leaf_up x spine_up core switches (3 tiers) or leaf_up spines (2 tiers),
  // whatever the node count. A radix beyond any real switch (65,536: 1.07e9 cores) would build for
  // minutes and exhaust memory; it is refused above 2^20 top-tier switches (radix 2,048 with 3 tiers).
  {
    constexpr double kMaxTopSwitches = 1 << 20;
    int leaf_down = 0, leaf_up = 0, spine_down = 0, spine_up = 0;
    split_ports(radix, ratio(1), &leaf_down, &leaf_up);
    if (tiers == 3) split_ports(radix, ratio(2), &spine_down, &spine_up);
    const double top = tiers == 3 ? static_cast<double>(leaf_up) * spine_up : static_cast<double>(leaf_up);
    if (top > kMaxTopSwitches) {
      out.push_back({"radix", "a " + std::to_string(tiers) + "-tier fat-tree of radix " + std::to_string(radix) +
                                  " has " + std::to_string(static_cast<long long>(top)) +
                                  (tiers == 3 ? " core switches" : " spine switches") + ", over the bound of " +
                                  std::to_string(static_cast<long long>(kMaxTopSwitches)) +
                                  " this tool builds (use the radix of the real switches, e.g. 64)"});
      return out;
    }
  }
  bool fits = false;
  const FatTreeShape s = FatTreeShape::of(*this, nodes, nics_per_node, &fits);
  if (s.nodes_per_leaf < 1) {
    out.push_back({"radix", "a leaf of radix " + std::to_string(radix) + " has " +
                                std::to_string(s.leaf_down) + " NIC ports, fewer than the " +
                                std::to_string(nics_per_node) + " NICs of one node"});
  } else if (!fits) {
    const std::int64_t needed = static_cast<std::int64_t>(nodes) * nics_per_node;
    out.push_back({"radix", "a " + std::to_string(tiers) + "-tier fat-tree of radix " +
                                std::to_string(radix) + " serves at most " + std::to_string(s.max_nic_ports) +
                                " NIC ports, but " + std::to_string(nodes) + " nodes x " +
                                std::to_string(nics_per_node) + " NICs need " + std::to_string(needed) +
                                (tiers == 2 ? " (use 3 tiers or a larger radix)" : "")});
  }
  return out;
}

}  // namespace clustersim
