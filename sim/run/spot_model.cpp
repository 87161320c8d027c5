#include "sim/run/spot_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/core/rng.hpp"

namespace clustersim::run {
namespace {

// Spot trials draw from their own streams, apart from the failure trials' (trial i of those uses
// stream i), so adding spot capacity never changes the failure figures.
constexpr std::uint64_t kSpotStreamBase = std::uint64_t{1} << 40;
constexpr double kInf = std::numeric_limits<double>::infinity();
// Bounds that keep a run tractable (events per trial) and meaningful (the job gets work done between
// preemptions); beyond them the spec is refused with a message.
constexpr double kMaxExpectedPreemptions = 1e6;
constexpr double kMaxPreemptionsPerSegment = 10.0;
// All trials of the spot what-if together (two spot rows of what_if_trials each): ~0.3 us of CPU per
// simulated preemption, so at most ~6 s. A run of 1e6 preemptions per trial times 100 trials took minutes.
constexpr double kMaxSimulatedPreemptions = 2e7;

double job_preemption_rate(const SpotSpec& s) {
  double lam = 0;
  for (const SpotGroupSpec& g : s.groups) lam += g.nodes / g.mean_time_to_preemption.value();
  return lam;
}

}  // namespace

SpotTrial simulate_spot_trial(const SpotInputs& in, bool use_spot, bool checkpoint_on_notice,
                              std::uint64_t seed, std::uint64_t trial) {
  RngStream rng(seed, kSpotStreamBase + trial);
  const int n = in.nodes, dpn = in.devices_per_node, dp = in.dp;
  const int replica_devices = std::max(1, n * dpn / dp);
  const std::size_t groups = use_spot ? in.spot.groups.size() : 0;
  std::vector<int> group_of(static_cast<std::size_t>(n), -1);
  std::vector<std::vector<int>> present(groups);
  int next = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    for (int k = 0; k < in.spot.groups[g].nodes && next < n; ++k, ++next) {
      group_of[static_cast<std::size_t>(next)] = static_cast<int>(g);
      present[g].push_back(next);
    }
  }
  // USD per second of one node held.
  const auto node_rate = [&](int node) {
    const int g = group_of[static_cast<std::size_t>(node)];
    const double per_device_hour = g < 0 ? in.spot.on_demand_price : in.spot.groups[static_cast<std::size_t>(g)].price;
    return per_device_hour * dpn / 3600.0;
  };
  double bill_rate = 0;
  for (int i = 0; i < n; ++i) bill_rate += node_rate(i);

  std::vector<int> missing(static_cast<std::size_t>(dp), 0);
  int up = dp;
  const auto touch = [&](int node, int delta) {
    const int first = node * dpn / replica_devices;
    const int last = std::min(dp - 1, (node * dpn + dpn - 1) / replica_devices);
    for (int r = first; r <= last; ++r) {
      int& m = missing[static_cast<std::size_t>(r)];
      if (delta > 0 && m++ == 0) --up;
      if (delta < 0 && --m == 0) ++up;
    }
  };
  struct Return {
    double at;
    int node;
  };
  std::vector<Return> returns;

