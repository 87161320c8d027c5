// Weight streaming on wafer-scale systems (docs/wafer_scale.md): the step follows the closed form
// Σ_passes Σ_pieces max(compute, stream) + step boundary, memory is checked against the wafer's SRAM and
// the MemoryX capacity, and the catalog peak is the dense training-precision figure.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "tests/catch.hpp"
#include "models/transformer_cost.hpp"
#include "models/weight_streaming.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/engine/analytic_engine.hpp"

namespace clustersim {
namespace {

config::CatalogPaths catalog_paths() {
  return {{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}};
}

Scenario wafer(std::vector<config::Override> overrides = {}) {
  return config::load_scenario(catalog_paths(), "llama3-8b-cs3-4", overrides);
}

}  // namespace

TEST_CASE("streamed passes: sum of max(compute, stream) per piece") {
  const std::vector<StreamedPiece> pieces = {
      {.count = 1, .forward = Seconds(1), .backward = Seconds(2), .weights = Bytes(300), .gradients = Bytes(600)},
      {.count = 10, .forward = Seconds(0.5), .backward = Seconds(1), .weights = Bytes(100), .gradients = Bytes(200)}};
  const BytesPerSecond b(100);
  const StreamedPass f = streamed_forward(pieces, b);
  // max(1, 3) + 10·max(0.5, 1)
  CHECK(f.time.value() == Approx(3.0 + 10.0));
  CHECK(f.compute.value() == Approx(1.0 + 5.0));
  CHECK(f.streaming.value() == Approx(3.0 + 10.0));
  const StreamedPass k = streamed_backward(pieces, b);
  // max(2, 6) + 10·max(1, 2): gradients out dominate (full duplex, weights in at the same time)
  CHECK(k.time.value() == Approx(6.0 + 20.0));
  CHECK(k.exposed().value() == Approx(26.0 - 12.0));
  // fill 3 s + drain 6 s + 2·⌈log2 5⌉ hops of 1 s
  CHECK(streaming_step_boundary(pieces.front(), b, 5, Seconds(1)).value() == Approx(3.0 + 6.0 + 6.0));
  CHECK(streaming_step_boundary(pieces.front(), b, 1, Seconds(1)).value() == Approx(9.0));
}

TEST_CASE("wafer step: stream-bound prediction equals the weight-streaming closed form") {
  // At 1 GB/s every piece streams far longer than it computes, so the step is the stream time alone:
  //   m · (2 W/B + 4 W/B) + (W_emb·2 + W_emb·4)/B + 2·⌈log2 4⌉·α + 2·m·op_overhead
  // with W the parameter count (bf16 weights in, fp32 gradients out), m the micro-batches per system.
  const Scenario s = wafer({{"/cluster/node/weight_streaming/bandwidth", "1 GB/s"}});
  const StepResult r = run_analytic(s);
  REQUIRE(r.streaming);
  const ParameterCount pc = parameter_count(s.model);
  const double params = pc.total(), b = 1e9;
  const int m = s.training.global_batch / (s.training.micro_batch * s.parallelism.dp);
  REQUIRE(m == 16);
  const double alpha = s.cluster.node.nic.latency.value();
  const double overhead = s.cluster.node.device.efficiency.op_overhead.value();
  const double expected =
      m * (2.0 * params / b + 4.0 * params / b) + pc.embedding * 6.0 / b + 2.0 * 2.0 * alpha + 2.0 * m * overhead;
  CHECK(r.step_time.value() == Approx(expected).epsilon(1e-9));
  CHECK(r.streaming->stream_bound());
  CHECK(r.streaming->weights.value() == Approx(params * 2.0));
  // The time exposed beyond compute is what the report calls data-parallel communication.
  CHECK(r.comm_exposed.dp.value() == Approx(r.streaming->exposed.value()).epsilon(1e-9));
}

TEST_CASE("wafer step: compute-bound when streaming is fast, max(compute, stream) <= step <= sum") {
  const Scenario fast = wafer({{"/cluster/node/weight_streaming/bandwidth", "100 PB/s"}});
  const StepResult f = run_analytic(fast);
  REQUIRE(f.streaming);
  CHECK_FALSE(f.streaming->stream_bound());
  // Only the step boundary (and nothing per piece) is exposed.
  CHECK(f.streaming->exposed.value() == Approx(f.streaming->boundary.value()).epsilon(1e-9));
  for (const char* bw : {"50 GB/s", "135 GB/s", "400 GB/s", "2 TB/s"}) {
    const StepResult r = run_analytic(wafer({{"/cluster/node/weight_streaming/bandwidth", bw}}));
    REQUIRE(r.streaming);
    const double compute = r.streaming->compute.value(), stream = r.streaming->streaming.value();
    const double overheads = 2.0 * r.streaming->microbatches * fast.cluster.node.device.efficiency.op_overhead.value();
    INFO(bw);
    CHECK(r.step_time.value() >= std::max(compute, stream) - 1e-9);
    CHECK(r.step_time.value() <= compute + stream + overheads + 1e-9);
    CHECK(r.step_time.value() >= f.step_time.value() - 1e-9);  // never faster than infinite streaming
  }
}

TEST_CASE("wafer memory: SRAM holds activations and the pieces in flight, states are checked against MemoryX") {
  const Scenario s = wafer();
  const StepResult r = run_analytic(s);
  REQUIRE(r.streaming);
  const ParameterCount pc = parameter_count(s.model);
  const double largest = std::max({pc.embedding, pc.per_layer, pc.head});
  CHECK(r.memory.weights.value() == Approx(2.0 * largest * 2.0));  // double buffer of bf16 weights
  CHECK(r.memory.gradients.value() == Approx(largest * 4.0));      // one piece of fp32 gradients
  CHECK(r.memory.optimizer.value() == 0.0);
  CHECK(r.memory_capacity.value() == Approx(44e9));  // the WSE-3's on-wafer SRAM, not HBM
  CHECK(r.streaming->memoryx.value() >= 16.0 * pc.total());  // bf16 weights, fp32 grads, master, Adam m, v
  CHECK(r.streaming->memoryx_capacity.value() == Approx(1.5e12));
  CHECK(r.fits);

  // A MemoryX smaller than the model's states does not fit, though the SRAM does.
  const StepResult small = run_analytic(wafer({{"/cluster/node/weight_streaming/memoryx_capacity", "100 GB"}}));
  CHECK(small.memory.total() <= small.memory_capacity);
  CHECK_FALSE(small.fits);
  // More sequences per micro-batch outgrow the SRAM.
  const StepResult big = run_analytic(wafer({{"/training/micro_batch", "64"}}));
  CHECK(big.memory.total() > big.memory_capacity);
  CHECK_FALSE(big.fits);
}

TEST_CASE("wafer catalog: the peak is the dense BF16 figure, not the sparse 125 PFLOP/s") {
  const Scenario s = wafer();
  CHECK(s.cluster.node.device.peak_for(Precision::bf16).value() == Approx(15e15));
  const StepResult r = run_analytic(s);
  CHECK(r.mfu > 0.0);
  CHECK(r.mfu < 1.0);
}

TEST_CASE("wafer scenarios refuse model parallelism, ZeRO and the flow engine at their pointers") {
  const auto refused = [](std::vector<config::Override> o, const std::string& pointer) {
    try {
      (void)wafer(std::move(o));
    } catch (const ConfigError& e) {
      bool found = false;
      for (const Diagnostic& d : e.diagnostics()) found = found || d.pointer == pointer;
      return found;
    }
    return false;
  };
  CHECK(refused({{"/parallelism/tp", "2"}, {"/parallelism/dp", "2"}}, "/parallelism/tp"));
  CHECK(refused({{"/parallelism/pp", "2"}, {"/parallelism/dp", "2"}}, "/parallelism/pp"));
  CHECK(refused({{"/parallelism/zero_stage", "1"}}, "/parallelism/zero_stage"));
  CHECK(refused({{"/engine", "flow"}}, "/engine"));
}

}  // namespace clustersim
