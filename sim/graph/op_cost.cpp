#include "sim/graph/op_cost.hpp"

#include <algorithm>

#include <cmath>

#include "models/moe_load.hpp"
#include "models/roofline.hpp"
#include "models/selective_recompute.hpp"
#include "sim/collectives/compressed_sync.hpp"
#include "sim/collectives/multislice.hpp"
#include "topologies/derived_topology.hpp"

namespace clustersim {

OpCost& OpCost::operator+=(const OpCost& o) {
  compute += o.compute;
  recompute += o.recompute;
  compute_bound += o.compute_bound;
  tp_comm += o.tp_comm;
  cp_comm += o.cp_comm;
  dp_comm += o.dp_comm;
  ep_comm += o.ep_comm;
  pp_comm += o.pp_comm;
  overlap_slowdown += o.overlap_slowdown;
  offload += o.offload;
  model_flops += o.model_flops;
  hardware_flops += o.hardware_flops;
  ep_passes += o.ep_passes;
  tp_hidden += o.tp_hidden;
  cp_hidden += o.cp_hidden;
  dp_hidden += o.dp_hidden;
  return *this;
}

OpCost operator*(const OpCost& c, double k) {
  OpCost r;
  r.compute = c.compute * k;
  r.recompute = c.recompute * k;
  r.compute_bound = c.compute_bound * k;
  r.tp_comm = c.tp_comm * k;
  r.cp_comm = c.cp_comm * k;
  r.dp_comm = c.dp_comm * k;
  r.ep_comm = c.ep_comm * k;
  r.pp_comm = c.pp_comm * k;
  r.overlap_slowdown = c.overlap_slowdown * k;
  r.offload = c.offload * k;
  r.model_flops = c.model_flops * k;
  r.hardware_flops = c.hardware_flops * k;
  r.ep_passes = c.ep_passes * k;
  r.tp_hidden = c.tp_hidden * k;
  r.cp_hidden = c.cp_hidden * k;
  r.dp_hidden = c.dp_hidden * k;
  return r;
}

namespace {

OpCost from_kernels(const DeviceSpec& d, const LayerKernels& ks) {
  const KernelTime kt = kernels_time(d, ks);
  OpCost c;
  c.compute = kt.total;
  c.compute_bound = kt.compute_bound;
  c.model_flops = kt.model_flops;
  c.hardware_flops = kt.model_flops;
  return c;
}

// The attention-core kernels of a forward list; `with_forward_only` false leaves out the kernels that have no
// backward (the ALiBi bias copy), for windows scaled from the forward to the backward.
LayerKernels attention_core_only(const LayerKernels& ks, bool with_forward_only = true) {
  LayerKernels out;
  for (const Kernel& k : ks) {
    if (k.attention_core && (with_forward_only || !k.forward_only)) out.add(k);
  }
  return out;
}

// Exposed part of a communication that can run under `window` of compute.
Seconds exposed(Seconds comm, Seconds window, bool overlap) {
  return overlap ? max(Seconds(0), comm - window) : comm;
}

// Hides `comm` under the op's kernels (`window` of them, default all): the exposed rest goes to `slot`,
// and the kernels it overlaps slow down (roofline.hpp overlap_slowdown), which `compute` pays.
// `sms` > 0: the SMs the communication kernels occupy (else the generic collective figure).
void hide(OpCost& c, Seconds& slot, Seconds comm, Seconds window, const DeviceSpec& dev, BytesPerSecond bw,
          double sms = 0.0, bool reserved = false) {
  slot = exposed(comm, window, true);
  // What stays under the kernels, for the flow engine (OpCost::tp_hidden ...).
  Seconds* hidden = &slot == &c.tp_comm ? &c.tp_hidden
                    : &slot == &c.cp_comm ? &c.cp_hidden
                    : &slot == &c.dp_comm ? &c.dp_hidden
                                          : nullptr;
  if (hidden != nullptr) *hidden += comm - slot;
  const double share = c.compute.value() > 0 ? c.compute_bound.value() / c.compute.value() : 0.0;
  // A reserved SM partition slows every compute-bound kernel of the op by the SMs it lacks; the memory
  // share still applies only while the collective runs.
  const Seconds slow =
      reserved ? reserved_sm_slowdown(dev, c.compute_bound, sms) +
                     overlap_slowdown(dev, min(comm, window), 0.0, bw, sms) * (1.0 - share)
               : overlap_slowdown(dev, min(comm, window), share, bw, sms);
  c.compute += slow;
  c.overlap_slowdown += slow;
}

// Per-device rate at which a group's collective moves data through HBM (the memory share of the overlap
// slowdown): the node fabric's port when every group stays inside a node, else the device's share of
// the node's NICs (a node without NICs keeps the node fabric).
BytesPerSecond group_bandwidth(const ConcurrentGroups& g, const ClusterSpec& c) {
  const NodeSpec& n = c.node;
  const BytesPerSecond intra = n.intra.bandwidth * n.intra.efficiency;
  const double nic_total = n.nics * n.nic.bandwidth.value() * n.nic.efficiency;
  const int per_node = n.devices_per_node;
  const bool in_node = g.first % per_node + (g.size - 1) * g.stride < per_node;
  return in_node || nic_total <= 0 ? intra : BytesPerSecond(nic_total / per_node);
}

}  // namespace

OpCostModel::OpCostModel(const Scenario& s) : s_(s) {
  const ParallelismSpec& par = s.parallelism;
  const TrainingSpec& tr = s.training;
  const DeviceSpec& dev = s.cluster.node.device;
  const Precision prec = tr.precision;
  const TransformerSpec& m = s.model;

  shape_.micro_batch = tr.micro_batch;
  shape_.seq_len = tr.seq_len;
  shape_.tp = par.tp;
  shape_.cp = par.cp;
  shape_.sequence_parallel = par.sequence_parallel;
  shape_.flash_attention = tr.flash_attention;
  shape_.attention_kernel = tr.attention_kernel;
  shape_.precision = prec;
  shape_.fp8_attention = tr.fp8_attention;
  shape_.microbatches = std::max(1, tr.microbatches(par.dp));
  shape_.fp8_scaling = tr.fp8_scaling;
  shape_.mxfp8_separate_swizzle = tr.mxfp8_separate_swizzle;
  shape_.eager_elementwise = tr.eager_elementwise;
  shape_.separate_projections = tr.separate_projections;
  shape_.ep = par.ep;
  shape_.etp = par.etp;
  shape_.moe_load = moe_rank_load(m.moe, par.ep);
  shape_.fp8_activation_cache = tr.fp8_activation_cache;
  shape_.fp8_saved_inputs = tr.fp8_saved_inputs;
  shape_.core_attn_recomputed = tr.core_attn_recomputed();
  shape_.saves_dots_only = tr.saves_dots_only();
  shape_.fp8_blockwise = tr.fp8_blockwise;
  shape_.recompute_norm_mla_up = tr.recompute_norm_mla_up;
  // On a derived torus the tensor-parallel group fills whole torus dimensions where their sizes allow
  // (JAX mesh_utils assigns the tensor axis to whole physical axes; topologies/derived_topology.hpp).
  // A multi-slice job (sim/collectives/multislice.hpp) costs every collective but the DCN all-reduce
  // on one slice's torus: its groups are the ones inside a slice (dp / slices replicas per slice; the
  // other slices run the same groups on their own tori at the same time).
  const auto mapped = torus_mapped_cluster(s.cluster, par.tp);
  topo_ = TopologyCollectives::of(mapped ? *mapped : s.cluster);
  const TopologyCollectives& topo = *topo_;
  const ParallelismSpec in_slice = slice_parallelism(s);
  // Megatron rank order: tp fastest, then cp, then dp, then pp. Every group of a kind runs at once:
  // the stage's dp·cp TP groups, the tp CP rings of one DP replica, the tp DP groups of the stage.
  const int stage_ranks = par.tp * par.cp * in_slice.dp;
  tp_groups_ = {.size = par.tp, .stride = 1, .first = 0, .count = in_slice.dp * par.cp, .group_stride = par.tp};
  cp_groups_ = {.size = par.cp, .stride = par.tp, .first = 0, .count = par.tp, .group_stride = 1};
  dp_groups_ = dp_groups(in_slice);
  dp_choice_ = dp_choice(par);
  // Megatron-Core's expert layout inside the stage's ranks: etp fastest, then ep, then expert-DP. With
  // etp = 1 every EP group of the stage runs at once; with etp > 1 the etp EP groups of one ep·etp
  // block (other blocks repeat it on other ranks).
  const int edp = std::max(1, stage_ranks / (par.ep * par.etp));
  ep_groups_ =
      par.etp == 1
          ? ConcurrentGroups{.size = par.ep, .stride = 1, .first = 0, .count = edp, .group_stride = par.ep}
          : ConcurrentGroups{
                .size = par.ep, .stride = par.etp, .first = 0, .count = par.etp, .group_stride = 1};
  etp_groups_ = {
      .size = par.etp, .stride = 1, .first = 0, .count = stage_ranks / par.etp, .group_stride = par.etp};
  edp_groups_ = {
      .size = edp, .stride = par.ep * par.etp, .first = 0, .count = par.ep * par.etp, .group_stride = 1};
  const auto tp_time = [&](CollectiveOp op, Bytes b) { return topo.time(op, b, tp_groups_); };

  const double e = bytes_per_element(prec) < 2.0 ? 2.0 : bytes_per_element(prec);
  const double tokens = static_cast<double>(tr.micro_batch) * tr.seq_len / par.cp;
  const Bytes act_bytes(tokens * m.hidden * e);

  // --- tensor-parallel collectives of one layer pass: 2 all-reduces, or 2 all-gathers + 2 reduce-scatters
  // (one of each for a parallel attention+MLP block; models/transformer_cost.hpp)
  if (par.tp > 1) {
    const TpCollectives tc = layer_tp_collectives(m, shape_);
    tp_layer_ = tc.all_reduce * tp_time(CollectiveOp::all_reduce, act_bytes) +
                tc.all_gather * tp_time(CollectiveOp::all_gather, act_bytes) +
                tc.reduce_scatter * tp_time(CollectiveOp::reduce_scatter, act_bytes);
    tp_regather_ = tc.all_reduce * tp_time(CollectiveOp::all_reduce, act_bytes) +
                   tc.all_gather * tp_time(CollectiveOp::all_gather, act_bytes);
  }

  // --- context parallelism: ring exchange of K/V blocks (cp − 1 steps) under the attention kernels
  if (par.cp > 1) {
    const double kv_local = std::max(1.0, static_cast<double>(m.kv_heads) / par.tp) *
                            (static_cast<double>(m.head_dim()) + m.v_head_dim());
    const Bytes kv_block(tokens * kv_local * e);
    // One ring step: every CP rank sends its block to the next one at once (direct send/recv).
    cp_layer_ = (par.cp - 1) * topo.time(CollectiveOp::send_recv, kv_block, cp_groups_);
  }

  // --- ZeRO-3 / FSDP: gather the layer's parameters before each pass, scatter its gradients after. A
  // MoE layer gathers its routed experts over the expert data-parallel group.
  const ParameterCount pc = parameter_count(m);
  const double grad_e = bytes_per_element(tr.gradient_precision);
  if (par.zero_stage >= 3 && dp_groups_.size > 1) {
    fsdp_gather_ = dp_collective_time(CollectiveOp::all_gather, Bytes(pc.per_layer / par.tp * e));
    fsdp_scatter_ = dp_collective_time(CollectiveOp::reduce_scatter, Bytes(pc.per_layer / par.tp * grad_e));
    if (m.moe.enabled()) {
      const double experts = pc.moe_layer_experts / (par.ep * par.etp);
      fsdp_moe_gather_ =
          dp_collective_time(CollectiveOp::all_gather, Bytes(pc.moe_layer_shared / par.tp * e)) +
          expert_dp_collective_time(CollectiveOp::all_gather, Bytes(experts * e));
      fsdp_moe_scatter_ =
          dp_collective_time(CollectiveOp::reduce_scatter, Bytes(pc.moe_layer_shared / par.tp * grad_e)) +
          expert_dp_collective_time(CollectiveOp::reduce_scatter, Bytes(experts * grad_e));
    }
  }

  // --- MoE token dispatch and combine: one all-to-all each per layer pass over the EP group, S = the
  // rank's routed tokens x top_k x hidden (each token copy goes to the rank of its expert). With node-
  // limited routing across nodes (DeepSeek-V3 §3.2.2) a token crosses the network once per target node
  // (to the same-index GPU there) and fans out over NVLink; the two run pipelined, so the dispatch takes
  // the longer of the two. Expert-TP (etp > 1) all-gathers the received tokens in the ETP group before
  // the experts and reduce-scatters their outputs after. The busiest rank receives moe_load x the mean.
  if (m.moe.enabled() && (par.ep > 1 || par.etp > 1)) {
    const MoeSpec& x = m.moe;
    const double routed = tokens / par.tp;  // sequence-parallel shard routed by this rank
    const double dispatch_e = x.fp8_dispatch ? 1.0 : e;
    const double copies = routed * x.top_k;
    const NodeSpec& node = s.cluster.node;
    const int per_node = std::max(1, node.devices_per_node);
    const int span = par.ep * par.etp;  // consecutive ranks one EP group spans
    const int nodes = span > per_node ? span / per_node : 1;
    const auto a2a = [&](double elem_bytes) {
      if (par.ep <= 1) return Seconds(0);
      if (x.max_nodes_per_token > 0 && nodes > 1 && per_node % par.etp == 0) {
        const double n = nodes;
        const double distinct =
            std::min<double>(x.max_nodes_per_token, n * (1.0 - std::pow(1.0 - 1.0 / n, x.top_k)));
        const double remote = distinct * (n - 1.0) / n;  // target nodes other than the token's own
        const ConcurrentGroups rails{
            .size = nodes, .stride = per_node, .first = 0, .count = per_node, .group_stride = 1};
        const Seconds network = topo.time(
            CollectiveOp::all_to_all, Bytes(routed * remote * m.hidden * elem_bytes * n / (n - 1.0)), rails);
        const ConcurrentGroups in_node{
            .size = per_node / par.etp, .stride = par.etp, .first = 0, .count = par.etp, .group_stride = 1};
        const Seconds fan_out =
            topo.time(CollectiveOp::all_to_all, Bytes(copies * m.hidden * elem_bytes), in_node);
        return max(network, fan_out);
      }
      return topo.time(CollectiveOp::all_to_all, Bytes(copies * m.hidden * elem_bytes), ep_groups_);
    };
    moe_dispatch_ = shape_.moe_load * (a2a(dispatch_e) + a2a(e)) / 2.0;
    if (par.etp > 1) {
      const Bytes gathered(copies * par.etp * m.hidden * e * shape_.moe_load);
      moe_etp_ = topo.time(CollectiveOp::all_gather, gathered, etp_groups_) +
                 topo.time(CollectiveOp::reduce_scatter, gathered, etp_groups_);
    }
  }

  tp_bw_ = group_bandwidth(tp_groups_, s.cluster);
  cp_bw_ = group_bandwidth(cp_groups_, s.cluster);
  ep_bw_ = group_bandwidth(ep_groups_, s.cluster);
  dp_bandwidth_ = group_bandwidth(dp_groups_, s.cluster);

  dense_ = layer_costs(LayerKind::dense, shape_);
  if (m.moe.enabled()) moe_ = layer_costs(LayerKind::moe, shape_);
  // Layers the precision recipe keeps in BF16 (Megatron-Core first_last_layers_bf16 with
  // num_layers_at_start_in_bf16 / num_layers_at_end_in_bf16: get_fp8_context / get_fp4_context give
  // those layers no quantisation context; megatron/core/fp4_utils.py, fp8_utils.py at d98e8a64dd): the
  // same layer at BF16, no casts.
  if (is_quantised(prec) && (tr.bf16_layers_start > 0 || tr.bf16_layers_end > 0)) {
    LayerShape bf16 = shape_;
    bf16.precision = Precision::bf16;
    bf16.fp8_attention = false;
    bf16.fp8_blockwise = false;
    bf16.fp8_activation_cache = false;
    bf16.mxfp8_separate_swizzle = false;
    dense_bf16_ = layer_costs(LayerKind::dense, bf16);
    if (m.moe.enabled()) moe_bf16_ = layer_costs(LayerKind::moe, bf16);
  } else {
    dense_bf16_ = dense_;
    moe_bf16_ = moe_;
  }

  // --- embedding (first virtual stage) and LM head + loss (last virtual stage)
  embed_fwd_ = from_kernels(dev, embedding_forward_kernels(m, shape_));
  if (par.tp > 1) {
    const CollectiveOp op = par.sequence_parallel ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
    embed_fwd_.tp_comm = tp_time(op, act_bytes);
  }
  embed_bwd_ = OpCost{};
  embed_bwd_.compute = memory_pass_time(dev, Bytes(2.0 * tokens * m.hidden * e));

  // The head's forward kernels built once; its two backward lists derive from them.
  const LayerKernels head_fwd_kernels = head_forward_kernels(m, shape_);
  head_fwd_ = from_kernels(dev, head_fwd_kernels);
  head_bwd_input_ = from_kernels(dev, head_backward_kernels(head_fwd_kernels, true, false));
  head_bwd_weight_ = from_kernels(dev, head_backward_kernels(head_fwd_kernels, false, true));
  if (par.tp > 1) {
    // Vocab-parallel cross-entropy: three small all-reduces (max, sum of exp, target logit) of T floats.
    const Bytes small(4.0 * tokens);
    head_fwd_.tp_comm = 3.0 * tp_time(CollectiveOp::all_reduce, small);
    if (par.sequence_parallel) {
      head_fwd_.tp_comm += tp_time(CollectiveOp::all_gather, act_bytes);
      head_bwd_input_.tp_comm = tp_time(CollectiveOp::reduce_scatter, act_bytes);
    } else {
      head_bwd_input_.tp_comm = tp_time(CollectiveOp::all_reduce, act_bytes);
    }
  }

  // --- vocabulary parallelism over the pp ranks (parallelism.vocab_parallel; vocab_parallel_comm)
  if (par.vocab_parallel != VocabParallel::none && par.pp > 1) {
    const ConcurrentGroups pp_groups{
        .size = par.pp, .stride = stage_ranks, .first = 0, .count = stage_ranks, .group_stride = 1};
    const VocabParallelComm vc = vocab_parallel_comm(par.vocab_parallel);
    const auto pp_time = [&](CollectiveOp op, Bytes b) { return topo.time(op, b, pp_groups); };
    const Bytes x_bytes = act_bytes / static_cast<double>(par.tp);  // each TP rank's slice
    const Bytes stats(4.0 * tokens / par.tp);                        // one fp32 per token
    vocab_fwd_comm_ = vc.stat_all_reduces * pp_time(CollectiveOp::all_reduce, stats) +
                      vc.activation_exposed * (pp_time(CollectiveOp::broadcast, x_bytes) +
                                               pp_time(CollectiveOp::reduce, x_bytes));
    vocab_bwd_comm_ = vc.activation_exposed * (pp_time(CollectiveOp::reduce, x_bytes) +
                                               pp_time(CollectiveOp::broadcast, x_bytes));
    if (vc.activation_hidden > 0) {
      // vocab_parallel_schedule.py: the LM-head input goes out in fp32 with one fp32 column for the loss
      // gradient; the embedding all-reduce (forward), the input-gradient all-reduce and the embedding
      // gradient broadcast (backward) move the training-precision activation.
      const Bytes head_input(4.0 * tokens * (m.hidden / static_cast<double>(par.tp) + 1.0));
      vocab_fwd_hidden_ = vc.activation_hidden * (pp_time(CollectiveOp::broadcast, head_input) +
                                                   pp_time(CollectiveOp::all_reduce, x_bytes));
      vocab_bwd_hidden_ = vc.activation_hidden * (pp_time(CollectiveOp::all_reduce, x_bytes) +
                                                   pp_time(CollectiveOp::broadcast, x_bytes));
      vocab_bw_ = group_bandwidth(pp_groups, s.cluster);
    }
  }

  // --- multi-token prediction (DeepSeek-V3 §2.2, depth D): each module embeds the next token with the
  // shared embedding, normalises both inputs (two RMSNorms), projects [h; emb] (2h -> h, a linear layer
  // at the training precision), runs one transformer block of the model's last-layer kind and the shared
  // output head with its cross-entropy. DeepSeek places the embedding and the head on the same pipeline
  // rank (§3.2.3), so the module runs on the last virtual stage. Its FLOPs are executed (hardware) FLOPs,
  // not model FLOPs: the 280 GFLOP/token of DeepSeek's own MFU count (docs/moe.md) excludes it.
  if (m.mtp_depth > 0) {
    const double h = m.hidden / static_cast<double>(par.tp);
    const Bytes norms(2.0 * 2.0 * tokens * m.hidden * e);  // two RMSNorms, read + write each
    const auto linear = [&](std::string_view name, double rows, double n_out, double k_in) {
      LayerKernels ks;
      if (is_quantised(prec)) ks.add(linear_input_cast_kernel(prec, rows, n_out, k_in, shape_.microbatches));
      Kernel g = gemm_kernel(name, rows, n_out, k_in, prec, e);
      g.fp8_blockwise = shape_.fp8_blockwise && prec == Precision::fp8;
      ks.add(g);
      OpCost c = from_kernels(dev, ks);
      c.hardware_flops = c.model_flops;
      c.model_flops = Flops(0);
      return c;
    };
    const LayerCosts& block = m.moe.is_moe_layer(m.layers - 1) ? moe_ : dense_;
    const auto strip = [](OpCost c) {  // executed, not model, FLOPs
      c.model_flops = Flops(0);
      return c;
    };
    OpCost f = linear("mtp_proj", tokens, h, 2.0 * m.hidden);
    f.compute += memory_pass_time(dev, norms);
    f += strip(block.fwd);
    f += strip(embed_fwd_);
    f += strip(head_fwd_);
    OpCost bi = linear("mtp_proj_dgrad", tokens, 2.0 * m.hidden, h);
    bi.compute += memory_pass_time(dev, Bytes(2.0 * norms.value()));
    bi += strip(block.bwd_input);
    bi += strip(head_bwd_input_);
    OpCost bw = linear("mtp_proj_wgrad", 2.0 * m.hidden, h, tokens);
    bw += strip(block.bwd_weight);
    bw += strip(embed_bwd_);
    bw += strip(head_bwd_weight_);
    mtp_.fwd = f;
    mtp_.bwd_input = bi;
    mtp_.bwd_weight = bw;
    mtp_.bwd = bi;
    mtp_.bwd += bw;
  }

  // --- pipeline point-to-point: each TP rank sends its 1/t slice (scatter/gather optimisation,
  // Narayanan et al. SC'21 §4.1); without sequence parallelism the receiver all-gathers it over NVLink.
  if (par.pp > 1) {
    const Bytes slice = act_bytes / static_cast<double>(par.tp);
    // Every rank of a stage hands its slice to its peer in the next stage at the same time.
    p2p_ = topo.time(CollectiveOp::send_recv, slice,
                     {.size = 2, .stride = stage_ranks, .first = 0, .count = stage_ranks, .group_stride = 1});
    if (!par.sequence_parallel && par.tp > 1) {
      p2p_ += tp_time(CollectiveOp::all_gather, act_bytes);
    }
    if (par.pipeline_p2p_blocking) {
      // DeepSpeed's PipelineEngine as BigScience ran it (microsoft/DeepSpeed: the
      // big-science branch from a096d32d7 of 2021-06-11, master from e2fdd254e "Big science related
      // changes" of 2021-09-29; read at 29bee73 of 2021-10-21): runtime/pipe/p2p.py send()/recv() assert
      // async_op False (dist.send/recv from torch 1.8, a two-rank dist.broadcast before), so the compute
      // stream waits for every transfer; runtime/pipe/engine.py lines 131-132 set is_pipe_partitioned =
      // is_grad_partitioned = is_model_parallel: the forward output and the input gradient both go as
      // PartitionedTensors (each TP rank sends its 1/tp slice, _exec_send_activations /
      // _exec_send_grads), the receiver all-gathers an activation (part_input.full()), and before its
      // backward a stage all-gathers both its own partitioned output and the received gradient
      // (_exec_backward_pass: part_output.full(), part_grad.full()). Master before e2fdd254e (4ad8019,
      // 2021-09-18: is_grad_partitioned = False) sent the gradient whole from every TP rank; the BigScience
      // records postdate both changes, and that variant is not modelled.
      const ConcurrentGroups pairs{
          .size = 2, .stride = stage_ranks, .first = 0, .count = stage_ranks, .group_stride = 1};
      ds_act_ = topo.time(CollectiveOp::send_recv, slice, pairs);
      ds_grad_ = ds_act_;
      ds_gather_ = par.tp > 1 ? tp_time(CollectiveOp::all_gather, act_bytes) : Seconds(0);
    }
  }
}

OpCostModel::LayerCosts OpCostModel::layer_costs(LayerKind kind, const LayerShape& shape) const {
  const ParallelismSpec& par = s_.parallelism;
  const TrainingSpec& tr = s_.training;
  const DeviceSpec& dev = s_.cluster.node.device;
  const TransformerSpec& m = s_.model;
  const bool moe = kind == LayerKind::moe;
  const Seconds fsdp_gather = moe ? fsdp_moe_gather_ : fsdp_gather_;
  const Seconds fsdp_scatter = moe ? fsdp_moe_scatter_ : fsdp_scatter_;
  // Dispatch + combine (+ expert-TP gather and scatter) of one pass; the backward moves the same bytes.
  const Seconds ep_pass = moe ? 2.0 * moe_dispatch_ + moe_etp_ : Seconds(0);
  // The partition is held while the op's all-to-alls overlap its compute (DualPipe's F&B chunks).
  const bool reserved = par.ep_comm_sms_reserved && par.moe_overlap == MoeOverlap::compute;

  const LayerKernels fwd = layer_forward_kernels(m, shape, kind);
  const OpCost kernels_fwd = from_kernels(dev, fwd);
  // What the MoE all-to-alls may hide under: the shared experts' kernels or the whole pass.
  const auto ep_window = [&](const LayerKernels& ks, const OpCost& all) {
    if (par.moe_overlap == MoeOverlap::compute) return all.compute;
    if (par.moe_overlap != MoeOverlap::shared_expert) return Seconds(0);
    LayerKernels shared;
    for (const Kernel& k : ks) {
      if (k.name == "shared_fc1" || k.name == "shared_fc2" || k.name == "swiglu" || k.name == "gelu")
        shared.add(k);
    }
    return kernels_time(dev, shared).total;
  };
  LayerCosts c;
  c.fwd = kernels_fwd;
  const Seconds attention_fwd = kernels_time(dev, attention_core_only(fwd)).total;
  // The backward's attention core runs 2.5x the forward's kernels that have a backward.
  const Seconds attention_bwd = Seconds(2.5 * kernels_time(dev, attention_core_only(fwd, false)).total.value());
  if (par.tp_comm_overlap) {
    hide(c.fwd, c.fwd.tp_comm, tp_layer_, kernels_fwd.compute_bound, dev, tp_bw_);
  } else {
    c.fwd.tp_comm = tp_layer_;
  }
  hide(c.fwd, c.fwd.cp_comm, cp_layer_, attention_fwd, dev, cp_bw_);
  if (ep_pass.value() > 0) {
    hide(c.fwd, c.fwd.ep_comm, ep_pass, ep_window(fwd, kernels_fwd), dev, ep_bw_, par.ep_comm_sms, reserved);
    c.fwd.ep_passes = 1.0;
  }
  const OpCost fwd_no_fsdp = c.fwd;
  hide(c.fwd, c.fwd.dp_comm, fsdp_gather, kernels_fwd.compute, dev, dp_bandwidth_);

  // Recomputation before the backward pass.
  OpCost recompute;
  if (tr.recompute == Recompute::full) {
    // ZeRO-3/FSDP release a layer's gathered parameters after every forward, the recomputation
    // included, so the backward gathers them again (charged in backward_part below). A MoE layer's
    // recomputation dispatches and combines its tokens again.
    recompute = fwd_no_fsdp;
    recompute.model_flops = Flops(0);
    recompute.hardware_flops = c.fwd.model_flops;
  } else if (tr.recompute == Recompute::selective && tr.selective_policy == SelectivePolicy::op) {
    recompute = recompute_cost(op_sac_recompute_kernels(m, shape, fwd));
  } else if (tr.recompute == Recompute::selective && tr.selective_policy == SelectivePolicy::dots) {
    // Without sequence parallelism the saved matmul outputs are already reduced and the recomputed norm
    // outputs are whole on every TP rank: nothing is issued again. With it, the GEMM inputs are gathered again.
    recompute = recompute_cost(dots_recompute_kernels(fwd), par.sequence_parallel);
  } else if (tr.recompute == Recompute::selective && tr.selective_policy == SelectivePolicy::layer) {
    // Every k-th block fully recomputed: 1/k of a full recomputation per layer on average.
    const double k = std::max(1, tr.selective_layer_interval);
    recompute = fwd_no_fsdp * (1.0 / k);
    recompute.model_flops = Flops(0);
    recompute.hardware_flops = c.fwd.model_flops * (1.0 / k);
  } else if (tr.recompute == Recompute::selective &&
             (!tr.flash_attention || tr.selective_policy == SelectivePolicy::core_attn)) {
    // The attention core again: unfused, its GEMMs, softmax and dropout (Korthikanti et al. 2022 §5);
    // under Megatron-Core's core_attn module (training_options.hpp) also the flash kernel's forward.
    const LayerKernels core = attention_core_only(fwd);
    recompute = from_kernels(dev, core);
    recompute.hardware_flops = recompute.model_flops;
    recompute.model_flops = Flops(0);
  }
  // DeepSeek-V3's memory savers re-run cheap forward kernels before the backward (§3.2.3: the RMSNorms
  // and MLA up-projections, whose outputs are not stored; §3.3.4: the MoE SwiGLU, whose FP8-cached input
  // is kept instead of its output). Full recomputation already re-runs them.
  if (tr.recompute != Recompute::full && (tr.recompute_norm_mla_up || tr.fp8_activation_cache)) {
    LayerKernels again;
    for (const Kernel& k : fwd) {
      const bool norm_mla = k.name == "layernorm" || k.name == "q_norm" || k.name == "kv_norm" ||
                            ((k.name == "q_up" || k.name == "kv_up") && !k.fp8_cast);
      const bool swiglu = moe && (k.name == "expert_swiglu" || k.name == "swiglu");
      if ((tr.recompute_norm_mla_up && norm_mla) || (tr.fp8_activation_cache && swiglu)) again.add(k);
    }
    OpCost extra = from_kernels(dev, again);
    extra.hardware_flops = extra.model_flops;
    extra.model_flops = Flops(0);
    recompute += extra;
  }
  recompute.recompute = recompute.compute;

  const auto backward_part = [&](bool input, bool weight) {
    // From the forward kernels above (the same list layer_backward_kernels would build again).
    const LayerKernels ks = layer_backward_kernels(m, shape, fwd, input, weight, kind);
    OpCost b = from_kernels(dev, ks);
    const OpCost kernels = b;
    if (input) {
      if (par.tp_comm_overlap && par.tp_comm_overlap_backward) {
        hide(b, b.tp_comm, tp_layer_, kernels.compute_bound, dev, tp_bw_);
      } else {
        b.tp_comm = tp_layer_;
      }
      hide(b, b.cp_comm, 2.0 * cp_layer_, attention_bwd, dev, cp_bw_);
      if (ep_pass.value() > 0) {
        hide(b, b.ep_comm, ep_pass, ep_window(ks, kernels), dev, ep_bw_, par.ep_comm_sms, reserved);
        b.ep_passes = 1.0;
      }
      b += recompute;
    }
    // Recompute forward + backward; under layer-level SAC only every k-th block gathers twice.
    double gathers = tr.recompute == Recompute::full ? 2.0 : 1.0;
    if (tr.recompute == Recompute::selective && tr.selective_policy == SelectivePolicy::layer)
      gathers = 1.0 + 1.0 / std::max(1, tr.selective_layer_interval);
    const Seconds fsdp = (input ? fsdp_gather * gathers : Seconds(0)) + (weight ? fsdp_scatter : Seconds(0));
    hide(b, b.dp_comm, fsdp, b.compute, dev, dp_bandwidth_);
    return b;
  };
  c.bwd = backward_part(true, true);
  c.bwd_input = backward_part(true, false);
  c.bwd_weight = backward_part(false, true);
  return c;
}

OpCost OpCostModel::recompute_cost(const LayerKernels& again, bool regather) const {
  const ParallelismSpec& par = s_.parallelism;
  const DeviceSpec& dev = s_.cluster.node.device;
  OpCost r = from_kernels(dev, again);
  r.hardware_flops = r.model_flops;
  r.model_flops = Flops(0);
  // The TP all-gathers (or all-reduces) are not saved (torchtitan's save list; not dots under JAX's policy):
  // the recomputation issues them again.
  if (par.tp > 1 && regather) {
    if (par.tp_comm_overlap && par.tp_comm_overlap_backward) {
      const Seconds window = r.compute_bound;
      hide(r, r.tp_comm, tp_regather_, window, dev, tp_bw_);
    } else {
      r.tp_comm = tp_regather_;
    }
  }
  return r;
}

Seconds OpCostModel::dp_collective_time(CollectiveOp op, Bytes bytes) const {
  return topo_->time(op, bytes, dp_groups_, dp_choice_);
}

Seconds OpCostModel::expert_dp_collective_time(CollectiveOp op, Bytes bytes) const {
  return topo_->time(op, bytes, edp_groups_, dp_choice_);
}

VocabParallelComm vocab_parallel_comm(VocabParallel mode) {
  switch (mode) {
    case VocabParallel::vocab_1:
      return {.stat_all_reduces = 2, .activation_exposed = 0, .activation_hidden = 1};
    case VocabParallel::vocab_2:
      return {.stat_all_reduces = 1, .activation_exposed = 0, .activation_hidden = 1};
    case VocabParallel::interlaced:
      return {.stat_all_reduces = 3, .activation_exposed = 1, .activation_hidden = 0};
    case VocabParallel::none:
      break;
  }
  return {};
}

void set_bf16_layers(ChunkRole& role, const Scenario& s, int first, int count) {
  const TrainingSpec& t = s.training;
  if (!is_quantised(t.precision) || (t.bf16_layers_start <= 0 && t.bf16_layers_end <= 0)) return;
  const int last = first + count;
  const TrainingSpec::Bf16Ranges r = t.bf16_ranges(s.model.layers, first, last);
  role.bf16_layers = (r.head_end - first) + (last - r.tail_from);
  role.bf16_moe_layers = s.model.moe_layers_in(first, r.head_end) + s.model.moe_layers_in(r.tail_from, last);
}

ChunkCosts OpCostModel::chunk_costs(const ChunkRole& role) const {
  ChunkCosts c;
  // Of the chunk's layers, those the precision recipe keeps in BF16 (ChunkRole::bf16_layers) cost BF16.
  const double bf16_moe = role.bf16_moe_layers;
  const double bf16_dense = role.bf16_layers - role.bf16_moe_layers;
  const auto add_layers = [&](const LayerCosts& lc, double n) {
    if (n <= 0) return;
    c.forward += lc.fwd * n;
    c.backward += lc.bwd * n;
    c.backward_input += lc.bwd_input * n;
    c.backward_weight += lc.bwd_weight * n;
  };
  add_layers(dense_, role.layers - role.moe_layers - bf16_dense);
  add_layers(moe_, role.moe_layers - bf16_moe);
  add_layers(dense_bf16_, bf16_dense);
  add_layers(moe_bf16_, bf16_moe);
  if (role.has_embedding) {
    c.forward += embed_fwd_;
    c.backward += embed_bwd_;
    c.backward_weight += embed_bwd_;
  }
  if (role.has_head) {
    c.forward += head_fwd_;
    c.backward += head_bwd_input_;
    c.backward += head_bwd_weight_;
    c.backward_input += head_bwd_input_;
    c.backward_weight += head_bwd_weight_;
  }
  if (role.vocab_share > 0) {
    // Every chunk computes its slice of the vocabulary: the embedding and output-layer work scale with
    // the slice (the narrower output GEMM is charged at the full-width GEMM's efficiency), and each device
    // pays its micro-batch's vocabulary collectives once, spread over its chunks.
    const double k = role.vocab_share;
    const double per_device = k * s_.parallelism.pp;
    OpCost f = embed_fwd_ * k;
    f += head_fwd_ * k;
    OpCost bi = head_bwd_input_ * k;
    OpCost bw = embed_bwd_ * k;
    bw += head_bwd_weight_ * k;
    f.tp_comm += vocab_fwd_comm_ * per_device;
    bi.tp_comm += vocab_bwd_comm_ * per_device;
    c.forward += f;
    c.backward += bi;
    c.backward += bw;
    c.backward_input += bi;
    c.backward_weight += bw;
    // vocab-1 / vocab-2: the activation-sized transfers run on side streams under the chunk's kernels
    // (transformer layers and vocabulary slice): the part longer than the pass is exposed, and the
    // kernels they overlap slow down by the SMs and HBM bandwidth the collectives take.
    const DeviceSpec& dev = s_.cluster.node.device;
    if (vocab_fwd_hidden_.value() > 0) {
      Seconds rest{0};
      hide(c.forward, rest, vocab_fwd_hidden_ * per_device, c.forward.compute, dev, vocab_bw_);
      c.forward.tp_comm += rest;
    }
    if (vocab_bwd_hidden_.value() > 0) {
      Seconds rest{0};
      hide(c.backward_input, rest, vocab_bwd_hidden_ * per_device, c.backward_input.compute, dev, vocab_bw_);
      c.backward_input.tp_comm += rest;
      hide(c.backward, rest, vocab_bwd_hidden_ * per_device, c.backward.compute, dev, vocab_bw_);
      c.backward.tp_comm += rest;
    }
  }
  if (role.mtp_modules > 0) {
    const double d = role.mtp_modules;
    c.forward += mtp_.fwd * d;
    c.backward += mtp_.bwd * d;
    c.backward_input += mtp_.bwd_input * d;
    c.backward_weight += mtp_.bwd_weight * d;
  }
  // pipeline_p2p "deepspeed": the chunk's own sends and receives block its stream (each transfer is paid
  // by both ranks, as a blocking broadcast is; the graph then adds no transfer delay between them).
  if (s_.parallelism.pipeline_p2p_blocking) {
    if (role.has_prev) {
      c.forward.pp_comm += ds_act_;         // receive the activation slice
      c.forward.tp_comm += ds_gather_;      // part_input.full()
      c.backward.pp_comm += ds_grad_;       // send the input gradient's slice
      c.backward_input.pp_comm += ds_grad_;
    }
    if (role.has_next) {
      c.forward.pp_comm += ds_act_;         // send the output slice
      c.backward.pp_comm += ds_grad_;       // receive the output gradient's slice
      // Before the backward: rebuild the partitioned output (part_output.full()) and the received
      // gradient (part_grad.full()).
      c.backward.tp_comm += 2.0 * ds_gather_;
      c.backward_input.pp_comm += ds_grad_;
      c.backward_input.tp_comm += 2.0 * ds_gather_;
    }
  }
  // Fixed cost of every pipeline op (host dispatch, stream synchronisation around its send/receive).
  const Seconds op = s_.cluster.node.device.efficiency.op_overhead;
  c.forward.compute += op;
  c.backward.compute += op;
  c.backward_input.compute += op;
  c.backward_weight.compute += op;
  return c;
}

}  // namespace clustersim

namespace clustersim {

std::vector<StreamedPiece> OpCostModel::streamed_pieces(double weight_bytes, double gradient_bytes) const {
  const ParameterCount pc = parameter_count(s_.model);
  std::vector<StreamedPiece> pieces;
  const auto piece = [&](double count, const OpCost& fwd, const OpCost& bwd, double params) {
    if (count <= 0) return;
    pieces.push_back({.count = count,
                      .forward = fwd.compute,
                      .backward = bwd.compute,
                      .weights = Bytes(params * weight_bytes),
                      .gradients = Bytes(params * gradient_bytes)});
  };
  piece(1, embed_fwd_, embed_bwd_, pc.embedding);
  piece(pc.dense_layers, dense_.fwd, dense_.bwd, pc.per_layer);
  piece(pc.moe_layers, moe_.fwd, moe_.bwd, pc.moe_layer_shared + pc.moe_layer_experts);
  OpCost head_bwd = head_bwd_input_;
  head_bwd += head_bwd_weight_;
  piece(1, head_fwd_, head_bwd, pc.head);
  return pieces;
}

}  // namespace clustersim
