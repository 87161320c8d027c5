#include "sim/config/reference_record.hpp"

#include <fmt/format.h>

#include <array>
#include <regex>

#include "sim/config/framework_profile.hpp"
#include "sim/config/object_reader.hpp"
#include "sim/config/pipeline_layout.hpp"

namespace clustersim::config {
namespace {

// Getters that read JSON null as "not stated" (the record format writes unknowns as null).
struct Stated {
  ObjectReader& r;

  bool absent(std::string_view key) {
    const auto* v = r.find(key);
    return v == nullptr || v->is_null();
  }
  std::optional<std::int64_t> integer(std::string_view key) {
    return absent(key) ? std::nullopt : r.get_integer(key);
  }
  std::optional<double> number(std::string_view key) {
    return absent(key) ? std::nullopt : r.get_number(key);
  }
  std::optional<bool> boolean(std::string_view key) {
    return absent(key) ? std::nullopt : r.get_boolean(key);
  }
  std::optional<std::string> string(std::string_view key) {
    return absent(key) ? std::nullopt : r.get_string(key);
  }
  std::optional<std::string> choice(std::string_view key) {
    if (absent(key)) return std::nullopt;
    if (auto i = r.get_choice(key)) return std::string(r.field(key).choices[*i]);
    return std::nullopt;
  }
  void text(std::string_view key) {
    if (!absent(key)) r.accept(key);
  }
};

constexpr std::array<std::string_view, 1> kKinds{"training_run_measurement"};
constexpr std::array<std::string_view, 2> kSplits{"calibration", "test"};
constexpr std::array<std::string_view, 17> kFrameworks{
    "megatron-lm", "megatron-core", "nemo",     "nemo-automodel", "deepspeed", "megatron-deepspeed",
    "pytorch-fsdp", "torchtitan",   "llm-foundry", "maxtext",     "paxml",     "jax",
    "nanotron",    "colossalai",    "cerebras", "fairseq",        "other"};
constexpr std::array<std::string_view, 5> kMlp{"gelu", "swiglu", "geglu", "relu", "squared_relu"};
constexpr std::array<std::string_view, 2> kNorm{"layernorm", "rmsnorm"};
constexpr std::array<std::string_view, 3> kPosition{"learned", "rope", "alibi"};
constexpr std::array<std::string_view, 3> kRecompute{"none", "selective", "full"};
constexpr std::array<std::string_view, 5> kSelectiveRecompute{"attention", "op", "layer", "core-attn", "dots"};
constexpr std::array<std::string_view, 11> kSchedule{"1f1b",  "interleaved", "gpipe", "dualpipe", "zb",    "zb-h1",
                                                    "zb-1p", "zb-2p",       "zb-v",  "v-half",   "v-min"};
constexpr std::array<std::string_view, 6> kPipelineSplit{"even", "ends-one-fewer", "remainder-to-middle",
                                                         "balanced", "deepspeed-transformer",
                                                         "deepspeed-transformer-embedding"};
constexpr std::array<std::string_view, 5> kAttentionKernel{"native", "cudnn", "flash-2", "flash-1", "triton-flash"};
constexpr std::array<std::string_view, 4> kVocabParallel{"none", "vocab-1", "vocab-2", "interlaced"};
constexpr std::array<std::string_view, 3> kMoeOverlap{"none", "shared-expert", "compute"};
constexpr std::array<std::string_view, 7> kCompute{"bf16", "fp16", "16-bit", "fp8", "fp4", "tf32", "fp32"};
constexpr std::array<std::string_view, 3> kGradientReduce{"fp32", "bf16", "fp16"};
constexpr std::array<std::string_view, 3> kBasis{"model", "hardware", "unknown"};
constexpr std::array<std::string_view, 3> kConfidence{"high", "medium", "low"};
constexpr std::array<std::string_view, 6> kOptimizer{"adam", "adamw", "lamb", "sgd", "muon", "adam-8bit"};
constexpr std::array<std::string_view, 3> kFsdp{"full_shard", "hybrid_shard", "shard_grad_op"};

// Declared keys of a record (docs/validation.md). Every stated-or-null key allows null ("not stated").
constexpr IntRange kCount{.min = 1};
constexpr NumberRange kPositive{.min = 0, .min_exclusive = true};
constexpr NumberRange kFraction{.min = 0, .max = 1, .min_exclusive = true};
// A measured figure is at least 1e-6 of its unit: validate divides by it, and a subnormal step time
// (1e-320 s) gave a relative error of +inf % (seed 17096 case 859 of the seed-17000 campaign).
constexpr NumberRange kMeasured{.min = 1e-6};
constexpr NumberRange kMeasuredFraction{.min = 1e-6, .max = 1};

constexpr Field text(std::string_view key, std::string_view doc) {
  return {.key = key, .kind = FieldKind::text, .doc = doc, .also = also_null};
}
constexpr Field count(std::string_view key, std::string_view doc, IntRange range = kCount) {
  return {.key = key, .kind = FieldKind::integer, .doc = doc, .ints = range, .also = also_null};
}
constexpr Field positive(std::string_view key, std::string_view doc, NumberRange range = kPositive) {
  return {.key = key, .kind = FieldKind::number, .doc = doc, .numbers = range, .also = also_null};
}
constexpr Field flag(std::string_view key, std::string_view doc) {
  return {.key = key, .kind = FieldKind::boolean, .doc = doc, .also = also_null};
}
constexpr Field one_of(std::string_view key, std::string_view doc, std::span<const std::string_view> names) {
  return {.key = key, .kind = FieldKind::choice, .doc = doc, .choices = names, .also = also_null};
}
constexpr Field string(std::string_view key, std::string_view doc, std::string_view fallback = {}) {
  return {.key = key, .kind = FieldKind::string, .doc = doc, .fallback = fallback, .also = also_null};
}

constexpr Field kSourceFields[] = {
    {.key = "citation", .kind = FieldKind::string, .doc = "authors, title, venue", .fallback = "required"},
    text("arxiv", "arXiv id"),
    text("url", "address of the page or file"),
    text("location", "table, figure or file (and commit)"),
    text("source_type", "paper, vendor table, framework documentation, ..."),
    text("quote", "the row as printed"),
    text("quote_context", "statements around the row that fix the setting"),
};

constexpr Field kFrameworkFields[] = {
    one_of("name", "training framework (chooses the profile with `date`)", kFrameworks),
    string("version", "framework version as stated"),
    string("date", "YYYY-MM of the measurement or publication"),
};
constexpr Section kFrameworkSection{"record-framework", "/*/framework", "what the run used",
                                    kFrameworkFields};

constexpr Field kRecordMoeFields[] = {
    count("num_experts", "routed experts per MoE layer"),
    count("top_k", "routed experts per token"),
    count("shared_experts", "shared experts per MoE layer", {.min = 0}),
    count("moe_ffn_hidden", "inner size of one routed expert"),
    count("first_k_dense", "leading dense layers", {.min = 0}),
    count("moe_layer_freq", "every k-th layer is MoE"),
    positive("active_params", "active parameters per token"),
    positive("capacity_factor", "expert capacity factor (null: dropless)"),
    text("router", "gating as described"),
    count("max_nodes_per_token", "node-limited routing"),
    count("mtp_depth", "multi-token prediction modules", {.min = 0}),
};
constexpr Section kRecordMoeSection{"record-moe", "/*/model/moe", "the MoE block as stated", kRecordMoeFields};

constexpr Field kModelFields[] = {
    {.key = "name", .kind = FieldKind::string, .doc = "model name as stated", .fallback = "required"},
    string("catalog", "configs/models entry with the architecture"),
    string("catalog_hint", "a catalog model the source names"),
    positive("params", "parameters as stated"),
    positive("active_params", "active parameters (MoE)"),
    count("layers", "transformer layers"),
    count("hidden", "hidden size"),
    count("heads", "attention heads"),
    count("kv_heads", "key/value heads (GQA)"),
    count("head_dim", "head dimension"),
    count("ffn_hidden", "MLP inner size"),
    count("vocab", "vocabulary"),
    count("seq_len", "training sequence length"),
    one_of("mlp", "MLP kind", kMlp),
    one_of("norm", "normalisation", kNorm),
    one_of("position", "position encoding", kPosition),
    flag("linear_bias", "biases in the linear layers"),
    flag("tied_embeddings", "input and output embeddings shared"),
    flag("parallel_block", "attention and MLP in parallel"),
    {.key = "moe",
     .kind = FieldKind::object,
     .doc = "mixture-of-experts block (such records live in moe_runs.json)",
     .section = &kRecordMoeSection,
     .also = also_null},
};
constexpr Section kModelSection{"record-model", "/*/model", "the model as stated", kModelFields};

constexpr Field kHardwareFields[] = {
    {.key = "accelerator",
     .kind = FieldKind::string,
     .doc = "accelerator as stated (configs/reference/accelerators.json maps it to a node)",
     .fallback = "required"},
    {.key = "count",
     .kind = FieldKind::integer,
     .doc = "devices in the job",
     .fallback = "required",
     .ints = kCount},
    count("gpus_per_node", "devices per node"),
    count("slices", "TPU slices joined over the data-centre network (multi-slice job; null or 1: one slice)"),
    text("cluster", "cluster name"),
    text("interconnect_notes", "network as stated"),
};
constexpr Section kHardwareSection{"record-hardware", "/*/hardware", "the devices", kHardwareFields};

constexpr Field kParallelismFields[] = {
    count("tp", "tensor parallel"),
    count("pp", "pipeline parallel (derived from devices / (tp·cp·dp) when absent and tp and dp are stated)"),
    count("dp", "data parallel (derived from devices / (tp·pp·cp) when absent)"),
    count("cp", "context parallel"),
    count("ep", "expert parallel"),
    count("etp", "expert tensor parallel"),
    count("vp", "interleaved chunks per pipeline rank"),
    count("zero_stage", "ZeRO stage", {.min = 0, .max = 3}),
    {.key = "fsdp",
     .kind = FieldKind::choice,
     .doc = "PyTorch FSDP sharding (true = full_shard)",
     .choices = kFsdp,
     .also = also_null,
     .type_text = "boolean | \"full_shard\" | \"hybrid_shard\" | \"shard_grad_op\" | null",
     .schema =
         R"({"anyOf": [{"type": ["boolean", "null"]}, {"enum": ["full_shard", "hybrid_shard", "shard_grad_op"]}]})"},
    flag("sequence_parallel", "Megatron sequence parallelism"),
    count("micro_batch", "sequences per micro-batch"),
    count("global_batch", "sequences per step"),
    count("global_batch_tokens", "tokens per step"),
    count("local_batch",
          "sequences per data-parallel rank per step, as a framework prints its per-rank batch (torchtitan's "
          "training.batch_size); context-parallel ranks share one: global_batch = local_batch x dp"),
    one_of("recompute", "activation recomputation", kRecompute),
    one_of("selective_recompute",
           "what selective recomputation re-runs as stated (attention core; op: torchtitan op-level SAC; "
           "layer: every k-th layer; core-attn: Megatron-Core --recompute-modules core_attn, the fused "
           "attention forward re-run; dots: JAX checkpoint_dots_with_no_batch_dims, MaxText remat_policy "
           "'minimal': only the weight matmuls' outputs saved)",
           kSelectiveRecompute),
    count("selective_layer_interval", "k of layer-level selective recomputation (every k-th layer)"),
    count("activation_offload_layers",
          "Megatron-Core CPU offloading as the recipe sets it (cpu_offloading_num_layers): the first n layers' "
          "activations in host memory; null: not stated, read as no offloading (the experiment default 0)",
          {.min = 0}),
    flag("tp_comm_overlap", "TP communication overlapped with GEMMs"),
    flag("dp_overlap",
         "data-parallel gradient reduction (and a sharded optimizer's parameter gather) overlapped with the "
         "backward (and the next forward)"),
    one_of("schedule",
           "pipeline schedule (zb: a zero-bubble schedule without its variant, read as ZB-H1; zb-h1, zb-1p, "
           "zb-2p, zb-v: the variants of Qi et al. 2024 as stated; v-half, v-min: the V-shape schedules of Qi "
           "et al., \"Pipeline Parallelism with Controllable Memory\", 2024; zb-v and v-min are not "
           "expressible)",
           kSchedule),
    one_of("moe_overlap",
           "expert-parallel all-to-all overlap as stated (compute: Megatron-Core's 1F1B A2A overlap or DualPipe; "
           "shared-expert: moe_shared_expert_overlap; none: exposed)",
           kMoeOverlap),
    one_of("pipeline_split",
           "how layers that do not divide over pp·vp chunks are spread (ends-one-fewer: first and last chunk "
           "one layer fewer, Megatron's embedding/loss accounting; remainder-to-middle: torchtitan; balanced: "
           "layers moved off the stage holding the output layer until the FLOPs are even; deepspeed-transformer "
           "and deepspeed-transformer-embedding: DeepSpeed's partition_method type:transformer (Megatron-DeepSpeed's "
           "default) and type:transformer|embedding)",
           kPipelineSplit),
    string("pipeline_layout",
           "Megatron-Core's pipeline_model_parallel_layout as the source's recipe sets it, e.g. "
           "\"Et*4|(t*4|)*14tmL\" (E embedding, t transformer layer, m MTP layer, L loss, '|' stage boundary, "
           "*N repetition; Megatron-LM megatron/core/transformer/pipeline_parallel_layer_layout.py): its t "
           "counts per virtual stage become pipeline_layers; its stages must number pp·vp (vp = stages / pp "
           "when vp is not stated), its t count the model's layers, and its m count the MTP depth; "
           "exclusive with pipeline_split"),
    one_of("vocab_parallel",
           "where the embedding and output layer run: none (the stages of the first and the last virtual stage: "
           "first and last stage, both stage 0 under v-half), or split over all pp ranks "
           "by vocabulary parallelism (vocab-1, vocab-2, interlaced; Yeung et al. 2025)",
           kVocabParallel),
};
constexpr Section kParallelismSection{"record-parallelism", "/*/parallelism", "the split as stated",
                                      kParallelismFields};

constexpr Field kPrecisionFields[] = {
    one_of("compute",
           "GEMM precision (16-bit: the source implies a 16-bit tensor-core format, FP16 or BF16, without saying "
           "which; read as bf16 only on a device whose catalog fp16 and bf16 peaks are equal, said)",
           kCompute),
    flag("fp8_attention", "attention in FP8 too"),
    string("fp8_recipe", "FP8 scaling recipe as stated"),
    one_of("gradient_reduce",
           "precision the data-parallel gradient reduction runs in, as the source or the framework's code states "
           "it (e.g. FSDP2 MixedPrecisionPolicy.reduce_dtype); unstated: the profile's gradient_precision",
           kGradientReduce),
};
constexpr Section kPrecisionSection{"record-precision", "/*/precision", "numeric formats", kPrecisionFields};

constexpr Field kMeasuredFields[] = {
    positive("step_time_s", "seconds per optimizer step", kMeasured),
    positive("tokens_per_s_per_gpu", "tokens/s per device", kMeasured),
    positive("tokens_per_s", "tokens/s of the whole job", kMeasured),
    positive("samples_per_s", "sequences/s of the whole job", kMeasured),
    positive("tflops_per_gpu", "TFLOP/s per device (basis in tflops_basis)", kMeasured),
    one_of("tflops_basis", "which FLOP count tflops_per_gpu uses", kBasis),
    positive("mfu", "model FLOPs utilisation (fraction)", kMeasuredFraction),
    positive("hfu", "hardware FLOPs utilisation (fraction)", kMeasuredFraction),
    positive("peak_tflops_used", "the peak the source divided by", kMeasured),
};
constexpr Section kMeasuredSection{"record-measured", "/*/measured", "figures the source states",
                                   kMeasuredFields};

constexpr Field kRecordFields[] = {
    {.key = "id", .kind = FieldKind::string, .doc = "unique, lowercase", .fallback = "required"},
    {.key = "kind", .kind = FieldKind::choice, .doc = "record kind", .choices = kKinds},
    {.key = "source_group", .kind = FieldKind::string, .doc = "one key per source", .fallback = "required"},
    {.key = "split", .kind = FieldKind::choice, .doc = "calibration or test, by source", .choices = kSplits},
    {.key = "source",
     .kind = FieldKind::object,
     .doc = "citation",
     .fallback = "required",
     .section = &kReferenceSourceSection},
    {.key = "framework",
     .kind = FieldKind::object,
     .doc = "framework",
     .fallback = "required",
     .section = &kFrameworkSection},
    {.key = "model",
     .kind = FieldKind::object,
     .doc = "model",
     .fallback = "required",
     .section = &kModelSection},
    {.key = "hardware",
     .kind = FieldKind::object,
     .doc = "devices",
     .fallback = "required",
     .section = &kHardwareSection},
    {.key = "parallelism",
     .kind = FieldKind::object,
     .doc = "parallelism",
     .fallback = "required",
     .section = &kParallelismSection},
    {.key = "precision",
     .kind = FieldKind::object,
     .doc = "precision",
     .section = &kPrecisionSection,
     .also = also_null},
    flag("flash_attention", "fused attention"),
    flag("torch_compile", "PyTorch model compiled with torch.compile (false: eager element-wise kernels)"),
    one_of("attention_kernel",
           "which fused attention kernel (native, cudnn, flash-2, flash-1, triton-flash; default from the "
           "framework profile, else native: the kernel the device's attention efficiency describes)",
           kAttentionKernel),
    one_of("optimizer",
           "optimizer as stated (adam and adamw run as Adam; lamb, muon and adam-8bit are costed as Adam with "
           "fp32 states, said; sgd: SGD with momentum)",
           kOptimizer),
    {.key = "measured",
     .kind = FieldKind::object,
     .doc = "measurement",
     .fallback = "required",
     .section = &kMeasuredSection},
    one_of("confidence", "how directly the figures were read", kConfidence),
    text("notes", "caveats"),
};

}  // namespace

const Section kReferenceSourceSection{"record-source", "/*/source", "where the figures come from",
                                      kSourceFields};
const Section kReferenceRecordSection{"record", "/*", "one published measurement (docs/validation.md)",
                                      kRecordFields};

namespace {

void read_source(ObjectReader& r, ReferenceRecord& out) {
  Stated s{r};
  out.citation = r.require_string("citation");
  for (std::string_view key : {"arxiv", "url", "location", "source_type", "quote", "quote_context"})
    s.text(key);
}

// "YYYY-MM" with a month 01..12 (the profile reader's is_month), or "YYYY-MM-DD" with a day that exists in
// that month (Gregorian leap years).
bool is_date(const std::string& d) {
  if (d.size() == 7) return is_month(d);
  if (d.size() != 10 || !is_month(d.substr(0, 7)) || !std::regex_match(d.substr(7), std::regex("-[0-9]{2}")))
    return false;
  const int year = std::stoi(d.substr(0, 4));
  const int month = std::stoi(d.substr(5, 2));
  const int day = std::stoi(d.substr(8, 2));
  constexpr std::array<int, 12> kDays{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int last = kDays[static_cast<std::size_t>(month - 1)] + (month == 2 && leap ? 1 : 0);
  return day >= 1 && day <= last;
}

void read_framework(ObjectReader& r, ReferenceRecord& out) {
  Stated s{r};
  out.framework = s.choice("name").value_or("");
  if (!r.has("name") && r.valid()) r.error("name", "missing required key");
  out.framework_version = s.string("version").value_or("");
  out.framework_date = s.string("date").value_or("");
  if (!out.framework_date.empty() && !is_date(out.framework_date)) {
    r.error("date", fmt::format("\"{}\" is not a date (expected YYYY-MM with month 01..12, or YYYY-MM-DD with a "
                                "day of that month)",
                                out.framework_date));
  }
}

void read_model(ObjectReader& r, ReferenceRecord& out) {
  Stated s{r};
  out.model_name = r.require_string("name");
  out.catalog = s.string("catalog");
  out.catalog_hint = s.string("catalog_hint");
  s.number("params");
  s.number("active_params");
  out.layers = s.integer("layers");
  out.hidden = s.integer("hidden");
  out.heads = s.integer("heads");
  out.kv_heads = s.integer("kv_heads");
  out.head_dim = s.integer("head_dim");
  out.ffn_hidden = s.integer("ffn_hidden");
  out.vocab = s.integer("vocab");
  out.seq_len = s.integer("seq_len");
  out.mlp = s.choice("mlp");
  out.norm = s.choice("norm");
  out.position = s.choice("position");
  out.linear_bias = s.boolean("linear_bias");
  out.tied_embeddings = s.boolean("tied_embeddings");
  out.parallel_block = s.boolean("parallel_block");
  if (const auto* moe = r.find("moe"); moe != nullptr && !moe->is_null()) {
    out.moe = true;
    if (auto m = r.child("moe")) {
      Stated x{*m};
      out.num_experts = x.integer("num_experts");
      out.top_k = x.integer("top_k");
      out.shared_experts = x.integer("shared_experts");
      out.moe_ffn_hidden = x.integer("moe_ffn_hidden");
      out.first_k_dense = x.integer("first_k_dense");
      out.moe_layer_freq = x.integer("moe_layer_freq");
      x.number("active_params");
      out.capacity_factor = x.number("capacity_factor");
      x.text("router");
      out.max_nodes_per_token = x.integer("max_nodes_per_token");
      out.mtp_depth = x.integer("mtp_depth");
      m->finish();
    }
  }
}

void read_hardware(ObjectReader& r, ReferenceRecord& out) {
  Stated s{r};
  out.accelerator = r.require_string("accelerator");
  out.count = r.require_integer("count");
  out.gpus_per_node = s.integer("gpus_per_node");
  out.slices = s.integer("slices");
  out.cluster = s.string("cluster");
  s.text("interconnect_notes");
}

void read_parallelism(ObjectReader& r, ReferenceRecord& out) {
  Stated s{r};
  out.tp = s.integer("tp");
  out.pp = s.integer("pp");
  out.dp = s.integer("dp");
  out.cp = s.integer("cp");
  out.ep = s.integer("ep");
  out.etp = s.integer("etp");
  out.vp = s.integer("vp");
  out.zero_stage = s.integer("zero_stage");
  if (const auto* f = r.find("fsdp"); f != nullptr && !f->is_null()) {
    if (f->is_boolean()) {
      out.fsdp = f->get<bool>() ? "full_shard" : "false";
    } else {
      out.fsdp = s.choice("fsdp");
    }
  }
  out.sequence_parallel = s.boolean("sequence_parallel");
  out.micro_batch = s.integer("micro_batch");
  out.global_batch = s.integer("global_batch");
  out.global_batch_tokens = s.integer("global_batch_tokens");
  out.local_batch = s.integer("local_batch");
  out.recompute = s.choice("recompute");
  out.selective_recompute = s.choice("selective_recompute");
  out.selective_layer_interval = s.integer("selective_layer_interval");
  out.activation_offload_layers = s.integer("activation_offload_layers");
  out.tp_comm_overlap = s.boolean("tp_comm_overlap");
  out.dp_overlap = s.boolean("dp_overlap");
  out.schedule = s.choice("schedule");
  out.moe_overlap = s.choice("moe_overlap");
  out.pipeline_split = s.choice("pipeline_split");
  out.vocab_parallel = s.choice("vocab_parallel");
  out.pipeline_layout = s.string("pipeline_layout");
  if (out.pipeline_layout) {
    const auto parsed = parse_pipeline_layout(*out.pipeline_layout);
    if (!parsed.layout) {
      r.error("pipeline_layout", fmt::format("{}: {}", quoted_layout(*out.pipeline_layout), parsed.error));
      out.pipeline_layout.reset();
    } else if (out.pipeline_split) {
      r.error("pipeline_layout", "state pipeline_layout or pipeline_split, not both");
      out.pipeline_layout.reset();
    }
  }
}

// A stated layout against the record's own sizes: its stage count against pp·vp (pp alone when vp is
// not stated: Megatron derives vp as stages / pp), its t count against model.layers, its m count
// against model.moe.mtp_depth when stated. Sizes the record leaves to a catalog or profile are checked
// when the case is built (reference_runs.cpp).
void check_pipeline_layout(ReferenceRecord& out, std::size_t index, ReadContext& ctx) {
  if (!out.pipeline_layout || !out.pp) return;
  const auto parsed = parse_pipeline_layout(*out.pipeline_layout);
  const auto& layout = *parsed.layout;
  const auto stages = static_cast<std::int64_t>(layout.stages.size());
  const int vp = out.vp ? static_cast<int>(*out.vp) : static_cast<int>(std::max<std::int64_t>(1, stages / *out.pp));
  std::vector<std::string> problems;
  if (!out.vp && stages % *out.pp != 0) {
    problems.push_back(fmt::format("{} stages do not divide over pp = {} pipeline ranks", stages, *out.pp));
  } else {
    for (auto& p : pipeline_layout_problems(layout, static_cast<int>(*out.pp), vp,
                                            out.layers ? *out.layers : layout.decoder_layers(),
                                            static_cast<int>(out.mtp_depth.value_or(layout.mtp_layers())))) {
      problems.push_back(std::move(p));
    }
  }
  for (auto& p : problems) {
    ctx.error(fmt::format("/{}/parallelism/pipeline_layout", index),
              fmt::format("{}: {}", quoted_layout(*out.pipeline_layout), p));
  }
  if (!problems.empty()) out.pipeline_layout.reset();
}

void read_measured(ObjectReader& r, ReferenceRecord& out) {
  Stated s{r};
  for (const char* key : {"step_time_s", "tokens_per_s_per_gpu", "tokens_per_s", "samples_per_s"}) {
    if (auto v = s.number(key)) out.measured.emplace_back(key, *v);
  }
  const auto tflops = s.number("tflops_per_gpu");
  const auto basis = s.choice("tflops_basis");
  if (tflops && !basis && r.valid())
    r.error("tflops_basis", "required with tflops_per_gpu (model | hardware | unknown)");
  if (tflops && basis && *basis != "unknown") out.measured.emplace_back("tflops_per_gpu_" + *basis, *tflops);
  if (tflops && basis && *basis == "unknown") out.measured.emplace_back("tflops_per_gpu_unknown", *tflops);
  for (const char* key : {"mfu", "hfu"}) {
    if (auto v = s.number(key)) out.measured.emplace_back(key, *v);
  }
  out.peak_tflops_used = s.number("peak_tflops_used");
}

template <class F>
void section(ObjectReader& top, std::string_view key, F&& read, ReferenceRecord& out, bool required = true) {
  if (!required && (top.find(key) == nullptr || top.find(key)->is_null())) return;
  auto r = top.require_child(key);
  if (r.valid()) read(r, out);
  r.finish();
}

}  // namespace

void read_reference_record(const nlohmann::json& value, std::size_t index, ReadContext& ctx,
                           ReferenceRecord& out) {
  ObjectReader top(value, fmt::format("/{}", index), kReferenceRecordSection, ctx);
  if (!top.valid()) return;
  Stated s{top};
  out.id = top.require_string("id");
  if (top.valid() && !out.id.empty() && !std::regex_match(out.id, std::regex("[a-z0-9][a-z0-9._-]*"))) {
    top.error("id", fmt::format("\"{}\": ids are lowercase letters, digits, '.', '_' and '-'", out.id));
  }
  if (auto k = top.get_choice("kind")) out.kind = kKinds[*k];
  if (!top.has("kind")) top.error("kind", "missing required key");
  out.source_group = top.require_string("source_group");
  if (auto sp = top.get_choice("split")) out.split = kSplits[*sp];
  if (!top.has("split")) top.error("split", "missing required key (calibration | test)");
  section(top, "source", read_source, out);
  section(top, "framework", read_framework, out);
  section(top, "model", read_model, out);
  section(top, "hardware", read_hardware, out);
  section(top, "parallelism", read_parallelism, out);
  section(
      top, "precision",
      [](ObjectReader& r, ReferenceRecord& o) {
        Stated p{r};
        o.compute = p.choice("compute");
        o.fp8_attention = p.boolean("fp8_attention");
        o.fp8_recipe = p.string("fp8_recipe");
        o.gradient_reduce = p.choice("gradient_reduce");
      },
      out, false);
  out.flash_attention = s.boolean("flash_attention");
  out.torch_compile = s.boolean("torch_compile");
  out.attention_kernel = s.choice("attention_kernel");
  out.optimizer = s.choice("optimizer");
  section(top, "measured", read_measured, out);
  check_pipeline_layout(out, index, ctx);
  s.choice("confidence");
  s.text("notes");
  top.finish();
}

}  // namespace clustersim::config
