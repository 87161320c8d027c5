// Hand-built scenarios for engine tests, independent of the JSON layer.
#pragma once

#include <filesystem>

#include "sim/config/catalog_entries.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim::testing {

inline config::Catalog& catalog() {
  static config::Catalog c(config::CatalogPaths{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}});
  return c;
}

/// The catalog's A100 calibration (configs/devices/a100-sxm4-80gb.json).
inline DeviceEfficiency a100_calibration() { return config::load_device(catalog(), "a100-sxm4-80gb").efficiency; }

/// `nodes` DGX A100 80GB nodes from the catalog (configs/nodes/dgx-a100-80gb.json).
inline ClusterSpec dgx_a100_cluster(int nodes) {
  ClusterSpec c;
  c.name = "test-dgx-a100";
  c.node = config::load_node(catalog(), "dgx-a100-80gb");
  c.nodes = nodes;
  return c;
}

inline TransformerSpec gpt(int layers, int hidden, int heads, int seq = 2048, int vocab = 51200) {
  TransformerSpec m;
  m.name = "gpt";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn_hidden = 4 * hidden;
  m.vocab = vocab;
  m.seq_len = seq;
  return m;
}

// Four layers of Llama 3 8B's shape (GQA 32/8, SwiGLU 14336, RMSNorm, rotary, no biases, vocab 128,256).
inline TransformerSpec llama3_8b_block() {
  TransformerSpec m = gpt(4, 4096, 32, 8192, 128256);
  m.kv_heads = 8;
  m.ffn_hidden = 14336;
  m.mlp = MlpKind::swiglu;
  m.norm = NormKind::rmsnorm;
  m.position = PositionKind::rotary;
  m.linear_bias = false;
  return m;
}

inline Scenario scenario(ClusterSpec c, TransformerSpec m, int tp, int pp, int mb, int gb) {
  Scenario s;
  s.name = "test";
  s.cluster = std::move(c);
  s.model = std::move(m);
  s.parallelism.tp = tp;
  s.parallelism.pp = pp;
  s.parallelism.dp = s.cluster.devices() / (tp * pp);
  s.training.micro_batch = mb;
  s.training.global_batch = gb;
  s.training.seq_len = s.model.seq_len;
  s.training.precision = Precision::fp16;
  return s;
}

// Mixtral 8x7B on 64 H100 (8 DGX H100): TP1 PP4 EP8 DP16, ZeRO-1, 4K tokens.
inline Scenario mixtral_64_h100(int global_batch) {
  Scenario s;
  s.name = "mixtral";
  s.cluster.name = "8-dgx-h100";
  s.cluster.node = config::load_node(catalog(), "dgx-h100");
  s.cluster.nodes = 8;
  s.model = config::load_model(catalog(), "mixtral-8x7b");
  s.parallelism.pp = 4;
  s.parallelism.dp = 16;
  s.parallelism.ep = 8;
  s.parallelism.zero_stage = 1;
  s.training.global_batch = global_batch;
  s.training.seq_len = 4096;
  return s;
}

}  // namespace clustersim::testing
