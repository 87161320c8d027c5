#include "sim/engine/flow/fabric_layout.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <unordered_map>

#include "sim/core/diagnostics.hpp"
#include "topologies/derived_topology.hpp"
#include "topologies/dot_writer.hpp"

namespace clustersim::flow {

const char* link_class_name(LinkClass c) {
  switch (c) {
    case LinkClass::nvlink:
      return "nvlink";
    case LinkClass::nic:
      return "nic";
    case LinkClass::leaf_uplink:
      return "leaf_uplink";
    case LinkClass::pcie:
      return "pcie";
    case LinkClass::leaf_spine:
      return "leaf_spine";
    case LinkClass::spine_core:
      return "spine_core";
    case LinkClass::torus:
      return "torus";
    case LinkClass::torus_optical:
      return "torus_optical";
    case LinkClass::dragonfly_local:
      return "dragonfly_local";
    case LinkClass::dragonfly_global:
      return "dragonfly_global";
    case LinkClass::ps_server:
      return "ps_server";
    case LinkClass::dcn:
      return "dcn";
  }
  return "?";
}

FabricLayout FabricLayout::of(const ClusterSpec& cluster, int leaf_nodes, int tp) {
  const bool spelled_out = cluster.comm.topology && cluster.comm.topology->network != NetworkKind::none;
  if (spelled_out) return FabricLayout(TopologyCollectives::of(cluster));
  // A node whose communicators may use fewer NICs than it has (nics_per_communicator below its NIC
  // count): the derived graph and the analytic engine's collective phases (rings and leaders limited to
  // those NICs), which the layout mode's own two-level rings do not know. docs/flow_engine.md lists what
  // that mode does not have (flow.leaf_nodes, leaf_uplink stragglers).
  if (cluster.communicators_use_fewer_nics()) return FabricLayout(TopologyCollectives::of(cluster));
  if (cluster.network.topology == "torus" && !cluster.comm.topology) {
    // The derived ICI torus, as sim/graph/op_cost.cpp maps it (one slice, TP on whole dimensions).
    const auto mapped = torus_mapped_cluster(cluster, tp);
    FabricLayout out(TopologyCollectives::of(mapped ? *mapped : cluster));
    const int slices = cluster.devices() / std::max(1, out.devices());
    if (slices > 1) out.replicate_slices(slices, cluster.network.dcn);
    return out;
  }
  return FabricLayout(cluster, leaf_nodes);
}

void FabricLayout::replicate_slices(int count, const LinkSpec& dcn) {
  CS_ASSERT(topology_ != nullptr && slices_ == 1 && servers_ == 0 && bundle_of_.empty() && count >= 1,
            "slices replicate a plain topology-mode fabric");
  if (count == 1) return;
  slice_links_ = static_cast<int>(links_.size());
  std::vector<FabricLink> all;
  all.reserve(links_.size() * static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) {
    for (const FabricLink& l : links_) {
      FabricLink c = l;
      c.name = fmt::format("s{}.{}", k, l.name);
      all.push_back(std::move(c));
    }
  }
  links_ = std::move(all);
  slices_ = count;
  devices_ *= count;
  nodes_ *= count;
  dcn_base_ = static_cast<int>(links_.size());
  for (int node = 0; node < nodes_; ++node) {
    FabricLink l{fmt::format("h{}.dcn", node), LinkClass::dcn, dcn.bandwidth, dcn.latency};
    l.private_link = per_node_ <= 1;  // the host's chips share it
    links_.push_back(std::move(l));
  }
}

FabricLayout::FabricLayout(const ClusterSpec& cluster, int leaf_nodes)
    : devices_(cluster.devices()),
      per_node_(cluster.node.devices_per_node),
      nodes_(cluster.nodes),
      nics_(cluster.node.nics),
      leaf_nodes_(leaf_nodes) {
  CS_ASSERT(leaf_nodes > 0, "leaf groups hold at least one node");
  const NodeSpec& n = cluster.node;
  CS_ASSERT(nodes_ <= 1 || nics_ > 0, "sim/config refuses a flow run over several nodes without NICs");
  const BytesPerSecond nvl = n.intra.bandwidth * n.intra.efficiency;
  for (int d = 0; d < devices_; ++d) {
    links_.push_back({fmt::format("n{}.nvl{}", d / per_node_, d % per_node_), LinkClass::nvlink, nvl,
                      n.intra.latency * 0.5});
  }
  nic_base_ = static_cast<int>(links_.size());
  const BytesPerSecond nic_bw = n.nic.bandwidth * n.nic.efficiency;
  const bool nic_private = nics_ >= per_node_;  // one device per NIC
  for (int node = 0; node < nodes_ && nics_ > 0; ++node) {
    for (int k = 0; k < nics_; ++k) {
      FabricLink l{fmt::format("n{}.nic{}", node, k), LinkClass::nic, nic_bw, n.nic.latency * 0.5};
      l.private_link = nic_private;
      links_.push_back(std::move(l));
    }
  }
  uplink_base_ = static_cast<int>(links_.size());
  for (int leaf = 0; leaf < leaves() && nics_ > 0; ++leaf) {
    const int nodes_below = std::min(leaf_nodes_, nodes_ - leaf * leaf_nodes_);
    const BytesPerSecond up =
        nic_bw * (static_cast<double>(nodes_below) * nics_ / cluster.network.oversubscription);
    FabricLink l{fmt::format("leaf{}.up", leaf), LinkClass::leaf_uplink, up, Seconds(0)};
    l.private_link = false;
    links_.push_back(std::move(l));
  }
}

namespace {

LinkClass class_of(LinkKind k) {
  switch (k) {
    case LinkKind::nvlink:
    case LinkKind::nvswitch_port:
      return LinkClass::nvlink;
    case LinkKind::pcie:
      return LinkClass::pcie;
    case LinkKind::nic_uplink:
      return LinkClass::nic;
    case LinkKind::leaf_spine:
      return LinkClass::leaf_spine;
    case LinkKind::spine_core:
      return LinkClass::spine_core;
    case LinkKind::torus:
      return LinkClass::torus;
    case LinkKind::torus_optical:
      return LinkClass::torus_optical;
    case LinkKind::dragonfly_local:
      return LinkClass::dragonfly_local;
    case LinkKind::dragonfly_global:
      return LinkClass::dragonfly_global;
  }
  return LinkClass::nic;
}

// The device (or NIC) end of a link that touches one, else nullptr.
const Vertex* edge_vertex(const TopologyGraph& g, const Link& l, VertexKind kind) {
  if (g.vertex(l.a).kind == kind) return &g.vertex(l.a);
  if (g.vertex(l.b).kind == kind) return &g.vertex(l.b);
  return nullptr;
}

}  // namespace

FabricLayout::FabricLayout(std::shared_ptr<const TopologyCollectives> topology)
    : topology_(std::move(topology)) {
  CS_ASSERT(topology_ != nullptr, "topology mode needs a topology");
  const TopologyGraph& g = topology_->model().graph();
  const LinkEfficiency& eff = topology_->model().options().efficiency;
  devices_ = g.device_count();
  per_node_ = g.devices_per_node();
  nodes_ = g.node_count();
  nics_ = g.nics_per_node();
  links_.reserve(g.link_count());
  std::unordered_map<std::string, int> parallel;
  for (LinkId id = 0; id < static_cast<LinkId>(g.link_count()); ++id) {
    const Link& l = g.link(id);
    FabricLink f;
    f.cls = class_of(l.kind);
    f.bandwidth = l.bandwidth * eff.of(l.kind);
    f.latency = l.latency;
    f.half_duplex = l.duplex == Duplex::half;
    const Vertex* dev = edge_vertex(g, l, VertexKind::device);
    const Vertex* nic = edge_vertex(g, l, VertexKind::nic);
    if (l.kind == LinkKind::nvswitch_port && dev != nullptr) {
      f.name = fmt::format("n{}.nvl{}", dev->node, dev->index % per_node_);
    } else if (l.kind == LinkKind::pcie && dev != nullptr && nic != nullptr) {
      f.name = fmt::format("n{}.pcie{}", dev->node, dev->index % per_node_);
    } else if (l.kind == LinkKind::nic_uplink && nic != nullptr) {
      f.name = fmt::format("n{}.nic{}", nic->node, nic->index % std::max(1, nics_));
      f.private_link = nics_ >= per_node_;  // one device per NIC
    } else {
      // As `clustersim topo --dot` names the two ends ("leaf3-spine12"); parallel links get ".2", ".3", ...
      f.name = dot_name(g, l.a) + "-" + dot_name(g, l.b);
      if (const int k = ++parallel[f.name]; k > 1) f.name += fmt::format(".{}", k);
      // NVSwitch ports and device-NIC links serve one device; everything else may carry other routes.
      f.private_link = (l.kind == LinkKind::nvswitch_port || l.kind == LinkKind::pcie);
    }
    links_.push_back(std::move(f));
  }
  if (g.adaptive_routing()) bundle_parallel_uplinks(g);
}

void FabricLayout::bundle_parallel_uplinks(const TopologyGraph& g) {
  // Adaptive routing spreads every flow evenly over all equal-cost up-paths, so each of a leaf's
  // leaf-spine links carries 1/leaf_up of every flow through that leaf, and each spine-core link of a pod
  // 1/(leaf_up * spine_up) of every flow leaving or entering the pod. With links of one bandwidth per
  // tier, max-min sharing on those parallel links is max-min sharing on one link of their summed
  // bandwidth: routes cross the bundle "leaf<L>.up" (all leaf-spine links of leaf L) and "pod<P>.core"
  // (all spine-core links of pod P) instead of one hashed member.
  bundle_of_.assign(g.link_count(), -1);
  std::unordered_map<std::string, int> index;
  for (LinkId id = 0; id < static_cast<LinkId>(g.link_count()); ++id) {
    const Link& l = g.link(id);
    std::string key;
    if (l.kind == LinkKind::leaf_spine && g.vertex(l.a).role == SwitchRole::leaf) {
      key = fmt::format("leaf{}.up", g.vertex(l.a).index);
    } else if (l.kind == LinkKind::spine_core && g.vertex(l.a).role == SwitchRole::spine) {
      key = fmt::format("pod{}.core", g.vertex(l.a).group);
    } else {
      continue;
    }
    const FabricLink member = links_[static_cast<std::size_t>(id)];  // a copy: push_back may reallocate
    auto [it, fresh] = index.try_emplace(key, static_cast<int>(links_.size()));
    if (fresh) {
      FabricLink b{key, member.cls, BytesPerSecond(0), member.latency};
      b.half_duplex = member.half_duplex;
      b.private_link = false;
      links_.push_back(std::move(b));
    }
    FabricLink& b = links_[static_cast<std::size_t>(it->second)];
    b.bandwidth = b.bandwidth + member.bandwidth;
    b.latency = max(b.latency, member.latency);
    bundle_of_[static_cast<std::size_t>(id)] = it->second;
  }
}

int FabricLayout::nic_of(int device) const {
  const int local = device % per_node_;
  const int per_nic = std::max(1, per_node_ / nics_);
  return nic_base_ + node_of(device) * nics_ + std::min(nics_ - 1, local / per_nic);
}

int FabricLayout::uplink_of_leaf(int leaf) const {
  return uplink_base_ + leaf;
}

int FabricLayout::add_servers(int count, BytesPerSecond bandwidth, Seconds latency) {
  CS_ASSERT(count > 0 && bandwidth.value() > 0, "servers have NICs");
  if (servers_ == 0) server_link_base_ = static_cast<int>(links_.size());
  CS_ASSERT(server_link_base_ + servers_ == static_cast<int>(links_.size()), "server links are added last");
  const int first = devices_ + servers_;
  for (int k = 0; k < count; ++k) {
    FabricLink l{fmt::format("ps{}.nic", servers_ + k), LinkClass::ps_server, bandwidth,
                 topology_ ? latency : latency * 0.5};
    l.private_link = false;
    links_.push_back(std::move(l));
  }
  servers_ += count;
  return first;
}

std::vector<DirectedLink> FabricLayout::to_core(int device) const {
  if (!topology_) {
    return {2 * nic_of(device), 2 * uplink_of_leaf(leaf_of_node(node_of(device)))};
  }
  std::vector<DirectedLink> up;
  if (nodes_ <= 1) return up;
  // The route to the same local device of the next node, through its first NIC uplink.
  const int other = (node_of(device) + 1) % nodes_ * per_node_ + device % per_node_;
  Route steps;
  topology_->model().graph().route_into(device, other, steps);
  for (const RouteStep& st : steps) {
    up.push_back(2 * st.link + (st.forward ? 0 : 1));
    if (links_[static_cast<std::size_t>(st.link)].cls == LinkClass::nic) break;
  }
  return up;
}

FabricRoute FabricLayout::route(int src, int dst) const {
  CS_ASSERT(src != dst && src >= 0 && dst >= 0 && src < endpoints() && dst < endpoints(),
            "route between two endpoints");
  FabricRoute r;
  if (src >= devices_ || dst >= devices_) {
    CS_ASSERT((src >= devices_) != (dst >= devices_), "server flows run between a worker and a server");
    const bool push = dst >= devices_;
    const int worker = push ? src : dst;
    const DirectedLink server = 2 * (server_link_base_ + (push ? dst : src) - devices_);
    r.links = to_core(worker);
    if (push) {
      r.links.push_back(server + 1);
    } else {
      for (DirectedLink& l : r.links) l ^= 1;  // the same links, downwards
      std::reverse(r.links.begin(), r.links.end());
      r.links.insert(r.links.begin(), server);
    }
    r.shared = true;
    return r;
  }
  r.intra_node = node_of(src) == node_of(dst);
  if (topology_) {
    // Several slices: the route inside the slice's copy of the graph (no traffic crosses slices).
    const int per_slice = slice_devices();
    const int slice = src / per_slice;
    const int shift = slice * slice_links_;
    Route steps;
    if (dst / per_slice != slice) {
      // Between slices: through the hosts over the DCN.
      r.links = {2 * (dcn_base_ + node_of(src)), 2 * (dcn_base_ + node_of(dst)) + 1};
    } else {
      topology_->model().graph().route_into(src - slice * per_slice, dst - slice * per_slice, steps);
    }
    r.links.reserve(steps.size());
    for (const RouteStep& st : steps) {
      const int link = bundle_of_.empty() || bundle_of_[static_cast<std::size_t>(st.link)] < 0
                           ? st.link
                           : bundle_of_[static_cast<std::size_t>(st.link)];
      r.links.push_back(2 * (link + shift) + (st.forward ? 0 : 1));
    }
  } else if (r.intra_node) {
    r.links = {2 * nvlink_of(src), 2 * nvlink_of(dst) + 1};
  } else {
    r.links.push_back(2 * nic_of(src));
    const int ls = leaf_of_node(node_of(src)), ld = leaf_of_node(node_of(dst));
    if (ls != ld) {
      r.links.push_back(2 * uplink_of_leaf(ls));
      r.links.push_back(2 * uplink_of_leaf(ld) + 1);
    }
    r.links.push_back(2 * nic_of(dst) + 1);
  }
  // Shared: another device's traffic can meet this route (a shared link, or a straggler link, whose
  // flows the symmetry reduction keeps for every replica).
  for (DirectedLink dl : r.links) {
    const FabricLink& l = links_[static_cast<std::size_t>(dl / 2)];
    if (!l.private_link || l.straggler) r.shared = true;
  }
  return r;
}

Seconds FabricLayout::route_latency(const FabricRoute& r) const {
  Seconds alpha(0);
  for (DirectedLink dl : r.links) alpha = max(alpha, links_[static_cast<std::size_t>(dl / 2)].latency);
  return alpha;
}

bool FabricLayout::scale_link(const std::string& name, double factor) {
  for (std::size_t i = 0; i < links_.size(); ++i) {
    FabricLink& l = links_[i];
    if (l.name == name) {
      // A slow member of an adaptive-routing bundle takes its lost bandwidth from the bundle.
      if (i < bundle_of_.size() && bundle_of_[i] >= 0) {
        FabricLink& b = links_[static_cast<std::size_t>(bundle_of_[i])];
        b.bandwidth = b.bandwidth - l.bandwidth * (1.0 - factor);
        b.straggler = true;
      }
      l.bandwidth = l.bandwidth * factor;
      l.straggler = true;
      return true;
    }
  }
  return false;
}

}  // namespace clustersim::flow
