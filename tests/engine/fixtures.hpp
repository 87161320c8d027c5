// Hand-built scenarios for engine tests, independent of the JSON layer.
#pragma once

#include "sim/config/scenario.hpp"

namespace clustersim::testing {

inline DeviceSpec a100_80gb() {
  DeviceSpec d;
  d.name = "a100-sxm4-80gb";
  d.peak[Precision::fp16] = FlopsPerSecond(312e12);
  d.peak[Precision::bf16] = FlopsPerSecond(312e12);
  d.peak[Precision::fp32] = FlopsPerSecond(19.5e12);
  d.memory_capacity = Bytes(80.0 * 1073741824.0);
  d.memory_bandwidth = BytesPerSecond(2039e9);
  d.tdp = Watts(400);
  return d;
}

inline ClusterSpec dgx_a100_cluster(int nodes) {
  ClusterSpec c;
  c.name = "test-dgx-a100";
  c.node.device = a100_80gb();
  c.node.devices_per_node = 8;
  c.node.intra = LinkSpec{BytesPerSecond(300e9), Seconds(3e-6), 0.78};
  c.node.nics = 8;
  c.node.nic = LinkSpec{BytesPerSecond(25e9), Seconds(5e-6), 0.9};
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

}  // namespace clustersim::testing
