#include "schedules/zb_auto_schedule.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>

namespace clustersim {

namespace {

enum Kind : int { kF = 0, kB = 1, kW = 2 };

// One run of the greedy construction (auto_schedule.py Graph.manual_order) with its three switches.
// Times of ops not yet placed read as 0, as in the reference (its completion-time list starts at zeros).
class Greedy {
 public:
  Greedy(const ScheduleSpec& spec, bool allow_bubble_before_first_b, bool prioritize_b, bool no_bubble_greedy)
      : p_(spec.stages),
        m_(spec.microbatches),
        comm_(spec.auto_costs.p2p),
        cost_{spec.auto_costs.forward, spec.auto_costs.backward_input, spec.auto_costs.backward_weight},
        mem_{spec.auto_costs.forward_memory, spec.auto_costs.weight_memory - spec.auto_costs.forward_memory,
             -spec.auto_costs.weight_memory},
        max_mem_(auto_activation_limit(spec) * spec.auto_costs.forward_memory),
        allow_bubble_(allow_bubble_before_first_b),
        prioritize_b_(prioritize_b),
        no_bubble_greedy_(no_bubble_greedy),
        done_(3 * static_cast<std::size_t>(p_) * static_cast<std::size_t>(m_), 0),
        count_{std::vector<int>(static_cast<std::size_t>(p_), 0), std::vector<int>(static_cast<std::size_t>(p_), 0),
               std::vector<int>(static_cast<std::size_t>(p_), 0)},
        end_(static_cast<std::size_t>(p_), 0),
        held_(static_cast<std::size_t>(p_), 0),
        bubble_(static_cast<std::size_t>(p_), 0),
        order_(static_cast<std::size_t>(p_)) {
    for (std::string& s : order_) s.reserve(3 * static_cast<std::size_t>(m_));
  }

  // False when a stage cannot make room for an op (the reference raises "Cannot fit memory").
  bool run() {
    for (int i = 0; i < m_ && fits_; ++i) {
      if (i == 0) {
        first_iteration();
      } else {
        steady_iteration(i);
      }
    }
    if (!fits_) return false;
    for (int j = 0; j < p_; ++j) {
      while (count(kW, j) < m_) put(j, kW);
    }
    return fits_;
  }

  [[nodiscard]] std::int64_t makespan() const {
    std::int64_t best = 0;
    for (int j = 0; j < p_; ++j) best = std::max(best, at(kW, j, m_ - 1) - at(kF, j, 0) + cost_[kF]);
    return best;
  }
  std::vector<std::string> take_order() { return std::move(order_); }
  [[nodiscard]] const std::vector<std::int64_t>& bubble() const { return bubble_; }

 private:
  int& count(int kind, int j) { return count_[kind][static_cast<std::size_t>(j)]; }
  [[nodiscard]] int count(int kind, int j) const { return count_[kind][static_cast<std::size_t>(j)]; }
  std::int64_t& at(int kind, int j, int mb) {
    return done_[(static_cast<std::size_t>(kind) * p_ + static_cast<std::size_t>(j)) * m_ + static_cast<std::size_t>(mb)];
  }
  [[nodiscard]] std::int64_t at(int kind, int j, int mb) const {
    return done_[(static_cast<std::size_t>(kind) * p_ + static_cast<std::size_t>(j)) * m_ + static_cast<std::size_t>(mb)];
  }
  std::int64_t& end(int j) { return end_[static_cast<std::size_t>(j)]; }
  std::int64_t& held(int j) { return held_[static_cast<std::size_t>(j)]; }
  std::int64_t& bubble(int j) { return bubble_[static_cast<std::size_t>(j)]; }
  // Bubbles only grow, so the largest is kept as they do.
  [[nodiscard]] std::int64_t slack(int j) const { return max_bubble_ - bubble_[static_cast<std::size_t>(j)]; }

