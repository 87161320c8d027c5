#include "sim/collectives/topology_collectives.hpp"

#include <algorithm>
#include <type_traits>

#include "sim/collectives/cluster_fabric.hpp"

namespace clustersim {

namespace {

constexpr double kFitBytes = 1 << 20;  // S at which A and B are read off (loads are linear in S)
constexpr std::size_t kMaxCachedTopologies = 8;

constexpr std::size_t kMaxCachedSkeletons = 32;  // structures: a 1..11 oversubscription sweep has 27

// A cache key as raw bytes: every field appended as its object representation (vectors with their
// length first), so equal keys mean equal fields. Much cheaper than formatting the doubles as text,
// which the analytic engine did once per configuration.
class KeyBytes {
 public:
  template <class T>
  void add(const T& v) {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>);
    const auto* p = reinterpret_cast<const char*>(&v);
    key_.append(p, sizeof v);
  }
  void add(const LinkParams& l, bool bandwidth) {
    if (bandwidth) add(l.bandwidth.value());
    add(l.latency.value());
    add(l.duplex);
  }
  std::string take() { return std::move(key_); }

 private:
  std::string key_;
};

// Everything the graph and the link efficiencies depend on (the cache key); with `bandwidths` false,
// everything but the link bandwidths and efficiencies (the skeleton's key: fabric_skeleton.hpp).
std::string topology_key(const ClusterFabric& f, bool bandwidths = true) {
  KeyBytes k;
  const ClusterTopologySpec& t = f.topology;
  const NodeFabricSpec& n = t.node;
  k.add(bandwidths);
  k.add(t.nodes);
  k.add(t.network);
  k.add(n.kind);
  k.add(n.devices_per_node);
  k.add(n.domain_devices);
  k.add(n.nics);
  k.add(n.link, bandwidths);
  k.add(n.nic, bandwidths);
  k.add(n.nic_attach, bandwidths);
  k.add(n.mesh.size());
  for (const MeshLink& m : n.mesh) {
    k.add(m.a);
    k.add(m.b);
    k.add(m.lanes);
  }
  const FatTreeSpec& ft = t.fat_tree;
  k.add(ft.tiers);
  k.add(ft.radix);
  k.add(ft.rail_optimized);
  k.add(ft.adaptive_routing);
  k.add(ft.leaf_spine, bandwidths);
  k.add(ft.spine_core, bandwidths);
  k.add(ft.oversubscription.size());
  for (double r : ft.oversubscription) k.add(r);
  k.add(t.torus.wrap);
  k.add(t.torus.cube);
  k.add(t.torus.link, bandwidths);
  k.add(t.torus.dims.size());
  for (int d : t.torus.dims) k.add(d);
  const DragonflySpec& df = t.dragonfly;
  k.add(df.groups);
  k.add(df.routers_per_group);
  k.add(df.hosts_per_router);
  k.add(df.global_links_per_router);
  k.add(df.local, bandwidths);
  k.add(df.global, bandwidths);
  const CollectiveModelOptions& o = f.options;
  if (bandwidths) {
    for (double e : o.efficiency.by_kind) k.add(e);
    k.add(o.efficiency.nvls);
    k.add(o.efficiency.sharp);
  }
  k.add(o.sharp_network);
  k.add(o.nvls);
  k.add(o.communicator_nics);
  return k.take();
}

std::vector<int> group_ranks(const ConcurrentGroups& g, int k) {
  std::vector<int> ranks(static_cast<std::size_t>(g.size));
  for (int j = 0; j < g.size; ++j)
    ranks[static_cast<std::size_t>(j)] = g.first + k * g.group_stride + j * g.stride;
  return ranks;
}

}  // namespace

std::shared_ptr<const TopologyCollectives> TopologyCollectives::of(const ClusterSpec& c) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const TopologyCollectives>> cache;
  // Per structure: null after the first fabric of it (a single run never pays for a skeleton), the
  // skeleton from the second on; `rescalable` false when make() found none.
  struct SkeletonEntry {
    std::shared_ptr<FabricSkeleton> skeleton;
    bool rescalable = true;
  };
  static std::map<std::string, SkeletonEntry> skeletons;
  ClusterFabric f = cluster_fabric(c);
  const std::string key = topology_key(f);
  const std::string structure = topology_key(f, false);
  bool make_skeleton = false;
  std::shared_ptr<FabricSkeleton> skeleton;
  {
    const std::lock_guard lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    if (auto it = skeletons.find(structure); it == skeletons.end()) {
      if (skeletons.size() >= kMaxCachedSkeletons) skeletons.clear();
      skeletons.emplace(structure, SkeletonEntry{});
    } else if (it->second.rescalable) {
      skeleton = it->second.skeleton;
      make_skeleton = skeleton == nullptr;
    }
  }
  if (make_skeleton) {  // built outside the lock; two threads may both build one, the first kept
    skeleton = FabricSkeleton::make(f);
    const std::lock_guard lock(mutex);
    SkeletonEntry& e = skeletons[structure];
    if (e.skeleton) {
      skeleton = e.skeleton;
    } else {
      e.skeleton = skeleton;
      e.rescalable = skeleton != nullptr;
    }
  }
  std::shared_ptr<const TopologyCollectives> model;
  if (skeleton && f.topology.validate().empty()) {
    model = std::make_shared<const TopologyCollectives>(std::move(f), std::move(skeleton));
  } else {
    model = std::make_shared<const TopologyCollectives>(c);  // throws SpecError for an invalid fabric
  }
  const std::lock_guard lock(mutex);
  if (cache.size() >= kMaxCachedTopologies) cache.clear();
  return cache.emplace(key, std::move(model)).first->second;
}

