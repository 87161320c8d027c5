// Hop-count statistics between devices of a TopologyGraph: diameter and average shortest-path hops.
//
// Hops are links on a shortest path in the graph (Boost breadth_first_search), between devices only;
// a path may pass through other devices where the hardware forwards (torus chips, NVLink mesh) and
// through NICs and switches. On node fabrics, fat-trees and tori route() lengths equal these
// distances; a dragonfly pair may be closer on the graph (via two global links) than its route.
// Cost: one BFS per source device, O(sources x (V + E)). With more devices than `max_sources`, BFS runs
// from max_sources deterministic sources spread over ranks and local ranks (rank i*N/m + i), and the
// result is the diameter/average as seen from them: exact on vertex-transitive fabrics (tori with
// wrap-around) and on fat-trees whose pods are all full, an estimate (lower bound for the diameter)
// otherwise. `exact` says whether every device was a source.
#pragma once

#include "topologies/topology_graph.hpp"

namespace clustersim {

struct HopStats {
  int diameter = 0;      // max over sampled sources of the farthest device, in links
  double average = 0.0;  // mean over sampled sources of the mean distance to every other device
  int sources = 0;       // BFS sources used
  bool exact = false;    // every device was a source
};

/// Precondition: the graph is connected (every built topology is). max_sources >= 1.
HopStats hop_statistics(const TopologyGraph& g, int max_sources = 64);

}  // namespace clustersim
