#include "sim/engine/flow/job_traffic.hpp"

#include <algorithm>

#include "models/transformer_cost.hpp"
#include "sim/graph/op_cost.hpp"

namespace clustersim::flow {

JobTraffic::JobTraffic(const Scenario& s, const StepGraph& g) : fabric_(fabric_of(s.cluster)) {
  const ParallelismSpec& par = s.parallelism;
  const TrainingSpec& tr = s.training;
  const int dpn = s.cluster.node.devices_per_node;
  const double e = std::max(2.0, bytes_per_element(tr.precision));
  const double tokens = static_cast<double>(tr.micro_batch) * tr.seq_len / par.cp;
  p2p_bytes_ = Bytes(tokens * s.model.hidden * e / par.tp);
  if (par.pp > 1) {
    const GroupPlacement pair = place_group(2, par.tp * par.cp * par.dp, dpn);
    p2p_analytic_ = collective_time(CollectiveOp::send_recv, p2p_bytes_, pair, fabric_);
  }
  const int dpg = par.dp * par.cp;
  dp_group_ = place_group(dpg, par.tp, dpn);
  const ParameterCount pc = parameter_count(s.model);
  const int p = par.pp, v = par.vp;
  const int layers_per_chunk = s.model.layers / (p * v);
  sync_.resize(g.nodes.size());
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    const StepNode& n = g.nodes[id];
    if (n.kind != NodeKind::dp_sync || dpg <= 1 || par.zero_stage >= 3) continue;
    const int k = n.chunk * p + n.stage;
    double params = pc.per_layer * layers_per_chunk;
    if (k == 0) params += pc.embedding;
    if (k == p * v - 1) params += pc.head;
    params /= par.tp;
    GradientSync& gs = sync_[id];
    gs.flows = true;
    gs.op = par.zero_stage == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter;
    gs.bytes = Bytes(params * bytes_per_element(tr.gradient_precision));
    gs.analytic = collective_time(gs.op, gs.bytes, dp_group_, fabric_);
  }
}

}  // namespace clustersim::flow
