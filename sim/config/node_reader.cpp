#include <fmt/format.h>

#include <array>

#include "sim/config/cross_checks.hpp"
#include "sim/config/enum_names.hpp"
#include "sim/config/field_pointer.hpp"
#include "sim/config/section_readers.hpp"
#include "sim/config/sections.hpp"
#include "sim/config/topology_reader.hpp"
#include "topologies/derived_topology.hpp"

namespace clustersim::config {
namespace {

constexpr NumberRange kFraction{.min = 0.0, .max = 1.0, .min_exclusive = true};
constexpr auto kMeshPresets = std::to_array<std::string_view>({"dgx1-v100", "dgx1-p100"});

constexpr Field kNodeLinkFields[] = {
    {.key = "bandwidth",
     .kind = FieldKind::quantity,
     .doc = "per device (intra_link) or per NIC (nic), per direction",
     .fallback = "required",
     .dimension = Dimension::bandwidth},
    {.key = "latency",
     .kind = FieldKind::quantity,
     .doc = "per message",
     .fallback = "\"0 s\"",
     .dimension = Dimension::time,
     .rule = QuantityRule::non_negative},
    {.key = "efficiency",
     .kind = FieldKind::number,
     .doc = "fraction of the bandwidth a large collective reaches (NCCL protocol)",
     .fallback = "1",
     .numbers = kFraction},
    {.key = "duplex",
     .kind = FieldKind::choice,
     .doc = "link of the TopologyGraph",
     .fallback = "\"full\"",
     .choices = kDuplexChoices},
};

constexpr Field kNodeCollectivesFields[] = {
    {.key = "nvls_efficiency",
     .kind = FieldKind::number,
     .doc = "NVLink SHARP in-switch reduction: fraction of the NVLink rate (0: none)",
     .fallback = "0",
     .numbers = kFraction},
};

constexpr Field kWeightStreamingFields[] = {
    {.key = "memoryx_capacity",
     .kind = FieldKind::quantity,
     .doc = "external weight store (MemoryX) for weights, gradients and optimizer states of the whole job",
     .fallback = "required",
     .dimension = Dimension::bytes,
     .rule = QuantityRule::positive},
    {.key = "bandwidth",
     .kind = FieldKind::quantity,
     .doc = "weights into (and gradients out of) one system, per direction, as reached",
     .fallback = "derived: nics x nic bandwidth x nic efficiency",
     .dimension = Dimension::bandwidth,
     .rule = QuantityRule::positive},
    {.key = "hop_latency",
     .kind = FieldKind::quantity,
     .doc = "one hop of the broadcast/reduce tree (SwarmX)",
     .fallback = "derived: the nic latency",
     .dimension = Dimension::time,
     .rule = QuantityRule::non_negative},
};

// A device's link to host memory (activation offloading, docs/model.md).
constexpr Field kHostLinkFields[] = {
    {.key = "bandwidth",
     .kind = FieldKind::quantity,
     .doc = "per device, per direction, nominal (NVLink-C2C share on Grace superchips, PCIe x16 on x86 nodes)",
     .fallback = "required",
     .dimension = Dimension::bandwidth,
     .rule = QuantityRule::positive},
    {.key = "efficiency",
     .kind = FieldKind::number,
     .doc = "fraction of the bandwidth a large pinned-memory copy reaches (required: no default is assumed)",
     .fallback = "required",
     .numbers = kFraction},
};
constexpr Section kHostLinkSection{"host_link", "/cluster/node/host_link",
                                   "a device's link to host memory (activation offloading)", kHostLinkFields};

// The chip-to-chip torus of a torus-ici node (docs/collectives.md "TPU slices").
constexpr Field kIciFields[] = {
    {.key = "dims",
     .kind = FieldKind::integer,
     .doc = "torus dimensions of the chips' ICI: 2 (TPU v5e: 4 neighbours) or 3 (TPU v4/v5p: 6 neighbours)",
     .fallback = "derived: 3 from 64 chips, else 2",
     .ints = {.min = 2, .max = 3}},
    {.key = "max_dim",
     .kind = FieldKind::integer,
     .doc = "largest chips along one dimension of a slice (TPU v5e: 16; 0: no limit); a larger 2D job is slices "
            "of max_dim rows stacked along y",
     .fallback = "0",
     .ints = {.min = 0}},
    {.key = "wrap_multiple",
     .kind = FieldKind::integer,
     .doc = "a derived slice has wraparound links when every dimension is a multiple of this (TPU v5e: 16; 0: "
            "always)",
     .fallback = "0",
     .ints = {.min = 0}},
};
constexpr Section kIciSection{"node-ici", "/cluster/node/ici", "the chip-to-chip torus of a torus-ici node",
                              kIciFields};

constexpr Field kNodeFields[] = {
    kEntryNameField,
    kDescriptionField,
    kSourceField,
    kSourcesField,
    {.key = "device",
     .kind = FieldKind::reference,
     .doc = "the accelerator",
     .fallback = "required",
     .section = &kDeviceSection},
    {.key = "devices_per_node",
     .kind = FieldKind::integer,
     .doc = "accelerators per node",
     .fallback = "required",
     .ints = {.min = 1}},
    {.key = "fabric",
     .kind = FieldKind::choice,
     .doc = "intra-node fabric",
     .fallback = "required",
     .choices = kFabricChoices},
    {.key = "intra_link",
     .kind = FieldKind::object,
     .doc = "a device's link into the node fabric (NVLink3: \"300 GB/s\" per direction)",
     .fallback = "required",
     .section = &kNodeLinkSection},
    {.key = "nics",
     .kind = FieldKind::integer,
     .doc = "scale-out NICs per node",
     .fallback = "0",
     .ints = {.min = 0}},
    {.key = "nic",
     .kind = FieldKind::object,
     .doc = "one scale-out NIC (\"200 Gb/s\"); required if nics > 0",
     .section = &kNodeLinkSection},
    {.key = "nics_per_communicator",
     .kind = FieldKind::integer,
     .doc = "how many of the node's NICs one NCCL communicator's inter-node traffic leaves through (its rings' "
            "node crossings, as NCCL INFO 'via NET/...' channel lines show); its ring collectives then keep that many "
            "rings, its hierarchical ones funnel through that many leader devices per node and its trees cross the "
            "nodes through that many NICs (the busiest), while concurrent communicators use the other NICs",
     .fallback = "derived: every NIC the communicator's ranks sit next to",
     .ints = {.min = 1}},
    {.key = "nvlink_mesh",
     .kind = FieldKind::choice,
     .doc = "nvlink-mesh only: connected device pairs and NVLink lane counts, or a preset",
     .fallback = "derived: the DGX-1V mesh",
     .choices = kMeshPresets,
     .type_text = "`[[a, b, lanes], …]` | `\"dgx1-v100\"` | `\"dgx1-p100\"`",
     .schema =
         R"({"anyOf": [{"enum": ["dgx1-v100", "dgx1-p100"]}, {"type": "array", "items": {"type": "array",
                  "items": {"type": "integer", "minimum": 0}, "minItems": 2, "maxItems": 3}}]})"},
    {.key = "nvlink_domain_devices",
     .kind = FieldKind::integer,
     .doc = "nvswitch only: an NVLink domain over several nodes (72 for GB200 NVL72)",
     .ints = {.min = 1}},
    {.key = "nic_attach",
     .kind = FieldKind::object,
     .doc = "device <-> NIC path over PCIe (GPUDirect RDMA)",
     .fallback = "derived: 2x the NIC rate, 0 s",
     .section = &kNetworkLinkSection},
    {.key = "host_power",
     .kind = FieldKind::quantity,
     .doc = "CPUs, DRAM, fans, PSU losses per node (beyond the devices)",
     .fallback = "\"0 W\"",
     .dimension = Dimension::power,
     .rule = QuantityRule::non_negative},
    {.key = "collectives",
     .kind = FieldKind::object,
     .doc = "in-network reduction of the node fabric",
     .section = &kNodeCollectivesSection},
    {.key = "weight_streaming",
     .kind = FieldKind::object,
     .doc = "wafer fabric only (required there): MemoryX capacity and the SwarmX stream path",
     .section = &kWeightStreamingSection},
    {.key = "host_link",
     .kind = FieldKind::object,
     .doc = "a device's link to host memory, used by training.activation_offload_layers",
     .section = &kHostLinkSection},
    {.key = "ici",
     .kind = FieldKind::object,
     .doc = "torus-ici fabric only: dimensions, slice edge limit and wraparound rule of the chips' torus",
     .section = &kIciSection},
};

