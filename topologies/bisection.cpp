#include "topologies/bisection.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

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
  FlowGraph f(nv + 2);
  std::int64_t total = 0;
  for (const Link& l : g.links()) {
    const auto c = static_cast<std::int64_t>(std::llround(l.bandwidth.value()));
    total += c;
    add_arc_pair(f, static_cast<std::size_t>(l.a), static_cast<std::size_t>(l.b), c, c);
  }
  // Larger than any cut, small enough that sums cannot overflow.
  const std::int64_t unbounded = total + 1;
  for (int d = 0; d < n; ++d) {
    if (d < n / 2) {
      add_arc_pair(f, source, static_cast<std::size_t>(d), unbounded, 0);
    } else {
      add_arc_pair(f, static_cast<std::size_t>(d), sink, unbounded, 0);
    }
  }
  const std::int64_t flow = boost::push_relabel_max_flow(f, source, sink);
  return BytesPerSecond(static_cast<double>(flow));
}

}  // namespace clustersim
