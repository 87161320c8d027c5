#include "sim/engine/flow/flow_replay.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <unordered_map>

#include <simgrid/s4u.hpp>

#include "sim/core/diagnostics.hpp"
#include "sim/engine/flow/collective_phases.hpp"
#include "sim/engine/flow/ps_phases.hpp"
#include "sim/engine/flow/fluid_net.hpp"
#include "sim/engine/flow/job_traffic.hpp"

namespace clustersim::flow {

namespace sg4 = simgrid::s4u;

namespace {

// Static structure of one graph: successors of each node, computed once per job.
struct GraphLinks {
  std::vector<int> res_next;               // next node on the same resource (-1: none)
  std::vector<std::vector<int>> on_start;  // nodes whose data dependency is satisfied by this start
  std::vector<std::vector<int>> on_end;    // nodes whose data dependency is satisfied by this end
  std::vector<std::vector<int>> tails;     // overlapped syncs that end no earlier than this end + tail
  std::vector<int> preds;                  // unsatisfied predecessors at the beginning

  explicit GraphLinks(const StepGraph& g) {
    const std::size_t n = g.nodes.size();
    res_next.assign(n, -1);
    on_start.resize(n);
    on_end.resize(n);
    tails.resize(n);
    preds.assign(n, 0);
    for (const auto& stage : g.order) {
      for (const auto& ord : stage) {
        for (std::size_t i = 0; i + 1 < ord.size(); ++i) {
          res_next[static_cast<std::size_t>(ord[i])] = ord[i + 1];
          ++preds[static_cast<std::size_t>(ord[i + 1])];
        }
      }
    }
    for (std::size_t id = 0; id < n; ++id) {
      const StepNode& node = g.nodes[id];
      if (node.dep < 0) continue;
      ++preds[id];
      const auto d = static_cast<std::size_t>(node.dep);
      if (node.starts_with_dep) {
        on_start[d].push_back(static_cast<int>(id));
        tails[d].push_back(static_cast<int>(id));
      } else {
        on_end[d].push_back(static_cast<int>(id));
      }
    }
  }
};

struct NodeState {
  int waiting = 0;
  bool started = false, work_done = false, tail_done = true, finished = false;
  double start = 0, end = 0;
};

struct JobState {
  ReplayJob job;
  GraphLinks links;
  JobTraffic traffic;
  std::vector<int> instances;                 // simulated replicas
  std::vector<std::vector<NodeState>> state;  // per instance slot, per node
  std::vector<int> sync_arrivals;             // per node: instances that reached a gradient sync
  std::vector<double> stage_slowdown;         // per stage: rep speed / slowest device speed (reduced mode)

  std::vector<std::shared_ptr<const std::vector<FlowPhase>>> sync_phases;  // per dp_sync node with flows
  // MoE all-to-all flows of one layer pass, per stage, per instance slot (see moe_flows), and the
  // largest route latency among them (topology mode: the platform has no link latencies).
  std::vector<std::vector<std::vector<FlowSpec>>> a2a;
  std::vector<std::vector<double>> a2a_alpha;
  // Symmetry reduction: the pipeline flows between two stages (every replica's flows over shared links,
  // the representative's always) and their largest route α, built once per stage pair.
  struct Transfer {
    std::vector<FlowSpec> flows;
    Seconds alpha{0};
  };
  std::map<std::pair<int, int>, Transfer> transfers;
  // TP / CP / FSDP collectives inside the ops on a torus (JobTraffic::op_comm): per kind, per stage, per
  // instance slot, the unit collective's phases. Reduced: slot 0 holds every group of slice 0 (the other
  // slices run the same flows on their own copies of the torus at the same time). Unreduced: slot r holds
  // the flows its replica's devices send.
  std::array<std::vector<std::vector<std::vector<FlowPhase>>>, kOpCommKinds> op_comm;