constexpr Field kPoolFields[] = {
    {.key = "node",
     .kind = FieldKind::reference,
     .doc = "the pool's node type (a GPU node: nvswitch, nvlink-mesh or pcie fabric)",
     .fallback = "required",
     .section = &kNodeSection},
    {.key = "nodes", .kind = FieldKind::integer, .doc = "nodes in the pool", .fallback = "required", .ints = {.min = 1}},
};

constexpr Field kInterPoolFields[] = {
    {.key = "bandwidth",
     .kind = FieldKind::quantity,
     .doc = "per node, per direction, between pools (as reached: efficiency applied on top)",
     .fallback = "required",
     .dimension = Dimension::bandwidth},
    {.key = "latency",
     .kind = FieldKind::quantity,
     .doc = "per message between pools",
     .fallback = "\"0 s\"",
     .dimension = Dimension::time,
     .rule = QuantityRule::non_negative},
    {.key = "efficiency",
     .kind = FieldKind::number,
     .doc = "fraction of the bandwidth a large transfer reaches",
     .fallback = "1",
     .numbers = kFraction},
};

constexpr Field kClusterFields[] = {
    kEntryNameField,
    kDescriptionField,
    kSourceField,
    kSourcesField,
    {.key = "node",
     .kind = FieldKind::reference,
     .doc = "the node type (all nodes are identical)",
     .fallback = "required",
     .section = &kNodeSection},
    {.key = "nodes",
     .kind = FieldKind::integer,
     .doc = "number of nodes",
     .fallback = "required",
     .ints = {.min = 1}},
    {.key = "network", .kind = FieldKind::object, .doc = "the scale-out fabric", .section = &kNetworkSection},
    {.key = "pools",
     .kind = FieldKind::array,
     .doc = "heterogeneous cluster: device pools of different node types in one job, instead of node and "
            "nodes (docs/heterogeneous.md); parallelism.hetero says how the pools share the job",
     .section = &kPoolSection},
    {.key = "inter_pool",
     .kind = FieldKind::object,
     .doc = "with pools: the network between pools",
     .fallback = "derived: the smallest pool node's NIC total (nics × bandwidth × efficiency), its NIC latency",
     .section = &kInterPoolSection},
};

}  // namespace

