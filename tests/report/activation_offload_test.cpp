// Activation offloading (training.activation_offload_layers; models/activation_offload.hpp, docs/model.md):
// Transformer Engine's one-stream schedule, the memory the offloaded layers leave, the exposed copy time
// on a fast and a slow host link, and byte-identical reports.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/catch.hpp"
#include "models/activation_offload.hpp"
#include "models/memory_model.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/report/step_report.hpp"

namespace clustersim {
namespace {

config::CatalogPaths catalog_paths() { return {{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}}; }

// Llama 3 70B on 72 GB200 with Megatron-Bridge's GB200 FP8-CS layout (TP 1, PP 1, FSDP, MBS 2), the node
// read from the catalog with its host link replaced when `host_bw` is given.
nlohmann::json experiment(int offload, const std::string& host_bw = "") {
  nlohmann::json node = "gb200-nvl72";
  if (!host_bw.empty()) {
    std::ifstream in(std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs" / "nodes" / "gb200-nvl72.json");
    node = nlohmann::json::parse(in);
    node["host_link"] = {{"bandwidth", host_bw}, {"efficiency", 1.0}};
  }
  return {{"schema_version", 1},
          {"name", "offload-unit"},
          {"cluster", {{"name", "gb"}, {"node", node}, {"nodes", 18}}},
          {"model", "llama3-70b"},
          {"parallelism", {{"tp", 1}, {"pp", 1}, {"fsdp", true}}},
          {"training",
           {{"micro_batch", 2},
            {"global_batch", 288},
            {"seq_len", 8192},
            {"precision", "fp8"},
            {"activation_offload_layers", offload}}}};
}

StepResult run_json(const nlohmann::json& e) { return run_analytic(config::scenario_from_json(e, catalog_paths())); }

}  // namespace

TEST_CASE("offload schedule: copies no longer than a layer hide, n = L - 1 exposes every copy") {
  // One stream: copy i leaves after layer i's forward and is due before layer L - n + i's.
  const OffloadPassTime hidden = offload_forward_time(80, 40, Seconds(1), Seconds(1));
  CHECK(hidden.exposed.value() == 0.0);
  CHECK(hidden.busy.value() == Approx(40.0));
  // With no layer between a copy's start and its deadline each copy is waited for in full.
  CHECK(offload_forward_time(4, 3, Seconds(1), Seconds(1)).exposed.value() == Approx(3.0));
  CHECK(offload_backward_time(4, 3, Seconds(1), Seconds(1)).exposed.value() == Approx(3.0));
  // L = 80, n = 40, f = 1: copy i ends at 1 + (i + 1)·c, due at 40 + i: hidden up to c = 1.95, and at
  // c = 2 the last two copies are 1 s late each (the second wait counted after the first's shift).
  CHECK(offload_forward_time(80, 40, Seconds(1), Seconds(1.9)).exposed.value() == 0.0);
  CHECK(offload_forward_time(80, 40, Seconds(1), Seconds(2)).exposed.value() == Approx(2.0));
  // The backward mirrors it: reload i is queued when layer L - 1 - n + i's backward starts.
  CHECK(offload_backward_time(80, 40, Seconds(1), Seconds(1.9)).exposed.value() == 0.0);
  CHECK(offload_backward_time(80, 40, Seconds(1), Seconds(2)).exposed.value() == Approx(2.0));
  // No offload, or a degenerate count, costs nothing.
  CHECK(offload_forward_time(80, 0, Seconds(1), Seconds(5)).exposed.value() == 0.0);
  CHECK(offload_backward_time(80, 80, Seconds(1), Seconds(5)).exposed.value() == 0.0);
}

TEST_CASE("offloaded layers' activations leave the device, the in-flight copies within the L - n kept") {
  const Scenario s0 = config::scenario_from_json(experiment(0), catalog_paths());
  const Scenario s40 = config::scenario_from_json(experiment(40), catalog_paths());
  const StepResult r0 = run_analytic(s0), r40 = run_analytic(s40);
  REQUIRE_FALSE(r0.offload);
  REQUIRE(r40.offload);
  REQUIRE(r40.graph);
  const MemoryInputs in = memory_inputs(s40, r40.graph->schedule, 0);
  const double layer = layer_activation_bytes(s40.model, in.shape, Recompute::none).value();
  const double drop = r0.memory.activations.value() - r40.memory.activations.value();
  // Transformer Engine keeps at most L - n layers' activations (its in-flight copies among them): the
  // drop is the n offloaded layers' activations of the micro-batch in flight, with nothing added back.
  CHECK(drop == Approx(40.0 * layer * in.inflight_chunk_microbatches).epsilon(1e-12));
  CHECK(r40.memory.offloaded.value() == Approx(drop).epsilon(1e-12));
  CHECK(r40.offload->device_bytes_saved.value() == Approx(drop).epsilon(1e-12));
  // Everything else is unchanged.
  CHECK(r0.memory.weights.value() == r40.memory.weights.value());
  CHECK(r0.memory.other.value() == r40.memory.other.value());
  // Host bytes per step: each micro-batch's n layers go out and come back.
  const int m = s40.training.global_batch / (s40.training.micro_batch * s40.parallelism.dp);
  CHECK(r40.offload->host_bytes_per_step.value() == Approx(40.0 * layer * m).epsilon(1e-12));
}

TEST_CASE("exposed offload time is 0 on a fast host link and grows as the link slows") {
  const StepResult fast = run_json(experiment(40, "100 TB/s"));
  REQUIRE(fast.offload);
  CHECK(fast.offload->exposed.value() == 0.0);
  const StepResult base = run_json(experiment(0));
  // A fast link costs only the copies' HBM traffic under the kernels (at most a per mille here).
  CHECK(fast.step_time.value() >= base.step_time.value());
  CHECK(fast.step_time.value() == Approx(base.step_time.value()).epsilon(1e-3));
  double previous = 0.0;
  for (const char* bw : {"50 GB/s", "20 GB/s", "10 GB/s"}) {
    const StepResult r = run_json(experiment(40, bw));
    REQUIRE(r.offload);
    INFO(bw);
    CHECK(r.offload->exposed.value() > previous);
    CHECK(r.offload->exposed.value() <= r.offload->copy_time.value());
    // The waits lengthen the step at least by themselves (one stage, no pipeline to hide them in).
    CHECK(r.step_time.value() >= base.step_time.value() + r.offload->exposed.value() * (1.0 - 1e-9));
    previous = r.offload->exposed.value();
  }
}

TEST_CASE("offload reports are byte-identical across runs and hold finite numbers with units") {
  const Scenario s = config::scenario_from_json(experiment(40, "10 GB/s"), catalog_paths());
  const StepResult a = run_analytic(s), b = run_analytic(s);
  const std::string ja = step_report_json(s, a).dump(), jb = step_report_json(s, b).dump();
  CHECK(ja == jb);
  const std::string ta = step_report_text(s, a), tb = step_report_text(s, b);
  CHECK(ta == tb);
  CHECK(ta.find("activation offload") != std::string::npos);
  CHECK(ta.find("GiB per device each way per step") != std::string::npos);
  CHECK_FALSE(std::regex_search(ta, std::regex(R"(\b(nan|inf)\b)", std::regex::icase)));
  const nlohmann::json o = step_report_json(s, a)["activation_offload"];
  REQUIRE(o.is_object());
  for (const auto& [k, v] : o.items()) {
    INFO(k);
    REQUIRE(v.is_number());
    CHECK(std::isfinite(v.get<double>()));
  }
  CHECK(o["layers"] == 40);
  CHECK(o["exposed_s"].get<double>() > 0.0);
}

}  // namespace clustersim
