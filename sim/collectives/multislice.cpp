#include "sim/collectives/multislice.hpp"

#include <algorithm>

namespace clustersim {

int slice_count(const ClusterSpec& c) {
  return std::max(1, c.network.slices);
}

int slice_dp(const Scenario& s) {
  const int dp = s.parallelism.dp;
  const int n = slice_count(s.cluster);
  return n > 1 && dp % n == 0 ? dp / n : dp;
}

ParallelismSpec slice_parallelism(const Scenario& s) {
  ParallelismSpec p = s.parallelism;
  p.dp = slice_dp(s);
  return p;
}

Seconds dcn_all_reduce_time(const ClusterSpec& c, Bytes shard) {
  const int n = slice_count(c);
  if (n <= 1 || shard.value() <= 0.0) return Seconds(0);
  const double bw = c.network.dcn.bandwidth.value();
  if (bw <= 0.0) return Seconds(0);  // refused by sim/config (a multi-slice cluster needs DCN bandwidth)
  const double steps = 2.0 * (n - 1);
  const double per_host = steps / n * shard.value() * std::max(1, c.node.devices_per_node);
  return c.network.dcn.latency * steps + Seconds(per_host / bw);
}

}  // namespace clustersim
