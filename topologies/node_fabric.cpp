#include "topologies/node_fabric.hpp"

#include <algorithm>
#include <vector>

#include "sim/core/diagnostics.hpp"

namespace clustersim {

namespace {

// A link of the per-domain template: local vertices 0..D-1 are the domain's devices, D its switch.
struct TemplateLink {
  int a;
  int b;
  LinkKind kind;
  LinkParams params;
};

std::vector<TemplateLink> domain_template(const NodeFabricSpec& s, int domain_devices) {
  std::vector<TemplateLink> t;
  const int sw = domain_devices;
  switch (s.kind) {
    case NodeFabricKind::none:
      break;
    case NodeFabricKind::nvswitch:
    case NodeFabricKind::nvl_domain:
      for (int d = 0; d < domain_devices; ++d) t.push_back({d, sw, LinkKind::nvswitch_port, s.link});
      break;
    case NodeFabricKind::pcie:
      for (int d = 0; d < domain_devices; ++d) t.push_back({d, sw, LinkKind::pcie, s.link});
      break;
    case NodeFabricKind::nvlink_mesh: {
      // intra_link is a device's total NVLink bandwidth; a lane carries that over the most lanes any
      // device has (6 on a DGX-1V: 150 GB/s / 6 = 25 GB/s, the NVLink 2 lane rate).
      std::vector<int> lanes(static_cast<std::size_t>(domain_devices), 0);
      for (const MeshLink& m : s.mesh) {
        lanes[static_cast<std::size_t>(m.a)] += m.lanes;
        lanes[static_cast<std::size_t>(m.b)] += m.lanes;
      }
      const int most = *std::max_element(lanes.begin(), lanes.end());
      for (const MeshLink& m : s.mesh) {
        LinkParams p = s.link;
        p.bandwidth = s.link.bandwidth * (static_cast<double>(m.lanes) / most);
        t.push_back({m.a, m.b, LinkKind::nvlink, p});
      }
      break;
    }
  }
  return t;
}

// Breadth-first minimal routes between all device pairs of the template; neighbours are visited in
// template-link order, so ties always resolve the same way.
DomainRoutes template_routes(const std::vector<TemplateLink>& links, int domain_devices, LinkId first_link) {
  const int nv = domain_devices + 1;
  std::vector<std::vector<int>> adj(static_cast<std::size_t>(nv));
  for (std::size_t i = 0; i < links.size(); ++i) {
    adj[static_cast<std::size_t>(links[i].a)].push_back(static_cast<int>(i));
    adj[static_cast<std::size_t>(links[i].b)].push_back(static_cast<int>(i));
  }
  DomainRoutes r;
  r.domain_devices = domain_devices;
  r.first_link = first_link;
  r.links_per_domain = static_cast<int>(links.size());
  r.offsets.reserve(static_cast<std::size_t>(domain_devices * domain_devices + 1));
  r.offsets.push_back(0);
  std::vector<int> parent_link(static_cast<std::size_t>(nv));
  std::vector<int> queue;
  std::vector<RouteStep> path;
  for (int s = 0; s < domain_devices; ++s) {
    std::fill(parent_link.begin(), parent_link.end(), -2);
    parent_link[static_cast<std::size_t>(s)] = -1;
    queue.assign(1, s);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const int u = queue[head];
      for (int li : adj[static_cast<std::size_t>(u)]) {
        const TemplateLink& l = links[static_cast<std::size_t>(li)];
        const int v = l.a == u ? l.b : l.a;
        if (parent_link[static_cast<std::size_t>(v)] != -2) continue;
        parent_link[static_cast<std::size_t>(v)] = li;
        queue.push_back(v);
      }
    }
    for (int t = 0; t < domain_devices; ++t) {
      path.clear();
      for (int v = t; v != s;) {
        const int li = parent_link[static_cast<std::size_t>(v)];
        CS_ASSERT(li >= 0, "validated node fabrics connect all devices of a domain");
        const TemplateLink& l = links[static_cast<std::size_t>(li)];
        path.push_back({li, l.b == v});  // arrived at v: forward iff v is the link's b end
        v = l.b == v ? l.a : l.b;
      }
      r.steps.insert(r.steps.end(), path.rbegin(), path.rend());
      r.offsets.push_back(static_cast<std::int32_t>(r.steps.size()));
    }
  }
  return r;
}

}  // namespace

void NodeFabric::build(const NodeFabricSpec& spec, int nodes, TopologyBuilder& builder) {
  const int g = spec.devices_per_node;
  const int devices = nodes * g;
  const int dd = spec.fabric_domain_devices();
  if (dd > 0) {
    const int domains = devices / dd;
    const bool has_switch = spec.kind != NodeFabricKind::nvlink_mesh;
    const SwitchRole role =
        spec.kind == NodeFabricKind::pcie ? SwitchRole::pcie_switch : SwitchRole::nvswitch;
    std::vector<VertexId> sw(static_cast<std::size_t>(domains), -1);
    if (has_switch) {
      for (int d = 0; d < domains; ++d)
        sw[static_cast<std::size_t>(d)] = builder.add_switch(role, 1, d, d, d * dd / g);
    }
    const std::vector<TemplateLink> tmpl = domain_template(spec, dd);
    const auto first = static_cast<LinkId>(builder.link_count());
    for (int d = 0; d < domains; ++d) {
      auto global = [&](int local) { return local < dd ? d * dd + local : sw[static_cast<std::size_t>(d)]; };
      for (const TemplateLink& l : tmpl) (void)builder.add_link(global(l.a), global(l.b), l.kind, l.params);
      for (int i = 0; i < dd; ++i) builder.set_group(d * dd + i, d);
    }
    builder.set_domain_routes(template_routes(tmpl, dd, first));
  }
  if (spec.nics > 0) {
    for (int dev = 0; dev < devices; ++dev) {
      const VertexId nic = builder.partial().nic_vertex(builder.partial().nic_of_device(dev));
      builder.set_device_nic_link(dev, builder.add_link(dev, nic, LinkKind::pcie, spec.nic_attach));
    }
  }
}

}  // namespace clustersim
