#include "sim/collectives/fabric_skeleton.hpp"

#include "topologies/build_topology.hpp"

namespace clustersim {

namespace {

constexpr double kUnit = 1.0;   // B/s of every field in the unit build
constexpr double kProbe = 2.0;  // B/s of the one field a probe build changes

template <class Spec>
auto fields_of(Spec& t) {
  return std::array{&t.node.link,           &t.node.nic,   &t.node.nic_attach, &t.fat_tree.leaf_spine,
                    &t.fat_tree.spine_core, &t.torus.link, &t.dragonfly.local, &t.dragonfly.global};
}

ClusterFabric with_fields(const ClusterFabric& f, double bps, int probe_field = -1) {
  ClusterFabric out = f;
  int k = 0;
  for (LinkParams* p : bandwidth_fields(out.topology)) {
    p->bandwidth = BytesPerSecond(k == probe_field ? kProbe : bps);
    ++k;
  }
  return out;
}

}  // namespace

std::array<LinkParams*, kBandwidthFields> bandwidth_fields(ClusterTopologySpec& t) {
  return fields_of(t);
}

FabricSkeleton::FabricSkeleton(const ClusterFabric& unit, std::vector<int> field, std::vector<double> factor)
    : model_(unit.topology, unit.options), field_(std::move(field)), factor_(std::move(factor)) {}

std::shared_ptr<FabricSkeleton> FabricSkeleton::make(const ClusterFabric& f) {
  const TopologyGraph real = build_topology(f.topology);  // throws SpecError for an invalid fabric
  const ClusterFabric unit = with_fields(f, kUnit);
  const TopologyGraph unit_graph = build_topology(unit.topology);
  const std::size_t links = unit_graph.link_count();
  if (real.link_count() != links) return nullptr;
  std::vector<int> field(links, -1);
  std::vector<double> factor(links);
  for (std::size_t l = 0; l < links; ++l)
    factor[l] = unit_graph.link(static_cast<LinkId>(l)).bandwidth.value();
  for (int k = 0; k < kBandwidthFields; ++k) {
    const TopologyGraph probe = build_topology(with_fields(f, kUnit, k).topology);
    if (probe.link_count() != links) return nullptr;
    for (std::size_t l = 0; l < links; ++l) {
      const double bw = probe.link(static_cast<LinkId>(l)).bandwidth.value();
      if (bw == factor[l]) continue;
      if (bw != kProbe * factor[l] || field[l] != -1) return nullptr;  // not one field times a factor
      field[l] = k;
    }
  }
  std::shared_ptr<FabricSkeleton> s(new FabricSkeleton(unit, std::move(field), std::move(factor)));
  const std::vector<double> rebuilt = s->bandwidths(f.topology);
  for (std::size_t l = 0; l < links; ++l) {
    if (rebuilt[l] != real.link(static_cast<LinkId>(l)).bandwidth.value()) return nullptr;
  }
  return s;
}

FabricSkeleton::FieldBandwidths FabricSkeleton::field_bandwidths(const ClusterTopologySpec& t) {
  const auto fields = fields_of(t);
  FieldBandwidths out{};
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = fields[k]->bandwidth;
  return out;
}

std::vector<double> FabricSkeleton::bandwidths(const ClusterTopologySpec& t) const {
  const FieldBandwidths fields = field_bandwidths(t);
  std::vector<double> out;
  out.reserve(field_.size());
  for (std::size_t l = 0; l < field_.size(); ++l) out.push_back(link_bandwidth(l, fields));
  return out;
}

}  // namespace clustersim