TopologyCollectives::TopologyCollectives(const ClusterSpec& c) : fabric_(cluster_fabric(c)) {
  model_ = std::make_unique<const CollectiveModel>(fabric_.topology, fabric_.options);
}

TopologyCollectives::TopologyCollectives(ClusterFabric fabric, std::shared_ptr<FabricSkeleton> skeleton)
    : fabric_(std::move(fabric)), skeleton_(std::move(skeleton)) {
  field_bandwidth_ = FabricSkeleton::field_bandwidths(fabric_.topology);
}

const CollectiveModel& TopologyCollectives::model() const {
  std::call_once(model_once_, [this] {
    if (!model_) model_ = std::make_unique<const CollectiveModel>(fabric_.topology, fabric_.options);
  });
  return *model_;
}

std::vector<Phase> TopologyCollectives::merged_phases(const CollectiveModel& model, CollectiveOp op,
                                                      double bytes,
                                                      const std::vector<std::vector<int>>& groups,
                                                      CollectiveAlgorithm a, RingOrder order) {
  std::vector<Phase> merged;
  for (std::size_t k = 0; k < groups.size(); ++k) {
    CollectiveRequest r;
    r.op = op;
    r.bytes = Bytes(bytes);
    r.ranks = groups[k];
    r.ring_order = order;
    if (k == 0 && !model.applicable(r, a)) return {};
    std::vector<Phase> phases = model.phases(r, a);
    if (k == 0) {
      merged = std::move(phases);
      continue;
    }
    // All groups run the same schedule at once.
    CS_ASSERT(phases.size() == merged.size(), "identical groups expand into the same number of phases");
    for (std::size_t i = 0; i < phases.size(); ++i) {
      Phase& m = merged[i];
      m.latency_steps = std::max(m.latency_steps, phases[i].latency_steps);
      m.transfers.insert(m.transfers.end(), phases[i].transfers.begin(), phases[i].transfers.end());
      m.in_network.insert(m.in_network.end(), phases[i].in_network.begin(), phases[i].in_network.end());
    }
  }
  return merged;
}

std::vector<TopologyCollectives::Affine> TopologyCollectives::fit(CollectiveOp op, const ConcurrentGroups& g,
                                                                  CollectiveChoice choice) const {
  if (skeleton_) return fit_on_skeleton(op, g, choice);
  const CollectiveModel& m = model();
  std::vector<std::vector<int>> groups;
  for (int k = 0; k < g.count; ++k) groups.push_back(group_ranks(g, k));
  const std::vector<CollectiveAlgorithm> candidates =
      choice.algorithm == CollectiveAlgorithm::automatic ? CollectiveModel::auto_candidates(op)
                                                         : std::vector<CollectiveAlgorithm>{choice.algorithm};
  std::vector<Affine> out;
  for (CollectiveAlgorithm a : candidates) {
    const std::vector<Phase> merged = merged_phases(m, op, kFitBytes, groups, a, choice.ring_order);
    if (merged.empty()) continue;
    Affine f{a, Seconds(0), 0.0};
    for (const Phase& p : merged) {
      const PhaseCost c = cost_phase(m.graph(), p, m.options().efficiency);
      f.fixed += c.latency;
      f.per_byte += c.bandwidth.value() / kFitBytes;
    }
    out.push_back(f);
  }
  CS_ASSERT(!out.empty(),
            "automatic always finds an algorithm for >= 2 ranks, and a chosen one can run its op");
  return out;
}

