#include "topologies/hop_stats.hpp"

#include <algorithm>
#include <vector>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include "sim/core/diagnostics.hpp"

namespace clustersim {

HopStats hop_statistics(const TopologyGraph& g, int max_sources) {
  CS_ASSERT(max_sources >= 1, "at least one BFS source");
  HopStats h;
  const int n = g.device_count();
  if (n < 2) {
    h.exact = true;
    h.sources = n;
    return h;
  }
  const int m = std::min(n, max_sources);
  h.exact = m == n;
  h.sources = m;
  std::vector<int> dist(g.vertex_count());
  double sum_of_means = 0.0;
  for (int i = 0; i < m; ++i) {
    const int src = h.exact ? i : static_cast<int>((static_cast<long long>(i) * n / m + i) % n);
    std::fill(dist.begin(), dist.end(), -1);
    dist[static_cast<std::size_t>(src)] = 0;
    boost::breadth_first_search(
        g.graph(), static_cast<std::size_t>(src),
        boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge()))));
    long long total = 0;
    for (int d = 0; d < n; ++d) {
      const int x = dist[static_cast<std::size_t>(d)];
      CS_ASSERT(x >= 0, "built topologies are connected");
      total += x;
      h.diameter = std::max(h.diameter, x);
    }
    sum_of_means += static_cast<double>(total) / (n - 1);
  }
  h.average = sum_of_means / m;
  return h;
}

}  // namespace clustersim
