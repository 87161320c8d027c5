// The cluster as the simulator sees it: one node kind (devices, node fabric, NICs), a node count and the
// scale-out network. Value types filled by sim/config; every engine reads them through Scenario.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/device.hpp"
#include "sim/core/units.hpp"
#include "topologies/cluster_comm_spec.hpp"
#include "topologies/link.hpp"
#include "topologies/node_fabric_spec.hpp"

namespace clustersim {

/// A point-to-point or per-device link class: bandwidth per direction, latency, protocol efficiency.
struct LinkSpec {
  BytesPerSecond bandwidth{0};  // per direction
  Seconds latency{0};
  double efficiency = 1.0;      // fraction of `bandwidth` a large collective reaches (NCCL protocol etc.)
  Duplex duplex = Duplex::full;  // full: `bandwidth` each way at once; half: shared (TopologyGraph only)
};

enum class NodeFabric { nvswitch, nvlink_mesh, pcie, torus_ici, wafer };

/// Weight streaming of a wafer-scale system (docs/wafer_scale.md): the external weight store (MemoryX)
/// and the system's stream path through the broadcast/reduce fabric (SwarmX).
struct WeightStreamingSpec {
  Bytes memoryx_capacity{0};   // external store for weights, gradients and optimizer states (whole job)
  BytesPerSecond bandwidth{0};  // per system, per direction, as reached (efficiency applied)
  Seconds hop_latency{0};       // one broadcast/reduce tree hop
  bool bandwidth_derived = false;    // bandwidth from the node's NICs (nics x bandwidth x efficiency)
  bool hop_latency_derived = false;  // hop latency = the NIC latency
};

/// A device's link to host memory (pinned host buffers): NVLink-C2C on Grace superchips, PCIe on x86
/// nodes. Used by activation offloading (training.activation_offload_layers, docs/model.md).
struct HostLinkSpec {
  BytesPerSecond bandwidth{0};  // per device, per direction, nominal
  double efficiency = 1.0;      // fraction of `bandwidth` a large pinned-memory copy reaches
  [[nodiscard]] BytesPerSecond reached() const { return bandwidth * efficiency; }
};

/// The chips' inter-chip interconnect of a torus-ici node (TPU). Zeros keep the derived defaults.
struct IciSpec {
  int dims = 0;           // 2 or 3 torus dimensions; 0: 3 from 64 chips, else 2
  int max_dim = 0;        // largest slice edge (v5e: 16); 0: no limit
  int wrap_multiple = 0;  // wraparound when every derived dimension is a multiple of this; 0: always
};

struct NodeSpec {
  std::string name;
  DeviceSpec device;
  int devices_per_node = 8;      // > 0
  NodeFabric fabric = NodeFabric::nvswitch;
  LinkSpec intra;                // per device into the node fabric (e.g. NVLink 300 GB/s per direction)
  int nics = 8;                  // scale-out NICs per node, >= 0
  LinkSpec nic;                  // per NIC
  /// NICs of a node one NCCL communicator's inter-node traffic leaves through, 1..nics; 0 = every NIC
  /// its ranks sit next to (the default). A measured fabric property (NCCL INFO channel lines). Ring,
  /// hierarchical and tree collectives honour it (sim/collectives: ring_phases, hierarchical_phases,
  /// tree_phases).
  int nics_per_communicator = 0;
  Watts host_power{0};           // CPUs, DRAM, fans, PSU losses per node (energy issue)
  // Explicit node-fabric keys (docs/topologies.md); absent = the derived defaults.
  std::vector<MeshLink> nvlink_mesh;   // nvlink-mesh: connected pairs; empty = DGX-1V hybrid cube-mesh
  int nvlink_domain_devices = 0;       // > devices_per_node: NVLink domain over several nodes (NVL72)
  std::optional<LinkSpec> nic_attach;  // device <-> NIC over PCIe; absent = 2x the NIC rate
  std::optional<WeightStreamingSpec> weight_streaming;  // wafer fabric only
  IciSpec ici;                                          // torus-ici fabric only
  std::optional<HostLinkSpec> host_link;                // device <-> host memory; absent = not described
};

struct NetworkSpec {
  std::string topology = "fat-tree";  // scale-out fabric kind; refined by the topology layer
  double oversubscription = 1.0;      // >= 1; bandwidth divisor on the upper tiers (largest tier ratio)
  bool adaptive_routing = false;      // fat-tree: spread every flow evenly over its equal-cost paths
  /// Derived torus only: the size of the group whose consecutive ranks should fill the leading torus
  /// dimensions (tensor parallelism; torus_mapped_cluster). 1 = the near-cubic order.
  int torus_lead = 1;
  /// Multi-slice TPU job (torus-ici nodes only; docs/collectives.md "Multi-slice"): the job's chips form
  /// `slices` equal ICI tori of nodes / slices hosts each; slices talk only over the data-centre network
  /// (DCN) through their hosts' NICs. 1 = one torus.
  int slices = 1;
  /// DCN bandwidth per host, per direction, as reached (efficiency applied), and its per-step latency.
  /// Derived from the node's NICs (nics × nic bandwidth × nic efficiency, nic latency) unless given.
  LinkSpec dcn;
  bool dcn_derived = true;
};

/// One device pool of a heterogeneous cluster (docs/heterogeneous.md): identical nodes of one kind.
struct ClusterPool {
  NodeSpec node;
  int nodes = 1;  // > 0
  double nvls_efficiency = 0.0;  // the node's `collectives.nvls_efficiency` (ClusterCommSpec of the pool)
  [[nodiscard]] int devices() const { return nodes * node.devices_per_node; }
};

struct ClusterSpec {
  std::string name;
  NodeSpec node;  // with pools: the first pool's node (the scenario's checks count the pools' devices)
  int nodes = 1;  // > 0; with pools: all pools' devices / node.devices_per_node
  NetworkSpec network;
  /// Heterogeneous cluster (`pools`): empty for one node kind. Each pool's own scale-out fabric is the
  /// `network` shape over its nodes; pools talk over `inter_pool` (per node, per direction).
  std::vector<ClusterPool> pools;
  LinkSpec inter_pool;
  bool inter_pool_derived = false;  // inter_pool from the pools' NICs (the smallest node's NIC total)
  [[nodiscard]] int devices() const { return nodes * node.devices_per_node; }
  ClusterCommSpec comm;  // in-network reduction efficiencies and the explicit topology
  /// A multi-node cluster of one node kind on a derived fat tree whose communicators may use fewer NICs
  /// than the node has (nics_per_communicator below min(nics, devices)): the flow engine runs it on the
  /// derived graph (topology mode) rather than its two-level fabric (sim/engine/flow/fabric_layout.cpp), and
  /// the work bounds (sim/scenario/work_bounds.cpp) must know that.
  [[nodiscard]] bool communicators_use_fewer_nics() const {
    const int usable = node.nics < node.devices_per_node ? node.nics : node.devices_per_node;
    return node.nics_per_communicator > 0 && node.nics_per_communicator < usable && nodes > 1 &&
           network.topology != "torus" && pools.empty();
  }
  /// The flow engine runs this cluster in topology mode (FabricLayout::of) rather than on its two-level
  /// fabric: a spelled-out scale-out fabric, a derived torus, or communicators on fewer NICs than the node has.
  [[nodiscard]] bool flow_topology_mode() const {
    return (comm.topology && comm.topology->network != NetworkKind::none) ||
           (!comm.topology && network.topology == "torus") || communicators_use_fewer_nics();
  }
};

}  // namespace clustersim
