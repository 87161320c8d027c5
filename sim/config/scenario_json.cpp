#include "sim/config/scenario_json.hpp"

#include <fmt/format.h>

#include <cmath>

#include "sim/config/enum_names.hpp"
#include "sim/config/experiment_reader.hpp"
#include "sim/core/unit_parse.hpp"

namespace clustersim::config {
namespace {

constexpr int kDigits = 6;

std::string text(double si, Dimension d) {
  return format_quantity(si, d, kDigits);
}

std::string bytes_text(Bytes b) {
  constexpr double kGiB = 1073741824.0;
  const double gib = b.value() / kGiB;
  if (b.value() > 0 && gib == std::floor(gib)) return fmt::format("{} GiB", static_cast<long long>(gib));
  return text(b.value(), Dimension::bytes);
}

nlohmann::json link_to_json(const LinkSpec& l) {
  nlohmann::json j = {{"bandwidth", text(l.bandwidth.value(), Dimension::bandwidth)},
                      {"latency", text(l.latency.value(), Dimension::time)},
                      {"efficiency", l.efficiency}};
  if (l.duplex == Duplex::half) j["duplex"] = "half";
  return j;
}

nlohmann::json link_to_json(const LinkParams& l) {
  nlohmann::json j = {{"bandwidth", text(l.bandwidth.value(), Dimension::bandwidth)},
                      {"latency", text(l.latency.value(), Dimension::time)}};
  if (l.duplex == Duplex::half) j["duplex"] = "half";
  return j;
}

// The explicit topology's shape keys (docs/topologies.md), so the echo reads back into the same spec.
void network_shape_to_json(const ClusterTopologySpec& t, nlohmann::json& network) {
  switch (t.network) {
    case NetworkKind::none:
      break;
    case NetworkKind::fat_tree: {
      const FatTreeSpec& f = t.fat_tree;
      std::vector<double> ratios;
      for (int tier = 1; tier < f.tiers; ++tier) ratios.push_back(f.ratio(tier));
      network["tiers"] = f.tiers;
      network["radix"] = f.radix;
      network["oversubscription"] = ratios;
      network["rail_optimized"] = f.rail_optimized;
      network["leaf_spine"] = link_to_json(f.leaf_spine);
      if (f.tiers == 3) network["spine_core"] = link_to_json(f.spine_core);
      break;
    }
    case NetworkKind::torus:
      network["dims"] = t.torus.dims;
      network["wrap"] = t.torus.wrap;
      network["cube"] = t.torus.cube;
      network["link"] = link_to_json(t.torus.link);
      break;
    case NetworkKind::dragonfly: {
      const DragonflySpec& d = t.dragonfly;
      network["groups"] = d.groups;
      network["routers_per_group"] = d.routers_per_group;
      network["hosts_per_router"] = d.hosts_per_router;
      network["global_links_per_router"] = d.global_links_per_router;
      network["local"] = link_to_json(d.local);
      network["global"] = link_to_json(d.global);
      break;
    }
  }
}

}  // namespace

nlohmann::json device_to_json(const DeviceSpec& d) {
  nlohmann::json peak = nlohmann::json::object();
  for (const auto& [precision, rate] : d.peak) {
    peak[std::string(name_of(precision_names(), precision))] = text(rate.value(), Dimension::flops_rate);
  }
  const auto& e = d.efficiency;
  return {{"name", d.name},
          {"display_name", d.display_name},
          {"kind", d.kind},
          {"peak", peak},
          {"memory",
           {{"capacity", bytes_text(d.memory_capacity)},
            {"bandwidth", text(d.memory_bandwidth.value(), Dimension::bandwidth)}}},
          {"sm_count", d.sm_count},
          {"power",
           {{"tdp", text(d.tdp.value(), Dimension::power)},
            {"idle", text(d.idle_power.value(), Dimension::power)}}},
          {"efficiency",
           {{"gemm_max", e.gemm_max_efficiency},
            {"gemm_half_flops", text(e.gemm_half_flops, Dimension::flops)},
            {"attention", e.attention_efficiency},
            {"memory", e.memory_efficiency},
            {"kernel_overhead", text(e.kernel_overhead.value(), Dimension::time)},
            {"attention_half_head_dim", e.attention_half_head_dim},
            {"attention_half_keys", e.attention_half_keys},
            {"attention_flash2_rate", e.attention_flash2_rate},
            {"op_overhead", text(e.op_overhead.value(), Dimension::time)}}}};
}

nlohmann::json node_to_json(const NodeSpec& n) {
  nlohmann::json j = {{"name", n.name},
                      {"device", device_to_json(n.device)},
                      {"devices_per_node", n.devices_per_node},
                      {"fabric", name_of(fabric_names(), n.fabric)},
                      {"intra_link", link_to_json(n.intra)},
                      {"nics", n.nics},
                      {"host_power", text(n.host_power.value(), Dimension::power)}};
  if (n.nics > 0) j["nic"] = link_to_json(n.nic);
  if (n.nics_per_communicator > 0) j["nics_per_communicator"] = n.nics_per_communicator;
  if (!n.nvlink_mesh.empty()) {
    nlohmann::json mesh = nlohmann::json::array();
    for (const MeshLink& m : n.nvlink_mesh) mesh.push_back({m.a, m.b, m.lanes});
    j["nvlink_mesh"] = mesh;
  }
  if (n.nvlink_domain_devices > 0) j["nvlink_domain_devices"] = n.nvlink_domain_devices;
  if (n.nic_attach) {
    j["nic_attach"] = link_to_json(*n.nic_attach);
    j["nic_attach"].erase("efficiency");
  }
  if (n.host_link) {
    j["host_link"] = {{"bandwidth", text(n.host_link->bandwidth.value(), Dimension::bandwidth)},
                      {"efficiency", n.host_link->efficiency}};
  }
  if (n.weight_streaming) {
    const WeightStreamingSpec& w = *n.weight_streaming;
    nlohmann::json ws = {{"memoryx_capacity", text(w.memoryx_capacity.value(), Dimension::bytes)}};
    if (!w.bandwidth_derived) ws["bandwidth"] = text(w.bandwidth.value(), Dimension::bandwidth);
    if (!w.hop_latency_derived) ws["hop_latency"] = text(w.hop_latency.value(), Dimension::time);
    j["weight_streaming"] = ws;
  }
  const IciSpec& ici = n.ici;
  if (ici.dims > 0 || ici.max_dim > 0 || ici.wrap_multiple > 0) {
    nlohmann::json i = nlohmann::json::object();
    if (ici.dims > 0) i["dims"] = ici.dims;
    if (ici.max_dim > 0) i["max_dim"] = ici.max_dim;
    if (ici.wrap_multiple > 0) i["wrap_multiple"] = ici.wrap_multiple;
    j["ici"] = i;
  }
  return j;
}

nlohmann::json cluster_to_json(const ClusterSpec& c) {
  nlohmann::json network = {{"topology", c.network.topology},
                            {"oversubscription", c.network.oversubscription}};
  if (c.network.adaptive_routing) network["routing"] = "adaptive";  // "ecmp" (default) is not echoed
  if (c.comm.topology) network_shape_to_json(*c.comm.topology, network);
  if (c.network.slices > 1) {
    network["slices"] = c.network.slices;
    if (!c.network.dcn_derived) network["dcn_bandwidth"] = text(c.network.dcn.bandwidth.value(), Dimension::bandwidth);
  }
  if (!c.pools.empty()) {
    nlohmann::json pools = nlohmann::json::array();
    for (const ClusterPool& p : c.pools) {
      nlohmann::json node = node_to_json(p.node);
      if (p.nvls_efficiency > 0) node["collectives"] = {{"nvls_efficiency", p.nvls_efficiency}};
      pools.push_back({{"node", node}, {"nodes", p.nodes}});
    }
    nlohmann::json j = {{"name", c.name}, {"pools", pools}, {"network", network}};
    if (!c.inter_pool_derived) {
      j["inter_pool"] = link_to_json(c.inter_pool);
    }
    return j;
  }
  nlohmann::json node = node_to_json(c.node);
  // The node's collectives section (NVLink SHARP) lives in the cluster's communication spec.
  if (c.comm.nvls_efficiency > 0) node["collectives"] = {{"nvls_efficiency", c.comm.nvls_efficiency}};
  return {{"name", c.name}, {"node", node}, {"nodes", c.nodes}, {"network", network}};
}

nlohmann::json model_to_json(const TransformerSpec& m) {
  nlohmann::json j = {{"name", m.name},
                      {"layers", m.layers},
                      {"hidden", m.hidden},
                      {"heads", m.heads},
                      {"kv_heads", m.kv_heads},
                      {"ffn_hidden", m.ffn_hidden},
                      {"vocab", m.vocab},
                      {"seq_len", m.seq_len},
                      {"mlp", name_of(mlp_names(), m.mlp)},
                      {"norm", name_of(norm_names(), m.norm)},
                      {"position", name_of(position_names(), m.position)},
                      {"linear_bias", m.linear_bias},
                      {"tied_embeddings", m.tied_embeddings}};
  if (m.mtp_depth > 0) j["mtp_depth"] = m.mtp_depth;
  if (m.published_params >= 1e9) {
    j["params"] = fmt::format("{:.{}g}B", m.published_params / 1e9, kDigits);
  } else if (m.published_params > 0) {
    j["params"] = format_quantity(m.published_params, Dimension::count, kDigits);
  }
  if (m.head_dim_override > 0) j["head_dim"] = m.head_dim_override;
  if (m.parallel_block) j["parallel_block"] = true;
  if (m.mla.enabled()) {
    j["mla"] = {{"q_lora_rank", m.mla.q_lora_rank},
                {"kv_lora_rank", m.mla.kv_lora_rank},
                {"qk_nope_head_dim", m.mla.qk_nope_head_dim},
                {"qk_rope_head_dim", m.mla.qk_rope_head_dim},
                {"v_head_dim", m.mla.v_head_dim}};
  }
  if (m.moe.enabled()) {
    const MoeSpec& x = m.moe;
    nlohmann::json moe = {{"num_experts", x.num_experts},
                          {"top_k", x.top_k},
                          {"moe_ffn_hidden", x.ffn_hidden},
                          {"shared_experts", x.shared_experts},
                          {"shared_ffn_hidden", x.shared_ffn_hidden},
                          {"first_k_dense", x.first_dense_layers},
                          {"layer_freq", x.layer_freq},
                          {"max_nodes_per_token", x.max_nodes_per_token},
                          {"fp8_dispatch", x.fp8_dispatch}};
    if (x.capacity_factor > 0) moe["capacity_factor"] = x.capacity_factor;
    if (x.zipf_skew > 0) {
      moe["zipf_skew"] = x.zipf_skew;
    } else {
      moe["load_imbalance"] = x.load_imbalance;
    }
    j["moe"] = moe;
  }
  if (!m.notes.empty()) j["model_notes"] = m.notes;
  return j;
}

nlohmann::json stragglers_to_json(const StragglerSet& st) {
  nlohmann::json devices = nlohmann::json::array(), links = nlohmann::json::array();
  for (const DeviceSlowdown& d : st.devices) devices.push_back({{"device", d.device}, {"speed", d.speed}});
  for (const LinkSlowdown& l : st.links) {
    if (l.kind == SlowLinkKind::leaf_uplink) {
      links.push_back({{"class", "leaf_uplink"}, {"leaf", l.leaf}, {"bandwidth_factor", l.factor}});
    } else {
      links.push_back({{"class", l.kind == SlowLinkKind::nic ? "nic" : "nvlink"},
                       {"node", l.node},
                       {"index", l.index},
                       {"bandwidth_factor", l.factor}});
    }
  }
  return {{"devices", devices}, {"links", links}};
}

nlohmann::json scenario_to_json(const Scenario& s) {
  const auto& p = s.parallelism;
  const auto& t = s.training;
  nlohmann::json j = {{"schema_version", kSchemaVersion},
          {"name", s.name},
          {"engine", s.engine},
          {"cluster", cluster_to_json(s.cluster)},
          {"model", model_to_json(s.model)},
          {"parallelism",
           {{"tp", p.tp},
            {"pp", p.pp},
            {"dp", p.dp},
            {"cp", p.cp},
            {"ep", p.ep},
            {"vp", p.vp},
            {"sequence_parallel", p.sequence_parallel},
            {"zero_stage", p.zero_stage},
            {"schedule", name_of(schedule_names(), p.schedule)},
            {"tp_comm_overlap", p.tp_comm_overlap},
            {"dp_collective", p.dp_flat_ring ? "flat-ring" : "hierarchical"}}},
          {"training",
           {{"micro_batch", t.micro_batch},
            {"global_batch", t.global_batch},
            {"seq_len", t.seq_len},
            {"precision", name_of(precision_names(), t.precision)},
            {"gradient_precision", name_of(precision_names(), t.gradient_precision)},
            {"master_weights", t.master_weights_fp32 ? "fp32" : "none"},
            {"recompute", name_of(recompute_names(), t.recompute)},
            {"optimizer", name_of(optimizer_names(), t.optimizer)},
            {"overlap_grad_reduce", t.overlap_grad_reduce},
            {"flash_attention", t.flash_attention},
            {"fp8_attention", t.fp8_attention}}}};
  if (s.model.moe.enabled()) {
    j["parallelism"]["etp"] = p.etp;
    j["parallelism"]["moe_overlap"] = p.moe_overlap == MoeOverlap::compute         ? "compute"
                                      : p.moe_overlap == MoeOverlap::shared_expert ? "shared-expert"
                                                                                   : "none";
  }
  if (!p.pipeline_layout.empty()) {
    j["parallelism"]["pipeline_layout"] = p.pipeline_layout;
  } else if (!p.pipeline_split.empty()) {
    j["parallelism"]["pipeline_split"] = p.pipeline_split;  // the rule, re-applied when read back
  } else if (!p.pipeline_layers.empty()) {
    j["parallelism"]["pipeline_layers"] = p.pipeline_layers;
  }
  if (!s.cluster.pools.empty()) {
    j["parallelism"]["hetero"] = p.hetero == HeteroMode::pipeline ? "pipeline" : "data";
    j["parallelism"]["hetero_split"] = p.hetero_split == HeteroSplit::equal ? "equal" : "proportional";
  }
  if (p.ep_comm_sms > 0) j["parallelism"]["ep_comm_sms"] = p.ep_comm_sms;
  if (p.ep_comm_sms_reserved) j["parallelism"]["ep_comm_sms_reserved"] = true;
  if (t.flash_attention && t.attention_kernel != AttentionKernel::native) {
    j["training"]["attention_kernel"] = name_of(attention_kernel_names(), t.attention_kernel);
  }
  if (p.vocab_parallel != VocabParallel::none) {
    j["parallelism"]["vocab_parallel"] = p.vocab_parallel == VocabParallel::vocab_1   ? "vocab-1"
                                         : p.vocab_parallel == VocabParallel::vocab_2 ? "vocab-2"
                                                                                      : "interlaced";
  }
  if (t.fp8_activation_cache) j["training"]["fp8_activation_cache"] = true;
  if (t.fp8_saved_inputs != Fp8SavedInputs::fp8)
    j["training"]["fp8_saved_inputs"] = std::string(name_of(fp8_saved_inputs_names(), t.fp8_saved_inputs));
  if (t.bf16_layers_start > 0) j["training"]["bf16_layers_at_start"] = t.bf16_layers_start;
  if (t.bf16_layers_end > 0) j["training"]["bf16_layers_at_end"] = t.bf16_layers_end;
  if (t.recompute_norm_mla_up) j["training"]["recompute_norm_mla_up"] = true;
  if (t.activation_offload_layers > 0) j["training"]["activation_offload_layers"] = t.activation_offload_layers;
  if (t.selective_policy != SelectivePolicy::attention)
    j["training"]["selective_recompute"] = std::string(name_of(selective_policy_names(), t.selective_policy));
  if (t.selective_policy == SelectivePolicy::layer)
    j["training"]["selective_layer_interval"] = t.selective_layer_interval;
  if (t.eager_elementwise) j["training"]["eager_elementwise"] = true;
  if (t.separate_projections) j["training"]["separate_projections"] = true;
  if (t.batch_rampup) {
    j["training"]["batch_rampup"] = {{"start", t.batch_rampup->start},
                                     {"increment", t.batch_rampup->increment},
                                     {"samples", t.batch_rampup->samples}};
  }
  if (!s.parallelism.tp_comm_overlap_backward) j["parallelism"]["tp_comm_overlap_scope"] = "forward";
  if (s.parallelism.pipeline_p2p_blocking) j["parallelism"]["pipeline_p2p"] = "deepspeed";
  if (t.fp8_scaling != Fp8Scaling::delayed)
    j["training"]["fp8_scaling"] = std::string(name_of(fp8_scaling_names(), t.fp8_scaling));
  if (t.mxfp8_separate_swizzle) j["training"]["mxfp8_separate_swizzle"] = true;
  const DpModeSpec& d = p.data_parallel;
  if (d.mode != DpMode::allreduce) {
    nlohmann::json& jp = j["parallelism"];
    jp["dp_mode"] = name_of(dp_mode_names(), d.mode);
    if (d.uses_servers()) {
      jp["ps_servers"] = d.servers;
      jp["ps_placement"] = name_of(server_placement_names(), d.placement);
      if (d.placement == ServerPlacement::dedicated && d.server_nic.value() > 0) {
        jp["ps_server_nic"] = text(d.server_nic.value(), Dimension::bandwidth);
      }
    }
    if (d.mode == DpMode::ssp) jp["staleness_bound"] = d.staleness;
    if (d.mode == DpMode::ssp || d.mode == DpMode::async) jp["worker_step_cv"] = d.worker_cv;
    if (d.mode == DpMode::local_sgd) {
      jp["local_sgd_steps"] = d.local_steps;
      jp["datacenters"] = d.datacenters;
      if (d.datacenters > 1) {
        jp["cross_dc_bandwidth"] = text(d.cross_dc_bandwidth.value(), Dimension::bandwidth);
        jp["cross_dc_latency"] = text(d.cross_dc_latency.value(), Dimension::time);
      }
    }
  }
  if (!s.stragglers.empty()) j["stragglers"] = stragglers_to_json(s.stragglers);
  if (s.flow.leaf_nodes != FlowSettings{}.leaf_nodes || !s.flow.symmetry_reduction || !s.flow.flow_classes) {
    j["flow"] = {{"leaf_nodes", s.flow.leaf_nodes},
                 {"symmetry_reduction", s.flow.symmetry_reduction},
                 {"flow_classes", s.flow.flow_classes}};
  }
  return j;
}

}  // namespace clustersim::config
