// The cluster and collective model the `collective` and `calibrate-links` commands cost on, and the
// names of their --op and --algo options.
#pragma once

#include <string>
#include <vector>

#include "commands.hpp"
#include "sim/collectives/collective_model.hpp"
#include "topologies/cluster_spec.hpp"

namespace clustersim::cli {

struct ClusterCollectives {
  ClusterSpec cluster;
  CollectiveModel model;
};

/// Loads catalog cluster `name` and builds its collective model; an invalid (derived) topology is bad
/// input naming the spec members. `per_slice`: a multi-slice cluster (network.slices) gets the model of
/// one slice's torus, as `run` costs it (docs/collectives.md "Multi-slice"); else the whole cluster's.
ClusterCollectives load_cluster_collectives(const GlobalOptions& global, const std::string& name,
                                            bool per_slice = false);

/// The --op choices ("all-reduce", ...) and --algo choices ("auto", "ring", ...).
std::vector<std::string> collective_op_choices();
std::vector<std::string> collective_algo_choices();

}  // namespace clustersim::cli
