#include "sim/report/trace.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace clustersim {

namespace {

using nlohmann::json;

constexpr double kUs = 1e6;  // trace timestamps are microseconds

struct Event {
  int pid = 0, tid = 0;
  double ts = 0;
  std::size_t seq = 0;
  json j;
};

class Builder {
 public:
  void meta(int pid, int tid, const char* what, const std::string& name, int sort_index) {
    add(pid, tid, -1.0, {{"ph", "M"}, {"name", what}, {"args", {{"name", name}}}});
    add(pid, tid, -1.0, {{"ph", "M"}, {"name", std::string(what) + "_sort_index"}, {"args", {{"sort_index", sort_index}}}});
  }
  void slice(int pid, int tid, double t0, double dur, const std::string& name, const char* cat, json args) {
    if (dur <= 0) return;
    add(pid, tid, t0, {{"ph", "X"}, {"name", name}, {"cat", cat}, {"dur", dur * kUs}, {"args", std::move(args)}});
  }
  void arrow(int pid, int tid_from, double t_from, int tid_to, double t_to, std::size_t id) {
    add(pid, tid_from, t_from, {{"ph", "s"}, {"name", "PP send"}, {"cat", "PP"}, {"id", id}});
    add(pid, tid_to, t_to, {{"ph", "f"}, {"bp", "e"}, {"name", "PP send"}, {"cat", "PP"}, {"id", id}});
  }
  void counter(int pid, const std::string& name, double t, double v) {
    add(pid, 0, t, {{"ph", "C"}, {"name", name}, {"args", {{"utilisation", v}}}});
  }
  json finish() {
    std::stable_sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) {
      if (a.pid != b.pid) return a.pid < b.pid;
      if (a.tid != b.tid) return a.tid < b.tid;
      if (a.ts != b.ts) return a.ts < b.ts;
      return a.seq < b.seq;
    });
    json list = json::array();
    for (Event& e : events_) list.push_back(std::move(e.j));
    return {{"traceEvents", std::move(list)}, {"displayTimeUnit", "ms"}};
  }

 private:
  void add(int pid, int tid, double t, json j) {
    const double ts = t < 0 ? 0.0 : t * kUs;
    j["pid"] = pid;
    j["tid"] = tid;
    j["ts"] = ts;
    events_.push_back({pid, tid, t < 0 ? -1.0 : ts, events_.size(), std::move(j)});
  }
  std::vector<Event> events_;
};

const char* kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::forward: return "forward";
    case NodeKind::backward: return "backward";
    case NodeKind::backward_input: return "backward_input";
    case NodeKind::backward_weight: return "backward_weight";
    case NodeKind::dp_sync: return "DP gradient sync";
    case NodeKind::optimizer: return "optimizer";
  }
  return "?";
}

int compute_tid(int stage) { return 3 * stage + 1; }
int pp_tid(int stage) { return 3 * stage + 2; }
int dp_tid(int stage) { return 3 * stage + 3; }

// An op's slices: recompute, its kernels, then its exposed communication, scaled to the simulated span.
void op_slices(Builder& b, int pid, const StepGraph& g, const StepNode& n, const NodeTiming& t) {
  const int tid = compute_tid(n.stage);
  const json args = {{"microbatch", n.microbatch}, {"chunk", n.chunk}};
  const double span = (t.end - t.start).value();
  if (n.cost < 0) {
    b.slice(pid, tid, t.start.value(), span, kind_name(n.kind), "compute", args);
    return;
  }
  const OpCost& c = g.costs[static_cast<std::size_t>(n.cost)];
  const double nominal = c.duration().value();
  const double k = nominal > 0 ? span / nominal : 0.0;
  double at = t.start.value();
  auto put = [&](Seconds d, const std::string& name, const char* cat) {
    b.slice(pid, tid, at, d.value() * k, name, cat, args);
    at += d.value() * k;
  };
  put(c.recompute, "recompute", "compute");
  put(c.compute - c.recompute, kind_name(n.kind), "compute");
  put(c.tp_comm, "TP", "TP");
  put(c.cp_comm, "CP", "CP");
  put(c.dp_comm, "DP", "DP");
}

}  // namespace

json trace_json(const std::vector<TraceJob>& jobs, const std::vector<TraceCounter>& counters) {
  Builder b;
  std::size_t arrow_id = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const Scenario& s = *jobs[j].scenario;
    const StepGraph& g = *jobs[j].graph;
    const StepResult& r = *jobs[j].step;
    const int pid = static_cast<int>(j) + 1;
    b.meta(pid, 0, "process_name", fmt::format("{} ({} engine)", s.name, r.engine), pid);
    const int stride = s.parallelism.tp * s.parallelism.cp * s.parallelism.dp;
    for (int st = 0; st < s.parallelism.pp; ++st) {
      const std::string dev = fmt::format("stage {} (rank {})", st, st * stride);
      b.meta(pid, compute_tid(st), "thread_name", dev + " compute", compute_tid(st));
      b.meta(pid, pp_tid(st), "thread_name", dev + " PP receives", pp_tid(st));
      b.meta(pid, dp_tid(st), "thread_name", dev + " DP channel", dp_tid(st));
    }
    for (std::size_t id = 0; id < g.nodes.size(); ++id) {
      const StepNode& n = g.nodes[id];
      const NodeTiming& t = r.timeline[id];
      if (n.kind == NodeKind::dp_sync) {
        b.slice(pid, dp_tid(n.stage), t.start.value(), (t.end - t.start).value(), kind_name(n.kind), "DP",
                {{"chunk", n.chunk}});
        continue;
      }
      op_slices(b, pid, g, n, t);
      if (n.dep >= 0 && n.dep_delay.value() > 0) {
        const StepNode& from = g.nodes[static_cast<std::size_t>(n.dep)];
        const double sent = r.timeline[static_cast<std::size_t>(n.dep)].end.value();
        b.slice(pid, pp_tid(n.stage), sent, n.dep_delay.value(), "PP", "PP",
                {{"from_stage", from.stage}, {"microbatch", n.microbatch}, {"chunk", n.chunk}});
        b.arrow(pid, compute_tid(from.stage), sent - 1e-9, pp_tid(n.stage), sent, arrow_id++);
      }
    }
  }
  if (!counters.empty()) {
    const int pid = static_cast<int>(jobs.size()) + 1;
    b.meta(pid, 0, "process_name", "fabric links (utilisation)", pid);
    for (const TraceCounter& c : counters) {
      for (const auto& [t, v] : c.points) b.counter(pid, c.name, t, v);
    }
  }
  return b.finish();
}

}  // namespace clustersim
