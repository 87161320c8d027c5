#include "sim/config/stragglers_section.hpp"

#include <array>
#include <string>

#include <fmt/format.h>

#include "sim/config/sections.hpp"

namespace clustersim::config {
namespace {

constexpr std::array<EnumName<SlowLinkKind>, 4> kLinkKinds{{{"nvlink", SlowLinkKind::nvlink},
                                                            {"nic", SlowLinkKind::nic},
                                                            {"leaf_uplink", SlowLinkKind::leaf_uplink},
                                                            {"link", SlowLinkKind::named}}};
constexpr auto kLinkKindChoices = choices_of(kLinkKinds);

constexpr NumberRange kFactor{.min = 0.0, .max = 1.0, .min_exclusive = true};
constexpr IntRange kIndex{.min = 0};
constexpr int kAll = -1;  // node-wide entry before expansion

constexpr Field kDeviceEntryFields[] = {
    {.key = "device",
     .kind = FieldKind::integer,
     .doc = "global device index = node × devices_per_node + local index (the global rank of a whole-cluster "
            "job)",
     .ints = kIndex},
    {.key = "node",
     .kind = FieldKind::integer,
     .doc = "the device's node (instead of `device`)",
     .ints = kIndex},
    {.key = "local",
     .kind = FieldKind::integer,
     .doc = "local index in `node`",
     .fallback = "derived: every device of the node",
     .ints = kIndex},
    {.key = "speed",
     .kind = FieldKind::number,
     .doc = "fraction of nominal speed of the device's compute stream (kernels and optimizer)",
     .fallback = "required",
     .numbers = kFactor},
};

constexpr Field kLinkEntryFields[] = {
    {.key = "class",
     .kind = FieldKind::choice,
     .doc = "a scale-out NIC, a device's port into its NVSwitch, a leaf group's aggregate uplink (two-level "
            "fabric), or any link by name",
     .fallback = "required",
     .choices = kLinkKindChoices},
    {.key = "name",
     .kind = FieldKind::string,
     .doc = "link: the link's name as the flow engine's contention report prints it, without /up or /down "
            "(`leaf3-spine12`; `leaf2.up` on the two-level fabric); checked when the flow engine builds the "
            "fabric"},
    {.key = "node", .kind = FieldKind::integer, .doc = "nic, nvlink: the node", .ints = kIndex},
    {.key = "index",
     .kind = FieldKind::integer,
     .doc = "nic: NIC index; nvlink: the port of local device index",
     .fallback = "derived: every NIC / port of the node",
     .ints = kIndex},
    {.key = "leaf",
     .kind = FieldKind::integer,
     .doc = "leaf_uplink: the leaf group (flow.leaf_nodes nodes each)",
     .ints = kIndex},
    {.key = "bandwidth_factor",
     .kind = FieldKind::number,
     .doc = "fraction of the link's nominal bandwidth (both directions)",
     .fallback = "required",
     .numbers = kFactor},
};

const Section kDeviceEntrySection{"straggler_device", "/stragglers/devices/*",
                                  "a slow device, by global index or by node (+ local index)",
                                  kDeviceEntryFields};
const Section kLinkEntrySection{"straggler_link", "/stragglers/links/*", "a slow link", kLinkEntryFields};

constexpr Field kStragglersFields[] = {
    {.key = "devices", .kind = FieldKind::array, .doc = "slow devices", .section = &kDeviceEntrySection},
    {.key = "links", .kind = FieldKind::array, .doc = "slow links", .section = &kLinkEntrySection},
    kDescriptionField,
};

constexpr Field kFlowFields[] = {
    {.key = "leaf_nodes",
     .kind = FieldKind::integer,
     .doc =
         "nodes under one leaf switch group of the flow engine's two-level fat-tree (a DGX SuperPOD scalable "
         "unit is 32); each group's uplink carries its NICs' bandwidth / network.oversubscription",
     .fallback = "32",
     // At most 2^24 (the largest cluster read alone): a group larger than the cluster is one group, and
     // the group count (nodes + leaf_nodes - 1) / leaf_nodes stays within int.
     .ints = {.min = 1, .max = 1 << 24}},
    {.key = "symmetry_reduction",
     .kind = FieldKind::boolean,
     .doc =
         "simulate one representative replica per stage (false: every replica and TP rank, slow; for checks)",
     .fallback = "true"},
    {.key = "flow_classes",
     .kind = FieldKind::boolean,
     .doc =
         "with symmetry_reduction on an explicit fabric: simulate each send's flows as classes of equal flows "
         "(equal bytes and solo share: the least link bandwidth / the send's flows on it along the route) on "
         "the flow engine's own max-min solver, each class once with its multiplicity charged to its links "
         "(false: one SimGrid flow per flow; for checks)",
     .fallback = "true"},
    kDescriptionField,
};

/// Calls `fn` with a reader of every object in the array at `key` (absent: nothing).
template <class Fn>
void for_each_entry(ObjectReader& r, std::string_view key, Fn fn) {
  const nlohmann::json* v = r.find(key);
  if (v == nullptr) return;
  if (!v->is_array()) {
    r.error(key, fmt::format("expected an array, got {}", describe(*v)));
    return;
  }
  for (std::size_t i = 0; i < v->size(); ++i) {
    ObjectReader e((*v)[i], child_pointer(r.pointer_of(key), std::to_string(i)), *r.field(key).section,
                   r.context());
    if (e.valid()) fn(e);
    e.finish();
  }
}

void read_device(ObjectReader& e, StragglerSet& out) {
  DeviceSlowdown d;
  d.at = e.pointer();
  d.speed = e.require_number("speed");
  if (e.has("device")) {
    if (e.has("node") || e.has("local"))
      e.error("device", "give either \"device\" or \"node\" (+ \"local\"), not both");
    d.device = static_cast<int>(e.get_integer("device").value_or(0));
    out.devices.push_back(d);
    return;
  }
  if (!e.has("node")) {
    e.error_here("missing required key \"device\" (global index) or \"node\" (+ \"local\")");
    return;
  }
  d.device = -1;  // node-addressed: expanded by the finish hook
  d.node = static_cast<int>(e.get_integer("node").value_or(0));
  d.local = static_cast<int>(e.get_integer("local").value_or(kAll));
  out.devices.push_back(d);
}

void read_link(ObjectReader& e, StragglerSet& out) {
  LinkSlowdown l;
  l.at = e.pointer();
  SourceLocation where = e.context().origin().locate(l.at);
  l.file = std::move(where.file);
  l.file_pointer = std::move(where.pointer);
  l.kind = e.require_enum("class", std::span<const EnumName<SlowLinkKind>>(kLinkKinds), SlowLinkKind::nic);
  l.factor = e.require_number("bandwidth_factor");
  if (l.kind == SlowLinkKind::named) {
    l.name = e.require_string("name");
    if (l.name.empty())
      e.error("name",
              "a link name, as the flow engine's contention report prints it (e.g. \"leaf3-spine12\")");
    if (e.has("node") || e.has("index") || e.has("leaf"))
      e.error("name", "a \"link\" is named by \"name\" only");
  } else if (l.kind == SlowLinkKind::leaf_uplink) {
    l.leaf = e.require_integer("leaf");
    if (e.has("node") || e.has("index")) e.error("leaf", "a leaf_uplink is named by \"leaf\" only");
  } else {
    l.node = e.require_integer("node");
    l.index = static_cast<int>(e.get_integer("index").value_or(kAll));
    if (e.has("leaf"))
      e.error("leaf", "\"leaf\" names a leaf_uplink; an nvlink or nic is named by \"node\" and \"index\"");
  }
  out.links.push_back(l);
}

void read_stragglers(ObjectReader& r, Scenario& s) {
  for_each_entry(r, "devices", [&](ObjectReader& e) { read_device(e, s.stragglers); });
  for_each_entry(r, "links", [&](ObjectReader& e) { read_link(e, s.stragglers); });
  r.accept("description");
}

void expand_devices(Scenario& s, ReadContext& ctx) {
  const int per_node = s.cluster.node.devices_per_node, nodes = s.cluster.nodes;
  std::vector<DeviceSlowdown> out;
  auto add = [&](int device, double speed, const std::string& at) {
    for (const DeviceSlowdown& d : out) {
      if (d.device == device) {
        ctx.error(at, fmt::format("device {} is already listed at {}", device, d.at));
        return;
      }
    }
    out.push_back({device, speed, device / per_node, device % per_node, at});
  };
  for (const DeviceSlowdown& d : s.stragglers.devices) {
    const std::string& at = d.at;
    if (ctx.failed(at)) continue;
    if (d.node < 0) {
      if (d.device >= s.cluster.devices()) {
        ctx.error(child_pointer(at, "device"),
                  fmt::format("device {} is outside the cluster ({} devices: 0..{})", d.device,
                              s.cluster.devices(), s.cluster.devices() - 1));
      } else {
        add(d.device, d.speed, at);
      }
      continue;
    }
    const int node = d.node;
    if (node >= nodes) {
      ctx.error(child_pointer(at, "node"),
                fmt::format("node {} is outside the cluster ({} nodes)", node, nodes));
      continue;
    }
    if (d.local == kAll) {
      for (int l = 0; l < per_node; ++l) add(node * per_node + l, d.speed, at);
    } else {
      const int local = d.local;
      if (local >= per_node) {
        ctx.error(child_pointer(at, "local"),
                  fmt::format("local index {} is outside the node ({} devices per node)", local, per_node));
      } else {
        add(node * per_node + local, d.speed, at);
      }
    }
  }
  s.stragglers.devices = std::move(out);
}

bool same_link(const LinkSlowdown& a, const LinkSlowdown& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == SlowLinkKind::named) return a.name == b.name;
  return a.kind == SlowLinkKind::leaf_uplink ? a.leaf == b.leaf : a.node == b.node && a.index == b.index;
}

void expand_links(Scenario& s, ReadContext& ctx) {
  const ClusterSpec& c = s.cluster;
  // Rounded up without forming nodes + leaf_nodes - 1 (an int overflow for a cluster of 2^31 - 1 nodes).
  const int leaves = c.nodes / s.flow.leaf_nodes + (c.nodes % s.flow.leaf_nodes != 0 ? 1 : 0);
  std::vector<LinkSlowdown> out;
  auto add = [&](LinkSlowdown l) {
    for (const LinkSlowdown& o : out) {
      if (same_link(o, l)) {
        ctx.error(l.at, fmt::format("this link is already listed at {}", o.at));
        return;
      }
    }
    out.push_back(std::move(l));
  };
  for (LinkSlowdown l : s.stragglers.links) {
    if (ctx.failed(l.at)) continue;
    if (l.kind == SlowLinkKind::named) {  // the flow engine checks the name against its fabric
      add(l);
      continue;
    }
    if (l.kind == SlowLinkKind::leaf_uplink) {
      if (l.leaf >= leaves) {
        ctx.error(
            child_pointer(l.at, "leaf"),
            fmt::format("leaf {} is outside the fabric ({} nodes in leaf groups of {}: {} leaf group{})",
                        l.leaf, c.nodes, s.flow.leaf_nodes, leaves, leaves == 1 ? "" : "s"));
      } else {
        add(l);
      }
      continue;
    }
    if (l.node >= c.nodes) {
      ctx.error(child_pointer(l.at, "node"),
                fmt::format("node {} is outside the cluster ({} nodes)", l.node, c.nodes));
      continue;
    }
    const bool nic = l.kind == SlowLinkKind::nic;
    const int count = nic ? c.node.nics : c.node.devices_per_node;
    if (l.index >= count) {
      ctx.error(child_pointer(l.at, "index"),
                fmt::format("{} index {} is outside the node ({} {})", nic ? "NIC" : "NVLink port", l.index,
                            count, nic ? "NICs" : "devices per node"));
      continue;
    }
    if (l.index != kAll) {
      add(l);
      continue;
    }
    for (int k = 0; k < count; ++k) {
      l.index = k;
      add(l);
    }
  }
  s.stragglers.links = std::move(out);
}

void finish_stragglers(Scenario& s, ReadContext& ctx) {
  if (ctx.failed("/cluster")) {
    s.stragglers = {};
    return;
  }
  expand_devices(s, ctx);
  expand_links(s, ctx);
}

void read_flow(ObjectReader& r, Scenario& s) {
  s.flow.leaf_nodes = r.integer("leaf_nodes");
  s.flow.symmetry_reduction = r.boolean("symmetry_reduction");
  s.flow.flow_classes = r.boolean("flow_classes");
  r.accept("description");
}

// The flow engine's two-level fabric joins nodes through their NICs; an explicit topology with a
// scale-out network, or a torus (derived from the node count), brings its own links (the flow engine then
// runs in topology mode: FabricLayout::of).
void finish_flow(Scenario& s, ReadContext& ctx) {
  if (s.engine != "flow" || ctx.failed("/cluster")) return;
  const ClusterSpec& c = s.cluster;
  if (c.nodes > 1 && c.node.nics <= 0 && !c.flow_topology_mode()) {
    ctx.error("/cluster/node/nics", "the flow engine needs scale-out NICs to connect several nodes");
  }
}

}  // namespace

const Section kStragglersSection{"stragglers", "/stragglers",
                                 "fixed slow devices and links for the whole step", kStragglersFields};
const Section kFlowSection{"flow", "/flow", "knobs of the flow engine", kFlowFields};
const Field kStragglersKey{.key = "stragglers",
                           .kind = FieldKind::object,
                           .doc = "fixed slow devices and links",
                           .section = &kStragglersSection};
const Field kFlowKey{
    .key = "flow", .kind = FieldKind::object, .doc = "flow engine knobs", .section = &kFlowSection};

SectionSpec stragglers_section() {
  return {"stragglers", false, read_stragglers, finish_stragglers, {}, &kStragglersKey};
}

SectionSpec flow_section() {
  return {"flow", false, read_flow, finish_flow, {}, &kFlowKey};
}

}  // namespace clustersim::config