const Section kNodeLinkSection{"node_link", "/cluster/node/intra_link", "a link of a node: intra_link or nic",
                               kNodeLinkFields};
const Section kNodeCollectivesSection{"node_collectives", "/cluster/node/collectives",
                                      "in-network reduction of the node fabric", kNodeCollectivesFields};
const Section kWeightStreamingSection{"weight_streaming", "/cluster/node/weight_streaming",
                                      "weight streaming of a wafer-scale system (docs/wafer_scale.md)",
                                      kWeightStreamingFields};
const Section kNodeSection{"node", "/cluster/node", "a node type (configs/nodes/<name>.json)", kNodeFields};
const Section kPoolSection{"pool", "/cluster/pools/*", "one device pool of a heterogeneous cluster", kPoolFields};
const Section kInterPoolSection{"inter_pool", "/cluster/inter_pool", "the network between the pools of a heterogeneous cluster",
                                kInterPoolFields};
const Section kClusterSection{"cluster", "/cluster", "the cluster (configs/clusters/<name>.json)",
                              kClusterFields, "pools"};

LinkSpec read_link(ObjectReader& r) {
  LinkSpec link;
  link.bandwidth = r.require_quantity<BytesPerSecond>("bandwidth");
  link.latency = r.quantity<Seconds>("latency");
  link.efficiency = r.number("efficiency");
  link.duplex = read_duplex(r, "duplex");
  return link;
}

