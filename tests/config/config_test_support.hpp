// Helpers for the configuration tests: catalog roots, temporary experiment files, diagnostic matching.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/experiment_loader.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim::config::testing {

inline std::filesystem::path repo_root() {
  return CLUSTERSIM_SOURCE_DIR;
}
inline CatalogPaths bundled_catalog() {
  return {{repo_root() / "configs"}};
}

/// A fresh directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("clustersim-config-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

  std::filesystem::path write(const std::string& relative, const std::string& text) const {
    const auto file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file;
  }
  std::filesystem::path write(const std::string& relative, const nlohmann::json& j) const {
    return write(relative, j.dump(2));
  }

 private:
  std::filesystem::path path_;
};

/// The diagnostics of building `file` with `overrides` (empty when it is valid).
inline std::vector<Diagnostic> diagnostics_of(const std::filesystem::path& file,
                                              const std::vector<Override>& overrides = {}) {
  ExperimentLoader loader(bundled_catalog());
  try {
    loader.build(loader.load(file.string()), overrides);
  } catch (const ConfigError& e) {
    return e.diagnostics();
  }
  return {};
}

/// True when one diagnostic's file ends with `file_suffix`, its pointer equals `pointer` and its message
/// contains `message_part`.
inline bool has_diagnostic(const std::vector<Diagnostic>& ds, const std::string& file_suffix,
                           const std::string& pointer, const std::string& message_part) {
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

/// A small valid experiment: 2 nodes x 8 devices (inline device), a 8-layer model, TP2 PP2 DP4.
inline nlohmann::json small_experiment() {
  return nlohmann::json::parse(R"({
    "schema_version": 1,
    "name": "small",
    "cluster": {
      "name": "two-nodes",
      "nodes": 2,
      "node": {
        "name": "test-node",
        "devices_per_node": 8,
        "fabric": "nvswitch",
        "intra_link": {"bandwidth": "300 GB/s", "latency": "3 us", "efficiency": 0.8},
        "nics": 8,
        "nic": {"bandwidth": "200 Gb/s", "latency": "5 us", "efficiency": 0.9},
        "device": {
          "name": "test-gpu",
          "peak": {"bf16": "312 TFLOPS", "fp32": "19.5 TFLOPS"},
          "memory": {"capacity": "80 GiB", "bandwidth": "2039 GB/s"},
          "power": {"tdp": "400 W"}
        }
      }
    },
    "model": {
      "name": "tiny", "layers": 8, "hidden": 1024, "heads": 16, "vocab": 32000, "seq_len": 2048
    },
    "parallelism": {"tp": 2, "pp": 2, "dp": 4},
    "training": {"micro_batch": 1, "global_batch": 32}
  })");
}

}  // namespace clustersim::config::testing
