#include "sim/collectives/cluster_fabric.hpp"

#include "sim/core/diagnostics.hpp"

namespace clustersim {

ClusterFabric cluster_fabric(const ClusterSpec& c) {
  ClusterFabric f;
  if (c.comm.topology) {
    f.topology = *c.comm.topology;
  } else if (c.network.topology == "dragonfly" && c.nodes > 1) {
    throw SpecError("comm.topology",
                    "a dragonfly needs its shape: groups, routers_per_group, hosts_per_router, "
                    "global_links_per_router");
  } else {
    f.topology = derived_topology(c);
  }
  LinkEfficiency& e = f.options.efficiency;
  const double intra = c.node.intra.efficiency;
  const double nic = c.node.nic.efficiency;
  for (LinkKind k : {LinkKind::nvlink, LinkKind::nvswitch_port, LinkKind::torus, LinkKind::torus_optical}) {
    e.by_kind[static_cast<int>(k)] = intra;
  }
  for (LinkKind k : {LinkKind::nic_uplink, LinkKind::leaf_spine, LinkKind::spine_core,
                     LinkKind::dragonfly_local, LinkKind::dragonfly_global}) {
    e.by_kind[static_cast<int>(k)] = nic;
  }
  e.by_kind[static_cast<int>(LinkKind::pcie)] = c.node.fabric == NodeFabric::pcie ? intra : nic;
  e.nvls = c.comm.nvls_efficiency > 0.0 ? c.comm.nvls_efficiency : 1.0;
  e.sharp = c.comm.sharp_efficiency > 0.0 ? c.comm.sharp_efficiency : 1.0;
  f.options.sharp_network = c.comm.sharp_efficiency > 0.0;
  f.options.nvls = c.comm.nvls_efficiency > 0.0;
  f.options.communicator_nics = c.node.nics_per_communicator;
  return f;
}

}  // namespace clustersim
