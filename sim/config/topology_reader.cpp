#include "sim/config/topology_reader.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "sim/config/enum_names.hpp"
#include "sim/config/sections.hpp"

namespace clustersim::config {

namespace {

constexpr Field kNetworkLinkFields[] = {
    {.key = "bandwidth",
     .kind = FieldKind::quantity,
     .doc = "per direction",
     .fallback = "required",
     .dimension = Dimension::bandwidth},
    {.key = "latency",
     .kind = FieldKind::quantity,
     .doc = "per hop",
     .fallback = "\"0 s\"",
     .dimension = Dimension::time,
     .rule = QuantityRule::non_negative},
    {.key = "duplex",
     .kind = FieldKind::choice,
     .doc = "link of the TopologyGraph",
     .fallback = "\"full\"",
     .choices = kDuplexChoices},
};

constexpr auto kDerived = "derived: docs/topologies.md";
constexpr Field kNetworkFields[] = {
    {.key = "topology",
     .kind = FieldKind::choice,
     .doc = "scale-out fabric kind (\"torus\" when the node's fabric is torus-ici)",
     .fallback = "\"fat-tree\"",
     .choices = kTopologyChoices},
    {.key = "oversubscription",
     .kind = FieldKind::number,
     .doc = "down:up port ratio of the upper tiers; one number applies to every tier, a fat-tree may give an "
            "array of one ratio per tier below the top; a single ratio past the largest whole-port split "
            "(63:1 on a 64-port switch) slows the up-links instead, up to 10^6 (beyond it the step time "
            "and energy figures would leave the range of a double)",
     .fallback = "1",
     .numbers = {.min = 1.0, .max = 1e6},
     .also = also_array},
    {.key = "routing",
     .kind = FieldKind::choice,
     .doc = "fat-tree routing: \"ecmp\" sends each flow on one hashed equal-cost path; \"adaptive\" "
            "spreads each flow evenly over all equal-cost up-paths (adaptive routing / packet spraying; "
            "docs/topologies.md)",
     .fallback = "\"ecmp\"",
     .choices = kRoutingChoices},
    {.key = "sharp_efficiency",
     .kind = FieldKind::number,
     .doc = "InfiniBand SHARP in the switches: fraction of the NIC rate (0: no SHARP)",
     .fallback = "0",
     .numbers = {.min = 0.0, .max = 1.0}},
    kDescriptionField,
    {.key = "slices",
     .kind = FieldKind::integer,
     .doc = "TPU multi-slice job (torus-ici nodes, derived torus): the chips form this many equal ICI tori of "
            "nodes / slices hosts each, joined only by the data-centre network (DCN) through the hosts' NICs; "
            "data parallelism spans the slices, ZeRO/FSDP shards within a slice (docs/collectives.md, "
            "\"Multi-slice\")",
     .fallback = "1",
     .ints = {.min = 1, .max = 1 << 20}},
    {.key = "dcn_bandwidth",
     .kind = FieldKind::quantity,
     .doc = "multi-slice: data-centre network bandwidth per host, per direction, as reached",
     .fallback = "derived: the node's nics × nic bandwidth × nic efficiency, printed as an assumption",
     .dimension = Dimension::bandwidth},
    {.key = "tiers",
     .kind = FieldKind::integer,
     .doc = "fat-tree: switch tiers",
     .fallback = kDerived,
     .ints = {.min = 2, .max = 3}},
    {.key = "radix",
     .kind = FieldKind::integer,
     .doc = "fat-tree: switch ports",
     .fallback = kDerived,
     .ints = {.min = 2, .max = 1 << 16}},
    {.key = "rail_optimized",
     .kind = FieldKind::boolean,
     .doc = "fat-tree: NIC k of every node on leaf k",
     .fallback = kDerived},
    {.key = "leaf_spine",
     .kind = FieldKind::object,
     .doc = "fat-tree: leaf-spine link",
     .fallback = kDerived,
     .section = &kNetworkLinkSection},
    {.key = "spine_core",
     .kind = FieldKind::object,
     .doc = "fat-tree: spine-core link",
     .fallback = kDerived,
     .section = &kNetworkLinkSection},
    {.key = "dims",
     .kind = FieldKind::array,
     .doc = "torus: chips per dimension, [x, y] or [x, y, z]",
     .fallback = kDerived,
     .ints = {.min = 1, .max = 1 << 30},
     .items = FieldKind::integer},
    {.key = "wrap", .kind = FieldKind::boolean, .doc = "torus: wrap-around links", .fallback = kDerived},
    {.key = "cube",
     .kind = FieldKind::integer,
     .doc = "torus: edge of the optically joined cubes (0: none)",
     .fallback = kDerived,
     .ints = {.min = 0, .max = 1 << 16}},
    {.key = "link",
     .kind = FieldKind::object,
     .doc = "torus: chip-to-chip link",
     .fallback = kDerived,
     .section = &kNetworkLinkSection},
    {.key = "groups",
     .kind = FieldKind::integer,
     .doc = "dragonfly: groups",
     .fallback = "derived: required for a dragonfly of more than one node",
     .ints = {.min = 1}},
    {.key = "routers_per_group",
     .kind = FieldKind::integer,
     .doc = "dragonfly: routers per group",
     .fallback = "derived: required for a dragonfly of more than one node",
     .ints = {.min = 1}},
    {.key = "hosts_per_router",
     .kind = FieldKind::integer,
     .doc = "dragonfly: nodes per router",
     .fallback = "derived: required for a dragonfly of more than one node",
     .ints = {.min = 1}},
    {.key = "global_links_per_router",
     .kind = FieldKind::integer,
     .doc = "dragonfly: global links per router",
     .fallback = "derived: required for a dragonfly of more than one node",
     .ints = {.min = 0}},
    {.key = "local",
     .kind = FieldKind::object,
     .doc = "dragonfly: link inside a group",
     .fallback = kDerived,
     .section = &kNetworkLinkSection},
    {.key = "global",
     .kind = FieldKind::object,
     .doc = "dragonfly: link between groups",
     .fallback = kDerived,
     .section = &kNetworkLinkSection},
};

std::string item(const std::string& pointer, std::size_t i) {
  return pointer + "/" + std::to_string(i);
}

std::optional<LinkParams> link_child(ObjectReader& r, std::string_view key) {
  auto c = r.child(key);
  if (!c) return std::nullopt;
  LinkParams l = read_link_params(*c);
  c->finish();
  return l;
}

// A JSON integer >= `min` at `pointer`, else a recorded problem.
std::optional<int> integer_item(const nlohmann::json& v, const std::string& pointer, int min,
                                ReadContext& ctx) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < min || v.get<std::int64_t>() > (1LL << 30)) {
    ctx.error(pointer, fmt::format("expected an integer >= {}, got {}", min, describe(v)));
    return std::nullopt;
  }
  return static_cast<int>(v.get<std::int64_t>());
}

