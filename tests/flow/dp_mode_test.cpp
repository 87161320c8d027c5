// Data-parallel modes (docs/data_parallel_modes.md): parameter server, asynchronous and stale-synchronous
// SGD, local SGD / DiLoCo. Closed forms checked against the engines, and the flow engine's contention
// report names the server NICs when servers are few.
#include "tests/catch.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "models/transformer_cost.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/async_sgd.hpp"
#include "sim/engine/flow/flow_engine.hpp"
#include "sim/report/step_report.hpp"

using namespace clustersim;

namespace {

const config::CatalogPaths& paths() {
  static const config::CatalogPaths p{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}};
  return p;
}

// Megatron GPT-2 1.2B data-parallel over `nodes` DGX A100 nodes (one worker per GPU), BF16 gradients so
// a pushed gradient and a pulled weight copy are both 2 bytes per parameter.
Scenario gpt2(int nodes, const nlohmann::json& par) {
  nlohmann::json p = {{"tp", 1}, {"pp", 1}};
  for (auto it = par.begin(); it != par.end(); ++it) p[it.key()] = it.value();
  const nlohmann::json doc = {
      {"schema_version", 1},
      {"name", "dp-mode-test"},
      {"cluster", {{"name", "dgx-a100"}, {"node", "dgx-a100-80gb"}, {"nodes", nodes}}},
      {"model", "megatron-gpt2-1b"},
      {"parallelism", p},
      {"training",
       {{"micro_batch", 4},
        {"global_batch", 4 * 8 * nodes},
        {"precision", "bf16"},
        {"gradient_precision", "bf16"},
        {"overlap_grad_reduce", false}}}};
  return config::scenario_from_json(doc, paths(), "dp-mode-test.json");
}

double model_bytes(const Scenario& s) { return parameter_count(s.model).total() * 2.0; }

// The step without any data-parallel traffic (one worker).
double compute_only(const Scenario& s) {
  Scenario one = s;
  one.parallelism.data_parallel = {};
  one.parallelism.dp = 1;
  one.cluster.nodes = 1;
  one.cluster.node.devices_per_node = 1;
  one.training.global_batch = s.training.global_batch / s.parallelism.dp;
  return run_analytic(one).step_time.value();
}

}  // namespace

TEST_CASE("a server-NIC-bound parameter server round costs 2 x model bytes x workers / (servers x NIC bw)",
          "[dp_mode][ps]") {
  const Scenario s = gpt2(4, {{"dp_mode", "parameter_server"}, {"ps_servers", 2}, {"ps_server_nic", "25 GB/s"}});
  const double workers = 32, servers = 2;
  const double bw = 25e9 * s.cluster.node.nic.efficiency;
  const double expected = 2.0 * model_bytes(s) * workers / (servers * bw);
  const StepResult r = run_analytic(s);
  const DataParallelResult& d = r.data_parallel;
  INFO("round " << d.round.value() << " s, closed form " << expected << " s");
  CHECK(d.server_bound);
  CHECK(d.round.value() == Approx(expected).epsilon(0.001));
  // The step is the worker's compute plus the round (no overlap, dedicated servers update off the workers).
  CHECK(r.step_time.value() == Approx(compute_only(s) + expected).epsilon(0.01));
  CHECK(d.server_nic_busy > 0.9);

  SECTION("doubling the servers halves a server-bound round") {
    const Scenario s4 = gpt2(4, {{"dp_mode", "parameter_server"}, {"ps_servers", 4}, {"ps_server_nic", "25 GB/s"}});
    CHECK(run_analytic(s4).data_parallel.round.value() == Approx(expected / 2).epsilon(0.001));
  }
}

