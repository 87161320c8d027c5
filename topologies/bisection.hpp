// Bisection bandwidth of a TopologyGraph, computed as a maximum flow on the graph.
//
// The devices are halved in rank order: A = ranks 0 .. N/2-1, B = the rest (node-major ranks, so the
// halves are whole nodes, whole pods or whole torus half-slabs along the last dimension). A super-source
// feeds every device of A and every device of B drains into a super-sink, each arc of the device's total
// link bandwidth (all it can pass on, so as good as unbounded, and sums stay inside int64); every
// link is a pair of opposite arcs of its per-direction bandwidth. By max-flow/min-cut the flow equals the
// smallest total bandwidth of links whose removal separates A from B: the bandwidth A can send to B
// (one direction). Boost push_relabel_max_flow (Goldberg & Tarjan 1988), O(V^3) worst case; in practice
// well under a second for a 16K-GPU fat-tree (tools/bench_topology.sh).
//
// This is the bisection of the rank-order partition, which is what data- and pipeline-parallel groups
// laid out in rank order see; it equals the textbook (minimum over all balanced cuts) bisection for the
// symmetric fabrics here: k-ary fat-tree k^3/8 links (Al-Fares 2008), torus 2 N / k_last links with
// wrap-around (Dally & Towles 2004, Sec. 3.3) when the last dimension is the largest.
// Capacities are rounded to whole bytes per second (to 2^k B/s on fabrics whose links total above 2^58 B/s).
#pragma once

#include "sim/core/units.hpp"
#include "topologies/topology_graph.hpp"

namespace clustersim {

/// 0 when the graph has fewer than 2 devices.
BytesPerSecond bisection_bandwidth(const TopologyGraph& g);

}  // namespace clustersim
