// Helpers for the run-section tests that go through the config layer: a small valid experiment, a
// temporary directory to write it to, and diagnostic matching.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/experiment_loader.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim::run::testing {

inline std::filesystem::path repo_root() {
  return CLUSTERSIM_SOURCE_DIR;
}
inline config::CatalogPaths bundled_catalog() {
  return {{repo_root() / "configs"}};
}

/// A fresh directory under the system temp dir, removed on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("clustersim-run-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::filesystem::path write(const std::string& name, const nlohmann::json& j) const {
    const auto file = path_ / name;
    std::ofstream(file) << j.dump(2);
    return file;
  }

 private:
  std::filesystem::path path_;
};

/// 2 nodes × 8 devices (catalog H100 node), an 8-layer model, TP2 PP2 DP4; no run section.
inline nlohmann::json small_experiment() {
  return nlohmann::json::parse(R"({
    "schema_version": 1,
    "name": "small-run",
    "cluster": {"name": "two-nodes", "nodes": 2, "node": "h100-roce-400g"},
    "model": {"name": "tiny", "layers": 8, "hidden": 1024, "heads": 16, "vocab": 32000, "seq_len": 2048},
    "parallelism": {"tp": 2, "pp": 2, "dp": 4},
    "training": {"micro_batch": 1, "global_batch": 32}
  })");
}

/// The small experiment with `run` as its run section.
inline nlohmann::json with_run(const nlohmann::json& run) {
  nlohmann::json j = small_experiment();
  j["run"] = run;
  return j;
}

/// Builds `experiment` from a file (so diagnostics name it); the diagnostics, empty when valid.
inline std::vector<Diagnostic> diagnostics_of(const ScratchDir& dir, const nlohmann::json& experiment) {
  const auto file = dir.write("experiment.json", experiment);
  config::ExperimentLoader loader(bundled_catalog());
  try {
    loader.build(loader.load(file.string()));
  } catch (const ConfigError& e) {
    return e.diagnostics();
  }
  return {};
}

/// True when one diagnostic is about `file_suffix` at exactly `pointer` and mentions `message_part`.
inline bool has_diagnostic(const std::vector<Diagnostic>& ds, const std::string& file_suffix,
                           const std::string& pointer, const std::string& message_part = "") {
  for (const auto& d : ds) {
    if (d.file.ends_with(file_suffix) && d.pointer == pointer &&
        d.message.find(message_part) != std::string::npos) {
      return true;
    }
  }
  return false;
}

inline std::string dump(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const auto& d : ds) out += d.to_string() + "\n";
  return out.empty() ? "(no diagnostics)" : out;
}

}  // namespace clustersim::run::testing