void read_oversubscription(ObjectReader& r, NetworkShapeKeys& k) {
  const nlohmann::json* v = r.find("oversubscription");
  if (v == nullptr) return;
  const std::string at = r.pointer_of("oversubscription");
  if (v->is_number()) {
    if (auto r1 = r.get_number("oversubscription")) k.oversubscription = {*r1};
    return;
  }
  if (!v->is_array() || v->empty()) {
    r.error("oversubscription",
            "expected a number >= 1 or an array with one ratio per tier below the top, got " + describe(*v));
    return;
  }
  k.oversubscription_is_array = true;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const nlohmann::json& e = (*v)[i];
    if (!e.is_number() || e.get<double>() < 1.0) {
      r.context().error(item(at, i), "expected a number >= 1 (down:up port ratio), got " + describe(e));
      k.oversubscription.clear();
      return;
    }
    k.oversubscription.push_back(e.get<double>());
  }
}

void read_dims(ObjectReader& r, NetworkShapeKeys& k) {
  const nlohmann::json* v = r.find("dims");
  if (v == nullptr) return;
  if (!v->is_array()) {
    r.error("dims", "expected [x, y] or [x, y, z] (chips per dimension), got " + describe(*v));
    return;
  }
  std::vector<int> dims;
  for (std::size_t i = 0; i < v->size(); ++i) {
    auto d = integer_item((*v)[i], item(r.pointer_of("dims"), i), static_cast<int>(r.field("dims").ints.min),
                          r.context());
    if (!d) return;
    dims.push_back(*d);
  }
  k.dims = std::move(dims);
}