  // `whole_fabric`: this job alone on the whole fabric. JobTraffic costs the op-level units and the
  // multi-slice sync on the job's own (derived) torus and slices; a job of a `jobs` run on part of the
  // fabric sees a smaller torus than the fabric's, so its op-level TP/CP/FSDP collectives and its
  // multi-slice sync stay timed waits (their flows, scaled to the job's analytic time, would not reproduce it).
  JobState(ReplayJob j, bool reduced, const FabricLayout& fabric, Fidelity fidelity, bool whole_fabric)
      : job(std::move(j)), links(*job.graph), traffic(*job.scenario, *job.graph) {
    sync_phases.resize(job.graph->nodes.size());
    const ClusterSpec& own = job.scenario->cluster;
    const bool derived_torus = own.network.topology == "torus" && !own.comm.topology;
    for (std::size_t id = 0; id < job.graph->nodes.size(); ++id) {
      const GradientSync& gs = traffic.gradient_sync(static_cast<int>(id));
      if (!gs.flows) continue;
      const int stage = job.graph->nodes[id].stage;
      if (gs.multislice && (fabric.slices() <= 1 || !whole_fabric)) continue;  // a timed wait
      // A derived torus is costed on the job's own torus (torus_mapped_cluster of its nodes), not the
      // fabric's: a job on part of it keeps its gradient sync a timed wait too.
      if (!whole_fabric && !gs.ps && derived_torus) continue;
      sync_phases[id] = std::make_shared<const std::vector<FlowPhase>>(
          gs.ps ? ps_phases(traffic.ps_shape(), job.layout, fabric, job.server_base)
          : gs.multislice
              ? multislice_phases(gs.slice_reduce_scatter, gs.slice_all_gather, gs.bytes,
                                  job.scenario->cluster.network.dcn.latency, job.layout, stage, fabric, fidelity)
          : fabric.topology() != nullptr
              ? topology_phases(gs.op, gs.bytes, job.layout, stage, fabric, fidelity)
              : collective_phases(gs.op, gs.bytes, job.layout, stage, traffic.two_level(), fidelity));
    }
    const int replicas = reduced ? 1 : job.layout.replicas();
    for (int r = 0; r < replicas; ++r) instances.push_back(r);
    state.assign(instances.size(), std::vector<NodeState>(job.graph->nodes.size()));
    for (auto& inst : state) {
      for (std::size_t id = 0; id < inst.size(); ++id) {
        inst[id].waiting = links.preds[id];
        inst[id].tail_done = !(job.graph->nodes[id].starts_with_dep && job.graph->nodes[id].dep >= 0);
      }
    }
    sync_arrivals.assign(job.graph->nodes.size(), 0);
    if (fabric.topology() != nullptr && whole_fabric) build_op_comm(reduced, fabric, fidelity);
    if (traffic.moe_traffic().ep > 1) {
      a2a.resize(static_cast<std::size_t>(job.layout.stages()));
      a2a_alpha.resize(a2a.size());
      for (int st = 0; st < job.layout.stages(); ++st) {
        for (std::size_t slot = 0; slot < instances.size(); ++slot) {
          double alpha = 0;
          a2a[static_cast<std::size_t>(st)].push_back(
              moe_flows(st, reduced ? -1 : instances[slot], fabric, alpha));
          a2a_alpha[static_cast<std::size_t>(st)].push_back(alpha);
        }
      }
    }
  }

  void build_op_comm(bool reduced, const FabricLayout& fabric, Fidelity fidelity) {
    const RankLayout& lay = job.layout;
    // The unit's groups are slice 0's; unreduced (or with a straggler link), every slice runs them
    // (replica j of slice k is replica k·per_slice + j), and unreduced each instance sends the flows of its
    // own devices.
    const int slices = fabric.slices() > 1 && lay.replicas() % fabric.slices() == 0 ? fabric.slices() : 1;
    const int per_slice = lay.replicas() / slices;
    // Reduced, slice 0 stands for every slice unless a straggler link breaks the symmetry.
    bool straggler_links = false;
    for (const FabricLink& l : fabric.links()) straggler_links = straggler_links || l.straggler;
    for (int k = 0; k < kOpCommKinds; ++k) {
      const OpCommUnit& u = traffic.op_comm(static_cast<OpCommKind>(k));
      if (!u.flows) continue;
      auto& per_stage = op_comm[static_cast<std::size_t>(k)];
      per_stage.resize(static_cast<std::size_t>(lay.stages()));
      for (int st = 0; st < lay.stages(); ++st) {
        std::vector<std::vector<int>> groups;
        for (int sl = 0; sl < (reduced && !straggler_links ? 1 : slices); ++sl) {
          for (const auto& g : u.groups) {
            std::vector<int> devs;
            for (int r : g) devs.push_back(lay.device(st, r / lay.tp() + sl * per_slice, r % lay.tp()));
            groups.push_back(std::move(devs));
          }
        }
        bool crossed = false;
        std::vector<FlowPhase> all = group_phases(u.op, u.bytes, groups, fabric, fidelity, &crossed);
        if (crossed) {  // a job placed across slices: this kind stays a timed wait
          per_stage.clear();
          break;
        }
        auto& slots = per_stage[static_cast<std::size_t>(st)];
        if (reduced) {
          slots.push_back(std::move(all));
          continue;
        }
        // Each flow goes to the instance whose device sends it.
        std::unordered_map<int, std::size_t> owner;
        for (std::size_t i = 0; i < instances.size(); ++i) {
          for (int t = 0; t < lay.tp(); ++t) owner[lay.device(st, instances[i], t)] = i;
        }
        slots.assign(instances.size(), std::vector<FlowPhase>(all.size()));
        for (std::size_t p = 0; p < all.size(); ++p) {
          for (auto& own : slots) own[p].extra_latency = all[p].extra_latency;
          for (const FlowSpec& f : all[p].flows) {
            const auto it = owner.find(f.src);
            if (it != owner.end()) slots[it->second][p].flows.push_back(f);
          }
        }
      }
    }
  }

