#include "sim/report/step_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "models/transformer_cost.hpp"
#include "sim/config/enum_names.hpp"
#include "sim/config/scenario_json.hpp"
#include "sim/core/unit_parse.hpp"

namespace clustersim {
namespace {

std::string gib(Bytes b) {
  return fmt::format("{:.2f} GiB", b.value() / 1073741824.0);
}
std::string secs(Seconds s) {
  return format_quantity(s.value(), Dimension::time);
}

// How the engine costed communication: "flow" (SimGrid replay), else "topology": the analytic engine
// costs every collective on the cluster's TopologyGraph, explicit or derived
// (sim/collectives/topology_collectives.hpp).
std::string collective_model(const StepResult& r) {
  return r.engine != "analytic" ? r.engine : "topology";
}

double slowest_speed(const StragglerSet& st) {
  double slowest = 1.0;
  for (const DeviceSlowdown& d : st.devices) slowest = std::min(slowest, d.speed);
  return slowest;
}

}  // namespace

namespace {

nlohmann::json lag_json(const LagSummary& l) {
  return {{"mean", l.mean}, {"p50", l.p50}, {"p99", l.p99}, {"max", l.max}};
}

// An fp4 run's MFU is against the device's dense FP4 peak, and its FP4 GEMM rate has no calibration record.
constexpr const char* kFp4MfuNote =
    "against the dense FP4 peak; the FP4 GEMM efficiency is the FP8 form at that peak, uncalibrated: docs/model.md, NVFP4";

// Values of the data-parallel mode the input did not give (printed in the report as assumptions).
std::vector<std::string> data_parallel_assumptions(const Scenario& s) {
  const DpModeSpec& d = s.parallelism.data_parallel;
  std::vector<std::string> a;
  if (d.uses_servers()) {
    a.emplace_back("push/pull start after the last backward (no overlap with the backward pass)");
    a.emplace_back("the NIC protocol efficiency of the worker nodes applies to server NICs");
    if (d.placement == ServerPlacement::dedicated) {
      if (d.server_nic.value() <= 0) {
        a.emplace_back("dedicated server NIC = one worker node's NICs (nics x NIC bandwidth)");
      }
      a.emplace_back("dedicated servers' optimizer update not charged (pipelined with the push per key range)");
    }
    if (d.mode != DpMode::parameter_server) {
      a.emplace_back(fmt::format("worker compute time lognormal with coefficient of variation {:g}{}", d.worker_cv,
                                 d.worker_cv == 0 ? " (identical workers)" : ""));
      a.emplace_back("server shards serve one update at a time, FIFO; server time per update = round / workers");
    }
  }
  if (d.mode == DpMode::local_sgd) {
    a.emplace_back("the averaging is not overlapped with compute; its cost is spread evenly over the H steps");
    a.emplace_back("outer optimizer: Nesterov momentum (DiLoCo), fp32 anchor and momentum, 24 B/parameter of "
                   "HBM traffic per averaging");
  }
  return a;
}

// A multi-slice job (sim/collectives/multislice.hpp): the slices, the DCN bandwidth per host and where
// it comes from (an assumption when derived from the node's NICs).
std::string dcn_source(const ClusterSpec& c) {
  if (!c.network.dcn_derived) return "network.dcn_bandwidth";
  return fmt::format("assumed: the host's {} data-centre NICs x {:.1f} GB/s x efficiency {:g}", c.node.nics,
                     c.node.nic.bandwidth.value() / 1e9, c.node.nic.efficiency);
}

nlohmann::json multi_slice_json(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  return {{"slices", c.network.slices},
          {"devices_per_slice", c.devices() / c.network.slices},
          {"dcn_bandwidth_per_host_bytes_per_s", c.network.dcn.bandwidth.value()},
          {"dcn_latency_s", c.network.dcn.latency.value()},
          {"dcn_bandwidth_source", dcn_source(c)},
          {"assumptions",
           {"data parallelism spans the slices, ZeRO/FSDP shards within a slice (MaxText dcn_data_parallelism)",
            "gradients: reduce-scatter on ICI, ring all-reduce of the shard across slices over DCN, all-gather on "
            "ICI; the DCN between hosts is non-blocking"}}};
}

std::string multi_slice_text(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  return fmt::format("{} ICI tori of {} devices, joined over DCN at {:.1f} GB/s per host per direction ({}); "
                     "data parallelism across slices, gradients reduced hierarchically (assumed: non-blocking DCN)",
                     c.network.slices, c.devices() / c.network.slices, c.network.dcn.bandwidth.value() / 1e9,
                     dcn_source(c));
}

}  // namespace

nlohmann::json data_parallel_json(const Scenario& s, const DataParallelResult& d) {
  nlohmann::json j;
  j["mode"] = config::name_of(config::dp_mode_names(), d.mode);
  j["workers"] = d.workers;
  if (d.mode == DpMode::local_sgd) {
    j["local_sgd_steps"] = d.local_steps;
    j["datacenters"] = d.datacenters;
    j["averaging_s"] = d.averaging.value();
    j["amortised_sync_per_step_s"] = d.amortised.value();
    j["outer_state_bytes"] = d.outer_state.value();
  } else {
    j["servers"] = d.servers;
    j["placement"] = d.colocated ? "colocated" : "dedicated";
    j["round_s"] = d.round.value();
    j["round_closed_form_s"] = d.round_closed_form.value();
    j["server_nic_time_s"] = d.server_time.value();
    j["worker_nic_time_s"] = d.worker_time.value();
    j["server_bound"] = d.server_bound;
    j["server_nic_bandwidth_bytes_per_s"] = d.server_nic.value();
    j["server_bytes_per_round"] = d.server_bytes_per_round.value();
    j["server_nic_utilisation"] = d.server_nic_utilisation;
    j["server_nic_busy_fraction"] = d.server_nic_busy;
    j["server_update_capacity_per_s"] = d.server_update_capacity;
    j["updates_per_s"] = d.updates_per_s;
    if (d.mode != DpMode::parameter_server) {
      j["compute_per_update_s"] = d.compute.value();
      j["worker_step_cv"] = d.worker_cv;
      if (d.staleness_bound >= 0) j["staleness_bound"] = d.staleness_bound;
      j["worker_cycle_s"] = d.worker_cycle.value();
      j["waiting_fraction"] = d.waiting_fraction;
      j["staleness_clock_lag_steps"] = lag_json(d.clock_lag);
      j["staleness_update_lag_steps"] = lag_json(d.update_lag);
      j["simulated_updates"] = d.simulated_updates;
    }
  }
  j["assumptions"] = data_parallel_assumptions(s);
  return j;
}

std::string data_parallel_text(const Scenario& s, const DataParallelResult& d) {
  std::string out;
  auto line = [&out](std::string_view label, const std::string& value) {
    out += fmt::format("  {:<28}{}\n", label, value);
  };
  out += fmt::format("data parallel mode: {}\n", config::name_of(config::dp_mode_names(), d.mode));
  if (d.mode == DpMode::local_sgd) {
    line("averaging", fmt::format("every {} steps, {:.4g} s each ({} datacentre{})", d.local_steps,
                                  d.averaging.value(), d.datacenters, d.datacenters == 1 ? "" : "s"));
    line("per step (amortised)", fmt::format("{:.4g} s = averaging / {}", d.amortised.value(), d.local_steps));
    line("outer optimizer state", fmt::format("{:.2f} GiB per device", d.outer_state.value() / 1073741824.0));
  } else {
    line("servers", fmt::format("{} {} shard{} for {} workers", d.servers, d.colocated ? "colocated" : "dedicated",
                                d.servers == 1 ? "" : "s", d.workers));
    line("push + pull round",
         fmt::format("{:.4g} s (closed form {:.4g} s: server NICs {:.4g} s, worker NICs {:.4g} s) — {}",
                     d.round.value(), d.round_closed_form.value(), d.server_time.value(), d.worker_time.value(),
                     d.server_bound ? "server-bound" : "worker-bound"));
    line("server NICs", fmt::format("busy {:.1f} % of the time at full rate; utilisation {:.1f} % (busier direction: "
                                    "pushes in, pulls out)",
                                    100.0 * d.server_nic_busy, 100.0 * d.server_nic_utilisation));
    line("updates", fmt::format("{:.4g} /s (servers absorb {:.4g} /s)", d.updates_per_s, d.server_update_capacity));
    if (d.mode != DpMode::parameter_server) {
      line("worker cycle", fmt::format("{:.4g} s ({:.4g} s compute){}", d.worker_cycle.value(), d.compute.value(),
                                       d.staleness_bound >= 0
                                           ? fmt::format(", {:.1f} % waiting on the slowest (bound s = {})",
                                                         100.0 * d.waiting_fraction, d.staleness_bound)
                                           : ""));
      line("staleness (clock lag)", fmt::format("mean {:.2f}, p99 {:g}, max {:g} steps", d.clock_lag.mean,
                                                d.clock_lag.p99, d.clock_lag.max));
      line("staleness (update lag)", fmt::format("mean {:.2f}, p99 {:g}, max {:g} updates", d.update_lag.mean,
                                                 d.update_lag.p99, d.update_lag.max));
    }
  }
  for (const std::string& a : data_parallel_assumptions(s)) line("assumed", a);
  return out;
}

void JsonSink::put(std::string_view section, std::string_view name, const nlohmann::json& value) {
  if (section.empty()) {
    j_[std::string(name)] = value;
  } else {
    j_[std::string(section)][std::string(name)] = value;
  }
}

void step_report_fields(const Scenario& s, const StepResult& r, ReportSink& out) {
  // In key order (a sweep row sorts its keys once per set of keys, so the order is not a contract).
  out.put("", "bubble_fraction", r.bubble_fraction);
  out.put("", "bubble_fraction_textbook", r.bubble_fraction_textbook);
  out.put("", "collective_model", collective_model(r));
  const CommExposed& c = r.comm_exposed;
  out.put("communication_exposed_s", "cp", c.cp.value());
  out.put("communication_exposed_s", "dp", c.dp.value());
  out.put("communication_exposed_s", "ep", c.ep.value());
  out.put("communication_exposed_s", "pp", c.pp.value());
  out.put("communication_exposed_s", "tp", c.tp.value());
  out.put("", "critical_stage", r.critical_stage);
  if (r.data_parallel.mode != DpMode::allreduce) out.put("", "data_parallel", data_parallel_json(s, r.data_parallel));
  out.put("", "devices", r.devices);
  out.put("", "engine", r.engine);
  out.put("", "hardware_flops_per_step", r.hardware_flops_per_step);
  out.put("", "hfu", r.hfu);
  out.put("", "hw_tflops_per_device", r.hw_tflops_per_device);
  const MemoryBreakdown& m = r.memory;
  out.put("memory", "activations_bytes", m.activations.value());
  out.put("memory", "capacity_bytes", r.memory_capacity.value());
  out.put("memory", "fits", r.fits);
  out.put("memory", "gradients_bytes", m.gradients.value());
  out.put("memory", "headroom_bytes", r.memory_capacity.value() - m.total().value());
  out.put("memory", "optimizer_bytes", m.optimizer.value());
  out.put("memory", "other_bytes", m.other.value());
  out.put("memory", "stage", r.memory_stage);
  out.put("memory", "total_bytes", m.total().value());
  out.put("memory", "weights_bytes", m.weights.value());
  out.put("", "mfu", r.mfu);
  if (r.offload) {
    const OffloadResult& o = *r.offload;
    out.put("", "activation_offload",
            {{"layers", o.layers},
             {"device_bytes_saved", o.device_bytes_saved.value()},
             {"host_bytes_per_step", o.host_bytes_per_step.value()},
             {"host_link_bytes_per_s", o.bandwidth.value()},
             {"copy_s", o.copy_time.value()},
             {"exposed_s", o.exposed.value()},
             {"hbm_slowdown_s", o.hbm_slowdown.value()}});
  }
  if (s.training.precision == Precision::fp4) out.put("", "mfu_note", kFp4MfuNote);
  // The split a pipeline_split rule gave at this pp·vp (the experiment echo carries only the rule).
  if (!s.parallelism.pipeline_split.empty() && !s.parallelism.pipeline_layers.empty()) {
    out.put("", "pipeline_layers", nlohmann::json(s.parallelism.pipeline_layers));
  }
  out.put("", "microbatches", r.microbatches);
  out.put("", "model_flops_per_step", r.model_flops_per_step);
  if (!s.model.notes.empty()) out.put("", "model_notes", s.model.notes);
  if (!r.schedule_assumptions.empty()) out.put("", "schedule_assumptions", r.schedule_assumptions);
  if (s.model.moe.enabled()) {
    const ParallelismSpec& p = s.parallelism;
    out.put("", "moe",
            {{"num_experts", s.model.moe.num_experts},
             {"top_k", s.model.moe.top_k},
             {"ep", p.ep},
             {"etp", p.etp},
             {"expert_dp", p.tp * p.cp * p.dp / (p.ep * p.etp)},
             {"load_imbalance", r.graph ? r.graph->moe_load : 1.0},
             {"all_to_all_per_layer_pass_s", r.graph ? r.graph->moe_all_to_all.value() : 0.0},
             {"total_parameters", parameter_count(s.model).total()},
             {"active_parameters", active_parameters(s.model)}});
  }
  if (s.cluster.network.slices > 1) out.put("", "multi_slice", multi_slice_json(s));
  // Compute time the critical stage loses to collectives hidden under it (SM and HBM sharing).
  out.put("", "overlap_slowdown_s", r.stages[static_cast<std::size_t>(r.critical_stage)].overlap_slowdown.value());
  out.put("", "step_time_s", r.step_time.value());
  if (!s.stragglers.empty()) {
    // Link stragglers only act through contention, which the analytic engine does not model.
    out.put("", "stragglers",
            {{"devices", s.stragglers.devices.size()},
             {"slowest_device_speed", slowest_speed(s.stragglers)},
             {"links", s.stragglers.links.size()},
             {"links_modelled", r.engine == "flow"}});
  }
  out.put("", "tflops_per_device", r.tflops_per_device);
  out.put("", "tokens_per_s", r.tokens_per_s);
  out.put("", "tokens_per_step", r.tokens_per_step);
  if (r.streaming) {
    const StreamingResult& x = *r.streaming;
    out.put("", "weight_streaming",
            {{"bound", x.stream_bound() ? "streaming" : "compute"},
             {"compute_s", x.compute.value()},
             {"streaming_s", x.streaming.value()},
             {"exposed_s", x.exposed.value()},
             {"boundary_s", x.boundary.value()},
             {"passes", 2 * x.microbatches},
             {"bandwidth_bytes_per_s", x.bandwidth.value()},
             {"bandwidth_assumed_from_nics", s.cluster.node.weight_streaming->bandwidth_derived},
             {"weights_per_pass_bytes", x.weights.value()},
             {"memoryx_bytes", x.memoryx.value()},
             {"memoryx_capacity_bytes", x.memoryx_capacity.value()},
             {"memoryx_fits", x.memoryx <= x.memoryx_capacity}});
  }
}

nlohmann::json step_report_json(const Scenario& s, const StepResult& r, bool include_inputs, bool include_stages) {
  nlohmann::json j;
  JsonSink sink(j);
  step_report_fields(s, r, sink);
  if (include_stages) {
    nlohmann::json stages = nlohmann::json::array();
    for (const StageSummary& st : r.stages) {
      stages.push_back({{"compute_s", st.compute.value()},
                        {"recompute_s", st.recompute.value()},
                        {"overlap_slowdown_s", st.overlap_slowdown.value()},
                        {"tp_exposed_s", st.tp_exposed.value()},
                        {"cp_exposed_s", st.cp_exposed.value()},
                        {"pp_exposed_s", st.pp_exposed.value()},
                        {"dp_exposed_s", st.dp_exposed.value()},
                        {"ep_exposed_s", st.ep_exposed.value()},
                        {"optimizer_s", st.optimizer.value()},
                        {"bubble_s", st.bubble.value()},
                        {"end_s", st.end.value()},
                        {"memory_total_bytes", st.memory.total().value()}});
    }
    j["stages"] = std::move(stages);
  }
  if (include_inputs) j["experiment"] = config::scenario_to_json(s);
  return j;
}

std::string step_report_text(const Scenario& s, const StepResult& r) {
  const ParallelismSpec& p = s.parallelism;
  const TrainingSpec& t = s.training;
  std::string out;
  auto line = [&out](std::string_view label, const std::string& value) {
    out += fmt::format("  {:<28}{}\n", label, value);
  };
  out += fmt::format("clustersim — {} ({} engine)\n", s.name.empty() ? "experiment" : s.name, r.engine);
  out += "inputs\n";
  line("model",
       fmt::format("{} ({} layers, hidden {}, {} heads, {:.1f} B parameters)", s.model.name, s.model.layers,
                   s.model.hidden, s.model.heads, parameter_count(s.model).total() / 1e9));
  for (const std::string& note : s.model.notes) line("  model note", note);
  if (s.model.moe.enabled()) {
    const MoeSpec& x = s.model.moe;
    line("experts", fmt::format("{} routed (top-{}){}, {} of {} layers MoE, {:.1f} B active parameters",
                                x.num_experts, x.top_k,
                                x.shared_experts > 0 ? fmt::format(" + {} shared", x.shared_experts) : "",
                                parameter_count(s.model).moe_layers, s.model.layers,
                                active_parameters(s.model) / 1e9));
  }
  if (s.cluster.pools.empty()) {
    line("cluster", fmt::format("{}: {} nodes x {} {} = {} devices", s.cluster.name, s.cluster.nodes,
                                s.cluster.node.devices_per_node, s.cluster.node.device.name, r.devices));
    if (s.cluster.network.slices > 1) line("slices", multi_slice_text(s));
  } else {
    std::string pools;
    for (const ClusterPool& pool : s.cluster.pools) {
      pools += fmt::format("{}{} nodes x {} {}", pools.empty() ? "" : " + ", pool.nodes, pool.node.devices_per_node,
                           pool.node.device.name);
    }
    line("cluster", fmt::format("{}: pools {} = {} devices", s.cluster.name, pools, r.devices));
  }
  line("parallelism",
       fmt::format("TP {} PP {} DP {} CP {} VP {}{}{}, ZeRO {}, schedule {}", p.tp, p.pp, p.dp, p.cp, p.vp,
                   p.sequence_parallel ? " +SP" : "",
                   s.model.moe.enabled() ? fmt::format(" EP {} ETP {}", p.ep, p.etp) : "", p.zero_stage,
                   to_string(p.schedule)));
  if (!p.pipeline_layers.empty()) {
    // Layers per virtual stage, runs of equal counts folded ("7, 8 x 14, 7").
    std::string text;
    for (std::size_t i = 0; i < p.pipeline_layers.size();) {
      std::size_t j = i;
      while (j < p.pipeline_layers.size() && p.pipeline_layers[j] == p.pipeline_layers[i]) ++j;
      text += fmt::format("{}{}{}", text.empty() ? "" : ", ", p.pipeline_layers[i],
                          j - i > 1 ? fmt::format(" x {}", j - i) : "");
      i = j;
    }
    const std::string from = !p.pipeline_split.empty()    ? fmt::format("rule {}", p.pipeline_split)
                             : !p.pipeline_layout.empty() ? std::string("pipeline_layout")
                                                          : std::string("pipeline_layers");
    line("  layers per stage", fmt::format("{} ({}{})", text, from, p.vp > 1 ? "; virtual stages, chunk-major" : ""));
  }
  for (const std::string& a : r.schedule_assumptions) line("  schedule assumed", a);
  std::string rc =
      t.recompute == Recompute::none ? "none" : (t.recompute == Recompute::selective ? "selective" : "full");
  if (t.recompute == Recompute::selective) {
    // Which policy `selective` ran (training.selective_recompute; docs/model.md).
    switch (t.selective_policy) {
      case SelectivePolicy::attention: rc += " (attention core)"; break;
      case SelectivePolicy::op: rc += " (op-level SAC)"; break;
      case SelectivePolicy::layer:
        rc += fmt::format(" (every k-th layer in full, k = {})", std::max(1, t.selective_layer_interval));
        break;
      case SelectivePolicy::core_attn: rc += " (core-attn: the attention module)"; break;
      case SelectivePolicy::dots: rc += " (dots: weight-matmul outputs saved)"; break;
    }
  }
  line("batch", fmt::format("micro {} x {} micro-batches, global {} sequences of {} tokens", t.micro_batch,
                            r.microbatches, t.global_batch, t.seq_len));
  if (t.batch_rampup) {
    line("batch ramp", fmt::format("from {} by {} over the first {} sequences (Megatron-LM rule); this step is "
                                   "at the final batch, {}",
                                   t.batch_rampup->start, t.batch_rampup->increment, t.batch_rampup->samples,
                                   s.run ? "the run section replays the ramp" : "no run section: the ramp is not "
                                                                                "replayed"));
  }
  line("training", fmt::format("{} compute, recompute {}, flash attention {}", to_string(t.precision), rc,
                               t.flash_attention ? "on" : "off"));
  if (!s.stragglers.empty()) {
    const std::size_t nd = s.stragglers.devices.size(), nl = s.stragglers.links.size();
    std::string text = fmt::format("{} device{}", nd, nd == 1 ? "" : "s");
    if (nd > 0) text += fmt::format(" (slowest at {:.2f} x speed)", slowest_speed(s.stragglers));
    text += fmt::format(", {} link{}", nl, nl == 1 ? "" : "s");
    if (nl > 0) {
      text += r.engine == "flow"
                  ? " at reduced bandwidth"
                  : " (ignored by the analytic engine, which has no contention: use --engine flow)";
    }
    line("stragglers", text);
  }
  out += "step\n";
  line("step time", secs(r.step_time));
  line("throughput", fmt::format("{:.0f} tokens/s", r.tokens_per_s));
  line("model TFLOP/s per device", fmt::format("{:.1f} TFLOP/s", r.tflops_per_device));
  line("hardware TFLOP/s per device",
       fmt::format("{:.1f} TFLOP/s (incl. recomputation)", r.hw_tflops_per_device));
  line("MFU", fmt::format("{:.1f} %{}", 100.0 * r.mfu,
                          s.training.precision == Precision::fp4 ? std::string(" (") + kFp4MfuNote + ")" : ""));
  line("HFU", fmt::format("{:.1f} %", 100.0 * r.hfu));
  line("pipeline bubble", fmt::format("{:.1f} % of step time (textbook (p-1)/(v*m+p-1): {:.1f} %)",
                                      100.0 * r.bubble_fraction, 100.0 * r.bubble_fraction_textbook));
  if (r.streaming) {
    const StreamingResult& x = *r.streaming;
    out += "weight streaming (MemoryX -> SwarmX -> wafer; data parallel only)\n";
    line("bound", fmt::format("{}: compute {} vs stream {} per step", x.stream_bound() ? "streaming" : "compute",
                              secs(x.compute), secs(x.streaming)));
    const WeightStreamingSpec& ws = *s.cluster.node.weight_streaming;
    line("stream bandwidth",
         fmt::format("{:.1f} GB/s per system, per direction{}", x.bandwidth.value() / 1e9,
                     ws.bandwidth_derived ? fmt::format(" (assumed: the node's {} NICs x {:.1f} GB/s x efficiency {:g})",
                                                        s.cluster.node.nics, s.cluster.node.nic.bandwidth.value() / 1e9,
                                                        s.cluster.node.nic.efficiency)
                                          : ""));
    if (ws.hop_latency_derived) line("tree hop latency", fmt::format("{} (assumed: the NIC latency)", secs(ws.hop_latency)));
    line("streamed per pass", fmt::format("{} weights, {} passes per step (fwd + bwd per micro-batch)",
                                          gib(x.weights), 2 * x.microbatches));
    line("stream exposed", fmt::format("{} (of which step boundary: fill + drain + tree latency {})",
                                       secs(x.exposed), secs(x.boundary)));
    line("MemoryX", fmt::format("{} of {} (weights, gradients, optimizer states) — {}", gib(x.memoryx),
                                gib(x.memoryx_capacity),
                                x.memoryx <= x.memoryx_capacity ? "fits" : "DOES NOT FIT"));
    out += "memory per system (on-wafer SRAM: activations and the streamed pieces in flight)\n";
  } else {
    out += fmt::format("memory per device (stage {}, the fullest)\n", r.memory_stage);
  }
  line("weights", gib(r.memory.weights));
  line("gradients", gib(r.memory.gradients));
  line("optimizer states", gib(r.memory.optimizer));
  line("activations", gib(r.memory.activations));
  line("other (runtime, buffers)", gib(r.memory.other));
  const double headroom = r.memory_capacity.value() - r.memory.total().value();
  line("total", fmt::format("{} of {} — {}", gib(r.memory.total()), gib(r.memory_capacity),
                            headroom >= 0 ? fmt::format("fits, {} free", gib(Bytes(headroom)))
                                   : fmt::format("DOES NOT FIT by {}", gib(Bytes(-headroom)))));
  if (r.offload) {
    const OffloadResult& o = *r.offload;
    line("activation offload",
         fmt::format("{} activations in host memory ({} off the device); {} per device each way per step "
                     "over the host link at {:.4g} GB/s (the schedule of Transformer Engine 2.10 on; older "
                     "releases keep one more layer: docs/model.md)",
                     o.layers == 1 ? std::string("1 layer's") : fmt::format("{} layers'", o.layers),
                     gib(o.device_bytes_saved), gib(o.host_bytes_per_step), o.bandwidth.value() / 1e9));
  }
  out += fmt::format("communication exposed (critical stage {})\n", r.critical_stage);
  line("tensor parallel", secs(r.comm_exposed.tp));
  line("pipeline parallel", secs(r.comm_exposed.pp));
  line("data parallel", secs(r.comm_exposed.dp));
  line("context parallel", secs(r.comm_exposed.cp));
  if (s.model.moe.enabled()) {
    line("expert parallel",
         fmt::format("{} (all-to-all; one dispatch {} per layer pass on the busiest rank, expert load {:.2f} x mean)",
                     secs(r.comm_exposed.ep), secs(r.graph ? r.graph->moe_all_to_all : Seconds(0)),
                     r.graph ? r.graph->moe_load : 1.0));
  }
  if (r.offload) {
    line("activation offload exposed",
         fmt::format("{} (copies {} per step; HBM slowdown {})", secs(r.offload->exposed),
                     secs(r.offload->copy_time), secs(r.offload->hbm_slowdown)));
  }
  line("compute slowed by overlap",
       secs(r.stages[static_cast<std::size_t>(r.critical_stage)].overlap_slowdown));
  if (r.data_parallel.mode != DpMode::allreduce) out += data_parallel_text(s, r.data_parallel);
  if (collective_model(r) == "topology") {
    const auto& spelled = s.cluster.comm.topology;
    line("collective model",
         spelled ? fmt::format("all collectives on the explicit {} topology", to_string(spelled->network))
                 : fmt::format("all collectives on the {} topology derived from the cluster's fields",
                               s.cluster.network.topology));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> flatten_scalars(const nlohmann::json& j) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto walk = [&out](const auto& self, const nlohmann::json& node, const std::string& prefix) -> void {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
      if (it->is_object()) {
        self(self, *it, key);
      } else if (it->is_primitive()) {
        out.emplace_back(key, it->is_string() ? it->get<std::string>() : it->dump());
      }
    }
  };
  walk(walk, j, "");
  return out;
}

}  // namespace clustersim