  const double work = in.work.value(), tau = in.interval.value();
  const double write = in.notice_write.value(), restart = in.restart.value();
  double t = 0, p = 0, durable = 0, busy_until = 0, pending_at = 0;
  bool pending = false;  // a periodic checkpoint in its stall, durable at its end
  // Periodic checkpoints at whole multiples k·τ of progress (k counted, so no rounding drift).
  double k_ckpt = 1;
  const auto ckpt_at = [&]() { return tau > 0 ? k_ckpt * tau : kInf; };
  SpotTrial out;
  double cost = 0, lost = 0, degraded = 0, waiting = 0;
  while (p < work) {
    double lam = 0;
    for (std::size_t g = 0; g < groups; ++g) {
      lam += static_cast<double>(present[g].size()) / in.spot.groups[g].mean_time_to_preemption.value();
    }
    const double t_pre = lam > 0 ? t + rng.exponential(lam) : kInf;
    std::size_t ret = returns.size();
    double t_ret = kInf;
    for (std::size_t k = 0; k < returns.size(); ++k) {
      if (returns[k].at < t_ret) {
        t_ret = returns[k].at;
        ret = k;
      }
    }
    const bool stalled = t < busy_until;
    const bool running = !stalled && up > 0;
    double target = 0, t_work = kInf;
    if (stalled) {
      t_work = busy_until;
    } else if (up > 0) {
      target = std::min(ckpt_at(), work);
      t_work = t + (target - p) * dp / up;
    }
    const double e = std::min({t_pre, t_ret, t_work});
    const double dt = e - t;
    cost += dt * bill_rate;
    if (running) {
      p += dt * up / dp;
      if (up < dp) degraded += dt;
    } else if (!stalled) {
      waiting += dt;
    }
    t = e;
    if (t_ret <= t_pre && t_ret <= t_work) {
      // Capacity back: the job saves its state and restarts to take the node in.
      const int node = returns[ret].node;
      returns.erase(returns.begin() + static_cast<std::ptrdiff_t>(ret));
      present[static_cast<std::size_t>(group_of[static_cast<std::size_t>(node)])].push_back(node);
      bill_rate += node_rate(node);
      touch(node, -1);
      if (running) {
        durable = p;
        pending = false;
      }
      busy_until = std::max(busy_until, t) + write + restart;
    } else if (t_pre < t_work) {
      double u = rng.uniform() * lam;
      std::size_t g = 0;
      for (; g + 1 < groups; ++g) {
        const double w = static_cast<double>(present[g].size()) / in.spot.groups[g].mean_time_to_preemption.value();
        if (u < w) break;
        u -= w;
      }
      while (present[g].empty()) ++g;  // only reachable through rounding in u
      std::vector<int>& pool = present[g];
      const auto k = static_cast<std::size_t>(rng.below(pool.size()));
      const int node = pool[k];
      pool[k] = pool.back();
      pool.pop_back();
      ++out.preemptions;
      bill_rate -= node_rate(node);
      touch(node, +1);
      const SpotGroupSpec& grp = in.spot.groups[g];
      if (checkpoint_on_notice && grp.notice.value() >= write) {
        // The state is saved inside the notice window: no work lost.
        durable = p;
        pending = false;
        busy_until = std::max(busy_until, t) + write + restart;
      } else {
        if (pending) pending = false;  // a checkpoint still in its stall never became durable
        lost += p - durable;
        p = durable;
        k_ckpt = tau > 0 ? std::floor(durable / tau + 1e-9) + 1.0 : 1.0;
        busy_until = std::max(busy_until, t) + restart;
      }
      const double back = grp.capacity_return.value();
      returns.push_back({t + (back > 0 ? rng.exponential(1.0 / back) : 0.0), node});
    } else if (stalled) {
      if (pending) {
        durable = pending_at;
        pending = false;
      }
    } else {
      p = target;
      if (target >= work) break;
      k_ckpt += 1;
      if (in.periodic_stall.value() > 0) {
        pending = true;
        pending_at = p;
        busy_until = t + in.periodic_stall.value();
      } else {
        durable = p;
      }
    }
  }
  out.wall = Seconds(t);
  out.cost_usd = cost;
  out.lost_work = Seconds(lost);
  out.degraded = Seconds(degraded);
  out.waiting = Seconds(waiting);
  return out;
}

