// From the node and network fields of a ClusterSpec to the ClusterTopologySpec of its fabric, with the
// defaults that apply to every key the cluster JSON leaves out (docs/topologies.md, "Defaults").
//
//   node fabric   nvswitch -> nvswitch (nvl-domain when node.nvlink_domain_devices > devices_per_node;
//                 none for a single-device node); nvlink-mesh -> node.nvlink_mesh, else the DGX-1V
//                 hybrid cube-mesh (its links among the node's devices); pcie -> pcie; torus-ici, wafer -> none. intra_link -> the node link.
//   NIC attach    node.nic_attach, else device <-> NIC PCIe path at 2x the NIC rate and no latency
//                 (PCIe x16 of the NIC's generation is ~1.3x the NIC rate, so never the bottleneck).
//   NICs          min(nics, devices_per_node): catalog nodes with more ports than devices (CS-2) use
//                 one per device. An explicit topology keeps the count, so validation reports it.
//   fat-tree      radix 64 (NDR/HDR switch class: QM9700 has 64 x 400 Gb/s ports) when the
//                 oversubscription splits it into whole down:up ports (1, 3, 7), else the largest
//                 radix below 64 it splits (4 -> 60: 48 down, 12 up, 4 ports unused); a ratio no radix
//                 splits (1.5) takes 64 ports split at or below it (38:26) with up-links slowed by
//                 achieved/asked, so down:up capacity is the ratio asked for; 2 tiers if they
//                 hold the NICs at the given oversubscription, else 3; the single `oversubscription`
//                 applies to every tier; rail-optimized when nics == devices_per_node > 1 (NVIDIA
//                 SuperPOD reference architecture); leaf-spine and spine-core links = the NIC link.
//   torus         dims: the device count split into node.ici.dims (else 3, or 2 below 64) near-equal
//                 factors, largest last; in 2D with node.ici.max_dim M and more than M·M chips, M × n/M
//                 (slices of M rows stacked along y: TPU v5e pods are at most 16x16, Google Cloud TPU
//                 v5e docs); then, when network.torus_lead > 1, the dimensions whose product is that
//                 group size move to the front, so consecutive ranks (tensor parallelism) fill whole
//                 dimensions (JAX mesh_utils._create_device_mesh_for_nd_torus: the most
//                 network-intensive logical axis gets whole physical axes, more axes preferred);
//                 wraparound unless node.ici.wrap_multiple > 0 and some dim is not a multiple of it
//                 (v5e: only full 16-chip axes wrap); cube 4 when every dim of a 3D torus is a
//                 multiple of 4 and the node fabric is torus-ici; per-link bandwidth = intra_link
//                 bandwidth / (2 · dims) (one chip's total over its links), latency = intra_link
//                 latency; the node keeps no fabric and no NICs.
//   dragonfly     links = the NIC link; the shape (groups, routers, hosts, global links) has no
//                 default: sim/config requires the explicit keys.
#pragma once

#include <optional>
#include <vector>

#include "topologies/cluster_spec.hpp"
#include "topologies/cluster_topology_spec.hpp"

namespace clustersim {

/// The topology implied by the cluster's fields (the rules above). Throws SpecError (field
/// "network.topology" of the ClusterSpec) for an unknown network kind.
ClusterTopologySpec derived_topology(const ClusterSpec& c);

/// Near-equal factors of n (dims = 2 or 3), ascending: 4096 -> {16, 16, 16}, 512 -> {8, 8, 8}.
std::vector<int> near_cubic_dims(int n, int dims);

/// `dims` reordered so that the first dimensions' product is `lead` (JAX's assignment of a logical mesh
/// axis to physical torus axes: subsets of 3, then 2, then 1 dimensions, the first in index order whose
/// product equals lead; the chosen dimensions keep their order, the rest follow). Unchanged when no
/// subset fits (the group then spans partial dimensions) or lead <= 1.
std::vector<int> lead_dims_first(std::vector<int> dims, int lead);

/// The cluster a job with tensor-parallel degree `tp` costs its collectives on when it differs from
/// `c`: for a multi-slice cluster (network.slices > 1) one slice (slice_cluster); for a derived torus
/// (network "torus", no explicit topology, tp > 1) a copy with network.torus_lead = tp; else nullopt
/// (use `c`).
std::optional<ClusterSpec> torus_mapped_cluster(const ClusterSpec& c, int tp);

/// One slice of a multi-slice cluster: nodes / slices hosts, slices = 1, the same node and network (its
/// torus derived for the slice's chips: every slice is its own ICI torus; slices are joined only by the
/// data-centre network, Google Cloud TPU Multislice docs). `c` itself when slices = 1.
ClusterSpec slice_cluster(const ClusterSpec& c);

}  // namespace clustersim
