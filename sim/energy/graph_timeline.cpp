#include "sim/energy/graph_timeline.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "sim/core/diagnostics.hpp"

namespace clustersim {
namespace {

// Calls f(start, end, state) for the intervals of [t.start, t.end] split in the proportions of its OpCost.
template <class F>
void split_op(const NodeTiming& t, const OpCost& c, F&& f) {
  const Seconds memory_bound = c.compute - c.compute_bound;
  const Seconds comm = c.tp_comm + c.cp_comm + c.dp_comm;
  const Seconds parts[] = {c.compute_bound, memory_bound, comm};
  const DeviceState states[] = {DeviceState::compute, DeviceState::memory, DeviceState::communication};
  const Seconds total = c.compute_bound + memory_bound + comm;
  const Seconds length = t.end - t.start;
  if (total.value() <= 0.0) {
    f(t.start, t.end, DeviceState::compute);
    return;
  }
  Seconds cursor = t.start;
  for (int i = 0; i < 3; ++i) {
    const Seconds next = i == 2 ? t.end : cursor + length * (parts[i] / total);
    if (next > cursor) f(cursor, next, states[i]);
    cursor = next;
  }
}

// The compute-stream intervals of stage `st`, in stream order (the mapping in graph_timeline.hpp).
template <class F>
void for_each_compute_interval(const StepGraph& g, const std::vector<NodeTiming>& timing, std::size_t st,
                               F&& f) {
  Seconds prev_end(0);
  for (int id : g.order[st][static_cast<std::size_t>(Resource::compute)]) {
    const StepNode& node = g.nodes[static_cast<std::size_t>(id)];
    const NodeTiming& t = timing[static_cast<std::size_t>(id)];
    if (node.kind == NodeKind::optimizer) {
      f(t.start, t.end, DeviceState::memory);
      continue;
    }
    const Seconds pp = min(max(Seconds(0), t.start - prev_end), node.dep_delay);
    if (pp.value() > 0.0) f(t.start - pp, t.start, DeviceState::communication);
    if (node.cost >= 0) {
      split_op(t, g.costs[static_cast<std::size_t>(node.cost)], f);
    } else {
      f(t.start, t.end, DeviceState::compute);
    }
    prev_end = t.end;
  }
}

// Writes an exclusive cover left to right, merging adjacent equal states (as resolve_overlaps does).
class CoverWriter {
 public:
  explicit CoverWriter(std::vector<StateInterval>& out) : out_(out) {}
  void emit(double a, double b, DeviceState s) {
    if (b <= a) return;
    if (!out_.empty() && out_.back().state == s && out_.back().end.value() == a) {
      out_.back().end = Seconds(b);
    } else {
      out_.push_back({Seconds(a), Seconds(b), s});
    }
  }