  // One MoE layer pass (dispatch + combine) of a stage's EP groups, aggregated per (source device,
  // destination node): a source's bytes for the EP members of another node go as one flow to the member
  // with its local index (else the node's first member); members of its own node get one flow each.
  // replica < 0 (symmetry reduction): the sources of replica 0 always, the others' flows only where
  // their route is shared (crosses a link other devices' routes use); else the sources of `replica`.
  std::vector<FlowSpec> moe_flows(int stage, int replica, const FabricLayout& fabric, double& alpha) const {
    const MoeTraffic& mt = traffic.moe_traffic();
    const RankLayout& lay = job.layout;
    const int stage_ranks = lay.tp() * lay.replicas();
    const int span = mt.ep * mt.etp;
    auto dev = [&](int q) { return lay.device(stage, q / lay.tp(), q % lay.tp()); };
    std::vector<FlowSpec> flows;
    for (int q = 0; q < stage_ranks; ++q) {
      const int rep = q / lay.tp();
      if (replica >= 0 && rep != replica) continue;
      const int src = dev(q);
      const int src_node = fabric.node_of(src);
      const int base = (q / span) * span + q % mt.etp;
      // Destination node -> (target device, members there).
      std::vector<std::pair<int, std::pair<int, int>>> per_node;
      for (int i = 0; i < mt.ep; ++i) {
        const int d = dev(base + i * mt.etp);
        const int nd = fabric.node_of(d);
        if (nd == src_node) {
          if (d == src) continue;
          flows.push_back({src, d, mt.node_limited ? mt.fan_out : mt.to_rank});
          continue;
        }
        auto it =
            std::find_if(per_node.begin(), per_node.end(), [&](const auto& e) { return e.first == nd; });
        if (it == per_node.end()) {
          per_node.push_back({nd, {d, 0}});
          it = per_node.end() - 1;
        }
        if (d % fabric.devices_per_node() == src % fabric.devices_per_node()) it->second.first = d;
        ++it->second.second;
      }
      for (const auto& [nd, target] : per_node) {
        const Bytes b = mt.node_limited ? mt.to_node : mt.to_rank * static_cast<double>(target.second);
        flows.push_back({src, target.first, b});
      }
    }
    // Symmetry reduction: keep replica 0's flows and the shared-route flows of the others.
    std::vector<FlowSpec> kept;
    for (const FlowSpec& f : flows) {
      const FabricRoute r = fabric.route(f.src, f.dst);
      bool rep0 = false;
      if (replica < 0) {
        for (int t = 0; t < lay.tp() && !rep0; ++t) rep0 = lay.device(stage, 0, t) == f.src;
        if (!rep0 && !r.shared) continue;
      }
      if (fabric.topology() != nullptr) alpha = std::max(alpha, fabric.route_latency(r).value());
      kept.push_back(f);
    }
    return kept;
  }
};

}  // namespace

class FlowReplay::Impl {
 public:
  Impl(const FabricLayout& fabric, std::vector<ReplayJob> jobs, const FlowOptions& options)
      : fabric_(fabric), options_(options) {
    speed_.assign(static_cast<std::size_t>(fabric.devices()), 1.0);
    for (const DeviceStraggler& d : options.slow_devices)
      speed_[static_cast<std::size_t>(d.device)] = d.speed;
    const bool one_job = jobs.size() == 1;
    for (ReplayJob& j : jobs) {
      const bool whole_fabric = one_job && j.scenario->cluster.devices() == fabric.devices();
      jobs_.emplace_back(std::move(j), options.symmetry_reduction, fabric, options.fidelity, whole_fabric);
      JobState& js = jobs_.back();
      const RankLayout& lay = js.job.layout;
      js.stage_slowdown.assign(static_cast<std::size_t>(lay.stages()), 1.0);
      for (int st = 0; st < lay.stages(); ++st) {
        double slowest = 1.0;
        for (int r = 0; r < lay.replicas(); ++r) {
          for (int t = 0; t < lay.tp(); ++t) slowest = std::min(slowest, speed(lay.device(st, r, t)));
        }
        js.stage_slowdown[static_cast<std::size_t>(st)] = speed(lay.device(st, 0, 0)) / slowest;
      }
    }
    out_.link_bytes.assign(2 * fabric.links().size(), 0.0);
    if (options.flow_classes && options.symmetry_reduction && fabric.topology() != nullptr) {
      fluid_ = std::make_unique<FluidNet>(fabric);
    }
  }

