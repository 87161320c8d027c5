// The cluster fabric the flow engine simulates, as plain data: links and routes between devices.
//
// Built from the cluster's two-level description (sim/scenario/scenario.hpp ClusterSpec): every device has
// a port into its node fabric (NVLink to the NVSwitch) and a share of the node's scale-out NICs; nodes
// are grouped under leaf switch groups of `leaf_nodes` nodes whose uplinks into a non-blocking spine carry
// (NIC bandwidth below the leaf) / network.oversubscription. Bandwidths are per direction and include the
// catalog's protocol efficiency (intra_link / nic efficiency, as the analytic engine's link efficiencies,
// sim/collectives/cluster_fabric.hpp); latencies are split half per port so a route's latency is one α.
//
//           spine (ideal core)
//          /                 \          leafL.up  (one full-duplex aggregate per leaf group)
//      leaf0                 leaf1
//     /  |  \               /  |  \     nN.nicK   (per NIC, full duplex)
//   node0 node1 ...       node32 ...
//   [NVSwitch]                          nN.nvlL   (per device, full duplex)
//   d0 d1 .. d7
//
// Route d0 (node 0, leaf 0) → d264 (node 33, leaf 1): n0.nic0/up, leaf0.up/up, leaf1.up/down,
// n33.nic0/down. Route d0 → d5 (same node): n0.nvl0/up, n0.nvl5/down.
//
// The analytic engine costs every collective on the cluster's TopologyGraph, explicit or derived
// (sim/collectives/topology_collectives.hpp); this two-level platform is the flow engine's own
// simplification of a fabric the JSON leaves out (leaf groups of flow.leaf_nodes nodes, an ideal spine).
//
// Topology mode (FabricLayout(const TopologyCollectives&)): when the cluster JSON spells its scale-out
// fabric out, the links and routes are the cluster's TopologyGraph (topologies/topology_graph.hpp): one
// FabricLink per graph link (bandwidth × the link kind's protocol efficiency, as the analytic engine's
// topology-aware collectives cost it), routes are the graph's deterministic ECMP / minimal routes, so
// rail-optimised and 3-tier fat-trees, tori and dragonflies are simulated link by link. Names: NVSwitch
// ports "n<node>.nvl<local>", device-NIC PCIe "n<node>.pcie<local>", NIC uplinks "n<node>.nic<k>", other
// links by their two ends as `clustersim topo --dot` names them ("leaf3-spine12", "router5-router40",
// "d17-d21" on a torus), ".2", ".3", ... for parallel links between the same two switches.
// With adaptive routing on a fat-tree (/cluster/network/routing "adaptive") every flow is spread evenly
// over its equal-cost up-paths; routes then cross one bundle link per leaf ("leaf<L>.up": all its
// leaf-spine links, bandwidths summed) and per pod ("pod<P>.core": all its spine-core links), appended
// after the graph's links (bundle_parallel_uplinks in fabric_layout.cpp says why this is exact).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/collectives/topology_collectives.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim::flow {

/// Report classes of links: the two-level fabric has nvlink, nic and leaf_uplink; a TopologyGraph adds
/// the others (NVSwitch ports and NVLink mesh links are nvlink, NIC uplinks are nic).
enum class LinkClass : std::uint8_t {
  nvlink,
  nic,
  leaf_uplink,
  pcie,
  leaf_spine,
  spine_core,
  torus,
  torus_optical,
  dragonfly_local,
  dragonfly_global,
  ps_server,  // the NIC of a dedicated parameter server (add_servers)
  dcn         // a TPU host's data-centre network link between slices (replicate_slices)
};
[[nodiscard]] const char* link_class_name(LinkClass c);

struct FabricLink {
  std::string name;  // e.g. "n3.nic2"; directions are "<name>/up" (towards the core) and "<name>/down"
  LinkClass cls = LinkClass::nic;
  BytesPerSecond bandwidth{0};  // per direction, after efficiency and straggler factor
  Seconds latency{0};           // per traversal
  bool straggler = false;       // scaled by scale_link(): routes through it count as shared
  bool half_duplex = false;     // both directions share `bandwidth` (topology mode only)
  bool private_link = true;     // carries only one device's traffic (else routes over it are shared)
};

/// A directed link: 2·link index + (0 up, 1 down).
using DirectedLink = int;

struct FabricRoute {
  std::vector<DirectedLink> links;
  bool intra_node = false;  // uses the node fabric (NVLink endpoints)
  bool shared = false;      // crosses a link other devices' routes also use (leaf uplink or shared NIC), or a
                            // straggler link (so the symmetry reduction keeps every replica's flows on it)
};

