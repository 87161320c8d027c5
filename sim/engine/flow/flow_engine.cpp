#include "sim/engine/flow/flow_engine.hpp"

#include <algorithm>
#include <unordered_map>
#include <cstring>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include "sim/core/diagnostics.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/collectives/parameter_server.hpp"
#include "sim/engine/flow/child_process.hpp"
#include "sim/engine/flow/flow_replay.hpp"
#include "sim/engine/flow/scenario_options.hpp"
#include "sim/engine/flow/simgrid_engine.hpp"
#include "sim/engine/flow/simgrid_platform.hpp"
#include "sim/graph/step_graph.hpp"

namespace clustersim::flow {

namespace {

// --- the child's result on the wire: counts followed by raw doubles (same machine, same layout) ---
void put(const ChildWriter& w, double v) {
  w(&v, sizeof v);
}
void put_vec(const ChildWriter& w, const std::vector<double>& v) {
  put(w, static_cast<double>(v.size()));
  if (!v.empty()) w(v.data(), v.size() * sizeof(double));
}

struct Reader {
  const std::string& s;
  std::size_t pos = 0;
  double get() {
    CS_ASSERT(pos + sizeof(double) <= s.size(), "truncated flow engine result");
    double v;
    std::memcpy(&v, s.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
  std::vector<double> get_vec() {
    const auto n = static_cast<std::size_t>(get());
    std::vector<double> v(n);
    CS_ASSERT(pos + n * sizeof(double) <= s.size(), "truncated flow engine result");
    if (n > 0) std::memcpy(v.data(), s.data() + pos, n * sizeof(double));
    pos += n * sizeof(double);
    return v;
  }
};

// The cluster's fabric plus each job's dedicated parameter servers (their first endpoint per job in
// `server_base`, -1 for jobs without).
FabricLayout make_layout(const ClusterSpec& cluster, const std::vector<FlowJob>& jobs, const FlowOptions& options,
                         std::vector<int>* server_base = nullptr) {
  // A derived torus maps the first job's TP group onto whole dimensions, as its analytic cost does.
  FabricLayout layout = FabricLayout::of(cluster, options.leaf_nodes, jobs.front().scenario->parallelism.tp);
  for (const FlowJob& j : jobs) {
    const DpModeSpec& d = j.scenario->parallelism.data_parallel;
    int base = -1;
    if (d.uses_servers() && d.placement == ServerPlacement::dedicated) {
      const PsShape shape = ps_shape(*j.scenario, 1.0);
      base = layout.add_servers(d.servers, shape.server_nic, shape.latency);
    }
    if (server_base != nullptr) server_base->push_back(base);
  }
  for (const LinkStraggler& l : options.slow_links) {
    if (!layout.scale_link(l.link, l.factor)) {
      throw ConfigError(
          l.file, l.pointer,
          fmt::format("no link named \"{}\" in this cluster's {} fabric (names as in the contention "
                      "report, e.g. \"{}\" or \"{}\")",
                      l.link, layout.topology() != nullptr ? "topology" : "two-level",
                      layout.links().front().name, layout.links().back().name));
    }
  }
  return layout;
}

void simulate_in_child(const ClusterSpec& cluster, const std::vector<FlowJob>& jobs,
                       const std::vector<StepGraph>& graphs, const FlowOptions& options,
                       const ChildWriter& w) {
  SimgridEngine engine;
  std::vector<int> server_base;
  const FabricLayout layout = make_layout(cluster, jobs, options, &server_base);
  std::vector<double> speed(static_cast<std::size_t>(layout.devices()), 1.0);
  for (const DeviceStraggler& d : options.slow_devices) speed[static_cast<std::size_t>(d.device)] = d.speed;
  std::vector<ReplayJob> rjobs;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    rjobs.push_back(
        {jobs[j].scenario, &graphs[j], RankLayout(jobs[j].scenario->parallelism, jobs[j].devices),
         server_base[j]});
  }
  FlowReplay replay(layout, std::move(rjobs), options);
  std::unique_ptr<const SimgridPlatform> platform;
  if (replay.uses_simgrid()) {
    platform = std::make_unique<const SimgridPlatform>(
        layout, speed, layout.topology() != nullptr ? replay.flow_pairs() : std::vector<std::pair<int, int>>{});
  }
  const ReplayOutput out = replay.run(platform.get());
  put(w, out.end_time);
  for (const auto& tl : out.timelines) {
    std::vector<double> v;
    v.reserve(2 * tl.size());
    for (const NodeTiming& t : tl) {
      v.push_back(t.start.value());
      v.push_back(t.end.value());
    }
    put_vec(w, v);
  }
  put_vec(w, out.link_bytes);
  std::vector<double> flows;
  flows.reserve(5 * out.flows.size());
  for (const FlowRecord& f : out.flows) {
    flows.insert(flows.end(),
                 {static_cast<double>(f.src), static_cast<double>(f.dst), f.bytes, f.start, f.end});
  }
  put_vec(w, flows);
}

// The MoE all-to-alls ran as flows: an op's exposed expert-parallel time is what its replayed duration
// exceeds its other parts by (kernels, TP/CP/DP exposure), per stage and for the critical stage.
void replayed_ep_exposure(const StepGraph& g, StepResult& r) {
  if (g.moe_all_to_all.value() <= 0.0) return;
  for (std::size_t st = 0; st < r.stages.size() && st < g.order.size(); ++st) {
    Seconds ep(0);
    for (int id : g.order[st][0]) {
      const StepNode& node = g.nodes[static_cast<std::size_t>(id)];
      if (node.cost < 0 || node.kind == NodeKind::optimizer) continue;
      const OpCost& c = g.costs[static_cast<std::size_t>(node.cost)];
      const NodeTiming& t = r.timeline[static_cast<std::size_t>(id)];
      const Seconds extra = (t.end - t.start) - (node.duration - c.ep_comm);
      if (extra.value() > 1e-9) ep += extra;  // below 1 ns: rounding of the replay's clock
    }
    r.stages[st].ep_exposed = ep;
  }
  r.comm_exposed.ep = r.stages[static_cast<std::size_t>(r.critical_stage)].ep_exposed;
}

std::string directed_name(const FabricLayout& layout, int dl) {
  return layout.links()[static_cast<std::size_t>(dl / 2)].name + (dl % 2 == 0 ? "/up" : "/down");
}

void add_contention(const FabricLayout& layout, const std::vector<double>& link_bytes,
                    const std::vector<double>& flows, FlowRun& run) {
  const double T = run.simulated_time;
  std::vector<LinkUse> all;
  for (std::size_t dl = 0; dl < link_bytes.size(); ++dl) {
    if (link_bytes[dl] <= 0) continue;
    const FabricLink& l = layout.links()[dl / 2];
    // A half-duplex link's bandwidth is shared by both directions: its use is their sum.
    const double carried =
        l.half_duplex ? link_bytes[dl - dl % 2] + link_bytes[dl - dl % 2 + 1] : link_bytes[dl];
    const double util = T > 0 ? carried / (l.bandwidth.value() * T) : 0.0;
    all.push_back({directed_name(layout, static_cast<int>(dl)), l.cls, link_bytes[dl], util});
  }
  std::sort(all.begin(), all.end(), [](const LinkUse& a, const LinkUse& b) {
    if (a.cls != b.cls) return a.cls < b.cls;
    if (a.utilisation != b.utilisation) return a.utilisation > b.utilisation;
    return a.link < b.link;
  });
  std::map<LinkClass, int> taken;
  for (const LinkUse& u : all) {
    if (taken[u.cls]++ < run.options.busiest_links) run.busiest.push_back(u);
  }
  // Counter tracks: the busiest links overall, utilisation from each flow's mean rate over its lifetime.
  std::vector<LinkUse> top = run.busiest;
  std::sort(top.begin(), top.end(), [](const LinkUse& a, const LinkUse& b) {
    return a.utilisation != b.utilisation ? a.utilisation > b.utilisation : a.link < b.link;
  });
  top.resize(std::min<std::size_t>(top.size(), static_cast<std::size_t>(run.options.busiest_links)));
  std::map<std::string, std::size_t> index;
  std::map<int, std::size_t> by_link;
  for (std::size_t i = 0; i < top.size(); ++i) {
    run.counters.push_back({top[i].link, {}});
    index[top[i].link] = i;
  }
  for (std::size_t dl = 0; dl < link_bytes.size(); ++dl) {
    const auto it = index.find(directed_name(layout, static_cast<int>(dl)));
    if (it != index.end()) by_link[static_cast<int>(dl)] = it->second;
  }
  std::vector<std::vector<std::pair<double, double>>> deltas(top.size());
  for (std::size_t i = 0; i + 4 < flows.size(); i += 5) {
    const int src = static_cast<int>(flows[i]), dst = static_cast<int>(flows[i + 1]);
    const double bytes = flows[i + 2], start = flows[i + 3], end = flows[i + 4];
    if (end <= start) continue;
    for (DirectedLink dl : layout.route(src, dst).links) {
      const auto it = by_link.find(dl);
      if (it == by_link.end()) continue;
      const double util =
          bytes / (end - start) / layout.links()[static_cast<std::size_t>(dl / 2)].bandwidth.value();
      deltas[it->second].push_back({start, util});
      deltas[it->second].push_back({end, -util});
    }
  }
  for (std::size_t i = 0; i < top.size(); ++i) {
    auto& d = deltas[i];
    std::sort(d.begin(), d.end());
    double level = 0;
    auto& pts = run.counters[i].points;
    pts.push_back({0.0, 0.0});
    for (std::size_t k = 0; k < d.size(); ++k) {
      level += d[k].second;
      if (k + 1 < d.size() && d[k + 1].first == d[k].first) continue;
      pts.push_back({d[k].first, std::max(0.0, std::min(1.0, level))});
    }
  }
}

// On a torus the TP / CP / FSDP collectives inside the ops ran as flows (JobTraffic::op_comm): what an op's
// replayed duration exceeds its analytic duration by is their contention, split over the three kinds by
// their share of the op's collective time (exposed + hidden), per stage and for the critical stage. Ops
// with MoE all-to-alls keep replayed_ep_exposure's reading. A slow device (stragglers.devices) stretches its
// stage's kernels by 1/speed of the slowest: that part of the stretch is compute, not communication, and is
// taken off first (kernels = the op's duration less its exposed collectives).
void replayed_op_comm_exposure(const FlowJob& job, const FlowOptions& options, const StepGraph& g,
                               StepResult& r) {
  const Scenario& s = *job.scenario;
  if (s.cluster.network.topology != "torus") return;
  std::vector<double> slowest(r.stages.size(), 1.0);  // per stage: the slowest device's speed
  if (!options.slow_devices.empty()) {
    std::unordered_map<int, double> speed;
    for (const DeviceStraggler& d : options.slow_devices) speed[d.device] = d.speed;
    const RankLayout lay(s.parallelism, job.devices);
    for (int st = 0; st < lay.stages() && static_cast<std::size_t>(st) < slowest.size(); ++st) {
      for (int q = 0; q < lay.replicas(); ++q) {
        for (int t = 0; t < lay.tp(); ++t) {
          const auto it = speed.find(lay.device(st, q, t));
          if (it != speed.end())
            slowest[static_cast<std::size_t>(st)] = std::min(slowest[static_cast<std::size_t>(st)], it->second);
        }
      }
    }
  }
  for (std::size_t st = 0; st < r.stages.size() && st < g.order.size(); ++st) {
    StageSummary& ss = r.stages[st];
    for (int id : g.order[st][0]) {
      const StepNode& node = g.nodes[static_cast<std::size_t>(id)];
      if (node.cost < 0 || node.kind == NodeKind::optimizer) continue;
      const OpCost& c = g.costs[static_cast<std::size_t>(node.cost)];
      if (c.ep_passes > 0) continue;
      const NodeTiming& t = r.timeline[static_cast<std::size_t>(id)];
      const Seconds kernels = max(Seconds(0), node.duration - (c.tp_comm + c.cp_comm + c.dp_comm + c.offload));
      const Seconds extra = (t.end - t.start) - node.duration - kernels * (1.0 / slowest[st] - 1.0);
      const double tp = (c.tp_comm + c.tp_hidden).value(), cp = (c.cp_comm + c.cp_hidden).value(),
                   dp = (c.dp_comm + c.dp_hidden).value();
      const double all = tp + cp + dp;
      if (extra.value() <= 1e-9 || all <= 0) continue;  // below 1 ns: rounding of the replay's clock
      ss.tp_exposed += extra * (tp / all);
      ss.cp_exposed += extra * (cp / all);
      ss.dp_exposed += extra * (dp / all);
    }
  }
  const StageSummary& crit = r.stages[static_cast<std::size_t>(r.critical_stage)];
  r.comm_exposed.tp = crit.tp_exposed;
  r.comm_exposed.cp = crit.cp_exposed;
  r.comm_exposed.dp = crit.dp_exposed;
}

}  // namespace

FlowRun run_flow_jobs(const ClusterSpec& cluster, const std::vector<FlowJob>& jobs,
                      const FlowOptions& options) {
  CS_ASSERT(!jobs.empty(), "a flow run has at least one job");
  std::vector<StepGraph> graphs;
  for (const FlowJob& j : jobs) graphs.push_back(build_step_graph(*j.scenario));
  const FabricLayout layout = make_layout(cluster, jobs, options);  // validates straggler names in the parent
  for (const DeviceStraggler& d : options.slow_devices) {
    CS_ASSERT(d.device >= 0 && d.device < layout.devices() && d.speed > 0 && d.speed <= 1,
              "sim/config keeps straggler devices in [0, devices) and speeds in (0, 1]");
  }
  const std::string bytes =
      run_in_child([&](const ChildWriter& w) { simulate_in_child(cluster, jobs, graphs, options, w); });
  Reader r{bytes};
  FlowRun run;
  run.options = options;
  run.fabric = layout.topology() != nullptr
                   ? "topology: " +
                         (layout.slices() > 1
                              ? fmt::format("{} slices joined by the DCN ({:.3g} GB/s per host) of ", layout.slices(),
                                            cluster.network.dcn.bandwidth.value() / 1e9)
                              : std::string()) +
                         layout.topology()->model().graph().description()
                   : fmt::format("two-level (leaf groups of {} nodes)", layout.leaf_nodes());
  run.simulated_time = r.get();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const std::vector<double> v = r.get_vec();
    CS_ASSERT(v.size() == 2 * graphs[j].nodes.size(), "one timing per graph node");
    std::vector<NodeTiming> tl(graphs[j].nodes.size());
    for (std::size_t i = 0; i < tl.size(); ++i) tl[i] = {Seconds(v[2 * i]), Seconds(v[2 * i + 1])};
    run.steps.push_back(summarize_step(*jobs[j].scenario, graphs[j], std::move(tl), "flow"));
    replayed_ep_exposure(graphs[j], run.steps.back());
    replayed_op_comm_exposure(jobs[j], options, graphs[j], run.steps.back());
  }
  const std::vector<double> link_bytes = r.get_vec();
  const std::vector<double> flows = r.get_vec();
  run.flows = static_cast<long long>(flows.size() / 5);
  add_contention(layout, link_bytes, flows, run);
  return run;
}

FlowRun run_flow(const Scenario& s, const FlowOptions& options) {
  return run_flow_jobs(s.cluster, {FlowJob{&s, {}}}, options);
}

StepResult run_flow_step(const Scenario& s) {
  return run_flow(s, flow_options_for(s)).steps.front();
}

}  // namespace clustersim::flow