  bool uses_simgrid() const { return fluid_ == nullptr; }

  std::vector<std::pair<int, int>> flow_pairs() const {
    std::vector<std::pair<int, int>> pairs;
    for (const JobState& js : jobs_) {
      for (const auto& phases : js.sync_phases) {
        if (!phases) continue;
        for (const FlowPhase& ph : *phases) {
          for (const FlowSpec& f : ph.flows) pairs.emplace_back(f.src, f.dst);
        }
      }
      for (const auto& per_stage : js.a2a) {
        for (const auto& list : per_stage) {
          for (const FlowSpec& f : list) pairs.emplace_back(f.src, f.dst);
        }
      }
      for (const auto& kind : js.op_comm) {
        for (const auto& slots : kind) {
          for (const auto& phases : slots) {
            for (const FlowPhase& ph : phases) {
              for (const FlowSpec& f : ph.flows) pairs.emplace_back(f.src, f.dst);
            }
          }
        }
      }
      // Pipeline transfers: every (replica, TP rank) between the two stages of a data dependency.
      const StepGraph& g = *js.job.graph;
      const RankLayout& lay = js.job.layout;
      std::vector<std::pair<int, int>> stage_pairs;
      for (std::size_t from = 0; from < g.nodes.size(); ++from) {
        for (int to : js.links.on_end[from]) {
          const StepNode& dst = g.nodes[static_cast<std::size_t>(to)];
          if (dst.dep_delay.value() > 0.0 && g.nodes[from].stage != dst.stage) {
            stage_pairs.emplace_back(g.nodes[from].stage, dst.stage);
          }
        }
      }
      std::sort(stage_pairs.begin(), stage_pairs.end());
      stage_pairs.erase(std::unique(stage_pairs.begin(), stage_pairs.end()), stage_pairs.end());
      for (const auto& [sa, sb] : stage_pairs) {
        for (int r = 0; r < lay.replicas(); ++r) {
          for (int t = 0; t < lay.tp(); ++t) pairs.emplace_back(lay.device(sa, r, t), lay.device(sb, r, t));
        }
      }
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    return pairs;
  }

  ReplayOutput run(const SimgridPlatform* platform) {
    platform_ = platform;
    CS_ASSERT(fluid_ != nullptr || platform != nullptr, "a SimGrid replay needs its platform");
    if (fluid_ == nullptr) sg4::Activity::on_completion_cb([this](const sg4::Activity& a) { on_complete(a); });
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      for (std::size_t slot = 0; slot < jobs_[j].instances.size(); ++slot) {
        for (std::size_t id = 0; id < jobs_[j].job.graph->nodes.size(); ++id) {
          if (jobs_[j].state[slot][id].waiting == 0) start_node(j, slot, static_cast<int>(id));
        }
      }
    }
    if (fluid_ != nullptr) {
      fluid_->run();
      out_.end_time = fluid_->now();
    } else {
      sg4::Engine::get_instance()->run();
      out_.end_time = sg4::Engine::get_clock();
    }
    for (JobState& js : jobs_) {
      std::vector<NodeTiming> t(js.job.graph->nodes.size());
      for (std::size_t id = 0; id < t.size(); ++id) {
        for (std::size_t slot = 0; slot < js.instances.size(); ++slot) {
          const NodeState& ns = js.state[slot][id];
          CS_ASSERT(ns.finished, "flow replay stopped before every node finished (deadlock)");
          t[id].start = max(t[id].start, Seconds(ns.start));
          t[id].end = max(t[id].end, Seconds(ns.end));
        }
      }
      out_.timelines.push_back(std::move(t));
    }
    CS_ASSERT(pending_.empty(), "every activity completed");
    return std::move(out_);
  }

 private:
  using Done = std::function<void()>;
  struct Pending {
    sg4::ActivityPtr keep;
    Done done;
    std::size_t flow = static_cast<std::size_t>(-1);  // index into out_.flows for comms
  };

  double speed(int device) const { return speed_[static_cast<std::size_t>(device)]; }
  double now() const { return fluid_ != nullptr ? fluid_->now() : sg4::Engine::get_clock(); }

  void on_complete(const sg4::Activity& a) {
    graveyard_.clear();  // activities completed in earlier callbacks may be released now
    auto it = pending_.find(&a);
    if (it == pending_.end()) return;
    Pending p = std::move(it->second);
    pending_.erase(it);
    if (p.flow != static_cast<std::size_t>(-1)) out_.flows[p.flow].end = now();
    graveyard_.push_back(std::move(p.keep));
    p.done();
  }