NodeSpec read_node(ObjectReader& r) {
  NodeSpec n;
  n.name = r.string("name", entry_name_from_file(r));
  r.accept("description");
  accept_sources(r);
  auto device = r.require_child("device");
  n.device = read_device(device);
  device.finish();
  n.devices_per_node = r.require_integer("devices_per_node");
  n.fabric = r.require_enum("fabric", fabric_names(), n.fabric);
  auto intra = r.require_child("intra_link");
  n.intra = read_link(intra);
  intra.finish();
  n.nics = r.integer("nics");
  if (auto nic = r.child("nic")) {
    n.nic = read_link(*nic);
    nic->finish();
  } else if (n.nics > 0 && r.valid() && !r.has("nic")) {
    r.error("nic", fmt::format("missing required key (nics is {}, so the NIC must be described)", n.nics));
  }
  if (r.has("nics_per_communicator")) {
    n.nics_per_communicator = r.integer("nics_per_communicator", 0);
    if (r.valid() && n.nics_per_communicator > n.nics) {
      r.error("nics_per_communicator",
              fmt::format("{} is more than the node's {} NICs", n.nics_per_communicator, n.nics));
    }
  }
  read_node_shape(r, n);
  n.host_power = r.quantity<Watts>("host_power");
  if (auto ici = r.child("ici")) {
    if (auto v = ici->get_integer("dims")) n.ici.dims = static_cast<int>(*v);
    if (auto v = ici->get_integer("max_dim")) n.ici.max_dim = static_cast<int>(*v);
    if (auto v = ici->get_integer("wrap_multiple")) n.ici.wrap_multiple = static_cast<int>(*v);
    ici->finish();
    if (n.fabric != NodeFabric::torus_ici && r.valid()) {
      r.error("ici", "ici describes the chip torus of a \"torus-ici\" node (this node's fabric is not)");
    }
  }
  if (auto hl = r.child("host_link")) {
    HostLinkSpec h;
    h.bandwidth = hl->require_quantity<BytesPerSecond>("bandwidth");
    h.efficiency = hl->require_number("efficiency");
    hl->finish();
    n.host_link = h;
  }
  if (auto coll = r.child("collectives")) {  // in-network reduction; stored by read_cluster
    coll->number("nvls_efficiency");
    coll->finish();
  }
  if (auto ws = r.child("weight_streaming")) {
    WeightStreamingSpec w;
    w.memoryx_capacity = ws->require_quantity<Bytes>("memoryx_capacity");
    const BytesPerSecond io = n.nic.bandwidth * (n.nic.efficiency * n.nics);
    const auto bw = ws->get_quantity("bandwidth");
    const auto hop = ws->get_quantity("hop_latency");
    w.bandwidth = bw ? BytesPerSecond(*bw) : io;
    w.hop_latency = hop ? Seconds(*hop) : n.nic.latency;
    w.bandwidth_derived = !ws->has("bandwidth");
    w.hop_latency_derived = !ws->has("hop_latency");
    ws->finish();
    if (n.fabric != NodeFabric::wafer && r.valid()) {
      r.error("weight_streaming", "weight streaming is modelled for wafer-scale systems only (fabric \"wafer\")");
    } else if (!ws->has("bandwidth") && w.bandwidth.value() <= 0.0 && r.valid()) {
      r.error("weight_streaming", "no stream bandwidth: give weight_streaming.bandwidth or the node's nics and nic");
    }
    n.weight_streaming = w;
  } else if (n.fabric == NodeFabric::wafer && r.valid() && !r.has("weight_streaming")) {
    r.error("weight_streaming",
            "missing required key for a wafer-scale node: the weights stream from an external store "
            "(MemoryX); give at least weight_streaming.memoryx_capacity");
  }
  return n;
}