TEST_CASE("the flow engine replays push/pull to the server hosts and names the server NICs as the hotspot",
          "[dp_mode][ps][flow]") {
  const Scenario s = gpt2(4, {{"dp_mode", "parameter_server"}, {"ps_servers", 2}, {"ps_server_nic", "25 GB/s"}});
  const StepResult a = run_analytic(s);
  const flow::FlowRun f = flow::run_flow(s);
  const StepResult& fr = f.steps.front();
  INFO("analytic round " << a.data_parallel.round.value() << " s, flow round " << fr.data_parallel.round.value());
  // Contention-free apart from the server NICs: the replay reproduces the closed form.
  CHECK(fr.data_parallel.round.value() == Approx(a.data_parallel.round.value()).epsilon(0.02));
  CHECK(fr.step_time.value() == Approx(a.step_time.value()).epsilon(0.02));
  const flow::LinkUse* top = nullptr;
  for (const flow::LinkUse& u : f.busiest) {
    if (top == nullptr || u.utilisation > top->utilisation) top = &u;
  }
  REQUIRE(top != nullptr);
  INFO("busiest link " << top->link << " at " << top->utilisation);
  CHECK(top->cls == flow::LinkClass::ps_server);
  CHECK(top->link.rfind("ps", 0) == 0);

  SECTION("colocated shards load their devices' NICs: the flow round matches the closed form") {
    const Scenario c = gpt2(4, {{"dp_mode", "parameter_server"}, {"ps_servers", 2}, {"ps_placement", "colocated"}});
    const StepResult ca = run_analytic(c);
    const flow::FlowRun cf = flow::run_flow(c);
    INFO("analytic " << ca.data_parallel.round.value() << " s, flow " << cf.steps[0].data_parallel.round.value());
    CHECK(cf.steps[0].data_parallel.round.value() == Approx(ca.data_parallel.round.value()).epsilon(0.05));
    const flow::LinkUse* ctop = nullptr;
    for (const flow::LinkUse& u : cf.busiest) {
      if (ctop == nullptr || u.utilisation > ctop->utilisation) ctop = &u;
    }
    REQUIRE(ctop != nullptr);
    INFO("busiest " << ctop->link);
    CHECK((ctop->link == "n0.nic0/down" || ctop->link == "n2.nic0/down" || ctop->link == "n0.nic0/up" ||
           ctop->link == "n2.nic0/up"));
  }
}

TEST_CASE("asynchronous SGD: server-bound throughput is servers x NIC bw / (gradient + weights)",
          "[dp_mode][async]") {
  const Scenario s = gpt2(4, {{"dp_mode", "async"}, {"ps_servers", 2}, {"ps_server_nic", "25 GB/s"}});
  const StepResult r = run_analytic(s);
  const double bw = 25e9 * s.cluster.node.nic.efficiency;
  const double capacity = 2.0 * bw / (2.0 * model_bytes(s));  // updates per second
  INFO("updates/s " << r.data_parallel.updates_per_s << ", capacity " << capacity);
  CHECK(r.data_parallel.updates_per_s == Approx(capacity).epsilon(0.01));
  // Tokens/s follow: one update carries global_batch / workers sequences.
  CHECK(r.tokens_per_s ==
        Approx(capacity * s.training.global_batch / 32.0 * s.training.seq_len).epsilon(0.01));
  // Identical workers served FIFO: every gradient is N − 1 updates stale.
  CHECK(r.data_parallel.update_lag.mean == Approx(31.0).epsilon(1e-9));
  CHECK(r.data_parallel.update_lag.p99 == 31.0);

  SECTION("with many servers a worker runs at its own rate: compute + its NIC time") {
    const Scenario m = gpt2(4, {{"dp_mode", "async"}, {"ps_servers", 64}, {"ps_server_nic", "25 GB/s"}});
    const StepResult rm = run_analytic(m);
    const double own = rm.data_parallel.compute.value() + rm.data_parallel.worker_time.value() +
                       2 * m.cluster.node.nic.latency.value();
    CHECK_FALSE(rm.data_parallel.server_bound);
    CHECK(rm.data_parallel.updates_per_s == Approx(32.0 / own).epsilon(0.01));
  }
}

