#include "topologies/derived_topology.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/diagnostics.hpp"

namespace clustersim {

std::vector<int> near_cubic_dims(int n, int dims) {
  CS_ASSERT(n >= 1 && (dims == 2 || dims == 3), "near_cubic_dims needs n >= 1 and 2 or 3 dims");
  std::vector<int> out;
  int rest = n;
  for (int d = dims; d > 1; --d) {
    auto f = static_cast<int>(std::floor(std::pow(static_cast<double>(rest), 1.0 / d) + 1e-9));
    while (f > 1 && rest % f != 0) --f;
    out.push_back(std::max(1, f));
    rest /= std::max(1, f);
  }
  out.push_back(rest);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> lead_dims_first(std::vector<int> dims, int lead) {
  const int n = static_cast<int>(dims.size());
  if (lead <= 1 || n < 2) return dims;
  for (int count = n; count >= 1; --count) {
    // Subsets of `count` dimensions in lexicographic index order (itertools.combinations' order).
    for (int mask = 0; mask < (1 << n); ++mask) {  // for n <= 3 this is combination order
      std::vector<int> idx;
      for (int i = 0; i < n; ++i) {
        if (mask & (1 << i)) idx.push_back(i);
      }
      if (static_cast<int>(idx.size()) != count) continue;
      long long product = 1;
      for (int i : idx) product *= dims[static_cast<std::size_t>(i)];
      if (product != lead) continue;
      std::vector<int> out;
      for (int i : idx) out.push_back(dims[static_cast<std::size_t>(i)]);
      for (int i = 0; i < n; ++i) {
        if (!(mask & (1 << i))) out.push_back(dims[static_cast<std::size_t>(i)]);
      }
      return out;
    }
  }
  return dims;
}

std::optional<ClusterSpec> torus_mapped_cluster(const ClusterSpec& c, int tp) {
  const bool multi_slice = c.network.slices > 1 && c.nodes % c.network.slices == 0;
  const bool lead = tp > 1 && c.network.topology == "torus" && !c.comm.topology && c.nodes > 1;
  if (!multi_slice && !lead) return std::nullopt;
  ClusterSpec out = c;
  if (multi_slice) out = slice_cluster(c);
  if (tp > 1 && out.network.topology == "torus" && !out.comm.topology && out.nodes > 1) out.network.torus_lead = tp;
  return out;
}

ClusterSpec slice_cluster(const ClusterSpec& c) {
  ClusterSpec out = c;
  if (c.network.slices > 1 && c.nodes % c.network.slices == 0) {
    out.nodes = c.nodes / c.network.slices;
    out.network.slices = 1;
  }
  return out;
}

namespace {

LinkParams link_params(const LinkSpec& l) {
  return LinkParams{l.bandwidth, l.latency, l.duplex};
}

NodeFabricSpec node_fabric(const NodeSpec& n) {
  NodeFabricSpec f;
  f.devices_per_node = n.devices_per_node;
  f.link = link_params(n.intra);
  switch (n.fabric) {
    case NodeFabric::nvswitch:
      f.kind = NodeFabricKind::nvswitch;
      if (n.nvlink_domain_devices > n.devices_per_node) {
        f.kind = NodeFabricKind::nvl_domain;
        f.domain_devices = n.nvlink_domain_devices;
      } else if (n.devices_per_node == 1) {
        f.kind = NodeFabricKind::none;
      }
      break;
    case NodeFabric::nvlink_mesh:
      f.kind = NodeFabricKind::nvlink_mesh;
      if (!n.nvlink_mesh.empty()) {
        f.mesh = n.nvlink_mesh;
      } else {
        // The DGX-1V hybrid cube-mesh, restricted to the node's devices: a 4-GPU V100 node keeps the
        // fully connected quad of devices 0..3.
        for (const MeshLink& l : dgx1v_hybrid_cube_mesh()) {
          if (l.a < n.devices_per_node && l.b < n.devices_per_node) f.mesh.push_back(l);
        }
      }
      break;
    case NodeFabric::pcie:
      f.kind = NodeFabricKind::pcie;
      break;
    case NodeFabric::torus_ici:
    case NodeFabric::wafer:
      f.kind = NodeFabricKind::none;
      break;
  }
  f.nics = std::min(n.nics, n.devices_per_node);
  f.nic = link_params(n.nic);
  f.nic_attach =
      n.nic_attach ? link_params(*n.nic_attach) : LinkParams{n.nic.bandwidth * 2.0, Seconds(0), Duplex::full};
  return f;
}

// 64 when the ratio splits it into whole down:up ports (1, 3, 7), else the largest radix below that
// does (4:1 -> 60 = 48 + 12: a 64-port switch with 4 ports unused), else 64 (derive_fat_tree then
// realises the ratio with slower up-links).
int derived_radix(double ratio) {
  int down = 0, up = 0;
  for (int k = 64; k >= 2; --k) {
    if (split_ports(k, ratio, &down, &up)) return k;
  }
  return 64;
}

void derive_fat_tree(const ClusterSpec& c, ClusterTopologySpec& t) {
  FatTreeSpec& ft = t.fat_tree;
  ft.adaptive_routing = c.network.adaptive_routing;
  double r = c.network.oversubscription;
  ft.radix = derived_radix(r);
  ft.rail_optimized = t.node.nics == t.node.devices_per_node && t.node.nics > 1;
  ft.leaf_spine = t.node.nic;
  ft.spine_core = t.node.nic;
  int down = 0, up = 0;
  if (r >= 1.0 && !split_ports(ft.radix, r, &down, &up)) {
    // No radix up to 64 splits this ratio into whole ports (1.5, 2.4, ...): the oversubscription is a
    // capacity ratio, so a 64-port switch takes the nearest whole-port split at or below it and its
    // up-links run slower by achieved / asked, which makes down:up capacity exactly the ratio asked for.
    // At least one up-link: past radix/(1 + r) < 1e-9 (r above ~6e10) the rounding would give none and an
    // infinite achieved ratio; one up-link slowed by 63 / r keeps down:up capacity at the ratio asked for.
    up = std::max(1, static_cast<int>(std::ceil(ft.radix / (1.0 + r) - 1e-9)));
    down = ft.radix - up;
    const double achieved = static_cast<double>(down) / up;
    ft.leaf_spine.bandwidth = ft.leaf_spine.bandwidth * (achieved / r);
    ft.spine_core.bandwidth = ft.spine_core.bandwidth * (achieved / r);
    r = achieved;
  }
  ft.tiers = 2;
  ft.oversubscription = {r};
  bool ok = false;
  (void)FatTreeShape::of(ft, t.nodes, t.node.nics, &ok);
  if (!ok) {
    ft.tiers = 3;
    ft.oversubscription = {r, r};
  }
}

void derive_torus(const ClusterSpec& c, ClusterTopologySpec& t) {
  const int devices = c.devices();
  const IciSpec& ici = c.node.ici;
  const int d = ici.dims > 0 ? ici.dims : (devices >= 64 ? 3 : 2);
  t.torus.dims = near_cubic_dims(devices, d);
  const int m = ici.max_dim;
  if (d == 2 && m > 0 && devices > m * m && devices % m == 0) t.torus.dims = {m, devices / m};
  t.torus.dims = lead_dims_first(t.torus.dims, c.network.torus_lead);
  const int w = ici.wrap_multiple;
  t.torus.wrap = w <= 0 || std::all_of(t.torus.dims.begin(), t.torus.dims.end(), [w](int k) { return k % w == 0; });
  const bool cubes = c.node.fabric == NodeFabric::torus_ici && d == 3 &&
                     std::all_of(t.torus.dims.begin(), t.torus.dims.end(), [](int k) { return k % 4 == 0; });
  t.torus.cube = cubes ? 4 : 0;
  t.torus.link = LinkParams{c.node.intra.bandwidth / (2.0 * d), c.node.intra.latency, c.node.intra.duplex};
  t.node.kind = NodeFabricKind::none;
  t.node.nics = 0;
}

}  // namespace

ClusterTopologySpec derived_topology(const ClusterSpec& c) {
  ClusterTopologySpec t;
  t.nodes = c.nodes;
  t.node = node_fabric(c.node);
  const std::string& kind = c.network.topology;
  if (kind == "single-node" || c.nodes == 1) {
    t.network = NetworkKind::none;
  } else if (kind == "fat-tree") {
    t.network = NetworkKind::fat_tree;
    derive_fat_tree(c, t);
  } else if (kind == "torus") {
    t.network = NetworkKind::torus;
    derive_torus(c, t);
  } else if (kind == "dragonfly") {
    t.network = NetworkKind::dragonfly;
    t.dragonfly.local = t.node.nic;
    t.dragonfly.global = t.node.nic;
  } else {
    throw SpecError("network.topology", "unknown network topology '" + kind + "'");
  }
  return t;
}

}  // namespace clustersim