  // Calls `then` once every one of `count` activities registered with the returned callback finished.
  static Done join(int count, Done then) {
    auto left = std::make_shared<int>(count);
    auto fn = std::make_shared<Done>(std::move(then));
    return [left, fn]() {
      if (--*left == 0) (*fn)();
    };
  }

  void wait(double seconds, Done then) {
    if (seconds <= 1e-15) {
      then();
      return;
    }
    if (fluid_ != nullptr) {
      fluid_->after(seconds, std::move(then));
      return;
    }
    sg4::ExecPtr e = sg4::Exec::init();
    e->set_flops_amount(seconds * SimgridPlatform::kWorkRate);
    e->set_bound(SimgridPlatform::kWorkRate);
    e->set_host(platform_->clock_host());
    pending_.emplace(e.get(), Pending{e, std::move(then)});
    e->start();
  }

  void compute(const std::vector<int>& devices, double seconds, double slowdown, Done then) {
    if (seconds <= 1e-15) {
      then();
      return;
    }
    if (fluid_ != nullptr) {
      // The replay never runs two kernels on one device at once: each device computes at its speed.
      double longest = 0;
      for (int d : devices) longest = std::max(longest, seconds * slowdown / speed(d));
      fluid_->after(longest, std::move(then));
      return;
    }
    Done each = join(static_cast<int>(devices.size()), std::move(then));
    for (int d : devices) {
      sg4::ExecPtr e = sg4::Exec::init();
      e->set_flops_amount(seconds * slowdown * SimgridPlatform::kWorkRate);
      e->set_host(platform_->compute_host(d));
      pending_.emplace(e.get(), Pending{e, each});
      e->start();
    }
  }

  // Fluid mode: the send's flow classes (built once per flow list and scale) on the class solver.
  void send_classes(const std::vector<FlowSpec>& flows, double scale, Done then) {
    auto& g = groups_[{&flows, scale}];
    if (!g) g = std::make_unique<FlowGroup>(make_flow_group(flows, scale, fabric_));
    const FlowGroup& group = *g;
    if (group.flows.empty()) {
      then();
      return;
    }
    for (const auto& [dl, b] : group.link_bytes) out_.link_bytes[static_cast<std::size_t>(dl)] += b;
    const std::size_t base = out_.flows.size();
    const double t0 = now();
    for (const FlowSpec& f : group.flows) out_.flows.push_back({f.src, f.dst, f.bytes.value(), t0, t0});
    Done each = join(static_cast<int>(group.classes.size()), std::move(then));
    fluid_->start(group, [this, &group, base, each](int k) {
      const double t = now();
      for (int i : group.classes[static_cast<std::size_t>(k)].members)
        out_.flows[base + static_cast<std::size_t>(i)].end = t;
      each();
    });
  }

  void send(const std::vector<FlowSpec>& flows, Done then, double scale = 1.0) {
    if (fluid_ != nullptr) {
      send_classes(flows, scale, std::move(then));
      return;
    }
    if (scale != 1.0) {
      std::vector<FlowSpec> scaled = flows;
      for (FlowSpec& f : scaled) f.bytes = f.bytes * scale;
      send(scaled, std::move(then));
      return;
    }
    std::vector<const FlowSpec*> real;
    for (const FlowSpec& f : flows) {
      if (f.src != f.dst && f.bytes.value() >= 1.0) real.push_back(&f);
    }
    if (real.empty()) {
      then();
      return;
    }
    Done each = join(static_cast<int>(real.size()), std::move(then));
    for (const FlowSpec* f : real) {
      const FabricRoute r = fabric_.route(f->src, f->dst);
      for (DirectedLink l : r.links) out_.link_bytes[static_cast<std::size_t>(l)] += f->bytes.value();
      const auto [from, to] = platform_->endpoints(f->src, f->dst, r.intra_node);
      sg4::CommPtr c = sg4::Comm::sendto_init(from, to);
      c->set_payload_size(static_cast<std::uint64_t>(f->bytes.value()));
      out_.flows.push_back({f->src, f->dst, f->bytes.value(), now(), now()});
      pending_.emplace(c.get(), Pending{c, each, out_.flows.size() - 1});
      c->start();
    }
  }

  void satisfy(std::size_t j, std::size_t slot, int id) {
    NodeState& ns = jobs_[j].state[slot][static_cast<std::size_t>(id)];
    CS_ASSERT(ns.waiting > 0, "a node's predecessor completed twice");
    if (--ns.waiting == 0) start_node(j, slot, id);
  }

