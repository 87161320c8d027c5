// `clustersim topo CLUSTER`: builds the cluster's TopologyGraph and prints its inventory, bisection,
// hops and oversubscription; --dot FILE writes it for Graphviz.
#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "output.hpp"
#include "paths.hpp"
#include "sim/collectives/cluster_fabric.hpp"
#include "sim/config/catalog.hpp"
#include "sim/config/catalog_entries.hpp"
#include "sim/config/field_pointer.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/report/topology_report.hpp"
#include "topologies/build_topology.hpp"
#include "topologies/derived_topology.hpp"
#include "topologies/dot_writer.hpp"

namespace clustersim::cli {

Command add_topo_command(CLI::App& app, const GlobalOptions& global) {
  struct Options {
    std::string cluster;
    std::string dot;
    std::string format = "text";
    int hop_sources = 64;
  };
  auto opt = std::make_shared<Options>();
  app.add_option("cluster", opt->cluster, "cluster catalog name or file")->required();
  app.add_option("--dot", opt->dot, "write the graph in Graphviz DOT to FILE");
  app.add_option("--format", opt->format, "output format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--hop-sources", opt->hop_sources, "BFS sources for hop statistics")
      ->check(CLI::PositiveNumber);
  return [opt, &global]() {
    std::optional<OutputStream> dot;  // opened first: a bad path fails before the graph is built
    if (!opt->dot.empty()) dot.emplace(opt->dot);
    config::Catalog catalog({catalog_roots(global.config_dirs)});
    const ClusterSpec cluster = config::load_cluster(catalog, opt->cluster);
    // A derived topology is checked only here, when its graph is built; its problems name spec members.
    // A multi-slice cluster: one slice's torus (as `run` costs it), then the slices and the DCN.
    const bool multi_slice = cluster.network.slices > 1;
    ClusterTopologySpec spec;
    try {
      spec = cluster_fabric(multi_slice ? slice_cluster(cluster) : cluster).topology;
    } catch (const SpecError& e) {
      throw ConfigError(config::cluster_diagnostics(e.problems(), "", true));
    }
    const TopologyGraph g = [&] {
      try {
        return build_topology(spec);
      } catch (const SpecError& e) {
        throw ConfigError(config::cluster_diagnostics(e.problems(), "", false));
      }
    }();
    const TopologySummary s = summarize(g, opt->hop_sources);
    if (dot) {
      std::ostringstream text;
      write_dot(g, text);
      dot->write(text.str());
      dot->close();
    }
    if (opt->format == "json") {
      nlohmann::json j = topology_json(cluster.name, g, s);
      if (multi_slice) j["multi_slice"] = multi_slice_topology_json(cluster, g);
      write_stdout(j.dump(2) + "\n");
    } else {
      const std::string name =
          multi_slice ? fmt::format("{} (one of its {} slices)", cluster.name, cluster.network.slices) : cluster.name;
      write_stdout(topology_text(name, g, s) + (multi_slice ? multi_slice_topology_text(cluster, g) : ""));
    }
    return 0;
  };
}

}  // namespace clustersim::cli
