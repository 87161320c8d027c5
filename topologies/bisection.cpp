#include "topologies/bisection.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

namespace clustersim {

namespace {

using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, std::int64_t,
                    boost::property<boost::edge_residual_capacity_t, std::int64_t,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;

// Adds arcs u -> v (capacity cu) and v -> u (capacity cv), each the other's reverse.
void add_arc_pair(FlowGraph& f, std::size_t u, std::size_t v, std::int64_t cu, std::int64_t cv) {
  auto cap = boost::get(boost::edge_capacity, f);
  auto rev = boost::get(boost::edge_reverse, f);
  const auto e1 = boost::add_edge(u, v, f).first;
  const auto e2 = boost::add_edge(v, u, f).first;
  cap[e1] = cu;
  cap[e2] = cv;
  rev[e1] = e2;
  rev[e2] = e1;
}

}  // namespace

BytesPerSecond bisection_bandwidth(const TopologyGraph& g) {
  const int n = g.device_count();
  if (n < 2) return BytesPerSecond(0);
  const std::size_t nv = g.vertex_count();
  const std::size_t source = nv, sink = nv + 1;
  // Capacities are integers of `quantum` bytes/s. The source feeds each device at most the sum of its
  // links' bandwidths (all a device can pass on, so the cut is unchanged, instead of an "infinite" arc:
  // n/2 such arcs summed overflowed int64 on 8,960-chip pods). Every capacity in the network then sums to
  // at most 4 x the links' total; the quantum (1 B/s unless that total approaches 2^60) keeps that sum,
  // and so every excess push-relabel forms, inside int64.
  double total = 0;
  std::vector<double> incident(static_cast<std::size_t>(n), 0.0);
  for (const Link& l : g.links()) {
    total += l.bandwidth.value();
    if (l.a < n) incident[static_cast<std::size_t>(l.a)] += l.bandwidth.value();
    if (l.b < n) incident[static_cast<std::size_t>(l.b)] += l.bandwidth.value();
  }
  if (!(total > 0) || !std::isfinite(total)) return BytesPerSecond(0);
  double quantum = 1;
  while (4 * total / quantum > 0x1p60) quantum *= 2;
  const auto units = [quantum](double bw) { return static_cast<std::int64_t>(std::llround(bw / quantum)); };
  FlowGraph f(nv + 2);
  for (const Link& l : g.links()) {
    const std::int64_t c = units(l.bandwidth.value());
    add_arc_pair(f, static_cast<std::size_t>(l.a), static_cast<std::size_t>(l.b), c, c);
  }
  for (int d = 0; d < n; ++d) {
    const std::int64_t c = units(incident[static_cast<std::size_t>(d)]) + 1;
    if (d < n / 2) {
      add_arc_pair(f, source, static_cast<std::size_t>(d), c, 0);
    } else {
      add_arc_pair(f, static_cast<std::size_t>(d), sink, c, 0);
    }
  }
  const std::int64_t flow = boost::push_relabel_max_flow(f, source, sink);
  return BytesPerSecond(static_cast<double>(flow) * quantum);
}

}  // namespace clustersim
