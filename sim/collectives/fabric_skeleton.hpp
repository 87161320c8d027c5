// The bandwidth-free part of a fabric, shared by every fabric that differs from it only in link
// bandwidths (an oversubscription or bandwidth sweep): the TopologyGraph's vertices, links, routes and
// latencies, and, per collective the engine asks for, the bytes each phase puts on each link. A fabric
// with other bandwidths is then costed without building its graph: every link's bandwidth is one
// bandwidth field of the ClusterTopologySpec times a factor fixed by the structure (mesh lanes), and each
// phase's bottleneck is re-read from the cached loads.
//
// How the link -> field map is found: the graph is built with every bandwidth field at 1 B/s and once
// more per field at 2 B/s; a link whose bandwidth doubles with field k scales with k, with the factor its
// bandwidth at 1 B/s. The map is accepted only when it reproduces every link of a graph built from the
// real fabric exactly (make() returns nullptr otherwise and the caller builds every fabric in full), so
// the bandwidths, and so every collective time, are bit-identical to a fresh build
// (tests/collectives/fabric_skeleton_test.cpp).
#pragma once

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/collectives/cluster_fabric.hpp"
#include "sim/collectives/collective_model.hpp"

namespace clustersim {

/// The bandwidth fields of a ClusterTopologySpec, in a fixed order.
inline constexpr int kBandwidthFields = 8;
std::array<LinkParams*, kBandwidthFields> bandwidth_fields(ClusterTopologySpec& t);

/// Bytes one phase of a collective puts on its loaded links (both directions already combined as
/// cost_phase combines them), at the fit size; plus the phase's latency term. Only the largest load of
/// each class of links with the same bandwidth in every fabric of the structure (same field, same
/// factor) and the same kind (so the same efficiency) is kept, on the class's first link: a phase's
/// bottleneck is the largest load / (bandwidth · efficiency), and dividing by one positive number is
/// monotonic in IEEE arithmetic, so the class's largest load gives the class's largest time, bit for bit.
struct PhaseLinkLoads {
  PhaseEngine engine = PhaseEngine::links;
  Seconds latency{0};
  std::vector<std::pair<LinkId, double>> loads;  // one per class, bytes > 0
};

/// The loads of one algorithm's merged schedule.
struct AlgorithmLoads {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  std::vector<PhaseLinkLoads> phases;
};

class FabricSkeleton {
 public:
  /// The skeleton of `f`, or nullptr when its link bandwidths are not one field times a fixed factor
  /// each (then every fabric is built in full). Throws SpecError when `f` is invalid.
  static std::shared_ptr<FabricSkeleton> make(const ClusterFabric& f);

  /// Bandwidth per link (B/s, indexed by LinkId) of fabric `t`, which has this skeleton's structure.
  [[nodiscard]] std::vector<double> bandwidths(const ClusterTopologySpec& t) const;

  /// The bandwidth fields of fabric `t` (bandwidth_fields() order). With them, link_bandwidth(l, f) is
  /// bandwidths(t)[l], the same product in the same order, computed for the links a collective loads
  /// only (a sweep point's fabric no longer writes one value per link of the whole fabric).
  using FieldBandwidths = std::array<BytesPerSecond, kBandwidthFields>;
  [[nodiscard]] static FieldBandwidths field_bandwidths(const ClusterTopologySpec& t);
  /// Link l's bandwidth is field link_field(l)'s times link_factor(l) (the factor itself for -1).
  [[nodiscard]] int link_field(std::size_t l) const { return field_[l]; }
  [[nodiscard]] double link_factor(std::size_t l) const { return factor_[l]; }
  [[nodiscard]] double link_bandwidth(std::size_t l, const FieldBandwidths& f) const {
    const int k = field_[l];
    // The builders scale a field by the structure's factor: field · factor, in that order.
    return k < 0 ? factor_[l] : (f[static_cast<std::size_t>(k)] * factor_[l]).value();
  }

  /// The graph at unit bandwidths: vertices, links (kinds, latencies, duplex) and routes are the real ones.
  [[nodiscard]] const CollectiveModel& model() const { return model_; }

  /// (op, group size, stride, first, count, group stride, algorithm choice, ring order).
  using LoadsKey = std::tuple<int, int, int, int, int, int, int, int>;
  /// Bound on cached keys (a large DP ring's loads take megabytes; sweeps over group shapes and
  /// bandwidths at once would otherwise grow it without limit).
  static constexpr std::size_t kMaxCachedLoads = 256;

  /// The loads cached under `key`; `make_loads` runs on the first request for it.
  template <class Make>
  std::shared_ptr<const std::vector<AlgorithmLoads>> loads(const LoadsKey& key, Make&& make_loads) {
    {
      const std::lock_guard lock(mutex_);
      if (auto it = loads_.find(key); it != loads_.end()) return it->second;
    }
    auto made = std::make_shared<const std::vector<AlgorithmLoads>>(make_loads());
    const std::lock_guard lock(mutex_);
    if (loads_.size() >= kMaxCachedLoads) loads_.clear();  // holders keep their entries alive
    return loads_.emplace(key, std::move(made)).first->second;
  }

 private:
  FabricSkeleton(const ClusterFabric& unit, std::vector<int> field, std::vector<double> factor);

  CollectiveModel model_;
  std::vector<int> field_;      // per link: index into bandwidth_fields(), -1 for a fixed bandwidth
  std::vector<double> factor_;  // per link: bandwidth = factor · field bandwidth (or factor itself)
  std::mutex mutex_;
  std::map<LoadsKey, std::shared_ptr<const std::vector<AlgorithmLoads>>> loads_;
};

}  // namespace clustersim