std::vector<TopologyCollectives::Affine> TopologyCollectives::fit_on_skeleton(CollectiveOp op,
                                                                              const ConcurrentGroups& g,
                                                                              CollectiveChoice choice) const {
  const FabricSkeleton::LoadsKey key{static_cast<int>(op),
                                     g.size,
                                     g.stride,
                                     g.first,
                                     g.count,
                                     g.group_stride,
                                     static_cast<int>(choice.algorithm),
                                     static_cast<int>(choice.ring_order)};
  const CollectiveModel& unit = skeleton_->model();
  const TopologyGraph& graph = unit.graph();
  const auto loads = skeleton_->loads(key, [&] {
    std::vector<std::vector<int>> groups;
    for (int k = 0; k < g.count; ++k) groups.push_back(group_ranks(g, k));
    const std::vector<CollectiveAlgorithm> candidates =
        choice.algorithm == CollectiveAlgorithm::automatic
            ? CollectiveModel::auto_candidates(op)
            : std::vector<CollectiveAlgorithm>{choice.algorithm};
    std::vector<AlgorithmLoads> out;
    for (CollectiveAlgorithm a : candidates) {
      const std::vector<Phase> merged = merged_phases(unit, op, kFitBytes, groups, a, choice.ring_order);
      if (merged.empty()) continue;
      AlgorithmLoads al{a, {}};
      for (const Phase& p : merged) {
        PhaseLinkLoads pl;
        pl.engine = p.engine;
        pl.latency = cost_phase(graph, p, unit.options().efficiency).latency;  // bandwidth-free
        const std::vector<double> load = link_loads(graph, p);
        // The largest load per class of links with one bandwidth and one kind (fabric_skeleton.hpp).
        std::map<std::tuple<int, double, int>, std::size_t> class_of;  // (field, factor, kind) -> entry
        for (std::size_t i = 0; i < graph.link_count(); ++i) {
          // Both directions combined as cost_phase combines them.
          const Link& link = graph.link(static_cast<LinkId>(i));
          const double bytes = link.duplex == Duplex::half ? load[2 * i] + load[2 * i + 1]
                                                           : std::max(load[2 * i], load[2 * i + 1]);
          if (!(bytes > 0.0)) continue;
          const auto [it, added] = class_of.try_emplace(
              {skeleton_->link_field(i), skeleton_->link_factor(i), static_cast<int>(link.kind)}, pl.loads.size());
          if (added) {
            pl.loads.emplace_back(static_cast<LinkId>(i), bytes);
          } else {
            double& most = pl.loads[it->second].second;
            most = std::max(most, bytes);
          }
        }
        al.phases.push_back(std::move(pl));
      }
      out.push_back(std::move(al));
    }
    return out;
  });
  const LinkEfficiency& eff = fabric_.options.efficiency;
  std::vector<Affine> out;
  for (const AlgorithmLoads& al : *loads) {
    Affine f{al.algorithm, Seconds(0), 0.0};
    for (const PhaseLinkLoads& pl : al.phases) {
      double worst = 0.0;  // as cost_phase: the largest load / (bandwidth · efficiency)
      for (const auto& [link, bytes] : pl.loads) {
        const double e = pl.engine == PhaseEngine::nvls    ? eff.nvls
                         : pl.engine == PhaseEngine::sharp ? eff.sharp
                                                           : eff.of(graph.link(link).kind);
        CS_ASSERT(e > 0.0 && e <= 1.0, "link efficiency must be in (0, 1]");
        const double t = bytes / (skeleton_->link_bandwidth(static_cast<std::size_t>(link), field_bandwidth_) * e);
        if (t > worst) worst = t;
      }
      f.fixed += pl.latency;
      f.per_byte += worst / kFitBytes;
    }
    out.push_back(f);
  }
  CS_ASSERT(!out.empty(),
            "automatic always finds an algorithm for >= 2 ranks, and a chosen one can run its op");
  return out;
}

TopologyCollectives::Schedule TopologyCollectives::schedule(
    CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups) const {
  Schedule best;
  if (groups.empty() || groups.front().size() < 2 || bytes.value() <= 0.0) return best;
  bool first = true;
  Seconds best_time(0);
  const CollectiveModel& m = model();
  for (CollectiveAlgorithm a : CollectiveModel::auto_candidates(op)) {
    std::vector<Phase> merged = merged_phases(m, op, bytes.value(), groups, a);
    if (merged.empty()) continue;
    Seconds t(0);
    for (const Phase& p : merged) t += cost_phase(m.graph(), p, m.options().efficiency).time;
    if (first || t < best_time) {
      best = {a, std::move(merged)};
      best_time = t;
      first = false;
    }
  }
  CS_ASSERT(!first, "automatic always finds an algorithm for >= 2 ranks");
  return best;
}

Seconds TopologyCollectives::time(CollectiveOp op, Bytes bytes, const ConcurrentGroups& g,
                                  CollectiveChoice choice) const {
  if (g.size < 2 || bytes.value() <= 0.0) return Seconds(0);
  CS_ASSERT(g.count >= 1, "at least one group");
  const auto key = std::make_tuple(static_cast<int>(op), g, choice);
  // Entries are never erased or changed once inserted and std::map nodes do not move, so the fits can be
  // read outside the lock (no copy per collective).
  const std::vector<Affine>* fits = nullptr;
  {
    const std::lock_guard lock(mutex_);
    if (auto it = cache_.find(key); it != cache_.end()) fits = &it->second;
  }
  if (fits == nullptr) {
    std::vector<Affine> made = fit(op, g, choice);
    const std::lock_guard lock(mutex_);
    fits = &cache_.emplace(key, std::move(made)).first->second;
  }
  Seconds best(0);
  bool first = true;
  for (const Affine& f : *fits) {
    const Seconds t = f.fixed + Seconds(f.per_byte * bytes.value());
    if (first || t < best) best = t;
    first = false;
  }
  return best;
}

}  // namespace clustersim