TEST_CASE("stale-synchronous workers never run more than s clocks ahead of the slowest", "[dp_mode][ssp]") {
  AsyncInputs in;
  in.workers = 64;
  in.compute = Seconds(1.0);
  in.cv = 0.5;
  in.worker_comm = Seconds(0.1);
  in.server_per_update = Seconds(0.001);
  for (int bound : {0, 1, 3}) {
    in.staleness_bound = bound;
    const AsyncResult r = simulate_async(in);
    INFO("s = " << bound << ": clock lag max " << r.clock_lag.max << ", mean " << r.clock_lag.mean);
    CHECK(r.clock_lag.max <= bound);
    CHECK(r.updates_per_s > 0);
  }
  SECTION("the bound costs throughput; async (no bound) is fastest and its lag is larger") {
    in.staleness_bound = 0;
    const AsyncResult bsp = simulate_async(in);
    in.staleness_bound = 3;
    const AsyncResult ssp = simulate_async(in);
    in.staleness_bound = -1;
    const AsyncResult async = simulate_async(in);
    CHECK(bsp.updates_per_s < ssp.updates_per_s);
    CHECK(ssp.updates_per_s <= async.updates_per_s * 1.0001);
    CHECK(async.clock_lag.max > 3);
    CHECK(bsp.waiting > ssp.waiting);
  }
  SECTION("same seed, same figures") {
    in.staleness_bound = 2;
    const AsyncResult a = simulate_async(in), b = simulate_async(in);
    CHECK(a.updates_per_s == b.updates_per_s);
    CHECK(a.update_lag.p99 == b.update_lag.p99);
  }
}

TEST_CASE("local SGD carries 1/H of the parameter all-reduce per step", "[dp_mode][local_sgd]") {
  const Scenario sync = gpt2(4, {});
  const double t_sync = run_analytic(sync).step_time.value();
  const double allreduce = t_sync - compute_only(sync);  // not overlapped (overlap_grad_reduce false)
  REQUIRE(allreduce > 0);
  for (int h : {1, 4, 16}) {
    const Scenario l = gpt2(4, {{"dp_mode", "local_sgd"}, {"local_sgd_steps", h}});
    const StepResult r = run_analytic(l);
    INFO("H = " << h << ": amortised " << r.data_parallel.amortised.value() << " s, all-reduce " << allreduce);
    // The outer optimizer's HBM pass is the only other per-step addition.
    CHECK(r.data_parallel.amortised.value() == Approx(allreduce / h).epsilon(0.02));
    CHECK(r.data_parallel.outer_state.value() == Approx(parameter_count(l.model).total() * 8.0).epsilon(1e-6));
  }
  SECTION("two datacentres over a 100 Gb/s link add 2(D-1)/D x model bytes / bw per averaging") {
    const Scenario l = gpt2(4, {{"dp_mode", "local_sgd"},
                                {"local_sgd_steps", 8},
                                {"datacenters", 2},
                                {"cross_dc_bandwidth", "100 Gb/s"}});
    const Scenario one = gpt2(4, {{"dp_mode", "local_sgd"}, {"local_sgd_steps", 8}});
    const double extra = run_analytic(l).data_parallel.averaging.value() -
                         run_analytic(one).data_parallel.averaging.value();
    CHECK(extra == Approx(model_bytes(l) / 12.5e9).epsilon(0.001));
  }
  SECTION("the flow engine sends the amortised all-reduce as flows") {
    const Scenario l = gpt2(4, {{"dp_mode", "local_sgd"}, {"local_sgd_steps", 4}});
    const StepResult a = run_analytic(l);
    const flow::FlowRun f = flow::run_flow(l);
    CHECK(f.flows > 0);
    CHECK(f.steps[0].step_time.value() == Approx(a.step_time.value()).epsilon(0.03));
  }
}

TEST_CASE("the report's data_parallel block carries throughput, server load and staleness", "[dp_mode][report]") {
  const Scenario s = gpt2(2, {{"dp_mode", "ssp"}, {"ps_servers", 1}, {"staleness_bound", 2}, {"worker_step_cv", 0.3}});
  const StepResult r = run_analytic(s);
  const nlohmann::json j = step_report_json(s, r, true);
  REQUIRE(j.contains("data_parallel"));
  const nlohmann::json& d = j["data_parallel"];
  CHECK(d["mode"] == "ssp");
  CHECK(d["staleness_bound"] == 2);
  CHECK(d["staleness_clock_lag_steps"]["max"].get<double>() <= 2.0);
  CHECK(d["server_nic_utilisation"].get<double>() > 0.0);
  CHECK(d["server_nic_utilisation"].get<double>() <= 1.0);
  CHECK(j["experiment"]["parallelism"]["dp_mode"] == "ssp");
  CHECK(step_report_text(s, r).find("staleness (clock lag)") != std::string::npos);
  // The echo reads back into the same scenario.
  const Scenario back = config::scenario_from_json(j["experiment"], paths(), "echo.json");
  CHECK(run_analytic(back).step_time.value() == r.step_time.value());
}