namespace {

// The key a derived fabric field comes from: without an explicit nic_attach its bandwidth is twice the
// NIC's, so its problems are the NIC's (already reported there when the NIC's bandwidth was refused: one
// message per problem, not a second one at a key the file does not have).
std::string implied_by(const ClusterSpec& c, const std::string& field) {
  constexpr std::string_view kAttach = "node.nic_attach";
  if (!c.node.nic_attach && field.starts_with(kAttach)) return "node.nic" + field.substr(kAttach.size());
  return field;
}

// `pools`: each pool's node and node count; the cluster's node is the first pool's and its node count
// covers all pools' devices, so the scenario's device checks see the whole job.
void read_pools(ObjectReader& r, ClusterSpec& c) {
  if (r.has("node")) r.error("node", "pools replaces node and nodes: give either pools or node and nodes");
  if (r.has("nodes")) r.error("nodes", "pools replaces node and nodes: give either pools or node and nodes");
  const nlohmann::json& value = *r.find("pools");
  const std::string at = r.pointer_of("pools");
  if (!value.is_array() || value.empty()) {
    r.error("pools", fmt::format("expected a non-empty array of {{\"node\": ..., \"nodes\": N}} pools, got {}",
                                 describe(value)));
    return;
  }
  std::int64_t devices = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    ObjectReader e(value[i], child_pointer(at, std::to_string(i)), kPoolSection, r.context());
    ClusterPool pool;
    auto node = e.require_child("node");
    pool.node = read_node(node);
    if (const nlohmann::json* coll = node.find("collectives"); coll && coll->is_object()) {
      const auto nvls = coll->find("nvls_efficiency");
      if (nvls != coll->end() && nvls->is_number()) pool.nvls_efficiency = nvls->get<double>();
    }
    node.finish();
    pool.nodes = e.require_integer("nodes");
    if (e.valid() && !r.context().failed_at_or_below(e.pointer_of("node")) &&
        (pool.node.fabric == NodeFabric::torus_ici || pool.node.fabric == NodeFabric::wafer)) {
      e.error("node", fmt::format("node \"{}\" ({} fabric): pools take GPU nodes (nvswitch, nvlink-mesh or pcie); "
                                  "TPU slices and wafer-scale systems are not modelled in a heterogeneous job",
                                  pool.node.name, pool.node.fabric == NodeFabric::wafer ? "wafer" : "torus-ici"));
    }
    e.finish();
    devices += static_cast<std::int64_t>(std::max(0, pool.nodes)) * std::max(0, pool.node.devices_per_node);
    c.pools.push_back(std::move(pool));
  }
  if (r.context().failed_at_or_below(at)) return;
  c.node = c.pools.front().node;
  c.comm.nvls_efficiency = c.pools.front().nvls_efficiency;
  const int per = c.node.devices_per_node;
  if (devices > kMaxDevices) {
    r.error("pools", fmt::format("the pools hold {} devices: more than the {} devices this tool models", devices,
                                 kMaxDevices));
    return;
  }
  if (devices % per != 0) {
    r.error("pools", fmt::format("the pools hold {} devices, not a multiple of the first pool's {} devices per "
                                 "node (the job's device count is counted in its nodes)",
                                 devices, per));
    return;
  }
  c.nodes = static_cast<int>(devices / per);
  if (auto ip = r.child("inter_pool")) {
    c.inter_pool.bandwidth = ip->require_quantity<BytesPerSecond>("bandwidth");
    c.inter_pool.latency = ip->quantity<Seconds>("latency");
    c.inter_pool.efficiency = ip->number("efficiency");
    ip->finish();
  } else {
    // Derived: the node with the least scale-out bandwidth bounds the transfer between pools.
    double least = -1;
    Seconds latency(0);
    for (const ClusterPool& p : c.pools) {
      const double total = p.node.nics * p.node.nic.bandwidth.value() * p.node.nic.efficiency;
      if (least < 0 || total < least) least = total;
      latency = max(latency, p.node.nic.latency);
    }
    if (least <= 0) {
      r.error("pools", "a pool's node has no NICs, so the network between pools cannot be derived: give "
                       "cluster.inter_pool {\"bandwidth\": ...}");
      return;
    }
    c.inter_pool.bandwidth = BytesPerSecond(least);
    c.inter_pool.latency = latency;
    c.inter_pool_derived = true;
  }
}

