#include "sim/engine/async_sgd.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>
#include <vector>

#include "sim/core/diagnostics.hpp"
#include "sim/core/rng.hpp"

namespace clustersim {
namespace {

constexpr std::uint64_t kAsyncStream = 0x5a5e11;  // RngStream id of the worker compute draws

LagSummary summarise(std::vector<double> v) {
  LagSummary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  const auto at = [&](double q) {
    const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
    return v[std::min(v.size() - 1, i)];
  };
  s.p50 = at(0.50);
  s.p99 = at(0.99);
  s.max = v.back();
  return s;
}

enum class Ev : int { arrive = 0, commit = 1 };

}  // namespace

AsyncResult simulate_async(const AsyncInputs& in) {
  CS_ASSERT(in.workers >= 1 && in.compute.value() > 0, "async simulation needs workers and compute time");
  const int n = in.workers;
  const int per_worker = std::clamp(200000 / n, 20, 200);
  const long long total = static_cast<long long>(per_worker) * n;
  const long long warm = total / 10, last = total - total / 10;
  RngStream rng(in.seed, kAsyncStream);
  const double sigma2 = std::log(1.0 + in.cv * in.cv);
  const double sigma = std::sqrt(sigma2), mu = -0.5 * sigma2;
  const double c = in.compute.value(), tw = in.worker_comm.value(), ts = in.server_per_update.value();

  // Events ordered by (time, sequence): ties resolve in the order they were scheduled.
  using Event = std::tuple<double, long long, Ev, int>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> q;
  long long seq = 0;
  std::vector<int> clock(static_cast<std::size_t>(n), 0);
  std::vector<long long> read_version(static_cast<std::size_t>(n), 0);
  std::vector<double> blocked_since(static_cast<std::size_t>(n), 0);
  std::vector<int> at_clock(static_cast<std::size_t>(per_worker) + 1, 0);
  at_clock[0] = n;
  int min_clock = 0;
  std::vector<std::vector<int>> waiting_for;  // by the min clock a blocked worker needs
  waiting_for.resize(static_cast<std::size_t>(per_worker) + 1);
  long long version = 0;
  double server_free = 0, server_busy = 0, blocked = 0;
  double t_warm = 0, t_last = 0, busy_warm = 0, busy_last = 0;
  std::vector<double> clock_lag, update_lag;
  double end = 0;
  clock_lag.reserve(static_cast<std::size_t>(total));
  update_lag.reserve(static_cast<std::size_t>(total));

  const auto start = [&](int w, double t) {
    const auto i = static_cast<std::size_t>(w);
    const int need = clock[i] - in.staleness_bound;
    if (in.staleness_bound >= 0 && min_clock < need) {
      blocked_since[i] = t;
      waiting_for[static_cast<std::size_t>(need)].push_back(w);
      return;
    }
    if (version >= warm) clock_lag.push_back(clock[i] - min_clock);
    read_version[i] = version;
    const double d = in.cv > 0 ? c * rng.lognormal(mu, sigma) : c;
    q.emplace(t + d, seq++, Ev::arrive, w);
  };
  for (int w = 0; w < n; ++w) start(w, 0.0);
  while (!q.empty()) {
    const auto [t, order, ev, w] = q.top();
    static_cast<void>(order);
    q.pop();
    const auto i = static_cast<std::size_t>(w);
    if (ev == Ev::arrive) {
      const double begin = std::max(t, server_free);
      server_free = begin + ts;
      server_busy += ts;
      q.emplace(std::max(server_free, t + tw), seq++, Ev::commit, w);
      continue;
    }
    if (version >= warm) update_lag.push_back(static_cast<double>(version - read_version[i]));
    ++version;
    if (version == warm) {
      t_warm = t;
      busy_warm = server_busy;
    }
    if (version == last) {
      t_last = t;
      busy_last = server_busy;
    }
    end = t;
    --at_clock[static_cast<std::size_t>(clock[i])];
    ++clock[i];
    ++at_clock[static_cast<std::size_t>(clock[i])];
    while (min_clock < per_worker && at_clock[static_cast<std::size_t>(min_clock)] == 0) {
      ++min_clock;
      auto& woken = waiting_for[static_cast<std::size_t>(min_clock)];
      std::sort(woken.begin(), woken.end());
      for (int b : woken) {
        blocked += t - blocked_since[static_cast<std::size_t>(b)];
        start(b, t);
      }
      woken.clear();
    }
    if (clock[i] < per_worker) start(w, t);
  }
  AsyncResult r;
  r.updates = static_cast<int>(total);
  const double window = t_last - t_warm;
  r.updates_per_s = window > 0 ? static_cast<double>(last - warm) / window : 0.0;
  r.server_busy = window > 0 ? std::min(1.0, (busy_last - busy_warm) / window) : 0.0;
  r.worker_cycle = Seconds(r.updates_per_s > 0 ? n / r.updates_per_s : 0.0);
  r.waiting = end > 0 ? std::min(1.0, blocked / (end * n)) : 0.0;
  r.clock_lag = summarise(std::move(clock_lag));
  r.update_lag = summarise(std::move(update_lag));
  return r;
}

}  // namespace clustersim
