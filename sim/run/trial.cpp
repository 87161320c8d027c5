#include "sim/run/trial.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

#include "sim/core/rng.hpp"

namespace clustersim::run {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Nodes taken out of service by one failure of a class.
int blast_nodes(const FailureClassSpec& f, const RunPlan& plan) {
  switch (f.blast_radius) {
    case BlastRadius::none: return 0;
    case BlastRadius::node: return 1;
    case BlastRadius::leaf_switch: return std::min(plan.nodes_per_leaf_switch, plan.nodes);
  }
  return 1;
}

/// Mutable state of one trial. All times in seconds since the job started.
class Trial {
 public:
  Trial(const RunPlan& plan, std::uint64_t seed, std::uint64_t trial)
      : plan_(plan), rng_(seed, trial), unlimited_spares_(plan.recovery.policy == RecoveryPolicy::hot_spare &&
                                                         !plan.recovery.spare_nodes) {
    const int initial_spares =
        plan.recovery.policy == RecoveryPolicy::hot_spare ? plan.recovery.spare_nodes.value_or(0) : 0;
    for (int i = 0; i < initial_spares; ++i) spare_ready_.push(0.0);
  }

  TrialOutcome run() {
    const double slow = plan_.straggler_slowdown;
    const double work = plan_.useful_time.value() * slow;  // wall time of all kept work at full width
    const double tau = plan_.interval.value() * slow;      // wall time of one interval at full width
    const double stall = plan_.checkpoint.stall.value();
    const double drain = plan_.checkpoint.drain.value();
    double progress = 0.0;  // kept work, in full-width wall seconds
    auto next = plan_.process.next_after(0.0, rng_);
    while (true) {
      const double a = tau / width_;  // training wall per cycle at the current DP width
      const double cycle = a + stall;
      const double remaining = work - progress;
      const double n_ck = std::max(0.0, std::ceil(remaining / tau * (1.0 - 1e-12)) - 1.0);
      const double finish = t_ + remaining / width_ + n_ck * stall;
      if (next.time_s >= finish) {
        out_.states.training += Seconds(remaining / width_);
        out_.states.checkpoint_stall += Seconds(n_ck * stall);
        break;
      }
      const double x = next.time_s - t_;
      const double k_done = std::min(std::floor(x / cycle), n_ck);
      const double r = x - k_done * cycle;
      const bool in_cycle = k_done < n_ck;
      const double train_wall = k_done * a + (in_cycle ? std::min(r, a) : r);
      const double stall_wall = k_done * stall + (in_cycle && r > a ? r - a : 0.0);
      out_.states.checkpoint_stall += Seconds(stall_wall);
      const FailureClassSpec& f = plan_.failures[index_of(next.cause)];
      ++out_.interruptions[index_of(next.cause)];
      if (f.planned) {
        // Save now (one full write), keep everything done so far.
        out_.states.training += Seconds(train_wall);
        out_.states.checkpoint_stall += plan_.checkpoint.write;
        progress += train_wall * width_;
        t_ = next.time_s + plan_.checkpoint.write.value();
      } else {
        const double durable = drain <= 0.0 ? k_done : std::clamp(std::floor((x - drain) / cycle), 0.0, k_done);
        out_.states.training += Seconds(durable * a);
        out_.states.recomputing += Seconds(train_wall - durable * a);
        progress += durable * tau;
        t_ = next.time_s;
      }
      next = recover(next);
    }
    return out_;
  }

 private:
  /// Recovery after `failure` (t_ is when the job stopped); returns the first failure after recovery.
  FailureProcess::Event recover(FailureProcess::Event failure) {
    double start = t_;
    // Failures during a planned save are not modelled: the process resumes when the save ends.
    FailureProcess::Event next = plan_.process.next_after(t_, rng_);
    while (true) {
      const FailureClassSpec& f = plan_.failures[index_of(failure.cause)];
      const Phases ph = phases_for(f, start);
      const double end = start + ph.total();
      if (next.time_s >= end) {
        add_phases(ph, ph.total());
        t_ = end;
        update_width();
        // update_width() may have waited for a repair; failures during that wait are not modelled.
        if (next.time_s < t_) next = plan_.process.next_after(t_, rng_);
        return next;
      }
      add_phases(ph, next.time_s - start);
      // Planned stops are deferred while the job is down; unplanned ones restart the recovery.
      if (!plan_.failures[index_of(next.cause)].planned) {
        ++out_.interruptions[index_of(next.cause)];
        failure = next;
        start = next.time_s;
      }
      next = plan_.process.next_after(next.time_s, rng_);
    }
  }

