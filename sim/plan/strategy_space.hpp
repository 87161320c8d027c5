// The strategies a plan searches, enumerated from an experiment and the user's bounds.
//
// Axes (each filtered by the same rules the config layer enforces, sim/config/cross_checks.cpp):
//   nodes   the experiment's, or every count of `node_counts`
//   tp      divisors of the attention heads that divide ffn_hidden and are compatible with kv_heads;
//           at most devices_per_node unless `tp_beyond_node`
//   pp      divisors of the layers; vp (interleaved chunks) divisors of layers/pp, > 1 only for
//           interleaved-1f1b, which also needs pp > 1 and micro-batches divisible by pp
//   cp      powers of two up to `max_cp` that divide the sequence length
//   dp      devices / (tp·pp·cp), which must divide the global batch together with the micro-batch
//   micro_batch  divisors of the per-replica batch (global_batch / dp)
//   recompute none | selective | full;  zero_stage 0..3 (only 0 when dp·cp = 1: nothing to shard)
//   schedule 1f1b | interleaved-1f1b | zb-h1;  sequence_parallel on/off when tp > 1
#pragma once

#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/plan/strategy.hpp"

namespace clustersim::plan {

struct SearchBounds {
  std::vector<int> node_counts;  // empty: the experiment's node count
  bool tp_beyond_node = false;   // allow tp > devices per node
  int max_cp = 8;
  // Largest interleaving depth searched: each chunk costs the memory estimate and the schedule walk, so an
  // unbounded vp (every divisor of layers/pp: a billion-layer model) made one estimate O(layers).
  int max_vp = 64;
  bool vary_sequence_parallel = true;
  std::vector<Recompute> recompute{Recompute::none, Recompute::selective, Recompute::full};
  std::vector<int> zero_stages{0, 1, 2, 3};
  std::vector<ScheduleKind> schedules{ScheduleKind::one_f_one_b, ScheduleKind::interleaved_1f1b,
                                      ScheduleKind::zero_bubble_h1};
};

/// Every valid strategy, in a fixed order (nodes, tp, pp, cp, vp/schedule, mb, recompute, zero, sp).
std::vector<Strategy> enumerate_strategies(const Scenario& base, const SearchBounds& bounds);

/// Node counts for --max-devices N: 1, 2, 4, ... nodes (powers of two) up to N / devices_per_node, and
/// that count itself. For --devices N: exactly N / devices_per_node. Throws ConfigError (file
/// "<command line>") when N is not a positive multiple of devices_per_node.
std::vector<int> node_counts_for(int devices, bool is_max, int devices_per_node, int min_devices = 1);

}  // namespace clustersim::plan
