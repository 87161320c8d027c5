// Helpers for energy tests that go through the config layer: small in-memory experiments on catalog
// nodes (so the energy catalogs in configs/energy/ are found) and diagnostic matching.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/experiment_loader.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim::test {

inline config::CatalogPaths bundled_catalog() {
  return {{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}};
}

/// One DGX A100 node, GPT-2 1.2B, data parallel over 8 GPUs: compute-bound.
inline nlohmann::json a100_experiment() {
  return nlohmann::json::parse(R"({
    "schema_version": 1, "name": "energy-a100",
    "cluster": "a100-1node", "model": "megatron-gpt2-1b",
    "parallelism": {"tp": 1, "pp": 1, "dp": 8},
    "training": {"micro_batch": 4, "global_batch": 64, "precision": "bf16"}
  })");
}

/// 2 DGX H100 nodes, an 8-layer model, TP2 PP2 DP4 (pipeline bubbles, all states present).
inline nlohmann::json h100_pipeline_experiment() {
  return nlohmann::json::parse(R"({
    "schema_version": 1, "name": "energy-h100-pp",
    "cluster": {"name": "two-nodes", "nodes": 2, "node": "dgx-h100"},
    "model": {"name": "tiny", "layers": 8, "hidden": 2048, "heads": 16, "vocab": 32000, "seq_len": 2048},
    "parallelism": {"tp": 2, "pp": 2, "dp": 4},
    "training": {"micro_batch": 1, "global_batch": 32}
  })");
}

inline Scenario build(const nlohmann::json& doc) {
  return config::scenario_from_json(doc, bundled_catalog(), "energy-test.json");
}

/// The diagnostics of building `doc` (empty when it is valid).
inline std::vector<Diagnostic> diagnostics_of(const nlohmann::json& doc) {
  try {
    build(doc);
  } catch (const ConfigError& e) {
    return e.diagnostics();
  }
  return {};
}

inline bool has_diagnostic(const std::vector<Diagnostic>& ds, const std::string& pointer, const std::string& text) {
  for (const Diagnostic& d : ds) {
    if (d.pointer == pointer && d.message.find(text) != std::string::npos) return true;
  }
  return false;
}

inline std::string all(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const Diagnostic& d : ds) out += d.to_string() + "\n";
  return out;
}

}  // namespace clustersim::test