  void start_node(std::size_t j, std::size_t slot, int id) {
    JobState& js = jobs_[j];
    const auto uid = static_cast<std::size_t>(id);
    NodeState& ns = js.state[slot][uid];
    ns.started = true;
    ns.start = now();
    for (int s : js.links.on_start[uid]) satisfy(j, slot, s);
    const StepNode& node = js.job.graph->nodes[uid];
    if (node.kind == NodeKind::dp_sync) {
      arrive_at_sync(j, id);
      return;
    }
    const double total = node.duration.value();
    const double kernels =
        node.cost >= 0 ? js.job.graph->costs[static_cast<std::size_t>(node.cost)].compute.value() : total;
    const RankLayout& lay = js.job.layout;
    std::vector<int> devices;
    double slowdown = 1.0;
    if (options_.symmetry_reduction) {
      devices.push_back(lay.device(node.stage, 0, 0));
      slowdown = js.stage_slowdown[static_cast<std::size_t>(node.stage)];
    } else {
      for (int t = 0; t < lay.tp(); ++t) devices.push_back(lay.device(node.stage, js.instances[slot], t));
    }
    const double rest = total - kernels;
    const MoeExchange& mx = js.traffic.moe_exchange(id);
    // TP / CP / FSDP flows on a torus (JobTraffic::op_comm): the part the analytic engine hid runs under
    // the kernels, starting so that without contention it ends with them; the exposed part runs after the
    // kernels and replaces its analytic time. The op's work ends when both did.
    const double replayed = op_comm_replayed(js, id);
    Done done = [this, j, slot, id]() { work_done(j, slot, id); };
    {
      double longest = 0;  // the kernels' duration on this replay (as compute() runs them)
      for (int d : devices) longest = std::max(longest, kernels * slowdown / speed(d));
      done = op_comm_hidden(j, slot, id, longest, std::move(done));
    }
    if (!mx.flows || js.a2a.empty()) {
      compute(devices, kernels, slowdown, [this, j, slot, id, rest, replayed, done]() {
        op_comm(j, slot, id, [this, left = std::max(0.0, rest - replayed), done]() { wait(left, done); });
      });
      return;
    }
    // MoE all-to-alls as flows: the whole op's bytes at once, after the kernels (moe_overlap none) or
    // under them (the op's work ends when both did); the analytic exposed part they replace leaves the
    // timed remainder, the ETP gathers stay in it.
    const auto st = static_cast<std::size_t>(node.stage);
    const std::vector<FlowSpec>& flows = js.a2a[st][slot];
    const double passes = mx.passes;
    const double alpha = js.a2a_alpha[st][slot] * 2.0 * mx.passes;
    const OpCost& c = js.job.graph->costs[static_cast<std::size_t>(node.cost)];
    const int lone_from = js.job.graph->lone_costs_from;
    const bool overlap = js.job.scenario->parallelism.moe_overlap != MoeOverlap::none &&
                         (lone_from < 0 || node.cost < lone_from);
    const double exposed = overlap ? std::min(c.ep_comm, mx.analytic).value() : mx.analytic.value();
    const double left = std::max(0.0, rest - exposed - replayed);
    Done tail = [this, j, slot, id, left, done]() {
      op_comm(j, slot, id, [this, left, done]() { wait(left, done); });
    };
    auto exchange = [this, &flows, passes, alpha](Done then) {
      send(flows, [this, alpha, then = std::move(then)]() { wait(alpha, then); }, passes);
    };
    if (overlap) {
      // `compute`: the flows may run under all the op's kernels. `shared-expert`: only under the part the
      // analytic engine hid them under (passes × the shared experts' kernels when any stayed exposed), so
      // they start that long before the kernels end.
      const bool shared = js.job.scenario->parallelism.moe_overlap == MoeOverlap::shared_expert;
      const double hidden = mx.analytic.value() - exposed;
      const double lead = shared ? std::max(0.0, kernels - hidden) : 0.0;
      Done both = join(2, std::move(tail));
      compute(devices, kernels, slowdown, both);
      wait(lead, [exchange = std::move(exchange), both]() mutable { exchange(both); });
    } else {
      compute(devices, kernels, slowdown, [exchange = std::move(exchange), tail = std::move(tail)]() mutable {
        exchange(std::move(tail));
      });
    }
  }

  // Exposed seconds of an op-level kind (JobTraffic::op_comm) in a node's cost, 0 if not replayed.
  static double op_comm_exposed(const JobState& js, int id, int kind, bool hidden = false) {
    const StepNode& node = js.job.graph->nodes[static_cast<std::size_t>(id)];
    if (node.cost < 0 || js.op_comm[static_cast<std::size_t>(kind)].empty()) return 0.0;
    const OpCost& c = js.job.graph->costs[static_cast<std::size_t>(node.cost)];
    const Seconds e = kind == static_cast<int>(OpCommKind::tp)   ? (hidden ? c.tp_hidden : c.tp_comm)
                      : kind == static_cast<int>(OpCommKind::cp) ? (hidden ? c.cp_hidden : c.cp_comm)
                                                                 : (hidden ? c.dp_hidden : c.dp_comm);
    return e.value() > 1e-15 ? e.value() : 0.0;
  }