namespace {

SpotRow run_row(const SpotInputs& in, bool use_spot, bool on_notice, std::uint64_t seed, int trials) {
  SpotRow row;
  row.capacity = use_spot ? "spot" : "on-demand";
  row.checkpoint_on_notice = use_spot && on_notice;
  row.trials = trials;
  std::vector<double> wall, cost;
  wall.reserve(static_cast<std::size_t>(trials));
  cost.reserve(static_cast<std::size_t>(trials));
  for (int i = 0; i < trials; ++i) {
    const SpotTrial x = simulate_spot_trial(in, use_spot, on_notice, seed, static_cast<std::uint64_t>(i));
    wall.push_back(x.wall.value());
    cost.push_back(x.cost_usd);
    row.preemptions_mean += x.preemptions;
    row.lost_work_s_mean += x.lost_work.value();
    row.degraded_s_mean += x.degraded.value();
    row.waiting_s_mean += x.waiting.value();
  }
  row.preemptions_mean /= trials;
  row.lost_work_s_mean /= trials;
  row.degraded_s_mean /= trials;
  row.waiting_s_mean /= trials;
  row.wall_s = summarize(std::move(wall));
  row.cost_usd = summarize(std::move(cost));
  return row;
}

SpotInputs spot_inputs(const RunSpec& spec, const JobShape& job, const RunPlan& plan) {
  SpotInputs in;
  in.work = plan.useful_time * plan.straggler_slowdown;
  in.interval = plan.interval;
  in.periodic_stall = plan.checkpoint.stall;
  in.notice_write = plan.checkpoint.write;
  in.restart = plan.restart + plan.checkpoint.restore;
  in.nodes = job.nodes();
  in.devices_per_node = job.devices_per_node;
  in.dp = job.dp;
  in.spot = *spec.spot;
  return in;
}

}  // namespace

SpotResult evaluate_spot(const RunSpec& spec, const JobShape& job, const RunPlan& plan) {
  SpotResult r;
  r.inputs = spot_inputs(spec, job, plan);
  const bool notice = spec.spot->checkpoint_on_notice;
  r.rows.push_back(run_row(r.inputs, false, false, spec.seed, 1));
  r.rows.push_back(run_row(r.inputs, true, notice, spec.seed, spec.what_if_trials));
  r.rows.push_back(run_row(r.inputs, true, !notice, spec.seed, spec.what_if_trials));
  return r;
}

std::vector<FieldProblem> validate_spot_against_job(const RunSpec& spec, const JobShape& job,
                                                    const RunPlan& plan) {
  std::vector<FieldProblem> out;
  if (!spec.spot || spec.spot->groups.empty()) return out;
  const SpotSpec& s = *spec.spot;
  long long total = 0;
  for (const SpotGroupSpec& g : s.groups) total += g.nodes;
  if (total > job.nodes()) {
    out.push_back({fmt::format("spot.groups[{}].nodes", s.groups.size() - 1),
                   fmt::format("the spot groups hold {} nodes but the job has {}", total, job.nodes())});
    return out;
  }
  const SpotInputs in = spot_inputs(spec, job, plan);
  const double lam = job_preemption_rate(s);
  const double expected = lam * in.work.value();
  const double per_segment = lam * (in.interval.value() + 2.0 * (in.notice_write + in.restart).value());
  if (expected > kMaxExpectedPreemptions) {
    out.push_back({"spot.groups[0].mean_time_to_preemption",
                   fmt::format("about {:.3g} preemptions per run expected (nodes / mean_time_to_preemption x "
                               "work): more than the {:.0e} this model simulates",
                               expected, kMaxExpectedPreemptions)});
  } else if (per_segment > kMaxPreemptionsPerSegment) {
    out.push_back({"spot.groups[0].mean_time_to_preemption",
                   fmt::format("{:.3g} preemptions expected within one checkpoint interval plus a checkpoint "
                               "and restart ({:.0f} s): the job would practically never finish; use "
                               "fewer spot nodes, a shorter checkpoint interval or longer-lived capacity",
                               per_segment, (in.interval + (in.notice_write + in.restart) * 2.0).value())});
  } else if (const double simulated = expected * 2.0 * static_cast<double>(spec.what_if_trials);
             simulated > kMaxSimulatedPreemptions) {
    out.push_back({"what_if_trials",
                   fmt::format("the spot what-if would simulate about {:.3g} preemptions ({:.3g} per run x 2 spot "
                               "rows x {} trials): more than the {:.0e} it simulates; lower run.what_if_trials "
                               "or the run's length, or use longer-lived capacity",
                               simulated, expected, spec.what_if_trials, kMaxSimulatedPreemptions)});
  }
  return out;
}

}  // namespace clustersim::run
