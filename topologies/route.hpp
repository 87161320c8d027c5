// A route through a TopologyGraph: the ordered links a message crosses, each with its direction.
#pragma once

#include <boost/container/small_vector.hpp>

#include "topologies/link.hpp"

namespace clustersim {

struct RouteStep {
  LinkId link = -1;
  bool forward = true;  // true: crossed from Link::a to Link::b; false: from b to a
  friend bool operator==(const RouteStep&, const RouteStep&) = default;
};

/// Up to 12 steps live inline (every fat-tree and dragonfly route fits), so routing does not allocate;
/// long torus routes spill to the heap once per Route object, which callers should reuse.
using Route = boost::container::small_vector<RouteStep, 12>;

}  // namespace clustersim
