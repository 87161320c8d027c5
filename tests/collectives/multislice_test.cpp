// Multi-slice TPU jobs (sim/collectives/multislice.hpp, docs/collectives.md "Multi-slice"): slices are
// separate ICI tori joined by the data-centre network; data parallelism spans the slices, ZeRO/FSDP
// shards inside a slice, and the gradient shard is all-reduced across slices over DCN.
#include "tests/catch.hpp"

#include <nlohmann/json.hpp>

#include "sim/collectives/cluster_fabric.hpp"
#include "sim/collectives/collective_sweep.hpp"
#include "sim/collectives/multislice.hpp"
#include "sim/collectives/topology_collectives.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/core/diagnostics.hpp"
#include "models/transformer_cost.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/graph/step_graph.hpp"
#include "topologies/derived_topology.hpp"

using namespace clustersim;

namespace {

config::CatalogPaths catalogs() { return {{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}}; }

// Llama 2 7B with FSDP on TPU v5e hosts (8 chips, 2 x 100 Gb/s data-centre NICs): `chips` chips in
// `slices` slices.
nlohmann::json experiment(int chips, int slices, int zero = 3) {
  nlohmann::json network = {{"topology", "torus"}};
  if (slices > 1) network["slices"] = slices;
  return {{"schema_version", 1},
          {"name", "multislice"},
          {"cluster", {{"name", "v5e-multislice"}, {"node", "tpu-v5e-host"}, {"nodes", chips / 8}, {"network", network}}},
          {"model", "llama2-7b"},
          {"parallelism", {{"tp", 1}, {"pp", 1}, {"dp", chips}, {"zero_stage", zero}}},
          {"training", {{"micro_batch", 1}, {"global_batch", chips}, {"precision", "bf16"}, {"recompute", "full"}}}};
}

Scenario scenario(const nlohmann::json& e) { return config::scenario_from_json(e, catalogs()); }

}  // namespace

TEST_CASE("DCN all-reduce across slices: ring over the slices, a host's chips share its DCN bandwidth",
          "[multislice]") {
  ClusterSpec c;
  c.nodes = 128;
  c.node.devices_per_node = 8;
  c.node.fabric = NodeFabric::torus_ici;
  c.network.topology = "torus";
  c.network.dcn.bandwidth = BytesPerSecond(22.5e9);
  c.network.dcn.latency = Seconds(5e-6);
  const Bytes shard(250e6);
  CHECK(dcn_all_reduce_time(c, shard).value() == 0.0);  // one slice: no DCN traffic
  c.network.slices = 4;
  // t = 2(n-1)·latency + 2(n-1)/n · shard · chips_per_host / B
  const double expected = 6 * 5e-6 + 1.5 * 250e6 * 8 / 22.5e9;
  CHECK(dcn_all_reduce_time(c, shard).value() == Approx(expected).epsilon(1e-12));
  c.network.slices = 16;
  CHECK(dcn_all_reduce_time(c, shard).value() == Approx(30 * 5e-6 + 30.0 / 16 * 250e6 * 8 / 22.5e9).epsilon(1e-12));
  CHECK(dcn_all_reduce_time(c, Bytes(0)).value() == 0.0);
}

TEST_CASE("a slice of a multi-slice v5e job is its own 16 x 16 torus", "[multislice]") {
  const Scenario s = scenario(experiment(1024, 4));
  REQUIRE(s.cluster.network.slices == 4);
  const ClusterSpec one = slice_cluster(s.cluster);
  CHECK(one.nodes == 32);
  CHECK(one.network.slices == 1);
  const ClusterTopologySpec t = derived_topology(one);
  CHECK(t.torus.dims == std::vector<int>{16, 16});
  CHECK(t.torus.wrap);
  // Without slices the 1024 chips are one 16 x 64 torus (the slices stacked on ICI-speed links).
  CHECK(derived_topology(s.cluster).torus.dims == std::vector<int>{16, 64});
  // DCN per host derived from the node's NICs: 2 x 100 Gb/s x 0.9.
  CHECK(s.cluster.network.dcn_derived);
  CHECK(s.cluster.network.dcn.bandwidth.value() == Approx(2 * 12.5e9 * 0.9));
  CHECK(slice_parallelism(s).dp == 256);
}

TEST_CASE("multi-slice FSDP shards within a slice and adds the DCN all-reduce of the shard",
          "[multislice]") {
  const StepResult single = run_analytic(scenario(experiment(256, 1)));
  const Scenario four = scenario(experiment(1024, 4));
  const StepResult multi = run_analytic(four);
  // ZeRO-3 over the 256 chips of a slice in both: the same per-device weights, gradients and states.
  CHECK(multi.memory.weights.value() == Approx(single.memory.weights.value()).epsilon(1e-9));
  CHECK(multi.memory.optimizer.value() == Approx(single.memory.optimizer.value()).epsilon(1e-9));
  // One torus of 1024 chips would shard 4x finer.
  nlohmann::json flat = experiment(1024, 1);
  const StepResult one_torus = run_analytic(scenario(flat));
  CHECK(one_torus.memory.weights.value() == Approx(single.memory.weights.value() / 4).epsilon(1e-6));
  // The gradient sync on the data-parallel channel is the DCN all-reduce of each chip's fp32/bf16 shard.
  REQUIRE(multi.graph != nullptr);
  REQUIRE(single.graph != nullptr);
  CHECK(single.graph->dp_comm_total.value() == 0.0);  // ZeRO-3 in one slice: the per-layer scatters only
  const double params = parameter_count(four.model).total();
  const Bytes shard(params * bytes_per_element(four.training.gradient_precision) / 256);
  CHECK(multi.graph->dp_comm_total.value() == Approx(dcn_all_reduce_time(four.cluster, shard).value()).epsilon(1e-9));
  // 4 slices of 256 v5e chips: each chip's 1/256 of 6.7e9 fp32 gradients (105 MB), 1.5 x that per chip
  // and 8 chips through a 22.5 GB/s host: 56 ms.
  CHECK(multi.graph->dp_comm_total.value() == Approx(0.056).epsilon(0.02));
  // The slower step: the sync's tail (and the slowdown of the kernels it overlaps) is not free.
  CHECK(multi.step_time.value() > single.step_time.value());
}