class FabricLayout {
 public:
  /// Topology mode when the cluster JSON spells a scale-out fabric out (ClusterSpec::comm.topology with a
  /// network) or names a torus (`network.topology` "torus", the TPU ICI torus derived from the node count,
  /// topologies/derived_topology.hpp), else the two-level fabric with leaf groups of `leaf_nodes` nodes.
  /// A derived torus is the one the analytic engine costs (sim/graph/op_cost.cpp): with `tp` > 1 the
  /// tensor-parallel group fills whole torus dimensions (torus_mapped_cluster), and a multi-slice cluster
  /// (`network.slices`) is `slices` copies of one slice's torus (replicate_slices), slice k holding devices
  /// [k·D, (k+1)·D) and links prefixed "s<k>.", plus one data-centre network link per host ("h<node>.dcn",
  /// class dcn, network.dcn: bandwidth per host per direction as reached, latency) into a non-blocking DCN
  /// core, as docs/collectives.md "Multi-slice" models the DCN. A route between slices is the source host's
  /// DCN link up and the destination host's down (chips reach other slices through their hosts).
  static FabricLayout of(const ClusterSpec& cluster, int leaf_nodes, int tp = 1);
  /// Two-level fabric. Preconditions (asserted): `leaf_nodes` > 0; a cluster of several nodes has NICs
  /// (sim/config refuses a flow run without them).
  FabricLayout(const ClusterSpec& cluster, int leaf_nodes);
  /// Topology mode: the links and routes of the cluster's TopologyGraph (kept alive by the layout).
  explicit FabricLayout(std::shared_ptr<const TopologyCollectives> topology);

  /// The topology-aware collectives of topology mode, nullptr for the two-level fabric. With several
  /// slices, the model of one slice (devices [0, slice_devices())).
  [[nodiscard]] const TopologyCollectives* topology() const { return topology_.get(); }
  /// Copies of the topology graph (network.slices of a derived TPU torus; 1 otherwise).
  [[nodiscard]] int slices() const { return slices_; }
  /// Devices of one slice (all devices with one slice).
  [[nodiscard]] int slice_devices() const { return devices_ / slices_; }
  /// Topology mode: `count` copies of the graph (one per slice) joined by one DCN link per host of
  /// `dcn` bandwidth and latency (see of()). Call before add_servers and scale_link.
  void replicate_slices(int count, const LinkSpec& dcn);

  [[nodiscard]] int devices() const { return devices_; }
  [[nodiscard]] int devices_per_node() const { return per_node_; }
  [[nodiscard]] int node_of(int device) const { return device / per_node_; }
  [[nodiscard]] int leaf_of_node(int node) const { return node / leaf_nodes_; }
  [[nodiscard]] int nodes() const { return nodes_; }
  [[nodiscard]] int leaf_nodes() const { return leaf_nodes_; }
  [[nodiscard]] int leaves() const { return (nodes_ + leaf_nodes_ - 1) / leaf_nodes_; }
  [[nodiscard]] const std::vector<FabricLink>& links() const { return links_; }
  [[nodiscard]] int nvlink_of(int device) const { return device; }
  [[nodiscard]] int nic_of(int device) const;
  [[nodiscard]] int uplink_of_leaf(int leaf) const;
  /// Route between two distinct devices.
  [[nodiscard]] FabricRoute route(int src, int dst) const;
  /// α of a route as the closed forms charge it: the largest latency of its links (topology mode; the
  /// two-level platform simulates per-port latencies instead).
  [[nodiscard]] Seconds route_latency(const FabricRoute& r) const;
  /// Dedicated parameter servers (dp_mode parameter_server/async/ssp with ps_placement dedicated):
  /// `count` endpoints numbered from the returned index (after the devices and earlier servers), each
  /// with one full-duplex NIC link "ps<k>.nic" (class ps_server) hung off the fabric's core. Route worker
  /// → server: two-level, the worker's NIC, its leaf uplink, the server NIC; topology mode, the worker's
  /// route up to and including its NIC uplink (the switch tiers above are not simulated for these
  /// flows), then the server NIC.
  int add_servers(int count, BytesPerSecond bandwidth, Seconds latency);
  [[nodiscard]] int servers() const { return servers_; }
  /// Devices plus dedicated servers: every endpoint a flow may use.
  [[nodiscard]] int endpoints() const { return devices_ + servers_; }
  /// Scales a link's bandwidth (straggler); returns false if no link has that name.
  bool scale_link(const std::string& name, double factor);

 private:
  int devices_ = 0, per_node_ = 1, nodes_ = 1, nics_ = 0, leaf_nodes_ = 1;
  int nic_base_ = 0, uplink_base_ = 0;
  int servers_ = 0, server_link_base_ = 0;
  int slices_ = 1, slice_links_ = 0;  // slice_links_: links of one slice (replicate_slices)
  int dcn_base_ = 0;                  // first DCN link (one per host, replicate_slices)
  [[nodiscard]] std::vector<DirectedLink> to_core(int device) const;  // worker → core, up direction
  void bundle_parallel_uplinks(const TopologyGraph& g);                // adaptive routing (topology mode)
  std::vector<int> bundle_of_;  // adaptive routing: per graph link, the bundle link its routes use, or -1
  std::vector<FabricLink> links_;
  std::shared_ptr<const TopologyCollectives> topology_;
};

}  // namespace clustersim::flow