  // Starts the op's hidden TP / CP / FSDP flows, each kind `kernels − hidden` after the kernels start (so
  // it ends with them when nothing contends), and returns `then` joined with their ends.
  Done op_comm_hidden(std::size_t j, std::size_t slot, int id, double kernels, Done then) {
    JobState& js = jobs_[j];
    const StepNode& node = js.job.graph->nodes[static_cast<std::size_t>(id)];
    std::vector<std::pair<int, double>> kinds;
    for (int k = 0; k < kOpCommKinds; ++k) {
      const double h = op_comm_exposed(js, id, k, true);
      if (h > 0) kinds.emplace_back(k, h);
    }
    if (kinds.empty()) return then;
    Done all = join(static_cast<int>(kinds.size()) + 1, std::move(then));
    for (const auto& [k, h] : kinds) {
      const OpCommUnit& u = js.traffic.op_comm(static_cast<OpCommKind>(k));
      const auto& phases = js.op_comm[static_cast<std::size_t>(k)][static_cast<std::size_t>(node.stage)]
                                     [options_.symmetry_reduction ? 0 : slot];
      const double scale = h / u.analytic.value();
      wait(std::max(0.0, kernels - h),
           [this, &phases, scale, all]() { run_scaled(phases, 0, scale, all); });
    }
    return all;
  }

  static double op_comm_replayed(const JobState& js, int id) {
    double sum = 0;
    for (int k = 0; k < kOpCommKinds; ++k) sum += op_comm_exposed(js, id, k);
    return sum;
  }

  // Replays the op's exposed TP, then CP, then FSDP time as the unit collectives' flows scaled by
  // exposed / unit analytic time (bytes and α waits alike), one kind after the other.
  void op_comm(std::size_t j, std::size_t slot, int id, Done then, int kind = 0) {
    for (; kind < kOpCommKinds; ++kind) {
      const double e = op_comm_exposed(jobs_[j], id, kind);
      if (e > 0) break;
    }
    if (kind == kOpCommKinds) {
      then();
      return;
    }
    JobState& js = jobs_[j];
    const StepNode& node = js.job.graph->nodes[static_cast<std::size_t>(id)];
    const OpCommUnit& u = js.traffic.op_comm(static_cast<OpCommKind>(kind));
    const double scale = op_comm_exposed(js, id, kind) / u.analytic.value();
    const auto& phases = js.op_comm[static_cast<std::size_t>(kind)][static_cast<std::size_t>(node.stage)]
                                   [options_.symmetry_reduction ? 0 : slot];
    run_scaled(phases, 0, scale, [this, j, slot, id, then = std::move(then), kind]() mutable {
      op_comm(j, slot, id, std::move(then), kind + 1);
    });
  }

  void run_scaled(const std::vector<FlowPhase>& phases, std::size_t i, double scale, Done then) {
    if (i == phases.size()) {
      then();
      return;
    }
    const FlowPhase& ph = phases[i];
    send(ph.flows, [this, &phases, i, scale, then, extra = ph.extra_latency.value() * scale]() {
      wait(extra, [this, &phases, i, scale, then]() { run_scaled(phases, i + 1, scale, then); });
    }, scale);
  }

  void arrive_at_sync(std::size_t j, int id) {
    JobState& js = jobs_[j];
    const auto uid = static_cast<std::size_t>(id);
    if (++js.sync_arrivals[uid] < static_cast<int>(js.instances.size())) return;
    const StepNode& node = js.job.graph->nodes[uid];
    const GradientSync& gs = js.traffic.gradient_sync(id);
    auto finish_all = [this, j, id]() {
      for (std::size_t slot = 0; slot < jobs_[j].instances.size(); ++slot) work_done(j, slot, id);
    };
    if (!gs.flows || !js.sync_phases[uid]) {
      wait(node.duration.value(), finish_all);
      return;
    }
    const auto& phases = js.sync_phases[uid];
    const double residual = std::max(0.0, (node.duration - gs.analytic).value());
    run_phases(phases, 0, [this, residual, finish_all]() { wait(residual, finish_all); });
  }

  void run_phases(const std::shared_ptr<const std::vector<FlowPhase>>& phases, std::size_t i, Done then) {
    if (i == phases->size()) {
      then();
      return;
    }
    const FlowPhase& ph = (*phases)[i];
    send(ph.flows, [this, phases, i, then, extra = ph.extra_latency.value()]() {
      wait(extra, [this, phases, i, then]() { run_phases(phases, i + 1, then); });
    });
  }

