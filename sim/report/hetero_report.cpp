#include "sim/report/hetero_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "schedules/pipeline_deps.hpp"
#include "schedules/pipeline_schedule.hpp"

namespace clustersim {
namespace {

std::string_view mode_name(HeteroMode m) { return m == HeteroMode::pipeline ? "pipeline" : "data"; }
std::string_view split_name(HeteroSplit s) { return s == HeteroSplit::equal ? "equal" : "proportional"; }

// "stage 0 (pool 0)", "stages 0 and 3 (pools 0 and 1)": pipeline stages and the pools that hold them.
std::string stages_and_pools(const std::vector<int>& stages, const HeteroResult& h) {
  const auto pool_of = [&h](int st) {
    for (std::size_t q = 0; q < h.pools.size(); ++q) {
      const PoolResult& p = h.pools[q];
      if (st >= p.first_stage && st < p.first_stage + p.stages) return static_cast<int>(q);
    }
    return -1;
  };
  std::vector<int> pools;
  for (int st : stages) {
    const int q = pool_of(st);
    if (std::find(pools.begin(), pools.end(), q) == pools.end()) pools.push_back(q);
  }
  const auto list = [](const std::vector<int>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      out += fmt::format("{}{}", i == 0 ? "" : (i + 1 == v.size() ? " and " : ", "), v[i]);
    }
    return out;
  };
  return fmt::format("{} {} ({} {})", stages.size() == 1 ? "stage" : "stages", list(stages),
                     pools.size() == 1 ? "pool" : "pools", list(pools));
}

// Where the embedding and the LM head run, from the schedule's own placement of virtual stages on pipeline
// stages (schedules/pipeline_deps.hpp virtual_stage): the embedding is virtual stage 0, the LM head the last
// one. 1F1B and the interleaved schedule put them on the first and the last stage; V-Half puts both on
// stage 0 (its last virtual stage, 2p-1, is chunk 1 of stage 0); DualPipe holds a copy of each on stage 0
// and stage p-1. With vocabulary parallelism both are split over every virtual stage instead.
std::string vocabulary_placement(const Scenario& s, const HeteroResult& h) {
  const ParallelismSpec& p = s.parallelism;
  const std::string head = "the layer split weighs transformer layers only; ";
  if (p.vocab_parallel != VocabParallel::none && p.pp > 1) {
    return head + "the embedding and LM head are split evenly over every virtual stage (vocab_parallel), "
                  "whatever pool holds it";
  }
  const ScheduleSpec spec =
      schedule_spec(p.schedule, p.pp, s.training.microbatches(p.dp), p.vp, v_half_vocab_slots(p));
  const int last = virtual_stage_count(spec) - 1;
  std::vector<int> embedding, output;
  for (int st = 0; st < p.pp; ++st) {
    for (int c = 0; c < spec.chunks; ++c) {
      const int k = virtual_stage(spec, st, c);
      if (k == 0 && std::find(embedding.begin(), embedding.end(), st) == embedding.end()) embedding.push_back(st);
      if (k == last && std::find(output.begin(), output.end(), st) == output.end()) output.push_back(st);
    }
  }
  if (embedding == std::vector<int>{0} && output == std::vector<int>{p.pp - 1}) {
    return head + "embedding and LM head stay on the first and last stage (give pipeline_layers to move them)";
  }
  // V-Half sets its split itself: sim/config refuses pipeline_layers with it.
  const std::string move = p.schedule == ScheduleKind::v_half ? "" : " (give pipeline_layers to move layers off them)";
  const std::string schedule(to_string(p.schedule));
  if (embedding == output) {
    return head + fmt::format("embedding (virtual stage 0) and LM head (virtual stage {}) both stay on {}, where "
                              "schedule \"{}\" places them{}",
                              last, stages_and_pools(embedding, h), schedule, move);
  }
  return head + fmt::format("the embedding (virtual stage 0) stays on {} and the LM head (virtual stage {}) on {}, "
                            "where schedule \"{}\" places them{}",
                            stages_and_pools(embedding, h), last, stages_and_pools(output, h), schedule, move);
}

std::vector<std::string> assumptions(const Scenario& s, const HeteroResult& h) {
  std::vector<std::string> a;
  const ParallelismSpec& p = s.parallelism;
  if (p.hetero_defaulted) a.emplace_back("hetero = data (not given): each pool runs whole DP replicas");
  if (p.hetero_split_defaulted && !h.layers_stated) {
    a.emplace_back("hetero_split = proportional (not given): work split by each pool's measured rate");
  }
  if (s.cluster.inter_pool_derived) {
    a.emplace_back(fmt::format("inter-pool network = the smallest pool node's NICs, {:.4g} GB/s per node per "
                               "direction, {:.3g} us latency (cluster.inter_pool not given)",
                               s.cluster.inter_pool.bandwidth.value() / 1e9, s.cluster.inter_pool.latency.value() * 1e6));
  }
  if (h.mode == HeteroMode::data) {
    a.emplace_back("the gradient all-reduce between pools runs after the slowest pool's step, not overlapped; each "
                   "pool's own all-reduce is charged in full inside it (a hierarchical reduce would move a little less)");
  } else {
    a.emplace_back("a transfer between pools takes max(the pool's own pipeline send, activations of all DP "
                   "replicas through the fewer nodes' inter-pool links)");
    if (!h.layers_stated && h.split == HeteroSplit::proportional) a.push_back(vocabulary_placement(s, h));
  }
  a.emplace_back("pool energy per step = devices × (idle power × step + (TDP − idle) × busy time) + hosts × step");
  return a;
}

}  // namespace

