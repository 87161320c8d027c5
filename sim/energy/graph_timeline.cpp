#include "sim/energy/graph_timeline.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <iterator>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "sim/core/diagnostics.hpp"

namespace clustersim {
namespace {

// Calls f(start, end, state) for the intervals of [t.start, t.end] split in the proportions of its OpCost.
template <class F>
void split_op(const NodeTiming& t, const OpCost& c, F&& f) {
  const Seconds memory_bound = c.compute - c.compute_bound;
  const Seconds comm = c.tp_comm + c.cp_comm + c.dp_comm + c.pp_comm;  // pp_comm: blocking pipeline transfers
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

// The data-parallel channel's busy intervals of stage `st`, clamped to the step, empty ones dropped; null
// when they are not in order (the callers then resolve the general way). One buffer per thread, valid until
// the next call on that thread.
const std::vector<std::pair<double, double>>* dp_intervals(const StepGraph& g, const std::vector<NodeTiming>& timing,
                                                          std::size_t st, double end_of_step) {
  static thread_local std::vector<std::pair<double, double>> dp;
  dp.clear();
  for (int id : g.order[st][static_cast<std::size_t>(Resource::dp_channel)]) {
    const NodeTiming& t = timing[static_cast<std::size_t>(id)];
    const double a = std::clamp(t.start.value(), 0.0, end_of_step);
    const double b = std::clamp(t.end.value(), 0.0, end_of_step);
    if (b <= a) continue;
    if (!dp.empty() && a < dp.back().second) return nullptr;
    dp.emplace_back(a, b);
  }
  return &dp;
}

// The cover of one stage by merging its two ordered streams: the compute stream (whose states all take
// precedence over communication) and the data-parallel channel (communication). Time in neither is
// waiting. Returns false, leaving `out` unspecified, when a stream is not in order (the caller then
// resolves the general way).
template <class Writer>
bool merge_streams_into(const StepGraph& g, const std::vector<NodeTiming>& timing, std::size_t st,
                        double end_of_step, Writer& w) {
  const std::vector<std::pair<double, double>>* dp_in_order = dp_intervals(g, timing, st, end_of_step);
  if (dp_in_order == nullptr) return false;
  const std::vector<std::pair<double, double>>& dp = *dp_in_order;
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

bool merge_streams(const StepGraph& g, const std::vector<NodeTiming>& timing, std::size_t st,
                   double end_of_step, std::vector<StateInterval>& out) {
  CoverWriter w(out);
  return merge_streams_into(g, timing, st, end_of_step, w);
}

// Per cost: the op's split (split_op) as fractions of its length: compute-bound, memory-bound, the rest
// communication; `whole` when the cost has no positive total (the op is all compute).
struct OpSplit {
  double compute = 0, memory = 0;
  bool whole = true;
};

// One position's scan input (what stage_totals reads of a node).
inline void make_input(const StepNode& node, const NodeTiming& t, int id, const std::vector<OpSplit>& splits,
                       StageScanInput& x) {
  x.t0 = t.start.value();
  x.t1 = t.end.value();
  x.id = id;
  x.cost = node.cost;
  if (node.kind == NodeKind::optimizer) {
    x.delay = x.compute = x.memory = 0.0;
    x.mode = 0;
    return;
  }
  x.delay = node.dep_delay.value();
  const OpSplit* sp = node.cost >= 0 ? &splits[static_cast<std::size_t>(node.cost)] : nullptr;
  if (sp == nullptr || sp->whole) {
    x.compute = x.memory = 0.0;
    x.mode = 1;
  } else {
    x.compute = sp->compute;
    x.memory = sp->memory;
    x.mode = 2;
  }
}

inline bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// Whether position `k`'s input (`x`, written by make_input for the previous call) is what make_input would
// write now, read off the node and its timing without forming the input: the same node, times and delay
// (bit for bit: a -0.0 is not a 0.0 here) and the same cost index, whose split the caller has checked to
// be unchanged.
inline bool same_input(const StepNode& node, const NodeTiming& t, int id, const StageScanInput& x) {
  if (x.id != id || !same_bits(x.t0, t.start.value()) || !same_bits(x.t1, t.end.value())) return false;
  if (node.kind == NodeKind::optimizer) return x.mode == 0;
  return x.mode != 0 && x.cost == node.cost && same_bits(x.delay, node.dep_delay.value());
}

// Writes the scan inputs of stage `st`'s compute stream into `inputs`, one per position. With `compare`
// (the op splits are those of the call that wrote `inputs`), the positions whose input equals the one
// already there are only read; returns the first position that differed (inputs.size() afterwards when
// none did and the length is the same).
std::size_t update_inputs(const StepGraph& g, const std::vector<NodeTiming>& timing, std::size_t st,
                          const std::vector<OpSplit>& splits, std::vector<StageScanInput>& inputs, bool compare) {
  const std::vector<int>& order = g.order[st][static_cast<std::size_t>(Resource::compute)];
  const std::size_t n = order.size();
  const StepNode* nodes = g.nodes.data();
  const NodeTiming* times = timing.data();
  std::size_t k = 0;
  if (compare) {
    const std::size_t same_length = std::min(n, inputs.size());
    for (; k < same_length; ++k) {
      const auto id = static_cast<std::size_t>(order[k]);
      if (!same_input(nodes[id], times[id], order[k], inputs[k])) break;
    }
  }
  const std::size_t first_change = k;
  inputs.resize(n);
  for (; k < n; ++k) {
    const auto id = static_cast<std::size_t>(order[k]);
    make_input(nodes[id], times[id], order[k], splits, inputs[k]);
  }
  return first_change;
}

// The state from which stage `st`'s scan can resume: the memo's last checkpoint taken before the first
// position whose input changed, before the first instant at which the data-parallel intervals changed
// (the scan reads an interval only once its start lies before a compute interval's), and before any
// time the previous or the new step end clamps. Index 0 (the start) when nothing can be reused.
// `p` is the first position whose input changed (update_inputs).
std::size_t resume_checkpoint(const StageScanMemo& memo, std::size_t p,
                              const std::vector<std::pair<double, double>>& dp, double end_of_step,
                              const std::array<bool, kDeviceStateCount>& is_top, std::size_t top_size) {
  if (!memo.valid || memo.checkpoints.empty() || memo.is_top != is_top || top_size != memo.top_size) return 0;
  std::size_t m = 0;
  const std::size_t nd = std::min(dp.size(), memo.dp.size());
  while (m < nd && std::memcmp(&dp[m], &memo.dp[m], sizeof(dp[m])) == 0) ++m;
  double dp_changes = std::numeric_limits<double>::infinity();
  if (m < dp.size()) dp_changes = dp[m].first;
  if (m < memo.dp.size()) dp_changes = std::min(dp_changes, memo.dp[m].first);
  const double clamp_at = std::min(end_of_step, memo.end_of_step);
  std::size_t c = std::min(p / kStageScanCheckpointEvery, memo.checkpoints.size() - 1);
  while (c > 0 && (memo.checkpoints[c].cursor > dp_changes || memo.checkpoints[c].seen > clamp_at)) --c;
  return c;
}

// What merge_streams gives for stage `st`, summed instead of stored: the same intervals and emits in the
// same order with the same arithmetic (op splits read from the inputs, the open segment kept in locals, a
// segment's end - start added to its state's total as it closes, as activity_of adds it), so the same
// totals to the bit (tests/energy compare); `top` gets the closed segments of a largest-power state.
//
// Memoised prefix (the technique is memoisation, Michie, "Memo functions and machine learning", Nature 218,
// 1968): the scan is a deterministic function of the stage's inputs in position order, the data-parallel
// intervals it has read and the step end wherever it clamped; `memo` keeps the last call's inputs and the
// scan state every kStageScanCheckpointEvery positions, and a call resumes from the last state none of
// whose inputs changed (resume_checkpoint), so it computes what a scan from the start would, to the bit.
// `time` is overwritten; `top` must hold what the previous call on this memo left in it.
bool stage_totals(const StepGraph& g, const std::vector<NodeTiming>& timing, std::size_t st, double end_of_step,
                  const std::vector<OpSplit>& splits, const std::array<bool, kDeviceStateCount>& is_top,
                  PerState<Seconds>& time, std::vector<std::pair<double, double>>& top, StageScanMemo& memo,
                  bool use_memo, bool splits_unchanged, std::size_t& rescanned) {
  const std::vector<std::pair<double, double>>* dp_in_order = dp_intervals(g, timing, st, end_of_step);
  if (dp_in_order == nullptr) {
    memo.valid = false;
    return false;
  }
  const std::vector<std::pair<double, double>>& dp = *dp_in_order;
  // The memo's inputs become this call's (the memo is invalid until the scan completes).
  const bool compare = use_memo && splits_unchanged && memo.valid;
  const std::size_t first_change = update_inputs(g, timing, st, splits, memo.inputs, compare);
  const std::size_t c = compare ? resume_checkpoint(memo, first_change, dp, end_of_step, is_top, top.size()) : 0;
  StageScanState state;
  if (c > 0) state = memo.checkpoints[c];
  memo.checkpoints.resize(c);
  memo.valid = false;
  top.resize(state.top_size);
  double total[kDeviceStateCount];
  for (std::size_t k = 0; k < kDeviceStateCount; ++k) total[k] = state.total[k];
  bool open = state.open;
  double oa = state.oa, ob = state.ob;
  std::size_t os = state.os;
  const auto emit = [&](double a, double b, std::size_t s) {
    if (b <= a) return;
    if (open && os == s && ob == a) {
      ob = b;
      return;
    }
    if (open) {
      total[os] += ob - oa;
      if (is_top[os]) top.emplace_back(oa, ob);
    }
    open = true;
    oa = a;
    ob = b;
    os = s;
  };
  constexpr std::size_t kCompute = state_index(DeviceState::compute);
  constexpr std::size_t kMemory = state_index(DeviceState::memory);
  constexpr std::size_t kComm = state_index(DeviceState::communication);
  constexpr std::size_t kWaiting = state_index(DeviceState::waiting);
  double cursor = state.cursor;
  std::size_t j = state.j;
  const auto fill_gap = [&](double until) {
    while (j < dp.size() && dp[j].first < until) {
      const double c0 = std::max(dp[j].first, cursor);
      const double d = std::min(dp[j].second, until);
      if (d > c0) {
        emit(cursor, c0, kWaiting);
        emit(c0, d, kComm);
        cursor = d;
      }
      if (dp[j].second > until) break;
      ++j;
    }
    emit(cursor, until, kWaiting);
    cursor = std::max(cursor, until);
  };
  bool ordered = true;
  // One compute-stream interval, as merge_streams_into's callback takes it.
  double seen = state.seen;
  const auto take = [&](double start, double end, std::size_t s) {
    seen = std::max(seen, std::max(start, end));
    const double a = std::clamp(start, 0.0, end_of_step);
    const double b = std::clamp(end, 0.0, end_of_step);
    if (b <= a || !ordered) return;
    if (a < cursor) {
      ordered = false;
      return;
    }
    fill_gap(a);
    emit(a, b, s);
    cursor = b;
  };
  double prev_end = state.prev_end;
  // A node's intervals are collected first and taken in one loop (one call site, so `take` is inlined).
  struct Piece {
    double a, b;
    std::size_t s;
  };
  Piece pieces[4];
  const StageScanInput* in = memo.inputs.data();
  const std::size_t positions = memo.inputs.size();
  for (std::size_t k = state.position; k < positions; ++k) {
    if (use_memo && k % kStageScanCheckpointEvery == 0) {
      // The state before position k (only states of an ordered scan are kept; an unordered one fails).
      StageScanState& cp = memo.checkpoints.emplace_back();
      for (std::size_t q = 0; q < kDeviceStateCount; ++q) cp.total[q] = total[q];
      cp.oa = oa;
      cp.ob = ob;
      cp.cursor = cursor;
      cp.prev_end = prev_end;
      cp.seen = seen;
      cp.os = os;
      cp.j = j;
      cp.top_size = top.size();
      cp.position = k;
      cp.open = open;
    }
    const StageScanInput& x = in[k];
    const double t0 = x.t0;
    const double t1 = x.t1;
    int n = 0;
    if (x.mode == 0) {
      pieces[n++] = {t0, t1, kMemory};
    } else {
      const double pp = std::min(std::max(0.0, t0 - prev_end), x.delay);
      if (pp > 0.0) pieces[n++] = {t0 - pp, t0, kComm};
      if (x.mode == 1) {
        pieces[n++] = {t0, t1, kCompute};
      } else {
        const double length = t1 - t0;
        const double n0 = t0 + length * x.compute;
        if (n0 > t0) pieces[n++] = {t0, n0, kCompute};
        const double n1 = n0 + length * x.memory;
        if (n1 > n0) pieces[n++] = {n0, n1, kMemory};
        if (t1 > n1) pieces[n++] = {n1, t1, kComm};
      }
      prev_end = t1;
    }
    for (int q = 0; q < n; ++q) take(pieces[q].a, pieces[q].b, pieces[q].s);
    if (!ordered) return false;
  }
  rescanned += positions - state.position;
  fill_gap(end_of_step);
  if (open) {
    total[os] += ob - oa;
    if (is_top[os]) top.emplace_back(oa, ob);
  }
  for (DeviceState s : kAllDeviceStates) time[s] = Seconds(total[state_index(s)]);
  if (use_memo) {
    memo.dp.assign(dp.begin(), dp.end());
    memo.end_of_step = end_of_step;
    memo.is_top = is_top;
    memo.top_size = top.size();
    memo.valid = !memo.checkpoints.empty();
  }
  return true;
}

// Whether one instant lies in a segment of every list (each sorted, disjoint, half-open [a, b)). Such
// an instant can be taken as the latest of those segments' starts, itself a segment start.
bool common_instant(const std::vector<std::vector<std::pair<double, double>>>& lists) {
  if (lists.empty()) return false;
  static thread_local std::vector<std::size_t> at;
  at.assign(lists.size(), 0);
  for (const auto& l : lists) {
    if (l.empty()) return false;
  }
  while (true) {
    double t = lists[0][at[0]].first;
    for (std::size_t d = 1; d < lists.size(); ++d) t = std::max(t, lists[d][at[d]].first);
    bool all = true;
    for (std::size_t d = 0; d < lists.size(); ++d) {
      const auto& l = lists[d];
      std::size_t& i = at[d];
      // First segment ending after t (binary search: t jumps far while the pipeline fills).
      i = static_cast<std::size_t>(
          std::partition_point(l.begin() + static_cast<std::ptrdiff_t>(i), l.end(),
                               [t](const std::pair<double, double>& x) { return x.second <= t; }) -
          l.begin());
      if (i == l.size()) return false;
      all = all && l[i].first <= t;
    }
    if (all) return true;
  }
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

bool timeline_totals(const StepGraph& g, const std::vector<NodeTiming>& timing, Seconds step_time,
                     int devices_per_stage, const PerState<Watts>& power, TimelineTotals& out) {
  CS_ASSERT(timing.size() == g.nodes.size(), "timeline does not match the graph");
  CS_ASSERT(step_time.value() > 0.0 && devices_per_stage > 0, "step time and stage size must be positive");
  const std::size_t stages = g.order.size();
  double pmax = 0.0;
  for (DeviceState s : kAllDeviceStates) pmax = std::max(pmax, power[s].value());
  std::array<bool, kDeviceStateCount> is_top{};
  for (DeviceState s : kAllDeviceStates) is_top[state_index(s)] = power[s].value() == pmax;
  static thread_local std::vector<OpSplit> splits;
  splits.resize(g.costs.size());
  for (std::size_t k = 0; k < g.costs.size(); ++k) {
    // split_op's arithmetic: parts over their total, in Seconds as there.
    const OpCost& c = g.costs[k];
    const Seconds memory_bound = c.compute - c.compute_bound;
    const Seconds comm = c.tp_comm + c.cp_comm + c.dp_comm + c.pp_comm;  // pp_comm: blocking pipeline transfers
    const Seconds sum = c.compute_bound + memory_bound + comm;
    OpSplit& x = splits[k];
    x.whole = sum.value() <= 0.0;
    x.compute = x.whole ? 0.0 : c.compute_bound / sum;
    x.memory = x.whole ? 0.0 : memory_bound / sum;
  }
  // The memo's inputs hold splits by cost index: usable only when every split is what it was.
  bool same_splits = out.memo_splits.size() == 3 * splits.size();
  for (std::size_t k = 0; same_splits && k < splits.size(); ++k) {
    same_splits = same_bits(out.memo_splits[3 * k], splits[k].compute) &&
                  same_bits(out.memo_splits[3 * k + 1], splits[k].memory) &&
                  out.memo_splits[3 * k + 2] == (splits[k].whole ? 1.0 : 0.0);
  }
  if (!same_splits) {
    // Every stage's inputs were written with other splits (also those a failed call did not reach).
    for (StageScanMemo& m : out.memo) m.valid = false;
    out.memo_splits.resize(3 * splits.size());
    for (std::size_t k = 0; k < splits.size(); ++k) {
      out.memo_splits[3 * k] = splits[k].compute;
      out.memo_splits[3 * k + 1] = splits[k].memory;
      out.memo_splits[3 * k + 2] = splits[k].whole ? 1.0 : 0.0;
    }
  }
  out.activity.step_time = step_time;
  out.activity.devices.resize(stages);
  out.top.resize(stages);
  out.memo.resize(stages);
  out.positions_rescanned = 0;
  for (std::size_t st = 0; st < stages; ++st) {
    RepresentativeActivity& rep = out.activity.devices[st];
    rep.name.clear();
    fmt::format_to(std::back_inserter(rep.name), "pp-stage-{}", st);
    rep.multiplicity = devices_per_stage;
    if (!stage_totals(g, timing, st, step_time.value(), splits, is_top, rep.time, out.top[st], out.memo[st],
                      out.memo_on, out.memo_on && same_splits, out.positions_rescanned))
      return false;
  }
  // Every representative in a state of the largest power at one instant: that instant's sum, taken in
  // representative order as timeline_device_power_peak takes it, bounds every other instant's.
  if (!common_instant(out.top)) return false;
  double sum = 0.0;
  for (std::size_t st = 0; st < stages; ++st) sum += pmax * devices_per_stage;
  out.device_power_peak = Watts(std::max(sum, 0.0));
  return true;
}

ResolvedTimeline resolved_timeline_of(const StepGraph& g, const std::vector<NodeTiming>& timing,
                                      Seconds step_time, int devices_per_stage) {
  ResolvedTimeline out;
  resolved_timeline_into(g, timing, step_time, devices_per_stage, out);
  return out;
}

}  // namespace clustersim
