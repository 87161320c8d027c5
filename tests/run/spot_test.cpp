// Spot capacity (sim/run/spot_model.hpp): closed forms with exponential preemptions.
#include <cmath>

#include "tests/catch.hpp"
#include "sim/run/spot_model.hpp"

namespace clustersim::run {
namespace {

constexpr double kHour = 3600.0;

SpotInputs inputs(int nodes, double mttp_h) {
  SpotInputs in;
  in.work = Seconds(100 * kHour);
  in.interval = Seconds(1 * kHour);
  in.nodes = nodes;
  in.devices_per_node = 1;
  in.dp = nodes;
  SpotGroupSpec g;
  g.name = "spot";
  g.nodes = nodes;
  g.mean_time_to_preemption = Seconds(mttp_h * kHour);
  g.price = 1.0;
  in.spot.groups = {g};
  in.spot.on_demand_price = 3.0;
  return in;
}

struct Means {
  double wall = 0, cost = 0, preemptions = 0, lost = 0, degraded = 0;
};

Means mean_of(const SpotInputs& in, bool notice, int trials) {
  Means m;
  for (int i = 0; i < trials; ++i) {
    const SpotTrial t = simulate_spot_trial(in, true, notice, 7, static_cast<std::uint64_t>(i));
    m.wall += t.wall.value() / trials;
    m.cost += t.cost_usd / trials;
    m.preemptions += static_cast<double>(t.preemptions) / trials;
    m.lost += t.lost_work.value() / trials;
    m.degraded += t.degraded.value() / trials;
  }
  return m;
}

}  // namespace

TEST_CASE("spot, no notice, zero-cost restarts: E[T] = (W/tau)(e^(L tau) - 1)/L") {
  // 8 nodes, each preempted every 80 h on average: L = 0.1 /h; checkpoints every tau = 1 h of progress
  // cost nothing, restarts cost nothing, capacity comes back at once. A segment of tau of work is
  // retried until no preemption falls inside it: E = (e^(L tau) - 1)/L per segment.
  const SpotInputs in = inputs(8, 80.0);
  const double lam = 8.0 / (80.0 * kHour), tau = kHour, w = 100 * kHour;
  const double expected = (w / tau) * (std::exp(lam * tau) - 1.0) / lam;
  const Means m = mean_of(in, false, 4000);
  CHECK(m.wall == Approx(expected).epsilon(0.005));
  // First order: W (1 + L tau/2), each preemption losing tau/2 of work on average.
  CHECK(m.wall == Approx(w * (1.0 + lam * tau / 2.0)).epsilon(0.01));
  CHECK(m.lost == Approx(m.wall - w).epsilon(1e-6));
  CHECK(m.preemptions == Approx(lam * expected).epsilon(0.02));
  // Spot nodes are billed while held (always, here): cost = wall x devices x price.
  CHECK(m.cost == Approx(m.wall * 8 * 1.0 / kHour).epsilon(1e-9));
}

TEST_CASE("spot, checkpoint on notice: no lost work, E[T] = W' / (1 - L b)") {
  // Notice 2 min >= checkpoint write 30 s: each preemption costs the write and a restart (60 s), and
  // taking the returned node back costs them again: b = 2 (C + R) = 180 s. Periodic checkpoints stall
  // 30 s each, (ceil(W/tau) - 1) = 99 of them: W' = W + 99 x 30 s.
  SpotInputs in = inputs(8, 80.0);
  in.spot.groups[0].notice = Seconds(120);
  in.notice_write = Seconds(30);
  in.periodic_stall = Seconds(30);
  in.restart = Seconds(60);
  const double lam = 8.0 / (80.0 * kHour), b = 2.0 * (30.0 + 60.0);
  const double w_prime = 100 * kHour + 99 * 30.0;
  const Means m = mean_of(in, true, 2000);
  CHECK(m.lost == 0.0);
  CHECK(m.wall == Approx(w_prime / (1.0 - lam * b)).epsilon(0.002));
  // Without the notice checkpoint the same run loses work.
  const Means no = mean_of(in, false, 2000);
  CHECK(no.lost > 0.0);
  CHECK(no.wall > m.wall);
}

TEST_CASE("spot, elastic: with capacity back after r on average the job runs at availability 1/(1 + r/MTTP)") {
  // 100 single-node replicas, each preempted every 100 h and back after 10 h on average, no costs:
  // each node is present a fraction 100/110 of the time, and so is the job's throughput.
  SpotInputs in = inputs(100, 100.0);
  in.work = Seconds(1000 * kHour);
  in.spot.groups[0].notice = Seconds(60);
  in.spot.groups[0].capacity_return = Seconds(10 * kHour);
  const Means m = mean_of(in, true, 50);
  CHECK(m.wall == Approx(1000 * kHour * 1.1).epsilon(0.01));
  CHECK(m.degraded > 0.9 * m.wall);
  // Billing stops while a node is away: cost ~ wall x availability x nodes x price.
  CHECK(m.cost == Approx(m.wall / 1.1 * 100 * 1.0 / kHour).epsilon(0.01));
}

TEST_CASE("spot: on-demand comparison is deterministic and priced at the on-demand rate") {
  SpotInputs in = inputs(8, 80.0);
  in.periodic_stall = Seconds(30);
  const SpotTrial t = simulate_spot_trial(in, false, true, 1, 0);
  CHECK(t.preemptions == 0);
  CHECK(t.wall.value() == Approx(100 * kHour + 99 * 30.0));
  CHECK(t.cost_usd == Approx(t.wall.value() * 8 * 3.0 / kHour));
  const SpotTrial a = simulate_spot_trial(in, true, true, 5, 3), b = simulate_spot_trial(in, true, true, 5, 3);
  CHECK(a.wall.value() == b.wall.value());
  CHECK(a.cost_usd == b.cost_usd);
}

}  // namespace clustersim::run