// network.slices and network.dcn_bandwidth (docs/collectives.md, "Multi-slice"): a multi-slice job is
// TPU slices (a derived torus of torus-ici hosts per slice) joined by the hosts' data-centre NICs.
void read_slices(ObjectReader& network, ClusterSpec& c, const NetworkShapeKeys& shape) {
  NetworkSpec& n = c.network;
  const NodeSpec& node = c.node;
  n.dcn.latency = node.nic.latency;
  n.dcn.bandwidth = BytesPerSecond(node.nics * node.nic.bandwidth.value() * node.nic.efficiency);
  if (auto b = network.get_quantity("dcn_bandwidth")) {
    n.dcn.bandwidth = BytesPerSecond(*b);
    n.dcn_derived = false;
  }
  const auto slices = network.get_integer("slices");
  if (!slices || *slices == 1) {
    // A DCN bandwidth with one slice would be read and never used: refused rather than silently ignored.
    if (!n.dcn_derived) {
      network.error("dcn_bandwidth", "network.dcn_bandwidth is the bandwidth between slices, but the cluster "
                                     "is one slice: set network.slices > 1 or remove it");
    }
    if (slices) n.slices = 1;
    return;
  }
  n.slices = static_cast<int>(*slices);
  if (node.fabric != NodeFabric::torus_ici) {
    network.error("slices", fmt::format("{} slices: a multi-slice job is TPU slices (ICI tori of \"torus-ici\" "
                                        "hosts) joined over the data-centre network; this node's fabric is "
                                        "not torus-ici",
                                        n.slices));
  } else if (c.nodes % n.slices != 0) {
    network.error("slices", fmt::format("{} slices do not divide the {} nodes into equal slices", n.slices,
                                        c.nodes));
  } else if (shape.explicit_shape()) {
    network.error("slices", "slices > 1 takes the derived torus of one slice (nodes / slices hosts); an "
                            "explicit torus shape (dims, wrap, cube, link) is not modelled with slices");
  } else if (n.dcn.bandwidth.value() <= 0.0 && n.dcn_derived) {
    network.error("slices", "slices talk over their hosts' data-centre NICs, but the node has none: give "
                            "network.dcn_bandwidth or the node's nics and nic");
  }
}

}  // namespace

