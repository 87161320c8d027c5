// Scenarios for flow-engine tests: DGX A100 nodes from the catalog, small GPT models (few layers keep the
// unit tests fast; the full-size runs are in tools/bench_flow.sh).
#pragma once

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "sim/config/catalog_entries.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/engine/flow/flow_engine.hpp"

namespace clustersim::flowtest {

inline config::Catalog& catalog() {
  static config::Catalog c(config::CatalogPaths{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}});
  return c;
}

inline ClusterSpec dgx_a100(int nodes, double oversubscription = 1.0) {
  ClusterSpec c;
  c.name = "flow-test-dgx-a100";
  c.node = config::load_node(catalog(), "dgx-a100-80gb");
  c.nodes = nodes;
  c.network.oversubscription = oversubscription;
  return c;
}

// A 4-layer, 2048-wide model with the flow engine on `cluster` (a catalog name or an object), read as an
// experiment file is (the reader's defaults and checks); the keys of `extra` are added at the top level.
inline Scenario tiny_flow_experiment(const std::string& name, const nlohmann::json& cluster,
                                     const nlohmann::json& parallelism, const nlohmann::json& training,
                                     const nlohmann::json& extra = nlohmann::json::object()) {
  nlohmann::json doc = {{"schema_version", 1},
                        {"name", name},
                        {"cluster", cluster},
                        {"model",
                         {{"name", "tiny"},
                          {"layers", 4},
                          {"hidden", 2048},
                          {"heads", 16},
                          {"vocab", 32000},
                          {"seq_len", 2048}}},
                        {"parallelism", parallelism},
                        {"training", training},
                        {"engine", "flow"}};
  doc.update(extra);
  const std::filesystem::path configs = std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs";
  return config::scenario_from_json(doc, config::CatalogPaths{{configs}}, name + ".json");
}

inline TransformerSpec gpt(int layers, int hidden, int heads, int seq = 2048) {
  TransformerSpec m;
  m.name = "gpt-test";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn_hidden = 4 * hidden;
  m.vocab = 51200;
  m.seq_len = seq;
  return m;
}

inline Scenario scenario(ClusterSpec c, TransformerSpec m, int tp, int pp, int mb, int gb) {
  Scenario s;
  s.name = "flow-test";
  s.cluster = std::move(c);
  s.model = std::move(m);
  s.parallelism.tp = tp;
  s.parallelism.pp = pp;
  s.parallelism.dp = s.cluster.devices() / (tp * pp);
  s.training.micro_batch = mb;
  s.training.global_batch = gb;
  s.training.seq_len = s.model.seq_len;
  s.training.precision = Precision::bf16;
  s.engine = "flow";
  return s;
}

/// Narayanan et al. SC'21-like: interleaved 1F1B, TP within the node, PP and DP across nodes.
inline Scenario narayanan_like(int nodes, double oversubscription = 1.0) {
  Scenario s = scenario(dgx_a100(nodes, oversubscription), gpt(8, 4096, 32), 8, 2, 1, 8 * (nodes / 2));
  s.parallelism.vp = 2;
  s.parallelism.schedule = ScheduleKind::interleaved_1f1b;
  return s;
}

/// Korthikanti et al. 2022-like: sequence parallelism and selective recomputation, 1F1B.
inline Scenario korthikanti_like(int nodes, double oversubscription = 1.0) {
  Scenario s = scenario(dgx_a100(nodes, oversubscription), gpt(4, 6144, 48), 8, 2, 1, 8 * (nodes / 2));
  s.parallelism.sequence_parallel = true;
  s.training.recompute = Recompute::selective;
  return s;
}

/// |a − b| / b.
inline double rel_diff(Seconds a, Seconds b) {
  return std::abs(a.value() - b.value()) / b.value();
}

/// The highest utilisation among the busiest links of class `cls` in a flow run's report.
inline double busiest(const flow::FlowRun& r, flow::LinkClass cls) {
  double u = 0;
  for (const flow::LinkUse& l : r.busiest) {
    if (l.cls == cls) u = std::max(u, l.utilisation);
  }
  return u;
}

}  // namespace clustersim::flowtest