TEST_CASE("`collective`'s multi-slice all-reduce is the gradient sync the engine costs for the same size",
          "[multislice]") {
  // ZeRO-0, tp 1, one stage: the engine's only data-parallel sync is the whole model's gradient (S bytes
  // per chip), reduced hierarchically: reduce-scatter on a slice's torus, DCN all-reduce of S/256, and
  // all-gather (graph_builder.cpp). `clustersim collective` on the same cluster sweeps that all-reduce.
  const Scenario four = scenario(experiment(1024, 4, 0));
  const StepResult multi = run_analytic(four);
  REQUIRE(multi.graph != nullptr);
  const Bytes S(parameter_count(four.model).total() * bytes_per_element(four.training.gradient_precision));
  const ClusterFabric fabric = cluster_fabric(slice_cluster(four.cluster));
  const CollectiveModel slice(fabric.topology, fabric.options);
  CollectiveSweepSpec spec;
  spec.op = CollectiveOp::all_reduce;
  spec.ranks = 1024;
  spec.element = Bytes(1);
  spec.min = spec.max = S;
  const std::vector<CollectiveRow> rows = sweep_multislice_all_reduce(slice, four.cluster, spec);
  REQUIRE(rows.size() == 1);
  const CollectiveRow& r = rows[0];
  INFO("collective " << r.estimate.time.value() << " s (ici " << r.ici.value() << ", dcn " << r.dcn.value()
                     << "), engine " << multi.graph->dp_comm_total.value() << " s");
  CHECK(r.estimate.time.value() == Approx(multi.graph->dp_comm_total.value()).epsilon(1e-9));
  CHECK(r.dcn.value() == Approx(dcn_all_reduce_time(four.cluster, S / 256.0).value()).epsilon(1e-12));
  CHECK(r.ici.value() > 0.0);
  // nccl-tests' all-reduce busbw over all 1024 ranks.
  CHECK(r.estimate.busbw == Approx(S.value() / r.estimate.time.value() * 2.0 * 1023 / 1024).epsilon(1e-12));
  // Only an all-reduce over every chip spans the slices.
  spec.ranks = 256;
  CHECK_THROWS_AS(sweep_multislice_all_reduce(slice, four.cluster, spec), std::invalid_argument);
}

TEST_CASE("multi-slice inputs the model does not cover are refused at their pointer", "[multislice]") {
  auto refused = [](const nlohmann::json& e, const char* pointer) {
    INFO(pointer);
    CHECK_THROWS_WITH(scenario(e), Catch::Contains(pointer));
  };
  nlohmann::json e = experiment(1024, 4);
  e["parallelism"]["dp"] = 512;
  e["parallelism"]["tp"] = 2;
  e["parallelism"]["pp"] = 1;
  CHECK_NOTHROW(scenario(e));  // dp 512 over 4 slices: 128 replicas of 2 chips per slice
  e = experiment(1024, 4);
  e["parallelism"]["dp"] = 512;
  e["parallelism"]["pp"] = 2;
  refused(e, "/parallelism/pp");
  e = experiment(1024, 3);
  refused(e, "/cluster/network/slices");  // 128 hosts are not 3 equal slices
  e = experiment(1024, 4);
  e["cluster"] = "dgx-h100-32";
  e["cluster"] = {{"name", "gpu"}, {"node", "dgx-h100"}, {"nodes", 4}, {"network", {{"slices", 2}}}};
  e["parallelism"]["dp"] = 32;
  e["training"]["global_batch"] = 32;
  refused(e, "/cluster/network/slices");  // not TPU hosts
  e = experiment(1024, 4);
  e["cluster"]["network"]["dims"] = {16, 64};
  refused(e, "/cluster/network/slices");  // an explicit torus shape
  e = experiment(1024, 4);
  e["cluster"]["network"]["dcn_bandwidth"] = "-5 GB/s";
  refused(e, "/cluster/network/dcn_bandwidth");
  // A DCN bandwidth on a one-slice cluster would never be used: refused, not silently ignored.
  e = experiment(1024, 1);
  e["cluster"]["network"]["dcn_bandwidth"] = "50 GB/s";
  refused(e, "/cluster/network/dcn_bandwidth");
  e["cluster"]["network"]["slices"] = 1;
  refused(e, "/cluster/network/dcn_bandwidth");
  // A mixture-of-experts model across slices: the experts' gradient sync over DCN is not modelled.
  e = experiment(1024, 4);
  e["model"] = "mixtral-8x7b";
  refused(e, "/cluster/network/slices");
}