  void work_done(std::size_t j, std::size_t slot, int id) {
    NodeState& ns = jobs_[j].state[slot][static_cast<std::size_t>(id)];
    ns.work_done = true;
    if (ns.tail_done) finish_node(j, slot, id);
  }

  void finish_node(std::size_t j, std::size_t slot, int id) {
    JobState& js = jobs_[j];
    const auto uid = static_cast<std::size_t>(id);
    NodeState& ns = js.state[slot][uid];
    ns.finished = true;
    ns.end = now();
    if (js.links.res_next[uid] >= 0) satisfy(j, slot, js.links.res_next[uid]);
    for (int s : js.links.on_end[uid]) transfer(j, slot, id, s);
    for (int s : js.links.tails[uid]) {
      const double tail = js.job.graph->nodes[static_cast<std::size_t>(s)].tail.value();
      wait(tail, [this, j, slot, s]() {
        NodeState& t = jobs_[j].state[slot][static_cast<std::size_t>(s)];
        t.tail_done = true;
        if (t.work_done) finish_node(j, slot, s);
      });
    }
  }

  // Pipeline transfer from `from` (one stage) to `to` (its data successor).
  void transfer(std::size_t j, std::size_t slot, int from, int to) {
    JobState& js = jobs_[j];
    const StepNode& dst = js.job.graph->nodes[static_cast<std::size_t>(to)];
    if (dst.dep_delay.value() <= 0.0) {
      satisfy(j, slot, to);
      return;
    }
    const int sa = js.job.graph->nodes[static_cast<std::size_t>(from)].stage, sb = dst.stage;
    const RankLayout& lay = js.job.layout;
    const Bytes bytes = js.traffic.p2p_bytes_per_rank();
    std::vector<FlowSpec> flows;
    Seconds alpha(0);  // topology mode: the platform has no link latencies, the route's α is waited
    auto add = [&](int r, int t, bool always) {
      const int a = lay.device(sa, r, t), b = lay.device(sb, r, t);
      if (a == b) return;
      const FabricRoute route = fabric_.route(a, b);
      if (!always && !route.shared) return;
      flows.push_back({a, b, bytes});
      if (fabric_.topology() != nullptr) alpha = max(alpha, fabric_.route_latency(route));
    };
    if (options_.symmetry_reduction) {
      auto it = js.transfers.find({sa, sb});
      if (it == js.transfers.end()) {
        for (int r = 0; r < lay.replicas(); ++r) {
          for (int t = 0; t < lay.tp(); ++t) add(r, t, r == 0 && t == 0);
        }
        it = js.transfers.emplace(std::make_pair(sa, sb), JobState::Transfer{std::move(flows), alpha}).first;
      }
      const double residual =
          std::max(0.0, (dst.dep_delay - js.traffic.p2p_analytic()).value()) + it->second.alpha.value();
      send(it->second.flows, [this, j, slot, to, residual]() {
        wait(residual, [this, j, slot, to]() { satisfy(j, slot, to); });
      });
      return;
    }
    for (int t = 0; t < lay.tp(); ++t) add(js.instances[slot], t, true);
    const double residual =
        std::max(0.0, (dst.dep_delay - js.traffic.p2p_analytic()).value()) + alpha.value();
    send(flows, [this, j, slot, to, residual]() {
      wait(residual, [this, j, slot, to]() { satisfy(j, slot, to); });
    });
  }

  const FabricLayout& fabric_;
  const SimgridPlatform* platform_ = nullptr;
  FlowOptions options_;
  std::vector<double> speed_;
  std::vector<JobState> jobs_;
  std::unordered_map<const sg4::Activity*, Pending> pending_;
  std::vector<sg4::ActivityPtr> graveyard_;
  std::unique_ptr<FluidNet> fluid_;  // flow classes instead of SimGrid (FlowOptions::flow_classes)
  std::map<std::pair<const void*, double>, std::unique_ptr<FlowGroup>> groups_;
  ReplayOutput out_;
};

FlowReplay::FlowReplay(const FabricLayout& fabric, std::vector<ReplayJob> jobs, const FlowOptions& options)
    : impl_(std::make_unique<Impl>(fabric, std::move(jobs), options)) {}

FlowReplay::~FlowReplay() = default;

std::vector<std::pair<int, int>> FlowReplay::flow_pairs() const {
  return impl_->flow_pairs();
}

bool FlowReplay::uses_simgrid() const {
  return impl_->uses_simgrid();
}

ReplayOutput FlowReplay::run(const SimgridPlatform* platform) {
  return impl_->run(platform);
}

}  // namespace clustersim::flow
