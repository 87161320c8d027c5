#include "sim/engine/flow/job_traffic.hpp"

#include <algorithm>
#include <cmath>

#include "models/transformer_cost.hpp"
#include "schedules/pipeline_deps.hpp"
#include "sim/collectives/compressed_sync.hpp"
#include "sim/collectives/multislice.hpp"
#include "topologies/derived_topology.hpp"

namespace clustersim::flow {

JobTraffic::JobTraffic(const Scenario& s, const StepGraph& g)
    : two_level_(two_level_ring(s.cluster, s.parallelism)) {
  const ParallelismSpec& par = s.parallelism;
  const TrainingSpec& tr = s.training;
  const double e = std::max(2.0, bytes_per_element(tr.precision));
  const double tokens = static_cast<double>(tr.micro_batch) * tr.seq_len / par.cp;
  p2p_bytes_ = Bytes(tokens * s.model.hidden * e / par.tp);
  // The analytic parts exactly as sim/graph/op_cost.cpp costs them.
  const auto mapped = torus_mapped_cluster(s.cluster, par.tp);
  const std::shared_ptr<const TopologyCollectives> topo = TopologyCollectives::of(mapped ? *mapped : s.cluster);
  const int stage_ranks = par.tp * par.cp * par.dp;
  if (par.pp > 1) {
    p2p_analytic_ =
        topo->time(CollectiveOp::send_recv, p2p_bytes_,
                   {.size = 2, .stride = stage_ranks, .first = 0, .count = stage_ranks, .group_stride = 1});
  }
  // TP / CP / FSDP collectives inside the ops on a torus: the unit collectives op_cost.cpp costs.
  if (s.cluster.network.topology == "torus") {
    const ParallelismSpec in_slice = slice_parallelism(s);
    const auto expand = [](const ConcurrentGroups& cg) {
      std::vector<std::vector<int>> out(static_cast<std::size_t>(cg.count));
      for (int k = 0; k < cg.count; ++k) {
        for (int j = 0; j < cg.size; ++j)
          out[static_cast<std::size_t>(k)].push_back(cg.first + k * cg.group_stride + j * cg.stride);
      }
      return out;
    };
    if (par.tp > 1) {
      const ConcurrentGroups tpg{
          .size = par.tp, .stride = 1, .first = 0, .count = in_slice.dp * par.cp, .group_stride = par.tp};
      OpCommUnit& u = op_comm_[static_cast<std::size_t>(OpCommKind::tp)];
      u = {.flows = true, .op = CollectiveOp::all_reduce, .bytes = Bytes(tokens * s.model.hidden * e),
           .groups = expand(tpg), .analytic = Seconds(0)};
      u.analytic = topo->time(u.op, u.bytes, tpg);
    }
    if (par.cp > 1) {
      const double kv_local = std::max(1.0, static_cast<double>(s.model.kv_heads) / par.tp) *
                              (static_cast<double>(s.model.head_dim()) + s.model.v_head_dim());
      OpCommUnit& u = op_comm_[static_cast<std::size_t>(OpCommKind::cp)];
      u.flows = true;
      u.op = CollectiveOp::send_recv;
      u.bytes = Bytes(tokens * kv_local * e);
      // The analytic engine costs the tp CP rings of one replica; the flows run every replica's rings.
      u.analytic = topo->time(u.op, u.bytes,
                              {.size = par.cp, .stride = par.tp, .first = 0, .count = par.tp, .group_stride = 1});
      for (int d = 0; d < in_slice.dp; ++d) {
        for (int t = 0; t < par.tp; ++t) {
          std::vector<int> ring;
          for (int c = 0; c < par.cp; ++c) ring.push_back(t + par.tp * (c + par.cp * d));
          u.groups.push_back(std::move(ring));
        }
      }
    }
    const ConcurrentGroups fsdp = dp_groups(in_slice);
    if (par.zero_stage >= 3 && fsdp.size > 1) {
      OpCommUnit& u = op_comm_[static_cast<std::size_t>(OpCommKind::fsdp)];
      u = {.flows = true, .op = CollectiveOp::all_gather,
           .bytes = Bytes(parameter_count(s.model).per_layer / par.tp * e), .groups = expand(fsdp),
           .analytic = Seconds(0)};
      u.analytic = topo->time(u.op, u.bytes, fsdp, dp_choice(par));
    }
    for (OpCommUnit& u : op_comm_) {
      if (u.analytic.value() <= 0.0) u.flows = false;
    }
  }
  const int dpg = par.dp * par.cp;
  const ParameterCount pc = parameter_count(s.model);
  sync_.resize(g.nodes.size());
  const DpModeSpec& dm = par.data_parallel;
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    const StepNode& n = g.nodes[id];
    if (n.kind == NodeKind::dp_sync && dm.uses_servers()) {
      // One stage, one chunk, one device per worker (sim/config): the whole model is pushed and pulled.
      ps_ = clustersim::ps_shape(s, pc.layers(pc.dense_layers, pc.moe_layers) + pc.embedding + pc.head);
      sync_[id] = {.flows = true, .op = CollectiveOp::all_reduce, .bytes = ps_.gradient,
                   .analytic = ps_round(ps_).total(), .ps = true};
      continue;
    }
    // A multi-slice job's hierarchical sync (in-slice collectives and the DCN all-reduce,
    // sim/collectives/multislice.hpp, as graph_builder.cpp costs it): flows on each slice's torus and
    // over the hosts' DCN links (FabricLayout::replicate_slices).
    const bool multislice = slice_count(s.cluster) > 1;
    if (n.kind != NodeKind::dp_sync || dpg <= 1 || (par.zero_stage >= 3 && !multislice)) continue;
    const int k = virtual_stage(g.schedule, n.stage, n.chunk);
    // The TP-sharded part replays as flows on the DP group; a MoE chunk's routed experts, reduced over
    // the expert data-parallel group, stay in the node's timed remainder.
    const LayerRange lr = virtual_stage_layers(par, s.model.layers, k);
    const int moe = s.model.moe_layers_in(lr.first, lr.first + lr.count);
    double params = pc.per_layer * (lr.count - moe) + pc.moe_layer_shared * moe;
    if (k == 0) params += pc.embedding - pc.position_table;
    if (k == virtual_stage_count(g.schedule) - 1) params += pc.head;
    params /= par.tp;
    if (k == 0) params += pc.position_table;  // whole on every TP rank (graph_builder.cpp chunk_parameters)
    GradientSync& gs = sync_[id];
    if (multislice) {
      const ParallelismSpec in_slice = slice_parallelism(s);
      const int in_dpg = in_slice.dp * par.cp;
      gs.flows = true;
      gs.multislice = true;
      gs.bytes = Bytes(params * bytes_per_element(tr.gradient_precision));
      gs.slice_reduce_scatter = in_dpg > 1 && par.zero_stage < 3;
      gs.slice_all_gather = in_dpg > 1 && par.zero_stage == 0;
      const ConcurrentGroups groups = dp_groups(in_slice);
      if (gs.slice_reduce_scatter)
        gs.analytic += topo->time(CollectiveOp::reduce_scatter, gs.bytes, groups, dp_choice(par));
      if (gs.slice_all_gather)
        gs.analytic += topo->time(CollectiveOp::all_gather, gs.bytes, groups, dp_choice(par));
      gs.analytic += dcn_all_reduce_time(s.cluster, gs.bytes / static_cast<double>(in_dpg));
      continue;
    }
    gs.flows = true;
    gs.op = par.zero_stage == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter;
    gs.bytes = Bytes(params * bytes_per_element(tr.gradient_precision));
    gs.analytic = topo->time(gs.op, gs.bytes, dp_groups(par), dp_choice(par));
    if (dm.mode == DpMode::local_sgd) {
      // 1/H of the averaging's all-reduce per step; the sites' exchange stays in the timed remainder.
      gs.bytes = gs.bytes / dm.local_steps;
      gs.analytic = gs.analytic / dm.local_steps;
    }
  }
  // MoE all-to-alls: the bytes behind OpCostModel::moe_dispatch_time (op_cost.cpp), per layer pass.
  moe_.resize(g.nodes.size());
  const MoeSpec& x = s.model.moe;
  if (!x.enabled() || par.ep <= 1 || g.moe_all_to_all.value() <= 0.0) return;
  MoeTraffic& mt = moe_traffic_;
  mt.ep = par.ep;
  mt.etp = par.etp;
  const int per_node = std::max(1, s.cluster.node.devices_per_node);
  mt.devices_per_node = per_node;
  const double routed = tokens / par.tp;
  const double copies = routed * x.top_k;
  const double elem = (x.fp8_dispatch ? 1.0 : e) + e;  // dispatch + combine
  const double pass = g.moe_load * s.model.hidden * elem;
  const int span = par.ep * par.etp;
  const int nodes = span > per_node ? span / per_node : 1;
  mt.node_limited = x.max_nodes_per_token > 0 && nodes > 1 && per_node % par.etp == 0;
  if (mt.node_limited) {
    const double n = nodes;
    const double distinct =
        std::min<double>(x.max_nodes_per_token, n * (1.0 - std::pow(1.0 - 1.0 / n, x.top_k)));
    mt.to_node = Bytes(routed * distinct / n * pass);
    mt.fan_out = Bytes(copies / (per_node / par.etp) * pass);
  } else {
    mt.to_rank = Bytes(copies / par.ep * pass);
  }
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    const StepNode& n = g.nodes[id];
    if (n.cost < 0) continue;
    const double passes = g.costs[static_cast<std::size_t>(n.cost)].ep_passes;
    if (passes <= 0.0) continue;
    moe_[id] = {.flows = true, .passes = passes, .analytic = g.moe_all_to_all * (2.0 * passes)};
  }
}

}  // namespace clustersim::flow
