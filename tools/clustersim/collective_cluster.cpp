#include "collective_cluster.hpp"

#include "paths.hpp"
#include "sim/collectives/cluster_fabric.hpp"
#include "sim/config/catalog.hpp"
#include "sim/config/catalog_entries.hpp"
#include "sim/config/field_pointer.hpp"
#include "sim/core/diagnostics.hpp"
#include "topologies/derived_topology.hpp"

namespace clustersim::cli {

ClusterCollectives load_cluster_collectives(const GlobalOptions& global, const std::string& name,
                                            bool per_slice) {
  config::Catalog catalog({catalog_roots(global.config_dirs)});
  ClusterSpec cluster = config::load_cluster(catalog, name);
  // A derived topology is checked only here, when its graph is built; its problems name spec members.
  const ClusterFabric fabric = [&] {
    try {
      return cluster_fabric(per_slice ? slice_cluster(cluster) : cluster);
    } catch (const SpecError& e) {
      throw ConfigError(config::cluster_diagnostics(e.problems(), "", true));
    }
  }();
  try {
    return {std::move(cluster), CollectiveModel(fabric.topology, fabric.options)};
  } catch (const SpecError& e) {
    throw ConfigError(config::cluster_diagnostics(e.problems(), "", false));
  }
}

std::vector<std::string> collective_op_choices() {
  return {"all-reduce", "reduce-scatter", "all-gather", "all-to-all", "broadcast", "reduce", "send-recv"};
}

std::vector<std::string> collective_algo_choices() {
  std::vector<std::string> out;
  for (std::string_view a : collective_algorithm_names()) out.emplace_back(a);
  return out;
}

}  // namespace clustersim::cli