  // Places the next op of `kind` on stage j right after the stage's last op, or later when its input
  // from the neighbouring stage (plus the p2p time) arrives later; the wait counts as the stage's bubble
  // once the stage has run a forward.
  void put(int j, int kind) {
    const int mb = count(kind, j);
    if (held(j) + mem_[kind] > max_mem_) fits_ = false;  // the reference asserts; unreachable when fits_
    const std::int64_t back_to_back = end(j) + cost_[kind];
    std::int64_t t = back_to_back;
    if (kind == kF && j > 0) t = std::max(t, at(kF, j - 1, mb) + comm_ + cost_[kind]);
    if (kind == kB && j < p_ - 1) t = std::max(t, at(kB, j + 1, mb) + comm_ + cost_[kind]);
    if (count(kF, j) > 0) {
      bubble(j) += t - back_to_back;
      max_bubble_ = std::max(max_bubble_, bubble(j));
    }
    end(j) = t;
    at(kind, j, mb) = t;
    held(j) += mem_[kind];
    ++count(kind, j);
    order_[static_cast<std::size_t>(j)].push_back("FBW"[kind]);
  }

  // W's owed on stage j that fit before `ready` (the time the next op's input arrives), then one more
  // that would overrun it when the wait is larger than the stage's share of the largest bubble so far
  // (or, with no_bubble_greedy, also when it is not).
  void fill_weights_before(int j, std::int64_t ready) {
    while (count(kW, j) < count(kB, j) && end(j) + cost_[kW] <= ready) put(j, kW);
    if (count(kW, j) < count(kB, j) && end(j) < ready) {
      if (ready - end(j) <= slack(j)) {
        if (no_bubble_greedy_) put(j, kW);
      } else {
        put(j, kW);
      }
    }
  }

  // W's until an op that adds `add` fits the stage's memory.
  void make_room(int j, std::int64_t add) {
    while (fits_ && held(j) + add > max_mem_) {
      if (count(kW, j) >= count(kB, j)) {
        fits_ = false;
        return;
      }
      put(j, kW);
    }
  }

  // Microbatch 0: one F on every stage, then, from the last stage up, the extra F's each stage can run
  // before microbatch 0's B reaches it (within memory), then that B.
  void first_iteration() {
    for (int j = 0; j < p_; ++j) put(j, kF);
    std::vector<int> extra(static_cast<std::size_t>(p_), 0);
    std::int64_t b_arrives = 0;  // when microbatch 0's B is done on stage j + 1
    for (int j = p_ - 1; j >= 0; --j) {
      if (j == p_ - 1) {
        b_arrives = at(kF, j, 0) + cost_[kB];
        continue;
      }
      std::int64_t mem = held(j);
      std::int64_t t = end(j);
      int& n = extra[static_cast<std::size_t>(j)];
      while (count(kF, j) + n < m_ && mem + mem_[kF] <= max_mem_) {
        if (allow_bubble_ ? t + cost_[kF] > b_arrives + comm_ : t >= b_arrives + comm_) break;
        mem += mem_[kF];
        t += cost_[kF];
        ++n;
      }
      b_arrives = std::max(t, b_arrives + comm_) + cost_[kB];
    }
    // A stage runs fewer extra F's than the stage before it (it cannot run an F its upstream has not).
    for (int j = 1; j < p_; ++j) {
      int& n = extra[static_cast<std::size_t>(j)];
      while (n > 0 && n >= extra[static_cast<std::size_t>(j - 1)] && count(kF, j) + n < m_) --n;
    }
    for (int j = p_ - 1; j >= 0; --j) {
      for (int k = 0; k < extra[static_cast<std::size_t>(j)]; ++k) put(j, kF);
      put(j, kB);
    }
  }

