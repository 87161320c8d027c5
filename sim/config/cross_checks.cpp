#include "sim/config/cross_checks.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "schedules/pipeline_schedule.hpp"
#include "sim/config/enum_names.hpp"
#include "sim/config/framework_profile.hpp"
#include "sim/config/pipeline_layout.hpp"

namespace clustersim::config {
namespace {

class Checker {
 public:
  Checker(Scenario& s, ReadContext& ctx) : s_(s), ctx_(ctx) {}

  // True when none of `inputs` failed on its own, so a cross-field message would not be noise.
  [[nodiscard]] bool usable(std::initializer_list<std::string_view> inputs) const {
    for (auto p : inputs) {
      if (ctx_.failed(p)) return false;
    }
    return true;
  }
  void error(std::string_view pointer, std::string message) { ctx_.error(pointer, std::move(message)); }

  void check_size();
  void derive_dp();
  void check_tensor_split();
  void check_pipeline();
  void check_dualpipe(bool vp_ok);
  void check_v_half(bool vp_ok);
  void check_batch();
  void check_batch_rampup();
  void check_misc();
  void check_experts();
  void check_wafer();
  void check_offload();
  void check_schedule();
  void check_dp_mode();
  void check_pools();
  void check_slices();

 private:
  Scenario& s_;
  ReadContext& ctx_;
};

void Checker::check_size() {
  const std::int64_t devices = static_cast<std::int64_t>(s_.cluster.nodes) * s_.cluster.node.devices_per_node;
  if (usable({"/cluster/nodes", "/cluster/node/devices_per_node"}) && devices > kMaxDevices) {
    error("/cluster/nodes",
          fmt::format("{} nodes × {} devices = {} devices: more than the {} devices this tool "
                      "models",
                      s_.cluster.nodes, s_.cluster.node.devices_per_node, devices, kMaxDevices));
  }
}

void Checker::derive_dp() {
  auto& p = s_.parallelism;
  const std::int64_t devices = static_cast<std::int64_t>(s_.cluster.nodes) * s_.cluster.node.devices_per_node;
  if (!usable({"/cluster/nodes", "/cluster/node/devices_per_node", "/parallelism/tp", "/parallelism/pp",
               "/parallelism/cp", "/parallelism/dp"})) {
    if (p.dp == 0) p.dp = 1;
    return;
  }
  // Each factor is an int: their product can pass 2^63, so bound it in floating point first.
  if (static_cast<double>(p.tp) * p.pp * p.cp > static_cast<double>(devices)) {
    error(p.dp == 0 ? "/parallelism" : "/parallelism/dp",
          fmt::format("tp·pp·cp = {}·{}·{} is more than the {} devices ({} nodes × {})", p.tp, p.pp, p.cp,
                      devices, s_.cluster.nodes, s_.cluster.node.devices_per_node));
    if (p.dp == 0) p.dp = 1;
    return;
  }
  const std::int64_t model_parallel = static_cast<std::int64_t>(p.tp) * p.pp * p.cp;
  if (p.dp == 0) {
    if (devices % model_parallel != 0) {
      error("/parallelism",
            fmt::format("dp cannot be derived: tp·pp·cp = {}·{}·{} = {} does not divide the {} "
                        "devices ({} nodes × {})",
                        p.tp, p.pp, p.cp, model_parallel, devices, s_.cluster.nodes,
                        s_.cluster.node.devices_per_node));
      p.dp = 1;
      return;
    }
    p.dp = static_cast<int>(devices / model_parallel);
    return;
  }
  // tp·pp·cp·dp of four ints can overflow 64 bits: compare by division instead.
  if (devices % model_parallel != 0 || devices / model_parallel != p.dp) {
    error("/parallelism/dp",
          fmt::format("tp·pp·dp·cp = {}·{}·{}·{} = {} but the cluster has {} devices ({} nodes × {})", p.tp,
                      p.pp, p.dp, p.cp, static_cast<double>(model_parallel) * p.dp, devices, s_.cluster.nodes,
                      s_.cluster.node.devices_per_node));
  }
}

void Checker::check_tensor_split() {
  const auto& m = s_.model;
  const int tp = s_.parallelism.tp;
  if (!usable({"/parallelism/tp", "/model/heads", "/model/kv_heads", "/model/ffn_hidden"}) || tp < 1) return;
  if (m.heads % tp != 0) {
    error("/parallelism/tp",
          fmt::format("tp ({}) does not divide the number of attention heads ({})", tp, m.heads));
  }
  if (m.kv_heads % tp != 0 && tp % m.kv_heads != 0) {
    error(
        "/parallelism/tp",
        fmt::format("tp ({}) and kv_heads ({}) are incompatible: one must divide the other", tp, m.kv_heads));
  }
  if (m.ffn_hidden % tp != 0) {
    error("/parallelism/tp", fmt::format("tp ({}) does not divide ffn_hidden ({})", tp, m.ffn_hidden));
  }
}

void Checker::check_pipeline() {
  auto& p = s_.parallelism;
  // A stated rule gives the split of this pp·vp (framework_profile.hpp), checked below as a stated one.
  if (!p.pipeline_split.empty() && p.schedule == ScheduleKind::v_half && usable({"/parallelism/schedule"})) {
    error("/parallelism/pipeline_split",
          "schedule \"v-half\" splits the layers evenly over its 2·pp chunks (the authors' code sets the layers "
          "per chunk itself): a pipeline_split rule is not supported with it");
  } else if (!p.pipeline_split.empty() && p.schedule == ScheduleKind::dualpipe && usable({"/parallelism/schedule"})) {
    error("/parallelism/pipeline_split",
          "schedule \"dualpipe\" places its two model chunks per rank itself: a pipeline_split rule is not "
          "supported with it (give pipeline_layers for an uneven split)");
  } else if (!p.pipeline_split.empty() && !s_.cluster.pools.empty() && p.hetero == HeteroMode::pipeline &&
             usable({"/parallelism/hetero"})) {
    error("/parallelism/pipeline_split",
          "a heterogeneous pipeline splits the layers by its pools (hetero_split): a pipeline_split rule is not "
          "supported with it (give pipeline_layers for a stated split)");
  } else if (!p.pipeline_split.empty() &&
             usable({"/parallelism/pp", "/parallelism/vp", "/model/layers", "/parallelism/pipeline_split"})) {
    const std::int64_t chunks = static_cast<std::int64_t>(p.pp) * p.vp;
    const int stages = static_cast<int>(std::min<std::int64_t>(chunks, kMaxSplitItems + std::int64_t{1}));
    const auto split = pipeline_split_layers(p.pipeline_split, s_.model.layers, stages);
    if (chunks == 1) {
      // One stage holds every layer whatever the rule (a sweep over pp may pass through pp 1).
    } else if (split) {
      p.pipeline_layers = *split;
    } else {
      const std::string why = pipeline_split_refusal(p.pipeline_split, s_.model.layers, stages);
      error("/parallelism/pipeline_split",
            fmt::format("\"{}\" cannot spread {} layers over pp·vp = {}·{} = {} virtual stages ({})",
                        p.pipeline_split, s_.model.layers, p.pp, p.vp, chunks, why));
    }
  }
  if (p.schedule == ScheduleKind::v_half) {
    // V-Half sets its own even split over 2·pp chunks: check_v_half() refuses an explicit one and checks
    // the layer count, one message each.
  } else if (!p.pipeline_layout.empty()) {
    // Megatron-Core's layout (sim/config/pipeline_layout.hpp): its counts against the run, and the
    // engine's restriction that multi-token prediction runs on the last virtual stage.
    if (!usable({"/parallelism/pp", "/parallelism/vp", "/model/layers", "/model/mtp_depth"})) return;
    const auto layout = *parse_pipeline_layout(p.pipeline_layout).layout;
    auto problems = pipeline_layout_problems(layout, p.pp, p.vp, s_.model.layers, s_.model.mtp_depth);
    if (auto why = pipeline_layout_unsupported(layout)) problems.push_back(*why);
    for (auto& problem : problems) {
      error("/parallelism/pipeline_layout", fmt::format("{}: {}", quoted_layout(p.pipeline_layout), problem));
    }
    if (!problems.empty()) p.pipeline_layers.clear();
  } else if (!p.pipeline_layers.empty() && usable({"/parallelism/pp", "/parallelism/vp", "/model/layers", "/parallelism/pipeline_layers"})) {
    const std::int64_t want = static_cast<std::int64_t>(p.pp) * p.vp;
    std::int64_t sum = 0;
    for (int l : p.pipeline_layers) sum += l;
    if (static_cast<std::int64_t>(p.pipeline_layers.size()) != want) {
      error("/parallelism/pipeline_layers",
            fmt::format("{} entries, but pp·vp = {}·{} = {} virtual stages need one each",
                        p.pipeline_layers.size(), p.pp, p.vp, want));
      p.pipeline_layers.clear();
    } else if (sum != s_.model.layers) {
      error("/parallelism/pipeline_layers",
            fmt::format("the entries sum to {} layers, but the model has {}", sum, s_.model.layers));
      p.pipeline_layers.clear();
    }
  } else if (p.pipeline_layers.empty() && p.pipeline_split.empty() &&
             usable({"/parallelism/pp", "/parallelism/vp", "/model/layers", "/parallelism/pipeline_layout"}) &&
             !(s_.cluster.pools.size() > 0 && p.hetero == HeteroMode::pipeline &&
               p.hetero_split == HeteroSplit::proportional) &&
      s_.model.layers % (static_cast<std::int64_t>(p.pp) * p.vp) != 0) {
    error(p.vp > 1 ? "/parallelism/vp" : "/parallelism/pp",
          fmt::format("layers ({}) are not divisible by pp·vp = {}·{} = {} (pipeline_layers gives uneven "
                      "stages)", s_.model.layers, p.pp, p.vp,
                      static_cast<std::int64_t>(p.pp) * p.vp));
  }
  if (!usable({"/parallelism/schedule"})) return;
  // A vp that is already refused (out of range, wrong type) must not hide the schedule's other problems.
  const bool vp_ok = usable({"/parallelism/vp"});
  const bool interleaved = p.schedule == ScheduleKind::interleaved_1f1b;
  if (p.schedule == ScheduleKind::dualpipe) {
    check_dualpipe(vp_ok);
    return;
  }
  if (p.schedule == ScheduleKind::v_half) {
    check_v_half(vp_ok);
    return;
  }
  if (!vp_ok) return;
  if (p.vp > 1 && !interleaved) {
    error("/parallelism/vp", fmt::format("vp = {} needs schedule \"interleaved-1f1b\" (schedule is \"{}\")",
                                         p.vp, name_of(schedule_names(), p.schedule)));
  }
  // interleaved-1f1b with vp = 1 is what Megatron-Core runs when virtual_pipeline_model_parallel_size reaches
  // it as 1, as Megatron-Bridge passes it (get_forward_backward_func picks the interleaving function whenever
  // vp is not None; Megatron-LM's arguments.py resets a vp of 1 to None instead): 1F1B's order
  // with Megatron's interleaved warm-up, 2·(pp − stage − 1) forwards, so more activations are held
  // (docs/schedules.md). It is accepted, not refused.
  if (interleaved && p.pp > 1 &&
      usable({"/training/micro_batch", "/training/global_batch", "/parallelism/dp"})) {
    const std::int64_t mb = static_cast<std::int64_t>(s_.training.micro_batch) * p.dp;
    if (mb > 0 && s_.training.global_batch % mb == 0) {
      const std::int64_t m = s_.training.global_batch / mb;
      if (m % p.pp != 0) {
        error("/parallelism/vp",
              fmt::format("the interleaved schedule needs the number of micro-batches ({}) to be a "
                          "multiple of pp ({})",
                          m, p.pp));
      }
    }
  }
}

// DualPipe keeps two model chunks per rank by construction (one per direction), so vp stays 1; its
// reference implementation asserts an even number of ranks and an even micro-batch count of at least
// twice the ranks (schedules/pipeline_schedule.hpp).
void Checker::check_dualpipe(bool vp_ok) {
  const auto& p = s_.parallelism;
  if (vp_ok && p.vp != 1) {
    error("/parallelism/vp",
          fmt::format("schedule \"dualpipe\" holds two model chunks per pipeline rank (one per direction) by "
                      "itself: vp must be 1 or absent (got {})",
                      p.vp));
  }
  if (!usable({"/parallelism/pp"}) || p.pp < 1) return;
  if (p.pp % 2 != 0) {
    error("/parallelism/pp",
          fmt::format("schedule \"dualpipe\" needs an even pp, pairing rank r with rank pp-1-r (got {})",
                      p.pp));
    return;
  }
  if (!usable({"/training/micro_batch", "/training/global_batch", "/parallelism/dp"})) return;
  const std::int64_t mb = static_cast<std::int64_t>(s_.training.micro_batch) * p.dp;
  if (mb <= 0 || s_.training.global_batch % mb != 0) return;
  const std::int64_t m = s_.training.global_batch / mb;
  if (m % 2 != 0 || m < 2 * static_cast<std::int64_t>(p.pp)) {
    error("/training/global_batch",
          fmt::format("schedule \"dualpipe\" needs an even number of micro-batches, at least 2·pp = {} "
                      "(global_batch / (micro_batch·dp) = {})",
                      2 * static_cast<std::int64_t>(p.pp), m));
  }
}

// V-Half keeps two model chunks per rank in V placement by construction, so vp stays 1; the authors'
// code asserts that the layers per pipeline stage are even (each chunk gets half) and that no layers per
// virtual stage are set (sail-sg/zero-bubble-pipeline-parallelism 92895b9a, megatron/core/zbpp_utils.py:
// "zero bubble v and 1f1b v schedule requires number of layers per pipeline stage to be even"). Its
// vocabulary parallelism is vocab-1 or vocab-2; the interlaced pipeline is not implemented on it.
// Each check stands on its own inputs, so every problem is reported, one message each (as in
// check_dualpipe): a stray vp does not hide an explicit split or a layer count the chunks cannot share.
void Checker::check_v_half(bool vp_ok) {
  const auto& p = s_.parallelism;
  if (vp_ok && p.vp != 1) {
    error("/parallelism/vp",
          fmt::format("schedule \"v-half\" holds two model chunks per pipeline rank (V placement) by itself: "
                      "vp must be 1 or absent (got {})",
                      p.vp));
  }
  if (p.vocab_parallel == VocabParallel::interlaced && usable({"/parallelism/vocab_parallel"})) {
    error("/parallelism/vocab_parallel",
          "schedule \"v-half\" runs vocabulary parallelism as vocab-1 or vocab-2 only (the authors' V-Half "
          "branch has no interlaced pipeline)");
  }
  const std::string_view split =
      p.pipeline_layout.empty() ? "/parallelism/pipeline_layers" : "/parallelism/pipeline_layout";
  if ((!p.pipeline_layers.empty() || !p.pipeline_layout.empty()) && usable({split})) {
    error(split,
          "schedule \"v-half\" splits the layers evenly over its 2·pp chunks (the authors' code sets the "
          "layers per chunk itself): an explicit split is not supported with it");
  }
  if (!usable({"/parallelism/pp", "/model/layers"}) || p.pp < 1) return;
  const std::int64_t chunks = 2 * static_cast<std::int64_t>(p.pp);
  if (s_.model.layers % chunks != 0) {
    error("/parallelism/pp",
          fmt::format("schedule \"v-half\" needs the layers ({}) divisible by 2·pp = {}: each rank holds two "
                      "chunks of equal size (the reference requires an even number of layers per stage)",
                      s_.model.layers, chunks));
  }
}

void Checker::check_batch() {
  const auto& t = s_.training;
  if (!usable({"/training/micro_batch", "/training/global_batch", "/parallelism/dp", "/parallelism"})) return;
  const std::int64_t per_step = static_cast<std::int64_t>(t.micro_batch) * s_.parallelism.dp;
  if (per_step > 0 && t.global_batch % per_step != 0) {
    error("/training/global_batch",
          fmt::format("global_batch ({}) is not a multiple of micro_batch·dp = {}·{} = {}", t.global_batch,
                      t.micro_batch, s_.parallelism.dp, per_step));
  }
}

// Every batch of the ramp (training.batch_rampup) must run as the final one does: a multiple of
// micro_batch·dp (Megatron-LM checks the current batch at every step), and a micro-batch count the
// schedule accepts (interleaved: a multiple of pp; DualPipe: even, at least 2·pp). One message for the
// first batch at fault.
void Checker::check_batch_rampup() {
  const auto& t = s_.training;
  const auto& p = s_.parallelism;
  if (!t.batch_rampup || t.batch_rampup->start >= t.global_batch) return;
  if (!usable({"/training/micro_batch", "/training/global_batch", "/parallelism/dp", "/parallelism",
               "/parallelism/schedule", "/parallelism/pp", "/parallelism/vp"})) {
    return;
  }
  const BatchRampup& r = *t.batch_rampup;
  const std::int64_t per_step = static_cast<std::int64_t>(t.micro_batch) * p.dp;
  if (per_step <= 0) return;
  if (r.start % per_step != 0 || r.increment % per_step != 0) {
    const bool start = r.start % per_step != 0;
    error(start ? "/training/batch_rampup/start" : "/training/batch_rampup/increment",
          fmt::format("{} ({}) is not a multiple of micro_batch·dp = {}·{} = {}: the ramp's batch {} would not "
                      "split into whole micro-batches", start ? "start" : "increment", start ? r.start : r.increment,
                      t.micro_batch, p.dp, per_step, start ? r.start : r.start + r.increment));
    return;
  }
  const std::int64_t pp = p.pp;
  for (std::int64_t b = r.start; b < t.global_batch; b += r.increment) {
    const std::int64_t m = b / per_step;
    std::string problem;
    if (p.schedule == ScheduleKind::dualpipe && (m % 2 != 0 || m < 2 * pp)) {
      problem = fmt::format("schedule \"dualpipe\" needs an even number of micro-batches, at least 2·pp = {}",
                            2 * pp);
    } else if (p.schedule == ScheduleKind::interleaved_1f1b && pp > 1 && m % pp != 0) {
      problem = fmt::format("the interleaved schedule needs the number of micro-batches to be a multiple of pp ({})",
                            pp);
    }
    if (!problem.empty()) {
      error(b == r.start ? "/training/batch_rampup/start" : "/training/batch_rampup/increment",
            fmt::format("the ramp's batch {} gives {} micro-batches per DP rank (batch / (micro_batch·dp)); {}",
                        b, m, problem));
      return;
    }
  }
}

void Checker::check_misc() {
  if (usable({"/training/bf16_layers_at_start", "/training/bf16_layers_at_end", "/model/layers"}) &&
      static_cast<std::int64_t>(s_.training.bf16_layers_start) + s_.training.bf16_layers_end > s_.model.layers) {
    error(s_.training.bf16_layers_start > 0 ? "/training/bf16_layers_at_start" : "/training/bf16_layers_at_end",
          fmt::format("{} + {} BF16 layers, but the model has {}", s_.training.bf16_layers_start,
                      s_.training.bf16_layers_end, s_.model.layers));
  }
  // JAX's checkpoint_dots_with_no_batch_dims (selective_recompute "dots") is modelled for dense layers with
  // standard attention: under it a MoE layer's dispatched tokens and batched expert GEMMs, and MLA's latent
  // projections, would need save/recompute rules this model does not have.
  if (s_.training.saves_dots_only() &&
      usable({"/training/selective_recompute", "/training/recompute", "/model/moe", "/model/mla"}) &&
      (s_.model.moe.enabled() || s_.model.mla.enabled())) {
    error("/training/selective_recompute",
          fmt::format("selective_recompute \"dots\" is modelled for dense layers with standard attention; this "
                      "model has {}: state another /training/selective_recompute (\"attention\", \"op\", \"layer\"; a framework "
                      "profile such as maxtext-2023 fills \"dots\" when it is not stated) or recompute \"full\"",
                      s_.model.moe.enabled() ? "mixture-of-experts layers" : "multi-head latent attention"));
  }
  const auto& p = s_.parallelism;
  // Also what the planner's strategies are checked against (sim/plan/planner.cpp).
  if (p.vocab_parallel != VocabParallel::none && p.pp < 2 && usable({"/parallelism/vocab_parallel", "/parallelism/pp"})) {
    error("/parallelism/vocab_parallel",
          "vocabulary parallelism splits the vocabulary over pipeline ranks: it needs pp > 1");
  }
  if (p.sequence_parallel && p.tp == 1 && usable({"/parallelism/tp"})) {
    error("/parallelism/sequence_parallel",
          "sequence_parallel needs tp > 1 (it splits the tensor-parallel region's "
          "sequence dimension over the tp ranks)");
  }
  if (usable({"/parallelism/cp", "/training/seq_len", "/model/seq_len"}) && s_.training.seq_len % p.cp != 0) {
    error("/parallelism/cp",
          fmt::format("cp ({}) does not divide the sequence length ({})", p.cp, s_.training.seq_len));
  }
  if (usable({"/compression/scheme", "/parallelism/zero_stage", "/parallelism/fsdp"}) &&
      s_.training.compression.scheme != CompressionScheme::none && p.zero_stage >= 1) {
    error(
        "/compression/scheme",
        fmt::format("gradient compression is modeled on the data-parallel all-reduce (zero_stage 0); with "
                    "zero_stage {} gradients are reduce-scattered uncompressed, so the scheme would have no "
                    "effect: set /parallelism/zero_stage to 0 or the scheme to \"none\"",
                    p.zero_stage));
  }
  // FlashAttention (v1) has no attention bias: ALiBi needs a kernel that adds it (FlashAttention-2 from
  // 2.4, cuDNN, the Triton FlashAttention's bias input) or the unfused path.
  if (usable({"/training/attention_kernel", "/training/flash_attention", "/model/position"}) &&
      s_.model.position == PositionKind::alibi && s_.training.flash_attention &&
      s_.training.attention_kernel == AttentionKernel::flash1) {
    error("/training/attention_kernel",
          "ALiBi positions (/model/position) need an attention kernel with a bias input: FlashAttention (v1) has "
          "none; use flash-2, cudnn, triton-flash or native, or flash_attention false");
  }
  const auto& device = s_.cluster.node.device;
  if (usable({"/training/precision", "/cluster/node/device/peak"}) && !device.peak.empty() &&
      !device.peak.contains(s_.training.precision)) {
    std::string have;
    for (const auto& [precision, rate] : device.peak)
      have += (have.empty() ? "" : ", ") + std::string(to_string(precision));
    error("/training/precision", fmt::format("device \"{}\" has no {} peak (it lists: {})", device.name,
                                             to_string(s_.training.precision), have));
  } else if (usable({"/training/precision", "/cluster/node/device/peak"}) &&
             is_quantised(s_.training.precision) && !device.peak.empty() &&
             !device.peak.contains(Precision::bf16)) {
    // FP8 training runs attention, the LM head and the casts' sources in BF16 (docs/model.md).
    error(
        "/training/precision",
        fmt::format("device \"{}\" has no bf16 peak, which {} training needs for attention and the LM head",
                    device.name, to_string(s_.training.precision)));
  }
}

// Heterogeneous clusters (docs/heterogeneous.md): a DP replica (data) or a pipeline stage (pipeline)
// lives in one pool; the pooled job is evaluated by the analytic engine alone, without the run, energy,
// straggler, multi-job, data-parallel-mode and compression sections.
void Checker::check_pools() {
  auto& p = s_.parallelism;
  if (s_.cluster.pools.empty()) {
    if (!p.hetero_defaulted && usable({"/parallelism/hetero"})) {
      error("/parallelism/hetero", "hetero says how device pools share the job: it needs cluster.pools");
    }
    if (!p.hetero_split_defaulted && usable({"/parallelism/hetero_split"})) {
      error("/parallelism/hetero_split", "hetero_split splits work between device pools: it needs cluster.pools");
    }
    return;
  }
  if (ctx_.failed_at_or_below("/cluster/pools") ||
      !usable({"/parallelism/tp", "/parallelism/pp", "/parallelism/cp", "/parallelism/dp", "/parallelism/hetero"})) {
    return;
  }
  const auto refuse = [&](std::string_view pointer, std::string_view what) {
    if (usable({pointer})) {
      error(pointer, fmt::format("{} is not modelled with cluster.pools (a heterogeneous job is evaluated by the "
                                 "analytic engine, step only; docs/heterogeneous.md)", what));
    }
  };
  if (s_.engine != "analytic" && usable({"/engine"})) {
    error("/engine", fmt::format("engine \"{}\": the flow engine has no pools and no inter-pool links; a cluster with "
                                 "pools is evaluated by the analytic engine (docs/heterogeneous.md)",
                                 s_.engine));
  }
  if (s_.run) refuse("/run", "the run section");
  if (s_.energy) refuse("/energy", "the energy section (the report gives each pool's energy per step from its "
                                   "devices' power)");
  if (!s_.stragglers.empty()) refuse("/stragglers", "the stragglers section");
  if (!s_.jobs.empty()) refuse("/jobs", "a multi-job experiment");
  if (p.data_parallel.mode != DpMode::allreduce) refuse("/parallelism/dp_mode", "a dp_mode other than allreduce");
  if (s_.training.compression.scheme != CompressionScheme::none) refuse("/compression/scheme", "gradient compression");
  const bool pipeline = p.hetero == HeteroMode::pipeline;
  const std::int64_t unit = pipeline ? static_cast<std::int64_t>(p.tp) * p.cp * p.dp
                                     : static_cast<std::int64_t>(p.tp) * p.cp * p.pp;
  const std::int64_t all = static_cast<std::int64_t>(s_.cluster.nodes) * s_.cluster.node.devices_per_node;
  for (std::size_t i = 0; i < s_.cluster.pools.size(); ++i) {
    const ClusterPool& pool = s_.cluster.pools[i];
    // Each pool's device runs the training precision (the cluster's own device is checked above).
    const auto& pool_device = pool.node.device;
    if (pool_device.name != s_.cluster.node.device.name && !pool_device.peak.empty() &&
        usable({"/training/precision"})) {
      if (!pool_device.peak.contains(s_.training.precision)) {
        std::string have;
        for (const auto& [precision, rate] : pool_device.peak)
          have += (have.empty() ? "" : ", ") + std::string(to_string(precision));
        error("/training/precision", fmt::format("pool {}'s device \"{}\" has no {} peak (it lists: {})", i,
                                                 pool_device.name, to_string(s_.training.precision), have));
      } else if (is_quantised(s_.training.precision) && !pool_device.peak.contains(Precision::bf16)) {
        error("/training/precision",
              fmt::format("pool {}'s device \"{}\" has no bf16 peak, which {} training needs for attention and "
                          "the LM head",
                          i, pool_device.name, to_string(s_.training.precision)));
      }
    }
    const std::int64_t devices = static_cast<std::int64_t>(pool.nodes) * pool.node.devices_per_node;
    const int per = pool.node.devices_per_node;
    if (per % p.tp != 0 && p.tp % per != 0) {
      error("/parallelism/tp", fmt::format("tp ({}) and pool {}'s {} devices per node (node \"{}\") are "
                                           "incompatible: one must divide the other",
                                           p.tp, i, per, pool.node.name));
      continue;
    }
    if (devices % unit != 0) {
      error(fmt::format("/cluster/pools/{}/nodes", i),
            fmt::format("pool {} has {} devices ({} nodes × {}), not a multiple of {} = {} (the devices of one {} "
                        "of hetero \"{}\")",
                        i, devices, pool.nodes, per, pipeline ? "tp·cp·dp" : "tp·cp·pp", unit,
                        pipeline ? "pipeline stage" : "DP replica", pipeline ? "pipeline" : "data"));
      continue;
    }
    const std::int64_t pool_dp = pipeline ? p.dp : devices / unit;
    const std::int64_t stage_ranks = static_cast<std::int64_t>(p.tp) * p.cp * pool_dp;
    if (!pipeline && (p.ep > 1 || p.etp > 1) && stage_ranks % (static_cast<std::int64_t>(p.ep) * p.etp) != 0) {
      error(fmt::format("/cluster/pools/{}/nodes", i),
            fmt::format("pool {} runs {} DP replicas: ep·etp = {}·{} does not divide its tp·cp·dp = {} ranks per stage",
                        i, pool_dp, p.ep, p.etp, stage_ranks));
      continue;
    }
    if (pipeline && all % per != 0) {
      // Each pool's stages are costed in the whole pipeline laid out on its own nodes.
      error(fmt::format("/cluster/pools/{}/node", i),
            fmt::format("pool {}'s node \"{}\" has {} devices, which does not divide the job's {} devices (hetero "
                        "\"pipeline\" costs each pool's stages on the whole pipeline laid out on its nodes)",
                        i, pool.node.name, per, all));
    }
  }
  if (!pipeline && p.hetero_split == HeteroSplit::proportional && usable({"/parallelism/schedule"}) &&
      (p.schedule == ScheduleKind::interleaved_1f1b || p.schedule == ScheduleKind::dualpipe)) {
    error("/parallelism/schedule",
          fmt::format("schedule \"{}\" needs particular micro-batch counts per replica, which hetero_split "
                      "\"proportional\" does not keep; use hetero_split \"equal\" or a 1f1b, gpipe or zero-bubble "
                      "schedule", name_of(schedule_names(), p.schedule)));
  }
  if (pipeline && p.pipeline_layers.empty() && p.hetero_split == HeteroSplit::proportional &&
      usable({"/model/layers", "/parallelism/vp"}) && s_.model.layers < static_cast<std::int64_t>(p.pp) * p.vp) {
    error("/parallelism/pp", fmt::format("{} layers cannot give each of pp·vp = {} virtual stages a layer",
                                         s_.model.layers, static_cast<std::int64_t>(p.pp) * p.vp));
  }
}

// Wafer-scale systems stream their weights (docs/wafer_scale.md): every system holds the whole model's
// compute and systems run data parallel only; the analytic engine evaluates the streamed step.
void Checker::check_wafer() {
  if (s_.cluster.node.fabric != NodeFabric::wafer || !usable({"/cluster/node/fabric"})) return;
  const auto& p = s_.parallelism;
  const auto only = [&](std::string_view key, int value, std::string_view what) {
    const std::string pointer = fmt::format("/parallelism/{}", key);
    if (value != 1 && usable({pointer})) {
      error(pointer, fmt::format("{} = {}: a wafer-scale cluster streams weights and runs data parallel only "
                                 "(weight streaming holds the whole model's compute on each system); {} must be 1",
                                 key, value, what));
    }
  };
  only("tp", p.tp, "tensor parallelism");
  only("pp", p.pp, "pipeline parallelism");
  only("cp", p.cp, "context parallelism");
  only("ep", p.ep, "expert parallelism");
  if (p.zero_stage != 0 && usable({"/parallelism/zero_stage", "/parallelism/fsdp"})) {
    error("/parallelism/zero_stage",
          fmt::format("zero_stage {} on a wafer-scale cluster: weights, gradients and optimizer states live in "
                      "the external store (MemoryX), not on the systems; set zero_stage 0",
                      p.zero_stage));
  }
  if (s_.training.compression.scheme != CompressionScheme::none && usable({"/compression/scheme"})) {
    error("/compression/scheme", "gradient compression is not modelled for weight streaming (gradients are "
                                 "reduced in the broadcast/reduce fabric); set the scheme to \"none\"");
  }
  if (s_.engine != "analytic" && usable({"/engine"})) {
    error("/engine", fmt::format("engine \"{}\": weight streaming is evaluated by the analytic engine only "
                                 "(the flow engine has no MemoryX/SwarmX model); use \"analytic\"",
                                 s_.engine));
  }
}

// Activation offloading (training.activation_offload_layers): what Megatron-Core refuses
// (megatron/core/transformer/transformer_config.py at d98e8a64, lines 1884-1899: cpu_offloading_num_layers
// < 0 or >= num_layers, pipeline_model_parallel_size > 1, any recompute_granularity) and what the model
// cannot express (device pools, a node without a host link). One message, the first problem found.
void Checker::check_offload() {
  const int n = s_.training.activation_offload_layers;
  constexpr std::string_view key = "/training/activation_offload_layers";
  if (n <= 0 || !usable({key})) return;
  const auto& p = s_.parallelism;
  if (usable({"/model/layers"}) && n >= s_.model.layers) {
    error(key, fmt::format("{} layers offloaded, but the model has {}: Megatron-Core offloads fewer layers than "
                           "num_layers (transformer_config.py: 'CPU offloading can be done only for layers less "
                           "than num_layers')", n, s_.model.layers));
  } else if (p.pp > 1 && usable({"/parallelism/pp"})) {
    error(key, fmt::format("activation offloading with pp = {}: Megatron-Core has no CPU offloading with pipeline "
                           "parallelism (transformer_config.py); set /parallelism/pp to 1 or offload 0 layers",
                           p.pp));
  } else if (s_.training.recompute != Recompute::none && usable({"/training/recompute"})) {
    error(key, fmt::format("activation offloading with recompute \"{}\": Megatron-Core refuses CPU offloading "
                           "with any activation recomputation (transformer_config.py); set /training/recompute "
                           "to \"none\" or offload 0 layers", name_of(recompute_names(), s_.training.recompute)));
  } else if (!s_.cluster.pools.empty()) {
    error(key, "activation offloading is not modelled with cluster.pools (a heterogeneous job); offload 0 layers");
  } else if ((s_.cluster.node.fabric == NodeFabric::wafer || s_.cluster.node.fabric == NodeFabric::torus_ici) &&
             usable({"/cluster/node/fabric"})) {
    error(key, fmt::format("activation offloading is Transformer Engine's GPU mechanism; it is not modelled on a "
                           "\"{}\" node (wafer-scale systems stream weights, TPU hosts run JAX); offload 0 layers",
                           name_of(fabric_names(), s_.cluster.node.fabric)));
  } else if (!s_.cluster.node.host_link && usable({"/cluster/node", "/cluster/node/host_link"})) {
    error(key, fmt::format("node \"{}\" describes no link to host memory: add /cluster/node/host_link "
                           "({{\"bandwidth\": per device per direction, \"efficiency\"}}) to the node, or "
                           "offload 0 layers", s_.cluster.node.name));
  }
}

// Expert parallelism (Megatron-Core's expert layout): ep divides the routed experts, ep·etp divides the
// stage's tp·cp·dp ranks, etp divides the expert inner size; MoE with tp > 1 needs sequence parallelism
// (Megatron-Core refuses the combination without it).
void Checker::check_experts() {
  const auto& p = s_.parallelism;
  const MoeSpec& x = s_.model.moe;
  if (!usable({"/parallelism/ep", "/parallelism/etp", "/model/moe"})) return;
  // A reserved SM partition leaves the compute kernels sm_count - ep_comm_sms SMs: at least one.
  const int sms = s_.cluster.node.device.sm_count;
  if (p.ep_comm_sms_reserved && p.moe_overlap != MoeOverlap::compute) {
    error("/parallelism/ep_comm_sms_reserved",
          "an SM partition for the all-to-all needs it overlapped with compute (moe_overlap \"compute\", "
          "the default with schedule \"dualpipe\")");
  }
  if (p.ep_comm_sms_reserved && sms > 0 && usable({"/parallelism/ep_comm_sms"}) &&
      (p.ep_comm_sms > 0 ? p.ep_comm_sms : 16) >= sms) {
    error(p.ep_comm_sms > 0 ? "/parallelism/ep_comm_sms" : "/parallelism/ep_comm_sms_reserved",
          fmt::format("reserving {} SMs for the all-to-all leaves none of the device's {} SMs for compute",
                      p.ep_comm_sms > 0 ? p.ep_comm_sms : 16, sms));
  }
  if (!x.enabled()) {
    if (p.ep > 1 || p.etp > 1) {
      error(p.ep > 1 ? "/parallelism/ep" : "/parallelism/etp",
            fmt::format("{} = {} needs a mixture-of-experts model (model \"{}\" has no \"moe\" section)",
                        p.ep > 1 ? "ep" : "etp", p.ep > 1 ? p.ep : p.etp, s_.model.name));
    }
    return;
  }
  if (x.num_experts % p.ep != 0) {
    error("/parallelism/ep", fmt::format("ep ({}) does not divide num_experts ({})", p.ep, x.num_experts));
  }
  if (x.ffn_hidden % p.etp != 0) {
    error("/parallelism/etp", fmt::format("etp ({}) does not divide moe_ffn_hidden ({})", p.etp, x.ffn_hidden));
  }
  if (usable({"/parallelism/tp", "/parallelism/cp", "/parallelism/dp"})) {
    const std::int64_t stage = static_cast<std::int64_t>(p.tp) * p.cp * p.dp;
    const std::int64_t expert = static_cast<std::int64_t>(p.ep) * p.etp;
    if (stage % expert != 0) {
      error("/parallelism/ep",
            fmt::format("ep·etp = {}·{} = {} does not divide the {} ranks of a pipeline stage (tp·cp·dp = "
                        "{}·{}·{}): the experts are laid out inside each stage",
                        p.ep, p.etp, expert, stage, p.tp, p.cp, p.dp));
    }
  }
  if (p.tp > 1 && !p.sequence_parallel && usable({"/parallelism/sequence_parallel", "/parallelism/tp"})) {
    error("/parallelism/sequence_parallel",
          "a mixture-of-experts model with tp > 1 needs sequence_parallel: true (Megatron-Core routes the "
          "sequence-parallel shard of the tokens)");
  }
}

// The schedules layer's own preconditions on (kind, pp, micro-batches, vp), for what the checks above
// do not name more precisely (e.g. a schedule too large for an int). Only on an otherwise valid
// scenario: each problem above already explains why the schedule cannot be built.
void Checker::check_schedule() {
  if (!ctx_.diagnostics().empty()) return;
  const auto& p = s_.parallelism;
  // A job's values may have failed in the experiment's context rather than this one.
  if (s_.training.micro_batch < 1 || p.dp < 1 || p.pp < 1 || p.vp < 1) return;
  const ScheduleSpec spec =
      schedule_spec(p.schedule, p.pp, s_.training.microbatches(p.dp), p.vp, v_half_vocab_slots(p));
  if (!is_valid(spec)) error("/parallelism/schedule", check(spec).front());
}

// Data-parallel modes (docs/data_parallel_modes.md): a parameter-server worker is one device holding the
// whole model (tensor, pipeline, context and expert parallel workers and ZeRO sharding are not modelled);
// local SGD keeps a full optimizer per replica (no ZeRO sharding across the replicas it averages).
void Checker::check_dp_mode() {
  const auto& p = s_.parallelism;
  const DpModeSpec& d = p.data_parallel;
  if (d.mode == DpMode::allreduce || !usable({"/parallelism/dp_mode"})) return;
  const std::string mode(name_of(dp_mode_names(), d.mode));
  if (d.uses_servers()) {
    const auto one = [&](std::string_view key, int value) {
      if (value != 1 && usable({fmt::format("/parallelism/{}", key)})) {
        error(fmt::format("/parallelism/{}", key),
              fmt::format("dp_mode {} needs {} = 1 (got {}): a parameter-server worker is one device "
                          "holding the whole model; tensor, pipeline, context or expert parallel workers "
                          "are not modelled",
                          mode, key, value));
      }
    };
    one("tp", p.tp);
    one("pp", p.pp);
    one("cp", p.cp);
    one("ep", p.ep);
    if (p.zero_stage != 0 && usable({"/parallelism/zero_stage", "/parallelism/fsdp"})) {
      error("/parallelism/zero_stage",
            fmt::format("dp_mode {} keeps the optimizer on the servers; ZeRO stage {} shards it over the "
                        "workers instead: set zero_stage 0",
                        mode, p.zero_stage));
    }
    if (d.placement == ServerPlacement::colocated && d.servers > s_.cluster.nodes &&
        usable({"/parallelism/ps_servers", "/cluster/nodes"})) {
      error("/parallelism/ps_servers",
            fmt::format("{} colocated servers on {} nodes: at most one server shard per node",
                        d.servers, s_.cluster.nodes));
    }
    const bool no_nic = s_.cluster.node.nics <= 0 || s_.cluster.node.nic.bandwidth.value() <= 0;
    if (no_nic && usable({"/cluster/node/nics"})) {
      if (d.placement == ServerPlacement::colocated) {
        error("/parallelism/ps_placement",
              "colocated servers use their device's NIC, but the node has no NICs (cluster/node/nics = 0)");
      } else {
        error("/cluster/node/nics",
              fmt::format("dp_mode {}: workers reach the servers through their node's NICs, but the node "
                          "has none",
                          mode));
      }
    }
  }
  if (s_.training.compression.scheme != CompressionScheme::none && usable({"/compression/scheme"})) {
    error("/compression/scheme",
          fmt::format("gradient compression is modelled on the all-reduce only, not with dp_mode {}", mode));
  }
  if (d.mode == DpMode::local_sgd) {
    if (p.zero_stage != 0 && usable({"/parallelism/zero_stage", "/parallelism/fsdp"})) {
      error("/parallelism/zero_stage",
            fmt::format("dp_mode local_sgd: each replica steps its own optimizer between averagings, so its "
                        "states cannot be ZeRO-sharded across the replicas (zero_stage {}): set zero_stage 0",
                        p.zero_stage));
    }
    if (p.dp % d.datacenters != 0 && usable({"/parallelism/datacenters", "/parallelism/dp"})) {
      error("/parallelism/datacenters",
            fmt::format("{} datacenters do not divide the {} data-parallel replicas evenly", d.datacenters,
                        p.dp));
    }
  }
}

// Multi-slice TPU jobs (docs/collectives.md, "Multi-slice"): data parallelism spans the slices (MaxText's
// default DCN mesh axis); every other parallel group stays inside a slice's torus.
void Checker::check_slices() {
  const int n = s_.cluster.network.slices;
  if (n <= 1 || !usable({"/cluster/network/slices"})) return;
  const auto& p = s_.parallelism;
  if (p.dp % n != 0 && usable({"/parallelism/dp"})) {
    error("/parallelism/dp", fmt::format("dp = {} is not a multiple of the {} slices: data parallelism spans the "
                                         "slices (each slice holds dp / slices replicas)",
                                         p.dp, n));
  }
  const auto one = [&](std::string_view key, int value, std::string_view what) {
    const std::string pointer = fmt::format("/parallelism/{}", key);
    if (value != 1 && usable({pointer})) {
      error(pointer, fmt::format("{} = {} across {} slices: only data parallelism spans slices in this model "
                                 "(MaxText's dcn_data_parallelism); {} over the data-centre network is not "
                                 "modelled",
                                 key, value, n, what));
    }
  };
  one("pp", p.pp, "pipeline parallelism");
  one("ep", p.ep, "expert parallelism");
  // The slices' gradient sync reduces the dense weights only; MoE experts across slices are not modelled.
  if (s_.model.moe.enabled() && usable({"/model/moe"})) {
    error("/cluster/network/slices",
          fmt::format("{} slices with a mixture-of-experts model: the expert gradients' reduction across slices "
                      "is not modelled (multi-slice jobs are dense models only)",
                      n));
  }
  if (p.data_parallel.mode != DpMode::allreduce && usable({"/parallelism/dp_mode"})) {
    error("/parallelism/dp_mode", fmt::format("dp_mode {} across {} slices is not modelled (the slices all-reduce "
                                              "their gradients hierarchically)",
                                              name_of(dp_mode_names(), p.data_parallel.mode), n));
  }
  if (s_.training.compression.scheme != CompressionScheme::none && usable({"/compression/scheme"})) {
    error("/compression/scheme", "gradient compression across slices is not modelled; set the scheme to \"none\"");
  }
}

}  // namespace

void finalize_scenario(Scenario& s, ReadContext& ctx) {
  if (s.training.seq_len == 0) s.training.seq_len = s.model.seq_len;
  Checker c(s, ctx);
  c.check_size();
  if (ctx.failed("/cluster/nodes") || (!s.cluster.pools.empty() && ctx.failed_at_or_below("/cluster/pools")) ||
      ctx.failed("/cluster/pools")) {
    if (s.parallelism.dp == 0) s.parallelism.dp = 1;
    return;  // every product below involves the device count
  }
  c.derive_dp();
  c.check_tensor_split();
  c.check_pipeline();
  c.check_batch();
  c.check_batch_rampup();
  c.check_misc();
  c.check_experts();
  c.check_wafer();
  c.check_offload();
  c.check_schedule();
  c.check_dp_mode();
  c.check_pools();
  c.check_slices();
}

}  // namespace clustersim::config
