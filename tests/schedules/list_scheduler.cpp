#include "tests/schedules/list_scheduler.hpp"

#include <algorithm>
#include <stdexcept>

#include "schedules/pipeline_deps.hpp"

namespace clustersim::test {

namespace {

std::int64_t duration(OpKind k, const OpTimes& t) {
  switch (k) {
    case OpKind::forward:
      return t.forward;
    case OpKind::backward:
      return t.backward;
    case OpKind::backward_input:
      return t.backward_input;
    case OpKind::backward_weight:
      return t.backward_weight;
  }
  return 0;
}

// Finish times indexed by (stage, kind, microbatch, chunk); -1 = not run yet.
class FinishTable {
 public:
  explicit FinishTable(const ScheduleSpec& s)
      : m_(s.microbatches),
        v_(s.chunks),
        t_(static_cast<std::size_t>(s.stages) * 4 * static_cast<std::size_t>(m_ * v_), -1) {}
  std::int64_t& at(int stage, const PipelineOp& op) {
    const auto i = ((static_cast<std::size_t>(stage) * 4 + static_cast<std::size_t>(op.kind)) * m_ +
                    static_cast<std::size_t>(op.microbatch)) *
                       v_ +
                   static_cast<std::size_t>(op.chunk);
    return t_.at(i);
  }

 private:
  std::size_t m_, v_;
  std::vector<std::int64_t> t_;
};

// Earliest start allowed by the op's inputs, or -1 if an input is not ready yet.
std::int64_t ready_time(const ScheduleSpec& spec, int stage, const PipelineOp& op, FinishTable& done,
                        const OpTimes& times) {
  std::int64_t ready = 0;
  if (const auto dep = data_dependency(spec, stage, op)) {
    const std::int64_t f = done.at(dep->stage, dep->op);
    if (f < 0) return -1;
    ready = f + (crosses_stage(stage, *dep) ? times.p2p_latency : 0);
  }
  if (op.kind != OpKind::forward) {  // a backward reads the activations its own forward stored
    const std::int64_t f = done.at(stage, {OpKind::forward, op.microbatch, op.chunk});
    if (f < 0) return -1;
    ready = std::max(ready, f);
  }
  return ready;
}

}  // namespace

Timeline run_list_schedule(const ScheduleSpec& spec, const std::vector<std::vector<PipelineOp>>& schedule,
                           const OpTimes& times) {
  const auto p = static_cast<std::size_t>(spec.stages);
  if (schedule.size() != p) throw std::invalid_argument("run_list_schedule: one op list per stage expected");
  Timeline tl;
  tl.busy.assign(p, 0);
  tl.start.resize(p);
  tl.finish.resize(p);
  FinishTable done(spec);
  std::vector<std::size_t> next(p, 0);
  std::vector<std::int64_t> free_at(p, 0);
  std::size_t remaining = 0;
  for (const auto& ops : schedule) remaining += ops.size();
  while (remaining > 0) {
    bool progress = false;
    for (std::size_t s = 0; s < p; ++s) {
      const int stage = static_cast<int>(s);
      while (next[s] < schedule[s].size()) {
        const PipelineOp& op = schedule[s][next[s]];
        const std::int64_t ready = ready_time(spec, stage, op, done, times);
        if (ready < 0) break;
        const std::int64_t start = std::max(ready, free_at[s]);
        free_at[s] = start + duration(op.kind, times);
        done.at(stage, op) = free_at[s];
        tl.start[s].push_back(start);
        tl.finish[s].push_back(free_at[s]);
        tl.busy[s] += duration(op.kind, times);
        tl.makespan = std::max(tl.makespan, free_at[s]);
        ++next[s];
        --remaining;
        progress = true;
      }
    }
    if (!progress) {
      tl.deadlock = true;
      break;
    }
  }
  return tl;
}

std::string op_listing(const std::vector<PipelineOp>& ops) {
  std::string s;
  for (const auto& op : ops) {
    if (!s.empty()) s += ' ';
    s += to_string(op);
  }
  return s;
}

}  // namespace clustersim::test