  // Microbatch i >= 1: decide which stages run one more F (a stage runs it only if every later stage
  // does), place those F's from the first stage down, then microbatch i's B from the last stage up.
  void steady_iteration(int i) {
    std::vector<char> run_f(static_cast<std::size_t>(p_), 0);
    for (int j = 0; j < p_; ++j) {
      if (count(kF, j) >= m_) continue;
      if (j + 1 < p_ && count(kF, j) >= count(kF, j + 1) + 2 && prioritize_b_) {
        // Stage j is two F's ahead of the next one: hold its F back when the next stage's F and B
        // (and the transfer back) will not be done before stage j could run it, unless holding back
        // would make a gap larger than the stage's share of the largest bubble.
        const std::int64_t next_f_and_b = end(j + 1) + cost_[kF] + cost_[kB] + comm_;
        if (end(j) >= next_f_and_b) continue;
        std::int64_t w_time = 0;
        std::int64_t mem_with_w = held(j) + mem_[kF];
        for (int w = count(kW, j); mem_with_w > max_mem_ && w < count(kB, j); ++w) {
          w_time += cost_[kW];
          mem_with_w += mem_[kW];
        }
        if (end(j) + cost_[kF] + w_time <= next_f_and_b) {
          run_f[static_cast<std::size_t>(j)] = 1;
          continue;
        }
        if (next_f_and_b - end(j) <= slack(j)) continue;
      }
      run_f[static_cast<std::size_t>(j)] = 1;
    }
    for (int j = p_ - 2; j >= 0; --j) {
      run_f[static_cast<std::size_t>(j)] = std::min(run_f[static_cast<std::size_t>(j)], run_f[static_cast<std::size_t>(j + 1)]);
    }
    for (int j = 0; j < p_ && fits_; ++j) {
      if (!run_f[static_cast<std::size_t>(j)]) continue;
      make_room(j, mem_[kF]);
      if (!fits_) return;
      if (j > 0) fill_weights_before(j, at(kF, j - 1, count(kF, j)) + comm_);
      put(j, kF);
    }
    for (int j = p_ - 1; j >= 0 && fits_; --j) {
      make_room(j, mem_[kB]);
      if (!fits_) return;
      if (j + 1 < p_) fill_weights_before(j, at(kB, j + 1, i) + comm_);
      if (j == 0 && count(kF, j) == m_) {
        while (count(kW, j) < count(kB, j)) put(j, kW);
      }
      put(j, kB);
    }
  }

  int p_, m_;
  std::int64_t comm_;
  std::array<std::int64_t, 3> cost_;
  std::array<std::int64_t, 3> mem_;
  std::int64_t max_mem_;
  bool allow_bubble_, prioritize_b_, no_bubble_greedy_;
  std::vector<std::int64_t> done_;  // completion time of op (kind, stage, microbatch); 0 until placed
  std::array<std::vector<int>, 3> count_;
  std::vector<std::int64_t> end_, held_, bubble_;
  std::int64_t max_bubble_ = 0;
  std::vector<std::string> order_;
  bool fits_ = true;
};

}  // namespace

AutoScheduleResult auto_zero_bubble_schedule(const ScheduleSpec& spec) {
  if (!is_valid(spec) || !is_auto_zero_bubble(spec.kind)) {
    const auto problems = check(spec);
    throw std::invalid_argument("auto_zero_bubble_schedule: " +
                                (problems.empty() ? std::string("needs zb-1p or zb-2p") : problems.front()));
  }
  std::optional<AutoScheduleResult> best;
  // The reference's loop order; a later variant wins only with a strictly shorter time.
  for (const bool allow : {true, false}) {
    for (const bool prioritize : {true, false}) {
      for (const bool greedy : {true, false}) {
        Greedy g(spec, allow, prioritize, greedy);
        if (!g.run()) continue;
        const std::int64_t t = g.makespan();
        if (best && t >= best->makespan) continue;
        best = AutoScheduleResult{g.take_order(), t, allow, prioritize, greedy, g.bubble()};
      }
    }
  }
  // With a limit of p or 2p forwards' memory every variant fits (tests/schedules/zb_auto_schedule_test.cpp
  // runs a grid); the reference raises when one does not.
  if (!best) throw std::invalid_argument("auto_zero_bubble_schedule: no variant of the search fits the memory limit");
  return std::move(*best);
}

std::shared_ptr<const AutoScheduleResult> shared_auto_zero_bubble_schedule(const ScheduleSpec& spec) {
  struct Entry {
    ScheduleKind kind;
    int stages, microbatches;
    AutoScheduleCosts costs;
    std::shared_ptr<const AutoScheduleResult> result;
  };
  constexpr std::size_t kEntries = 4;
  thread_local std::array<std::optional<Entry>, kEntries> cache;
  for (std::size_t i = 0; i < kEntries; ++i) {
    const auto& e = cache[i];
    if (e && e->kind == spec.kind && e->stages == spec.stages && e->microbatches == spec.microbatches &&
        e->costs == spec.auto_costs) {
      auto result = e->result;
      std::rotate(cache.begin(), cache.begin() + static_cast<std::ptrdiff_t>(i),
                  cache.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      return result;
    }
  }
  auto result = std::make_shared<const AutoScheduleResult>(auto_zero_bubble_schedule(spec));
  std::rotate(cache.begin(), cache.end() - 1, cache.end());
  cache[0] = Entry{spec.kind, spec.stages, spec.microbatches, spec.auto_costs, result};
  return result;
}

}  // namespace clustersim