void read_fat_tree(ObjectReader& r, NetworkShapeKeys& k) {
  if (auto t = r.get_integer("tiers")) k.tiers = static_cast<int>(*t);
  if (auto x = r.get_integer("radix")) k.radix = static_cast<int>(*x);
  k.rail_optimized = r.get_boolean("rail_optimized");
  k.leaf_spine = link_child(r, "leaf_spine");
  k.spine_core = link_child(r, "spine_core");
}

void read_torus(ObjectReader& r, NetworkShapeKeys& k) {
  read_dims(r, k);
  k.wrap = r.get_boolean("wrap");
  if (auto c = r.get_integer("cube")) k.cube = static_cast<int>(*c);
  k.link = link_child(r, "link");
}

void read_dragonfly(ObjectReader& r, NetworkShapeKeys& k, int nodes) {
  const bool required = nodes > 1;
  auto get = [&](std::string_view key) -> std::optional<int> {
    if (required && !r.has(key)) {
      r.error(key,
              "missing required key (a dragonfly needs its shape: groups, routers_per_group, "
              "hosts_per_router, global_links_per_router)");
      return std::nullopt;
    }
    if (auto v = r.get_integer(key)) return static_cast<int>(*v);
    return std::nullopt;
  };
  k.groups = get("groups");
  k.routers_per_group = get("routers_per_group");
  k.hosts_per_router = get("hosts_per_router");
  k.global_links_per_router = get("global_links_per_router");
  k.local = link_child(r, "local");
  k.global = link_child(r, "global");
}

}  // namespace

const Section kNetworkLinkSection{"network_link", "/cluster/network/leaf_spine",
                                  "a link of the network (also a node's nic_attach)", kNetworkLinkFields};
const Section kNetworkSection{"network", "/cluster/network",
                              "the scale-out fabric; keys of another topology kind are unknown keys",
                              kNetworkFields};

bool NetworkShapeKeys::explicit_shape() const {
  return oversubscription_is_array || tiers || radix || rail_optimized || leaf_spine || spine_core || dims ||
         wrap || cube || link || groups || routers_per_group || hosts_per_router || global_links_per_router ||
         local || global;
}

Duplex read_duplex(ObjectReader& r, std::string_view key) {
  return r.enumeration(key, duplex_names());
}

LinkParams read_link_params(ObjectReader& r) {
  LinkParams l;
  l.bandwidth = r.require_quantity<BytesPerSecond>("bandwidth");
  l.latency = r.quantity<Seconds>("latency");
  l.duplex = read_duplex(r, "duplex");
  return l;
}

void read_node_shape(ObjectReader& r, NodeSpec& n) {
  if (const nlohmann::json* v = r.find("nvlink_mesh")) {
    const std::string at = r.pointer_of("nvlink_mesh");
    if (v->is_string()) {
      const auto preset = v->get<std::string>();
      if (preset == "dgx1-v100") {
        n.nvlink_mesh = dgx1v_hybrid_cube_mesh();
      } else if (preset == "dgx1-p100") {
        n.nvlink_mesh = dgx1p_hybrid_cube_mesh();
      } else {
        r.error("nvlink_mesh", "unknown preset \"" + preset +
                                   "\" (expected \"dgx1-v100\" or \"dgx1-p100\", or "
                                   "a list of [a, b, lanes])");
      }
    } else if (v->is_array()) {
      for (std::size_t i = 0; i < v->size(); ++i) {
        const nlohmann::json& e = (*v)[i];
        if (!e.is_array() || e.size() < 2 || e.size() > 3) {
          r.context().error(item(at, i), "expected [a, b] or [a, b, lanes], got " + describe(e));
          continue;
        }
        auto a = integer_item(e[0], item(item(at, i), 0), 0, r.context());
        auto b = integer_item(e[1], item(item(at, i), 1), 0, r.context());
        auto lanes = e.size() == 3 ? integer_item(e[2], item(item(at, i), 2), 1, r.context()) : 1;
        if (a && b && lanes) n.nvlink_mesh.push_back({*a, *b, *lanes});
      }
    } else {
      r.error("nvlink_mesh", "expected a list of [a, b, lanes] or a preset name, got " + describe(*v));
    }
    if (n.fabric != NodeFabric::nvlink_mesh)
      r.error("nvlink_mesh", "only an \"nvlink-mesh\" fabric has a mesh");
  }
  n.nvlink_domain_devices = static_cast<int>(r.get_integer("nvlink_domain_devices").value_or(0));
  if (n.nvlink_domain_devices > 0 && n.fabric != NodeFabric::nvswitch) {
    r.error("nvlink_domain_devices", "an NVLink domain over several nodes needs the \"nvswitch\" fabric");
  }
  if (auto attach = r.child("nic_attach")) {
    LinkSpec l;
    const LinkParams p = read_link_params(*attach);
    attach->finish();
    l.bandwidth = p.bandwidth;
    l.latency = p.latency;
    l.duplex = p.duplex;
    n.nic_attach = l;
  }
}

