#include "topologies/fat_tree.hpp"

#include <string>

#include "sim/core/diagnostics.hpp"

namespace clustersim {

namespace {
std::size_t at(std::int64_t i) {
  return static_cast<std::size_t>(i);
}
}  // namespace

std::unique_ptr<FatTree> FatTree::build(const FatTreeSpec& spec, const LinkParams& nic,
                                        TopologyBuilder& builder) {
  const TopologyGraph& g = builder.partial();
  const int nodes = g.node_count(), nics_per_node = g.nics_per_node();
  bool ok = false;
  std::unique_ptr<FatTree> ft(new FatTree());
  ft->tiers_ = spec.tiers;
  ft->adaptive_ = spec.adaptive_routing;
  ft->shape_ = FatTreeShape::of(spec, nodes, nics_per_node, &ok);
  CS_ASSERT(ok, "fat-tree spec was validated against the cluster size");
  const FatTreeShape& s = ft->shape_;

  std::vector<VertexId> leaf(at(s.leaves)), spine(at(s.spines)), core(at(s.cores));
  for (int l = 0; l < s.leaves; ++l) {
    const int group = spec.rail_optimized ? l % s.rails : l / s.leaves_per_pod;
    leaf[at(l)] = builder.add_switch(SwitchRole::leaf, 1, l, group);
  }
  for (int p = 0; p < s.spines; ++p)
    spine[at(p)] = builder.add_switch(SwitchRole::spine, 2, p, p / s.spines_per_pod);
  for (int c = 0; c < s.cores; ++c) core[at(c)] = builder.add_switch(SwitchRole::core, 3, c, c / s.spine_up);

  const int nics = nodes * nics_per_node;
  ft->nic_leaf_.resize(at(nics));
  ft->nic_link_.resize(at(nics));
  for (int i = 0; i < nics; ++i) {
    const int node = i / nics_per_node, local = i % nics_per_node;
    const int l = spec.rail_optimized ? (node / s.nodes_per_leaf) * s.rails + local : node / s.nodes_per_leaf;
    ft->nic_leaf_[at(i)] = l;
    ft->nic_link_[at(i)] = builder.add_link(g.nic_vertex(i), leaf[at(l)], LinkKind::nic_uplink, nic);
    if (spec.rail_optimized) builder.set_group(g.nic_vertex(i), local);
  }
  ft->leaf_up_.resize(at(static_cast<std::int64_t>(s.leaves) * s.leaf_up));
  for (int l = 0; l < s.leaves; ++l) {
    const int pod = l / s.leaves_per_pod;
    for (int i = 0; i < s.leaf_up; ++i) {
      ft->leaf_up_[at(static_cast<std::int64_t>(l) * s.leaf_up + i)] = builder.add_link(
          leaf[at(l)], spine[at(pod * s.spines_per_pod + i)], LinkKind::leaf_spine, spec.leaf_spine);
    }
  }
  if (spec.tiers == 3) {
    ft->spine_up_.resize(at(static_cast<std::int64_t>(s.spines) * s.spine_up));
    for (int p = 0; p < s.spines; ++p) {
      const int plane = p % s.spines_per_pod;
      for (int j = 0; j < s.spine_up; ++j) {
        ft->spine_up_[at(static_cast<std::int64_t>(p) * s.spine_up + j)] = builder.add_link(
            spine[at(p)], core[at(plane * s.spine_up + j)], LinkKind::spine_core, spec.spine_core);
      }
    }
  }
  return ft;
}

void FatTree::append_route(std::int32_t src_nic, std::int32_t dst_nic, std::uint64_t hash, Route& out) const {
  const FatTreeShape& s = shape_;
  const std::int32_t la = nic_leaf_[at(src_nic)], lb = nic_leaf_[at(dst_nic)];
  out.push_back({nic_link_[at(src_nic)], true});
  if (la != lb) {
    const auto i = static_cast<std::int64_t>(hash % static_cast<std::uint64_t>(s.leaf_up));
    const LinkId up = leaf_up_[at(static_cast<std::int64_t>(la) * s.leaf_up + i)];
    const LinkId down = leaf_up_[at(static_cast<std::int64_t>(lb) * s.leaf_up + i)];
    const int pa = la / s.leaves_per_pod, pb = lb / s.leaves_per_pod;
    out.push_back({up, true});
    if (tiers_ == 3 && pa != pb) {
      const auto j = static_cast<std::int64_t>((hash >> 32) % static_cast<std::uint64_t>(s.spine_up));
      const std::int64_t spine_a = static_cast<std::int64_t>(pa) * s.spines_per_pod + i;
      const std::int64_t spine_b = static_cast<std::int64_t>(pb) * s.spines_per_pod + i;
      out.push_back({spine_up_[at(spine_a * s.spine_up + j)], true});
      out.push_back({spine_up_[at(spine_b * s.spine_up + j)], false});
    }
    out.push_back({down, false});
  }
  out.push_back({nic_link_[at(dst_nic)], false});
}

int FatTree::spread_paths(std::int32_t src_nic, std::int32_t dst_nic) const {
  if (!adaptive_) return 1;
  const std::int32_t la = nic_leaf_[at(src_nic)], lb = nic_leaf_[at(dst_nic)];
  if (la == lb) return 1;
  const int pa = la / shape_.leaves_per_pod, pb = lb / shape_.leaves_per_pod;
  return shape_.leaf_up * (tiers_ == 3 && pa != pb ? shape_.spine_up : 1);
}

std::uint64_t FatTree::path_hash(int k) const {
  const auto up = static_cast<std::uint64_t>(shape_.leaf_up);
  const auto kk = static_cast<std::uint64_t>(k);
  return (kk % up) | ((kk / up) << 32);
}

}  // namespace clustersim