nlohmann::json hetero_json(const Scenario& s, const HeteroResult& h) {
  nlohmann::json j;
  j["mode"] = mode_name(h.mode);
  j["split"] = h.layers_stated ? "stated" : split_name(h.split);
  j["bottleneck_pool"] = h.bottleneck;
  j["inter_pool_s"] = h.inter_pool.value();
  j["inter_pool_bandwidth_bytes_per_s"] = h.inter_pool_bandwidth.value();
  if (h.mode == HeteroMode::pipeline) j["pipeline_layers"] = h.pipeline_layers;
  nlohmann::json pools = nlohmann::json::array();
  for (const PoolResult& p : h.pools) {
    nlohmann::json x;
    x["node"] = p.node;
    x["device"] = p.device;
    x["nodes"] = p.nodes;
    x["devices"] = p.devices;
    if (h.mode == HeteroMode::pipeline) {
      x["first_stage"] = p.first_stage;
      x["stages"] = p.stages;
      x["layers"] = p.layers;
      x["layer_time_s"] = p.unit_time.value();
    } else {
      x["replicas"] = p.replicas;
      x["microbatches"] = p.microbatches;
      x["microbatches_per_replica"] = p.microbatches_per_replica;
      x["pool_step_s"] = p.pool_step.value();
      if (h.split == HeteroSplit::proportional) x["microbatch_time_s"] = p.unit_time.value();
    }
    x["compute_s"] = p.compute.value();
    x["busy_fraction"] = p.busy;
    x["memory_bytes"] = p.memory.value();
    x["memory_capacity_bytes"] = p.capacity.value();
    x["fits"] = p.fits;
    x["peak_flops_per_device"] = p.peak_flops;
    x["energy_per_step_j"] = p.energy_j;
    x["mean_power_w"] = p.mean_power_w;
    pools.push_back(x);
  }
  j["pools"] = pools;
  j["assumptions"] = assumptions(s, h);
  return j;
}

std::string hetero_text(const Scenario& s, const StepResult& r) {
  const HeteroResult& h = *r.hetero;
  std::string out = fmt::format("heterogeneous cluster: {} pools, hetero {}, split {}\n", h.pools.size(),
                                mode_name(h.mode), h.layers_stated ? "stated (pipeline_layers)" : split_name(h.split));
  for (std::size_t i = 0; i < h.pools.size(); ++i) {
    const PoolResult& p = h.pools[i];
    const std::string work =
        h.mode == HeteroMode::pipeline
            ? fmt::format("stages {}–{}, {} layers ({:.4g} ms per layer fwd+bwd)", p.first_stage,
                          p.first_stage + p.stages - 1, p.layers, p.unit_time.value() * 1e3)
            : fmt::format("{} replicas, {} micro-batches ({} on the busiest replica), own step {:.4g} s", p.replicas,
                          p.microbatches, p.microbatches_per_replica, p.pool_step.value());
    out += fmt::format("  pool {}: {} × {} ({} devices, {}){}\n", i, p.nodes, p.node, p.devices, p.device,
                       static_cast<int>(i) == h.bottleneck ? "  <- bottleneck" : "");
    out += fmt::format("    {:<26}{}\n", "work", work);
    out += fmt::format("    {:<26}{:.4g} s per step, busy {:.1f} %\n", "compute per device", p.compute.value(),
                       100.0 * p.busy);
    out += fmt::format("    {:<26}{:.2f} of {:.2f} GiB — {}\n", "memory per device", p.memory.value() / 1073741824.0,
                       p.capacity.value() / 1073741824.0, p.fits ? "fits" : "DOES NOT FIT");
    out += fmt::format("    {:<26}{:.4g} kJ per step ({:.4g} kW mean)\n", "energy", p.energy_j / 1e3,
                       p.mean_power_w / 1e3);
  }
  out += fmt::format("  {:<28}{:.4g} s ({})\n", "between pools",
                     h.inter_pool.value(), h.mode == HeteroMode::pipeline ? "one pipeline transfer across a pool boundary"
                                                                          : "gradient all-reduce across pools");
  for (const std::string& a : assumptions(s, h)) out += fmt::format("  {:<28}{}\n", "assumed", a);
  return out;
}

}  // namespace clustersim