NetworkShapeKeys read_network_shape(ObjectReader& r, const std::string& kind, int nodes,
                                    NetworkSpec& network) {
  NetworkShapeKeys k;
  read_oversubscription(r, k);
  if (!k.oversubscription.empty()) {
    network.oversubscription = *std::max_element(k.oversubscription.begin(), k.oversubscription.end());
  }
  if (kind == "fat-tree") {
    read_fat_tree(r, k);
  } else if (kind == "torus") {
    read_torus(r, k);
  } else if (kind == "dragonfly") {
    read_dragonfly(r, k, nodes);
  }
  return k;
}

void apply_network_shape(const NetworkShapeKeys& k, int nics, ClusterTopologySpec& t) {
  if (t.network != NetworkKind::torus) t.node.nics = nics;
  FatTreeSpec& ft = t.fat_tree;
  if (k.tiers) ft.tiers = *k.tiers;
  if (k.radix) ft.radix = *k.radix;
  if (k.rail_optimized) ft.rail_optimized = *k.rail_optimized;
  if (k.leaf_spine) ft.leaf_spine = *k.leaf_spine;
  if (k.spine_core) ft.spine_core = *k.spine_core;
  if (k.oversubscription_is_array) {
    ft.oversubscription = k.oversubscription;
  } else if (!k.oversubscription.empty()) {
    ft.oversubscription.assign(static_cast<std::size_t>(std::max(1, ft.tiers - 1)),
                               k.oversubscription.front());
  } else if (k.tiers) {
    ft.oversubscription.assign(static_cast<std::size_t>(std::max(1, ft.tiers - 1)), 1.0);
  }
  TorusSpec& to = t.torus;
  if (k.dims && !k.dims->empty()) {
    // The derived link splits a chip's bandwidth over 2 links per dimension, and cubes are only
    // assumed for derived dims.
    const auto derived_d = static_cast<double>(std::max<std::size_t>(1, to.dims.size()));
    to.link.bandwidth = to.link.bandwidth * (derived_d / static_cast<double>(k.dims->size()));
    to.dims = *k.dims;
    to.cube = 0;
  }
  if (k.wrap) to.wrap = *k.wrap;
  if (k.cube) to.cube = *k.cube;
  if (k.link) to.link = *k.link;
  DragonflySpec& df = t.dragonfly;
  if (k.groups) df.groups = *k.groups;
  if (k.routers_per_group) df.routers_per_group = *k.routers_per_group;
  if (k.hosts_per_router) df.hosts_per_router = *k.hosts_per_router;
  if (k.global_links_per_router) df.global_links_per_router = *k.global_links_per_router;
  if (k.local) df.local = *k.local;
  if (k.global) df.global = *k.global;
}

std::string user_pointer(const NetworkShapeKeys& keys, const std::string& spec_pointer) {
  constexpr std::string_view kTier = "/network/oversubscription/";
  if (!keys.oversubscription_is_array && spec_pointer.starts_with(kTier)) return "/network/oversubscription";
  return spec_pointer;
}

}  // namespace clustersim::config