  struct Phases {
    double restarting = 0;   // detection + swap + restart
    double repair_wait = 0;
    double restoring = 0;
    double detect = 0, swap = 0, restart = 0;
    [[nodiscard]] double total() const { return detect + repair_wait + swap + restart + restoring; }
  };

  Phases phases_for(const FailureClassSpec& f, double t_fail) {
    Phases ph;
    ph.detect = f.detection.value();
    ph.restart = plan_.restart.value();
    ph.restoring = plan_.checkpoint.restore.value();
    const int lost_nodes = blast_nodes(f, plan_);
    if (lost_nodes == 0) return ph;
    const double repaired_at = t_fail + f.repair.value();
    switch (plan_.recovery.policy) {
      case RecoveryPolicy::hot_spare:
      case RecoveryPolicy::wait_for_repair: {
        if (unlimited_spares_) {
          ph.swap = plan_.recovery.spare_swap.value();
          break;
        }
        // The failed nodes rejoin the spare pool once repaired; the job takes the earliest spares.
        double ready = t_fail;
        for (int i = 0; i < lost_nodes; ++i) spare_ready_.push(repaired_at);
        for (int i = 0; i < lost_nodes; ++i) {
          ready = std::max(ready, spare_ready_.top());
          spare_ready_.pop();
        }
        ph.repair_wait = std::max(0.0, ready - (t_fail + ph.detect));
        if (plan_.recovery.policy == RecoveryPolicy::hot_spare) ph.swap = plan_.recovery.spare_swap.value();
        break;
      }
      case RecoveryPolicy::elastic:
        for (int i = 0; i < lost_nodes; ++i) out_of_service_.push_back(repaired_at);
        break;
    }
    return ph;
  }

  void add_phases(const Phases& ph, double budget) {
    auto take = [&budget](double d) {
      const double used = std::min(d, std::max(budget, 0.0));
      budget -= used;
      return used;
    };
    out_.states.restarting += Seconds(take(ph.detect));
    out_.states.repair_wait += Seconds(take(ph.repair_wait));
    out_.states.restarting += Seconds(take(ph.swap) + take(ph.restart));
    out_.states.restoring += Seconds(take(ph.restoring));
  }

  /// Elastic: the job restarts with the DP replicas that have all their nodes; repaired nodes rejoin at
  /// the next restart. Failed nodes are assumed to sit in distinct replicas (pessimistic).
  void update_width() {
    if (plan_.recovery.policy != RecoveryPolicy::elastic) return;
    while (true) {
      std::erase_if(out_of_service_, [this](double back) { return back <= t_; });
      const double per_node = std::ceil(static_cast<double>(plan_.dp) / plan_.nodes);
      const double lost = std::min<double>(plan_.dp, static_cast<double>(out_of_service_.size()) * per_node);
      if (lost < plan_.dp) {
        width_ = (plan_.dp - lost) / plan_.dp;
        return;
      }
      // No complete replica left: wait for the first repair.
      const double back = *std::min_element(out_of_service_.begin(), out_of_service_.end());
      out_.states.repair_wait += Seconds(back - t_);
      t_ = back;
    }
  }

  const RunPlan& plan_;
  RngStream rng_;
  bool unlimited_spares_;
  std::priority_queue<double, std::vector<double>, std::greater<>> spare_ready_;
  std::vector<double> out_of_service_;
  double t_ = 0.0;
  double width_ = 1.0;  // fraction of DP replicas running (elastic)
  TrialOutcome out_;
};

}  // namespace

TrialOutcome simulate_trial(const RunPlan& plan, std::uint64_t seed, std::uint64_t trial) {
  return Trial(plan, seed, trial).run();
}

}  // namespace clustersim::run