ClusterSpec read_cluster(ObjectReader& r) {
  ClusterSpec c;
  c.name = r.string("name", entry_name_from_file(r));
  r.accept("description");
  accept_sources(r);
  if (r.has("pools")) {
    read_pools(r, c);
    if (auto network = r.child("network")) {
      if (auto topology = network->get_choice("topology")) {
        c.network.topology = std::string(topology_names()[*topology]);
      }
      const NetworkShapeKeys shape = read_network_shape(*network, c.network.topology, c.nodes, c.network);
      if (shape.explicit_shape()) {
        r.error("network", "an explicit fabric shape is not modelled with pools: each pool gets the derived "
                           "fabric of its nodes (give topology and oversubscription only)");
      }
      c.comm.sharp_efficiency = network->number("sharp_efficiency");
      network->accept("description");
      network->finish();
    }
    return c;
  }
  if (r.has("inter_pool")) r.error("inter_pool", "inter_pool is the network between pools: it needs pools");
  auto node = r.require_child("node");
  c.node = read_node(node);
  if (const nlohmann::json* coll = node.find("collectives"); coll && coll->is_object()) {
    const auto e = coll->find("nvls_efficiency");
    if (e != coll->end() && e->is_number()) c.comm.nvls_efficiency = e->get<double>();
  }
  const bool node_shape =
      node.has("nvlink_mesh") || node.has("nvlink_domain_devices") || node.has("nic_attach");
  node.finish();
  c.nodes = r.require_integer("nodes");
  // TPU hosts sit on their chips' ICI torus: a cluster of them that names no network is that torus, not
  // a fat-tree of the hosts' data-centre NICs.
  if (c.node.fabric == NodeFabric::torus_ici) c.network.topology = "torus";
  NetworkShapeKeys shape;
  if (auto network = r.child("network")) {
    if (auto topology = network->get_choice("topology")) {
      c.network.topology = std::string(topology_names()[*topology]);
    }
    shape = read_network_shape(*network, c.network.topology, c.nodes, c.network);
    if (auto routing = network->get_choice("routing")) {
      c.network.adaptive_routing = kRoutingChoices[*routing] == "adaptive";
      if (c.network.adaptive_routing && c.network.topology != "fat-tree") {
        network->error("routing", "\"adaptive\" routing is modelled on fat-trees only (this network is a " +
                                      c.network.topology + "; use \"ecmp\")");
      }
    }
    c.comm.sharp_efficiency = network->number("sharp_efficiency");
    network->accept("description");
    read_slices(*network, c, shape);
    network->finish();
  }
  // An explicit fabric becomes the cluster's ClusterTopologySpec, checked here so that its problems
  // carry the file and pointer of the key (the node keys may live in the node catalog file).
  // A problem already reported at a key (or above it) is not reported again in other words.
  // (A cluster over kMaxDevices is refused by the cross-checks, with the device count: its fabric is not
  // derived, as 10^9 devices per node would overflow the device count.)
  const bool countable = c.nodes >= 1 && c.node.devices_per_node >= 1 &&
                         std::int64_t{c.nodes} * c.node.devices_per_node <= kMaxDevices;
  if ((shape.explicit_shape() || node_shape) && countable) {
    ClusterTopologySpec t = derived_topology(c);
    apply_network_shape(shape, c.node.nics, t);
    for (const FieldProblem& p : t.validate()) {
      const std::string at = r.pointer() + user_pointer(shape, topology_field_pointer(implied_by(c, p.field)));
      if (!r.context().failed(at)) r.context().error(at, p.message);
    }
    c.comm.topology = std::move(t);
  } else {
    // The fabric the fields imply is what every collective is costed on: its problems are the
    // cluster's (e.g. an oversubscription no switch radix up to 64 splits into whole ports).
    for (const FieldProblem& p : implied_fabric_problems(c)) {
      const std::string at = r.pointer() + user_pointer(shape, topology_field_pointer(implied_by(c, p.field)));
      if (!r.context().failed(at)) r.context().error(at, p.message);
    }
  }
  return c;
}

std::vector<FieldProblem> implied_fabric_problems(const ClusterSpec& c) {
  const bool countable = c.nodes >= 1 && c.node.devices_per_node >= 1 &&
                         std::int64_t{c.nodes} * c.node.devices_per_node <= kMaxDevices;
  if (!countable || c.network.topology == "dragonfly") return {};
  return derived_topology(c).validate();
}

}  // namespace clustersim::config
