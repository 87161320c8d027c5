// Heterogeneous clusters (docs/heterogeneous.md): closed forms of the work split, the slowest pool as the
// bound of an equal split, per-pool memory, and a one-pool "heterogeneous" cluster equal to the
// homogeneous run to the bit.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/catch.hpp"
#include "models/transformer_cost.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/hetero.hpp"

namespace clustersim {
namespace {

config::CatalogPaths catalog_paths() { return {{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}}; }

constexpr const char* kExperiment = "llama2-13b-h100a100-hetero";

Scenario load(std::vector<config::Override> overrides) {
  return config::load_scenario(catalog_paths(), kExperiment, overrides);
}

std::string pools(const std::string& a, int na, const std::string& b = "", int nb = 0) {
  std::string p = R"({"pools": [{"node": ")" + a + R"(", "nodes": )" + std::to_string(na) + "}";
  if (!b.empty()) p += R"(, {"node": ")" + b + R"(", "nodes": )" + std::to_string(nb) + "}";
  return p + "]}";
}

void same(const StepResult& a, const StepResult& b) {
  CHECK(a.step_time.value() == b.step_time.value());
  CHECK(a.mfu == b.mfu);
  CHECK(a.hfu == b.hfu);
  CHECK(a.tokens_per_s == b.tokens_per_s);
  CHECK(a.tflops_per_device == b.tflops_per_device);
  CHECK(a.model_flops_per_step == b.model_flops_per_step);
  CHECK(a.memory.total().value() == b.memory.total().value());
  CHECK(a.fits == b.fits);
  CHECK(a.bubble_fraction == b.bubble_fraction);
}

}  // namespace

TEST_CASE("hetero: proportional layer split, closed form") {
  // Pools with per-layer times 1 and 3, two stages each: weights 1, 1, 1/3, 1/3 of 8/3 -> 15, 15, 5, 5.
  CHECK(proportional_layers(40, {0, 0, 1, 1}, {1.0, 3.0}) == std::vector<int>{15, 15, 5, 5});
  // Remainders go to the largest fractions (lower index first among equals); every stage keeps a layer.
  CHECK(proportional_layers(10, {0, 1, 1}, {1.0, 2.0}) == std::vector<int>{5, 3, 2});
  CHECK(proportional_layers(3, {0, 1, 1}, {1.0, 1000.0}) == std::vector<int>{1, 1, 1});
}

TEST_CASE("hetero: water-filled micro-batches equalise pool times, closed form") {
  // t_p(n) = slope_p · n (base = slope · n0): with slopes 1 and 3 and two replicas per pool, 16
  // micro-batches split 12 : 4, i.e. 6 and 2 per replica, both pools at t = 6.
  const std::vector<long long> m = water_fill(16, {2, 2}, 4, {4.0, 12.0}, {1.0, 3.0});
  CHECK(m == std::vector<long long>{12, 4});
  // Equal rates: an equal split.
  CHECK(water_fill(16, {2, 2}, 4, {4.0, 4.0}, {1.0, 1.0}) == std::vector<long long>{8, 8});
  // A partial last level: 3 replicas and 2 replicas, 11 micro-batches, equal rates.
  const std::vector<long long> p = water_fill(11, {3, 2}, 1, {1.0, 1.0}, {1.0, 1.0});
  CHECK(p[0] + p[1] == 11);
}

TEST_CASE("hetero: a one-pool heterogeneous cluster equals the homogeneous run exactly") {
  SECTION("pipeline") {
    const Scenario het = load({{"/cluster", pools("dgx-h100", 4)}});
    const Scenario hom = load({{"/cluster", R"({"node": "dgx-h100", "nodes": 4})"},
                               {"/parallelism", R"({"tp": 8, "pp": 4, "sequence_parallel": true})"}});
    REQUIRE(het.cluster.pools.size() == 1);
    REQUIRE(hom.cluster.pools.empty());
    const StepResult a = run_hetero(het);
    same(a, run_analytic(hom));
    REQUIRE(a.hetero);
    CHECK(a.hetero->pools.front().stages == 4);
    CHECK(a.hetero->inter_pool.value() == 0);
  }
  SECTION("data") {
    const Scenario het = load({{"/cluster", pools("dgx-a100-80gb", 4)},
                               {"/parallelism", R"({"tp": 8, "pp": 1, "sequence_parallel": true, "hetero": "data"})"}});
    const Scenario hom = load({{"/cluster", R"({"node": "dgx-a100-80gb", "nodes": 4})"},
                               {"/parallelism", R"({"tp": 8, "pp": 1, "sequence_parallel": true})"}});
    const StepResult a = run_hetero(het);
    same(a, run_analytic(hom));
    CHECK(a.hetero->pools.front().replicas == 4);
    CHECK(a.hetero->pools.front().microbatches == 64);
  }
}

TEST_CASE("hetero pipeline: the proportional split equalises stage compute, the equal split is bound by the "
          "slower pool") {
  const Scenario prop = load({});
  const Scenario equal = load({{"/parallelism/hetero_split", "\"equal\""}});
  const StepResult p = run_hetero(prop);
  const StepResult e = run_hetero(equal);
  REQUIRE(p.hetero);
  const HeteroResult& h = *p.hetero;
  REQUIRE(h.pools.size() == 2);
  const double t_h100 = h.pools[0].unit_time.value(), t_a100 = h.pools[1].unit_time.value();
  CHECK(t_a100 > t_h100);
  // Layers per stage ∝ 1 / per-layer time (closed form above), so each stage's layer compute is within one
  // layer of every other's.
  const std::vector<int> want = proportional_layers(40, {0, 0, 1, 1}, {t_h100, t_a100});
  CHECK(h.pipeline_layers == want);
  double lo = 1e30, hi = 0;
  for (int k = 0; k < 4; ++k) {
    const double c = want[static_cast<std::size_t>(k)] * (k < 2 ? t_h100 : t_a100);
    lo = std::min(lo, c);
    hi = std::max(hi, c);
  }
  CHECK(hi - lo <= t_a100 + 1e-12);
  CHECK(h.pools[0].layers + h.pools[1].layers == 40);
  // Equal: 10 layers per stage; the A100 stages carry the most compute and set the step.
  REQUIRE(e.hetero);
  CHECK(e.hetero->pipeline_layers == std::vector<int>{10, 10, 10, 10});
  CHECK(e.hetero->bottleneck == 1);
  CHECK(e.hetero->pools[1].busy > e.hetero->pools[0].busy);
  CHECK(p.step_time < e.step_time);
  // The equal split lies between the all-H100 and the all-A100 pipelines of the same shape.
  const auto homogeneous = [&](const char* node) {
    return run_analytic(load({{"/cluster", std::string(R"({"node": ")") + node + R"(", "nodes": 4})"},
                              {"/parallelism", R"({"tp": 8, "pp": 4, "sequence_parallel": true})"}}));
  };
  const StepResult h100 = homogeneous("dgx-h100"), a100 = homogeneous("dgx-a100-80gb");
  CHECK(e.step_time > h100.step_time);
  CHECK(e.step_time < a100.step_time);
  // Its steady state is the A100 stages' pace: within the bubble and the boundary transfers of the
  // all-A100 step.
  CHECK(e.step_time.value() > 0.9 * a100.step_time.value());
  CHECK(p.mfu > e.mfu);
}

TEST_CASE("hetero data: the equal split is the slower pool's step plus the all-reduce between pools") {
  const std::vector<config::Override> base = {
      {"/parallelism", R"({"tp": 8, "pp": 1, "sequence_parallel": true, "hetero": "data", "hetero_split": "equal"})"}};
  const Scenario s = load(base);
  const StepResult r = run_hetero(s);
  REQUIRE(r.hetero);
  const HeteroResult& h = *r.hetero;
  CHECK(h.bottleneck == 1);
  // Closed form: each pool alone (2 replicas, 16 micro-batches each), then the ring all-reduce of the
  // fp32 gradient over 2 pools through the 2 nodes of a pool: 2·(P−1)/P·G / (2 · B) + 2·(P−1)·α.
  const auto alone = [&](const char* node) {
    auto o = std::vector<config::Override>{{"/cluster", std::string(R"({"node": ")") + node + R"(", "nodes": 2})"},
                                           {"/parallelism", R"({"tp": 8, "pp": 1, "sequence_parallel": true})"},
                                           {"/training/global_batch", "32"}};
    return run_analytic(load(o)).step_time.value();
  };
  const double a100 = alone("dgx-a100-80gb"), h100 = alone("dgx-h100");
  CHECK(a100 > h100);
  const ParameterCount pc = parameter_count(s.model);
  const double grad = pc.total() * 4.0;
  const double bw = s.cluster.inter_pool.bandwidth.value() * s.cluster.inter_pool.efficiency;
  const double cross = grad / (2.0 * bw) + 2.0 * s.cluster.inter_pool.latency.value();
  CHECK(h.inter_pool.value() == Approx(cross).epsilon(1e-12));
  CHECK(r.step_time.value() == Approx(a100 + cross).epsilon(1e-12));
  CHECK(h.pools[0].pool_step.value() == Approx(h100).epsilon(1e-12));
  // Proportional: the faster pool takes more micro-batches and the step shrinks.
  auto prop_over = base;
  prop_over[0].value = R"({"tp": 8, "pp": 1, "sequence_parallel": true, "hetero": "data"})";
  const StepResult p = run_hetero(load(prop_over));
  REQUIRE(p.hetero);
  CHECK(p.hetero->pools[0].microbatches > p.hetero->pools[1].microbatches);
  CHECK(p.hetero->pools[0].microbatches + p.hetero->pools[1].microbatches == 64);
  CHECK(p.step_time < r.step_time);
  // The two pools' own steps end within one micro-batch of each other.
  const double gap = std::abs(p.hetero->pools[0].pool_step.value() - p.hetero->pools[1].pool_step.value());
  CHECK(gap <= std::max(p.hetero->pools[0].unit_time.value(), p.hetero->pools[1].unit_time.value()) + 1e-12);
}

TEST_CASE("hetero: memory is checked per pool against its own device") {
  // Llama 2 13B on 2 stages of TP2 × DP4 (about 52 GB of weights, gradients and Adam states per device):
  // fits an H100 80 GB stage, not an A100 40 GB one.
  const Scenario s = load({{"/cluster", pools("dgx-h100", 1, "dgx-a100-40gb", 1)},
                           {"/parallelism", R"({"tp": 2, "pp": 2, "sequence_parallel": true, "hetero": "pipeline", "hetero_split": "equal"})"},
                           {"/training/global_batch", "64"}});
  const StepResult r = run_hetero(s);
  REQUIRE(r.hetero);
  const HeteroResult& h = *r.hetero;
  CHECK(h.pools[0].capacity.value() > h.pools[1].capacity.value());
  CHECK(h.pools[0].fits);
  CHECK_FALSE(h.pools[1].fits);
  CHECK_FALSE(r.fits);
  CHECK(r.memory_capacity.value() == h.pools[1].capacity.value());
}

}  // namespace clustersim
