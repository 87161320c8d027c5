// Heterogeneous clusters (docs/heterogeneous.md): device pools of different node types in one job.
//
// `hetero: data`      each pool runs whole DP replicas; the global batch's micro-batches are split over
//                     the replicas (proportional: water-filled on each pool's measured time per
//                     micro-batch, Whale's load balancing; equal: the same count per replica). Each pool is
//                     the homogeneous engine on its own nodes; the step is the slowest pool plus the
//                     gradient all-reduce between pools over the inter-pool network.
// `hetero: pipeline`  each pool runs consecutive pipeline stages (HetPipe/Metis); the layers are split
//                     proportional to each pool's measured time per layer (or as pipeline_layers states).
//                     The one step graph of the whole pipeline carries each stage's op costs from its
//                     pool's cost model and the inter-pool transfer at pool boundaries; the analytic engine
//                     evaluates it, so bubbles and the slowest stage show as they do for one node type.
#pragma once

#include <string>
#include <vector>

#include "sim/engine/step_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim {

/// Pool `pool` of a pooled scenario as a homogeneous scenario: its node, and `nodes` of them.
Scenario pool_scenario(const Scenario& s, int pool, int nodes);

/// Evaluates a scenario with cluster.pools (sim/config checked it; the analytic engine only). The
/// StepResult's figures are the whole job's; `hetero` holds the per-pool figures.
StepResult run_hetero(const Scenario& s);

/// Layers per virtual stage, proportional to 1 / per_layer_time of each stage's pool (largest
/// remainder, ties to the lower index, at least one layer each). stage_pool[k]: pool of virtual stage k.
std::vector<int> proportional_layers(int layers, const std::vector<int>& stage_pool,
                                     const std::vector<double>& per_layer_time);

/// Micro-batches per pool for the proportional data split: each replica starts with one, then a whole
/// level (one more micro-batch per replica of a pool) goes to the pool whose time after it is least,
/// t_p(n) = base_p + slope_p · (n − n0), until `total` micro-batches are placed (the last level may be
/// partial). replicas[p] > 0; total ≥ Σ replicas.
std::vector<long long> water_fill(long long total, const std::vector<int>& replicas, int n0,
                                  const std::vector<double>& base, const std::vector<double>& slope);

}  // namespace clustersim
