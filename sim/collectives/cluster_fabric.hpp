// From a validated ClusterSpec (sim/config/scenario.hpp) to what the collective model needs: the
// ClusterTopologySpec (explicit `comm.topology`, else derived) and the link efficiencies.
//
// Derivation when the cluster JSON gives no explicit topology keys (documented in docs/collectives.md):
//   node fabric   nvswitch -> nvswitch; nvlink-mesh -> DGX-1V hybrid cube-mesh (8 devices) ;
//                 pcie -> pcie; torus-ici, wafer -> none. intra_link bandwidth/latency -> the node link.
//   NIC attach    device <-> NIC PCIe path: 2x the NIC rate, no latency (PCIe x16 of the NIC's
//                 generation is ~1.3x the NIC rate, so it is never the bottleneck in practice).
//   fat-tree      radix 64 (NDR/HDR switch class: QM9700 has 64 x 400 Gb/s ports), 2 tiers if they
//                 hold the NICs at the given oversubscription, else 3; the single `oversubscription`
//                 applies to every tier; rail-optimized when nics == devices_per_node (NVIDIA
//                 SuperPOD reference architecture); leaf-spine and spine-core links = the NIC link.
//   torus         dims: the device count split into 3 (or 2) near-equal factors, largest last;
//                 cube 4 when every dim is a multiple of 4 and the node fabric was torus-ici;
//                 per-link bandwidth = intra_link bandwidth / (2 · dims) (one chip's total over its
//                 2D links), latency = intra_link latency.
//   dragonfly     needs the explicit keys (ConfigError at /network/groups).
// Efficiencies: NVLink/NVSwitch/torus links and an intra-node PCIe fabric use intra_link.efficiency;
// NIC, fat-tree and dragonfly links and the device <-> NIC path use nic.efficiency; NVLS and SHARP
// use comm.nvls_efficiency / comm.sharp_efficiency.
#pragma once

#include "sim/collectives/collective_model.hpp"
#include "sim/config/scenario.hpp"

namespace clustersim {

struct ClusterFabric {
  ClusterTopologySpec topology;
  CollectiveModelOptions options;
};

/// Throws ConfigError (pointers relative to the cluster document) when no topology can be derived.
ClusterFabric cluster_fabric(const ClusterSpec& c);

/// The topology derived from the node and network fields alone (the rules above); a dragonfly gets
/// its link classes but default shape (sim/config overrides it with the explicit keys).
ClusterTopologySpec derived_topology(const ClusterSpec& c);

/// Near-equal factors of n (dims = 2 or 3), ascending: 4096 -> {16, 16, 16}, 512 -> {8, 8, 8}.
std::vector<int> near_cubic_dims(int n, int dims);

}  // namespace clustersim
