// Builds the intra-node (or intra-NVLink-domain) part of a TopologyGraph and the device <-> NIC links.
//
// nvswitch (DGX A100/H100/H200), one logical non-blocking NVSwitch per node; each device port is all
// of its NVLinks (H100: 18 links, 450 GB/s per direction). Route of d1 -> d6: d1 -> nvsw (nvswitch_port,
// forward), nvsw -> d6 (nvswitch_port, backward). Scale-out traffic leaves through the device's NIC:
//
//            +------------------ nvsw ------------------+
//            |     |     |     |     |     |     |      |
//           d0    d1    d2    d3    d4    d5    d6     d7        (nvswitch_port links)
//            |     |     |     |     |     |     |      |        (pcie links, device -> NIC)
//          nic0  nic1  nic2  nic3  nic4  nic5  nic6   nic7  ---> scale-out network (nic_uplink)
//
// nvlink_mesh (DGX-1 hybrid cube-mesh): devices are joined pairwise; a pair's link bandwidth is its
// lanes x the lane bandwidth (device bandwidth / the most lanes any device has). Non-adjacent devices route
// through one intermediate device (the first in index order on a breadth-first search), e.g. d0 -> d5: d0 ->
// d1 -> d5.
//
//           d0 ===== d3          (= two lanes, - one lane; quads {0,1,2,3} and {4,5,6,7} are
//           | \    / |             fully connected, plus i <-> i+4)
//           d1 ===== d2   ...    d4..d7 mirror it
//
// pcie: one PCIe switch per node, every device on a pcie link to it (d0 -> pcie_sw -> d5).
// nvl_domain (GB200 NVL72): like nvswitch, but one logical NVSwitch joins all domain_devices devices of
// domain_devices / devices_per_node consecutive nodes (18 trays of 4 GPUs); each tray keeps its NICs.
// none: no intra-node links; devices of a node that share a NIC talk through it (d0 -> nic0 -> d1).
//
// One logical switch stands for the NVSwitch chips of a node (DGX H100 has 4): NVLink traffic is
// striped over all of them, so per-device port bandwidth is what bounds a transfer. The switch adds no
// latency of its own; the port latency covers the device -> switch -> device path half each way.
#pragma once

#include "topologies/node_fabric_spec.hpp"
#include "topologies/topology_builder.hpp"

namespace clustersim {

class NodeFabric {
 public:
  /// Adds the node switches, intra-domain links, domain routes and device -> NIC links for `nodes`
  /// nodes. Precondition: spec.validate(nodes) is empty. Must run right after the builder is created
  /// so that node switches get the ids that follow the NICs.
  static void build(const NodeFabricSpec& spec, int nodes, TopologyBuilder& builder);
};

}  // namespace clustersim