 private:
  std::vector<StateInterval>& out_;
};

// The cover of one stage by merging its two ordered streams: the compute stream (whose states all take
// precedence over communication) and the data-parallel channel (communication). Time in neither is
// waiting. Returns false, leaving `out` unspecified, when a stream is not in order (the caller then
// resolves the general way).
bool merge_streams(const StepGraph& g, const std::vector<NodeTiming>& timing, std::size_t st,
                   double end_of_step, std::vector<StateInterval>& out) {
  static thread_local std::vector<std::pair<double, double>> dp;
  dp.clear();
  for (int id : g.order[st][static_cast<std::size_t>(Resource::dp_channel)]) {
    const NodeTiming& t = timing[static_cast<std::size_t>(id)];
    const double a = std::clamp(t.start.value(), 0.0, end_of_step);
    const double b = std::clamp(t.end.value(), 0.0, end_of_step);
    if (b <= a) continue;
    if (!dp.empty() && a < dp.back().second) return false;
    dp.emplace_back(a, b);
  }
  CoverWriter w(out);
  double cursor = 0.0;
  std::size_t j = 0;
  // Cover [cursor, until) where the compute stream is idle: the data-parallel channel, else waiting.
  const auto fill_gap = [&](double until) {
    while (j < dp.size() && dp[j].first < until) {
      const double c = std::max(dp[j].first, cursor);
      const double d = std::min(dp[j].second, until);
      if (d > c) {
        w.emit(cursor, c, DeviceState::waiting);
        w.emit(c, d, DeviceState::communication);
        cursor = d;
      }
      if (dp[j].second > until) break;
      ++j;
    }
    w.emit(cursor, until, DeviceState::waiting);
    cursor = std::max(cursor, until);
  };
  bool ordered = true;
  for_each_compute_interval(g, timing, st, [&](Seconds start, Seconds end, DeviceState s) {
    const double a = std::clamp(start.value(), 0.0, end_of_step);
    const double b = std::clamp(end.value(), 0.0, end_of_step);
    if (b <= a || !ordered) return;
    if (a < cursor) {
      ordered = false;
      return;
    }
    fill_gap(a);
    w.emit(a, b, s);
    cursor = b;
  });
  if (!ordered) return false;
  fill_gap(end_of_step);
  return true;
}

DeviceTimeline stage_timeline(const StepGraph& g, const std::vector<NodeTiming>& timing, std::size_t st,
                              int devices_per_stage) {
  DeviceTimeline dev;
  dev.name = fmt::format("pp-stage-{}", st);
  dev.multiplicity = devices_per_stage;
  for_each_compute_interval(g, timing, st, [&dev](Seconds a, Seconds b, DeviceState s) {
    dev.intervals.push_back({a, b, s});
  });
  for (int id : g.order[st][static_cast<std::size_t>(Resource::dp_channel)]) {
    const NodeTiming& t = timing[static_cast<std::size_t>(id)];
    dev.intervals.push_back({t.start, t.end, DeviceState::communication});
  }
  return dev;
}

}  // namespace

StepTimeline step_timeline_of(const StepGraph& g, const std::vector<NodeTiming>& timing, Seconds step_time,
                              int devices_per_stage) {
  CS_ASSERT(timing.size() == g.nodes.size(), "timeline does not match the graph");
  CS_ASSERT(step_time.value() > 0.0 && devices_per_stage > 0, "step time and stage size must be positive");
  StepTimeline out;
  out.step_time = step_time;
  for (std::size_t st = 0; st < g.order.size(); ++st) {
    out.devices.push_back(stage_timeline(g, timing, st, devices_per_stage));
  }
  return out;
}

void resolved_timeline_into(const StepGraph& g, const std::vector<NodeTiming>& timing, Seconds step_time,
                            int devices_per_stage, ResolvedTimeline& out) {
  CS_ASSERT(timing.size() == g.nodes.size(), "timeline does not match the graph");
  CS_ASSERT(step_time.value() > 0.0 && devices_per_stage > 0, "step time and stage size must be positive");
  out.step_time = step_time;
  const std::size_t stages = g.order.size();
  // Storage of a previous call is reused (capacity kept): sweeps resolve a timeline per point.
  out.covers.resize(stages);
  out.names.resize(stages);
  out.multiplicity.assign(stages, devices_per_stage);
  for (std::size_t st = 0; st < stages; ++st) {
    out.names[st].clear();
    fmt::format_to(std::back_inserter(out.names[st]), "pp-stage-{}", st);
    out.covers[st].clear();
    if (!merge_streams(g, timing, st, step_time.value(), out.covers[st])) {
      out.covers[st] = resolve_overlaps(stage_timeline(g, timing, st, devices_per_stage), step_time);
    }
  }
}

ResolvedTimeline resolved_timeline_of(const StepGraph& g, const std::vector<NodeTiming>& timing,
                                      Seconds step_time, int devices_per_stage) {
  ResolvedTimeline out;
  resolved_timeline_into(g, timing, step_time, devices_per_stage, out);
  return out;
}

}  // namespace clustersim
