// Interface of a scale-out routing strategy (fat-tree ECMP, torus dimension order, dragonfly minimal).
//
// A router works at one level: between NICs (fat-tree, dragonfly: NIC i is the i-th NIC of the cluster,
// node-major) or between devices (torus: chips are the routers). TopologyGraph adds the device <-> NIC
// hops and the intra-node part around it. Implementations precompute link-id tables at build time so
// that append_route is O(route length) and never allocates (beyond Route's inline capacity).
#pragma once

#include <cstdint>

#include "topologies/route.hpp"

namespace clustersim {

enum class RouterLevel { nics, devices };

class Router {
 public:
  virtual ~Router() = default;
  [[nodiscard]] virtual RouterLevel level() const = 0;
  /// Appends a minimal route from endpoint `src` to endpoint `dst` (src != dst). `hash` is the
  /// deterministic ECMP hash of the (source device, destination device) pair; routers use it to pick
  /// among equal-cost choices.
  virtual void append_route(std::int32_t src, std::int32_t dst, std::uint64_t hash, Route& out) const = 0;
  /// Adaptive routing / packet spraying: the number of equal-cost routes one flow from `src` to `dst` is
  /// spread over evenly (1: the flow takes the single hashed route).
  [[nodiscard]] virtual bool adaptive() const { return false; }
  [[nodiscard]] virtual int spread_paths(std::int32_t /*src*/, std::int32_t /*dst*/) const { return 1; }
  /// The hash that makes append_route take equal-cost route `k` (0 <= k < spread_paths).
  [[nodiscard]] virtual std::uint64_t path_hash(int /*k*/) const { return 0; }
};

}  // namespace clustersim
