// Multi-slice TPU jobs (docs/collectives.md, "Multi-slice"): a slice is one ICI torus; slices talk only
// over the data-centre network (DCN) through their hosts' NICs (Google Cloud TPU Multislice overview:
// "TPU chips in different slices communicate by transferring data to CPUs (hosts) which in turn transmit
// the data over the data-center network"). Data parallelism across slices is MaxText's default mesh
// (MaxText/configs/base.yml at 76bd53b0f: dcn_data_parallelism -1, ici_fsdp_parallelism -1: FSDP inside a
// slice, pure data parallelism across slices), and XLA reduces the gradients hierarchically
// (AI-Hypercomputer/maxtext docs/guides/optimization/sharding.md at e591f30cb, "DP Arithmetic Intensity
// (Hierarchical)": "Reduce Scatter grads on fast network -> All Reduce across slow -> All Gather on faster
// network"): the ICI parts are the in-slice collectives of the step model, the DCN part is below.
#pragma once

#include "sim/core/units.hpp"
#include "sim/scenario/scenario.hpp"
#include "topologies/cluster_spec.hpp"

namespace clustersim {

/// Slices of the cluster (network.slices; 1 for a single torus or any non-TPU cluster).
[[nodiscard]] int slice_count(const ClusterSpec& c);

/// Data-parallel replicas inside one slice: dp / slices (dp for one slice).
[[nodiscard]] int slice_dp(const Scenario& s);

/// The job's parallelism inside one slice: dp / slices data-parallel replicas (sim/config refuses a dp
/// the slices do not divide); the scenario's own parallelism for one slice.
[[nodiscard]] ParallelismSpec slice_parallelism(const Scenario& s);

/// The all-reduce across slices of `shard` bytes held by every chip: each chip reduces its shard with
/// the chips at the same position in the other slices (n = slices), all chips at once. Ring all-reduce
/// (Patarasuk & Yuan 2009): every chip sends and receives 2(n−1)/n · shard; the chips of a host share
/// the host's DCN bandwidth B (network.dcn: per host, per direction, as reached), and the DCN between
/// hosts is taken as non-blocking (no published oversubscription of Google's data-centre network), so
///   t = 2(n−1) · latency + 2(n−1)/n · shard · chips_per_host / B.
/// 0 for one slice or an empty shard.
[[nodiscard]] Seconds dcn_all_reduce_time(const ClusterSpec& c, Bytes shard);

}  // namespace clustersim
