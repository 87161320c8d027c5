#include "sim/config/framework_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <regex>
#include <span>

#include "sim/config/enum_names.hpp"
#include "sim/config/json_file.hpp"
#include "sim/config/object_reader.hpp"
#include "sim/config/provenance.hpp"
#include "sim/config/read_context.hpp"

namespace clustersim::config {
namespace {

namespace fs = std::filesystem;

// Defaults that are experiment values take their names from enum_names.hpp (the one list of each
// enumeration): precision, recompute, selective_recompute, fp8_scaling, attention_kernel, model mlp/norm.
// The lists below are the profile's own vocabulary (rules, and the record spellings "interleaved", "zb"
// and "rope", which apply_profile maps to the experiment's).
constexpr const auto& kPrecisions = kPrecisionChoices;
constexpr std::array<std::string_view, 2> kOverlapScope{"forward-backward", "forward"};
constexpr std::array<std::string_view, 3> kWithTp{"off", "on", "with-tp"};
constexpr std::array<std::string_view, 3> kOverlapGradReduce{"off", "on", "with-zero3"};
constexpr std::array<std::string_view, 3> kMicroBatch{"one", "global-batch-per-replica", "pp-micro-batches"};
constexpr std::array<std::string_view, 2> kDpCollective{"hierarchical", "flat-ring"};
constexpr std::array<std::string_view, 2> kPipelineP2p{"megatron", "deepspeed"};
constexpr std::array<std::string_view, 4> kSchedules{"1f1b", "interleaved", "gpipe", "zb"};
constexpr std::array<std::string_view, 6> kModelKeys{"mlp",         "norm",          "position",
                                                     "linear_bias", "tied_embeddings", "parallel_block"};

constexpr std::array<std::string_view, 5> kPipelineSplit{"even", "ends-one-fewer", "remainder-to-middle",
                                                          "deepspeed-transformer",
                                                          "deepspeed-transformer-embedding"};
constexpr std::array<std::string_view, 1> kGlobalBatch{"micro-batch-times-dp"};
// Record spellings of the MLP: the model's kinds plus "relu", which the record reader costs as a
// two-matrix MLP with the GELU kernels (reference_runs.cpp says so as an assumption).
constexpr std::array<std::string_view, 3> kProfileMlp{"gelu", "swiglu", "relu"};
static_assert(kMlpChoices.size() == 2 && kMlpChoices[0] == kProfileMlp[0] && kMlpChoices[1] == kProfileMlp[1],
              "the profile's MLP spellings start with the model's kinds");
constexpr std::array<std::string_view, 2> kPos{"learned", "rope"};

constexpr Field choice_field(std::string_view key, std::string_view doc, std::span<const std::string_view> names) {
  return {.key = key, .kind = FieldKind::choice, .doc = doc, .choices = names};
}

// gradient_precision: compute precision -> precision of the gradient reduction buffers.
constexpr Field kGradientPrecisionFields[] = {
    choice_field("fp32", "gradient buffers of fp32 training", kPrecisions),
    choice_field("tf32", "gradient buffers of tf32 training", kPrecisions),
    choice_field("fp16", "gradient buffers of fp16 training", kPrecisions),
    choice_field("bf16", "gradient buffers of bf16 training", kPrecisions),
    choice_field("fp8", "gradient buffers of fp8 training", kPrecisions),
    choice_field("fp4", "gradient buffers of fp4 (NVFP4) training", kPrecisions),
};
constexpr Section kGradientPrecisionSection{"profile-gradient-precision", "/defaults/gradient_precision",
                                            "gradient reduction precision per compute precision",
                                            kGradientPrecisionFields};

// gradient_precision_note: compute precision -> what the reduction precision above stands for, when the
// framework reduces differently and the model charges the same bytes another way (printed with the value).
constexpr Field kGradientNoteFields[] = {
    {.key = "fp32", .kind = FieldKind::string, .doc = "what the fp32 entry stands for"},
    {.key = "tf32", .kind = FieldKind::string, .doc = "what the tf32 entry stands for"},
    {.key = "fp16", .kind = FieldKind::string, .doc = "what the fp16 entry stands for"},
    {.key = "bf16", .kind = FieldKind::string, .doc = "what the bf16 entry stands for"},
    {.key = "fp8", .kind = FieldKind::string, .doc = "what the fp8 entry stands for"},
    {.key = "fp4", .kind = FieldKind::string, .doc = "what the fp4 entry stands for"},
};
constexpr Section kGradientNoteSection{"profile-gradient-precision-note", "/defaults/gradient_precision_note",
                                       "what a gradient_precision entry stands for, printed with its assumption",
                                       kGradientNoteFields};

constexpr Field kProfileModelFields[] = {
    choice_field("mlp", "MLP kind of models the framework trains by default", kProfileMlp),
    choice_field("norm", "normalisation", kNormChoices),
    choice_field("position", "position encoding", kPos),
    {.key = "linear_bias", .kind = FieldKind::boolean, .doc = "biases in the linear layers"},
    {.key = "tied_embeddings", .kind = FieldKind::boolean, .doc = "input and output embeddings shared"},
    {.key = "parallel_block",
     .kind = FieldKind::boolean,
     .doc = "attention and MLP read the same normalised input and their outputs are added (PaLM-style)"},
};
constexpr Section kProfileModelSection{"profile-model", "/defaults/model", "architecture defaults",
                                       kProfileModelFields};

constexpr Field kDefaultsFields[] = {
    choice_field("precision", "compute precision", kPrecisions),
    choice_field("recompute", "activation recomputation", kRecomputeChoices),
    choice_field("selective_recompute", "what selective recomputation re-runs (docs/model.md)", kSelectivePolicyChoices),
    {.key = "selective_layer_interval",
     .kind = FieldKind::integer,
     .doc = "every k-th layer recomputed under selective_recompute layer",
     .ints = {.min = 1}},
    choice_field("fp8_scaling", "FP8 scaling recipe (docs/model.md)", kFp8ScalingChoices),
    {.key = "mxfp8_separate_swizzle",
     .kind = FieldKind::boolean,
     .doc = "with fp8_scaling mxfp8: the framework's Transformer Engine swizzles GEMM scales in separate "
            "kernels (training.mxfp8_separate_swizzle)"},
    choice_field("tp_comm_overlap_scope", "passes a TP overlap covers (docs/model.md)", kOverlapScope),
    {.key = "eager_elementwise",
     .kind = FieldKind::boolean,
     .doc = "element-wise ops run eagerly (no torch.compile) unless a record states torch_compile"},
    {.key = "separate_projections",
     .kind = FieldKind::boolean,
     .doc = "Q/K/V and gate/up as separate linear layers (training.separate_projections)"},
    choice_field("fp8_saved_inputs", "what FP8 linear layers keep of their inputs for the backward "
                 "(training.fp8_saved_inputs)", kFp8SavedInputsChoices),
    {.key = "flash_attention", .kind = FieldKind::boolean, .doc = "fused attention"},
    choice_field("attention_kernel", "which fused attention kernel (training.attention_kernel)",
                 kAttentionKernelChoices),
    choice_field("sequence_parallel", "sequence parallelism (with-tp: when tp > 1)", kWithTp),
    choice_field("tp_comm_overlap", "TP communication overlap (with-tp: when tp > 1)", kWithTp),
    {.key = "zero_stage", .kind = FieldKind::integer, .doc = "ZeRO stage", .ints = {.min = 0, .max = 3}},
    choice_field("overlap_grad_reduce",
                 "data-parallel gradient reduction overlapped with the backward (training.overlap_grad_reduce; "
                 "with-zero3: only under ZeRO-3)",
                 kOverlapGradReduce),
    choice_field("micro_batch", "micro-batch rule when a record states none", kMicroBatch),
    choice_field("global_batch", "global-batch rule when a record states none", kGlobalBatch),
    choice_field("dp_collective", "data-parallel collective", kDpCollective),
    choice_field("dp_collective_zero3", "data-parallel collective under ZeRO-3", kDpCollective),
    choice_field("pipeline_p2p", "pipeline sends/receives (parallelism.pipeline_p2p)", kPipelineP2p),
    choice_field("schedule", "pipeline schedule", kSchedules),
    {.key = "interleave_max_vp",
     .kind = FieldKind::integer,
     .doc = "largest interleaving depth assumed",
     .ints = {.min = 1, .max = 16}},
    choice_field("pipeline_split",
                 "how layers that do not divide evenly over the pp·vp pipeline chunks are spread "
                 "(docs/validation.md)",
                 kPipelineSplit),
    {.key = "tp", .kind = FieldKind::integer, .doc = "tensor parallel", .ints = {.min = 1}},
    {.key = "pp", .kind = FieldKind::integer, .doc = "pipeline parallel", .ints = {.min = 1}},
    {.key = "cp", .kind = FieldKind::integer, .doc = "context parallel", .ints = {.min = 1}},
    {.key = "gradient_precision",
     .kind = FieldKind::object,
     .doc = "gradient reduction precision",
     .section = &kGradientPrecisionSection},
    {.key = "gradient_precision_note",
     .kind = FieldKind::object,
     .doc = "what a gradient_precision entry stands for when the framework reduces differently with the same bytes",
     .section = &kGradientNoteSection},
    {.key = "model", .kind = FieldKind::object, .doc = "architecture defaults", .section = &kProfileModelSection},
};
constexpr Section kDefaultsSection{"profile-defaults", "/defaults", "defaults for what a record leaves out",
                                   kDefaultsFields};

constexpr Field kDatesFields[] = {
    {.key = "from", .kind = FieldKind::string, .doc = "first month (YYYY-MM)", .fallback = "required"},
    {.key = "to", .kind = FieldKind::string, .doc = "last month (YYYY-MM)", .fallback = "required"},
};
constexpr Section kDatesSection{"profile-dates", "/dates", "when the profile applies", kDatesFields};

constexpr Field kProfileFields[] = {
    {.key = "name", .kind = FieldKind::string, .doc = "equals the file name", .fallback = "required"},
    {.key = "description", .kind = FieldKind::text, .doc = "free text"},
    {.key = "frameworks",
     .kind = FieldKind::array,
     .doc = "framework names the profile covers",
     .fallback = "required",
     .items = FieldKind::string},
    {.key = "dates", .kind = FieldKind::object, .doc = "date range", .fallback = "required", .section = &kDatesSection},
    {.key = "defaults",
     .kind = FieldKind::object,
     .doc = "the defaults",
     .fallback = "required",
     .section = &kDefaultsSection},
    {.key = "sources",
     .kind = FieldKind::string_map,
     .doc = "a citation for every default (default -> citation)",
     .fallback = "required"},
};

std::optional<std::string> choice(ObjectReader& r, std::string_view key) {
  if (auto i = r.get_choice(key)) return std::string(r.field(key).choices[*i]);
  return std::nullopt;
}

std::optional<WithTp> with_tp(ObjectReader& r, std::string_view key) {
  if (auto i = r.get_choice(key)) return static_cast<WithTp>(*i);
  return std::nullopt;
}

void read_defaults(ObjectReader& d, FrameworkProfile& p) {
  p.precision = choice(d, "precision");
  p.recompute = choice(d, "recompute");
  p.selective_recompute = choice(d, "selective_recompute");
  if (auto v = d.get_integer("selective_layer_interval")) p.selective_layer_interval = static_cast<int>(*v);
  p.fp8_scaling = choice(d, "fp8_scaling");
  p.mxfp8_separate_swizzle = d.get_boolean("mxfp8_separate_swizzle");
  p.eager_elementwise = d.get_boolean("eager_elementwise");
  p.separate_projections = d.get_boolean("separate_projections");
  p.fp8_saved_inputs = choice(d, "fp8_saved_inputs");
  p.tp_comm_overlap_scope = choice(d, "tp_comm_overlap_scope");
  p.flash_attention = d.get_boolean("flash_attention");
  p.attention_kernel = choice(d, "attention_kernel");
  p.sequence_parallel = with_tp(d, "sequence_parallel");
  p.tp_comm_overlap = with_tp(d, "tp_comm_overlap");
  if (auto z = d.get_integer("zero_stage")) p.zero_stage = static_cast<int>(*z);
  p.overlap_grad_reduce = choice(d, "overlap_grad_reduce");
  p.micro_batch_rule = choice(d, "micro_batch");
  p.global_batch_rule = choice(d, "global_batch");
  p.dp_collective = choice(d, "dp_collective");
  p.dp_collective_zero3 = choice(d, "dp_collective_zero3");
  p.pipeline_p2p = choice(d, "pipeline_p2p");
  p.schedule = choice(d, "schedule");
  if (auto v = d.get_integer("interleave_max_vp")) p.interleave_max_vp = static_cast<int>(*v);
  p.pipeline_split = choice(d, "pipeline_split");
  for (auto [key, slot] : {std::pair{"tp", &p.tp}, std::pair{"pp", &p.pp}, std::pair{"cp", &p.cp}}) {
    if (auto v = d.get_integer(key)) *slot = static_cast<int>(*v);
  }
  if (auto g = d.child("gradient_precision")) {
    for (std::string_view prec : kPrecisions) {
      if (auto v = g->get_choice(prec)) p.gradient_precision[std::string(prec)] = kPrecisions[*v];
    }
    g->finish();
  }
  if (auto g = d.child("gradient_precision_note")) {
    for (std::string_view prec : kPrecisions) {
      if (auto v = g->get_string(prec)) p.gradient_precision_note[std::string(prec)] = *v;
    }
    g->finish();
  }
  if (auto m = d.child("model")) {
    for (const char* key : {"mlp", "norm", "position"}) {
      if (auto v = choice(*m, key)) p.model[key] = *v;
    }
    if (auto v = m->get_boolean("linear_bias")) p.model["linear_bias"] = *v;
    if (auto v = m->get_boolean("tied_embeddings")) p.model["tied_embeddings"] = *v;
    if (auto v = m->get_boolean("parallel_block")) p.model["parallel_block"] = *v;
    m->finish();
  }
}

// Every default must carry a citation: sources/<key> for each key of defaults (model: sources/model).
void check_sources(ObjectReader& r, const nlohmann::json& defaults, FrameworkProfile& p) {
  const nlohmann::json* sources = r.find("sources");
  if (sources == nullptr) {
    r.error("sources", "missing required key (a citation for every default)");
    return;
  }
  if (!sources->is_object()) {
    r.error("sources", fmt::format("expected an object (default -> citation), got {}", describe(*sources)));
    return;
  }
  for (auto it = sources->begin(); it != sources->end(); ++it) {
    const std::string at = child_pointer(r.pointer_of("sources"), it.key());
    if (!it.value().is_string()) {
      r.context().error(at, fmt::format("expected a citation string, got {}", describe(it.value())));
    } else if (!defaults.is_object() || !defaults.contains(it.key())) {
      r.context().error(at, "cites a default the profile does not set");
    } else {
      p.sources.push_back(fmt::format("{}: {}", it.key(), it.value().get<std::string>()));
    }
  }
  if (defaults.is_object()) {
    for (auto it = defaults.begin(); it != defaults.end(); ++it) {
      if (!sources->contains(it.key())) {
        r.context().error(child_pointer(r.pointer_of("sources"), it.key()),
                          fmt::format("missing citation for default \"{}\"", it.key()));
      }
    }
  }
}

FrameworkProfile read_profile(const fs::path& file) {
  const nlohmann::json doc = read_json_file(file);
  const Provenance origin(file.string(), file.parent_path());
  Diagnostics diagnostics;
  ReadContext ctx(origin, diagnostics);
  FrameworkProfile p;
  p.file = file.string();
  ObjectReader r(doc, "", kProfileSection, ctx);
  p.name = r.require_string("name");
  if (r.valid() && !p.name.empty() && p.name != file.stem().string()) {
    r.error("name", fmt::format("\"{}\" must equal the file name \"{}\"", p.name, file.stem().string()));
  }
  r.accept("description");
  if (const auto* fw = r.find("frameworks"); fw == nullptr) {
    r.error("frameworks", "missing required key");
  } else if (!fw->is_array() || fw->empty()) {
    r.error("frameworks",
            fmt::format("expected a non-empty array of framework names, got {}", describe(*fw)));
  } else {
    for (std::size_t i = 0; i < fw->size(); ++i) {
      if ((*fw)[i].is_string()) {
        p.frameworks.push_back((*fw)[i].get<std::string>());
      } else {
        ctx.error(fmt::format("/frameworks/{}", i),
                  fmt::format("expected a string, got {}", describe((*fw)[i])));
      }
    }
  }
  auto dates = r.require_child("dates");
  p.from = dates.require_string("from");
  p.to = dates.require_string("to");
  for (auto [key, value] : {std::pair{"from", &p.from}, std::pair{"to", &p.to}}) {
    if (dates.valid() && !value->empty() && !is_month(*value)) {
      dates.error(key, fmt::format("\"{}\" is not a month (expected YYYY-MM)", *value));
    }
  }
  dates.finish();
  const nlohmann::json* defaults_json = r.find("defaults");
  auto defaults = r.require_child("defaults");
  read_defaults(defaults, p);
  defaults.finish();
  check_sources(r, defaults_json ? *defaults_json : nlohmann::json(), p);
  r.finish();
  diagnostics.throw_if_any();
  return p;
}

}  // namespace

bool is_month(const std::string& s) {
  return std::regex_match(s, std::regex("[0-9]{4}-(0[1-9]|1[0-2])"));
}

const Section kProfileSection{"profile", "", "a framework profile (configs/profiles, docs/validation.md)",
                              kProfileFields};

std::vector<FrameworkProfile> read_framework_profiles(const CatalogPaths& paths) {
  std::map<std::string, fs::path> files;
  for (const fs::path& root : paths.roots) {
    const fs::path dir = root / "profiles";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".json") files.emplace(entry.path().stem().string(), entry.path());
    }
  }
  Diagnostics all;
  std::vector<FrameworkProfile> out;
  for (const auto& [name, file] : files) {
    try {
      out.push_back(read_profile(file));
    } catch (const ConfigError& e) {
      all.merge(e);
    }
  }
  all.throw_if_any();
  // A record's framework and date must choose one profile.
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (std::size_t j = i + 1; j < out.size(); ++j) {
      for (const std::string& fw : out[i].frameworks) {
        const bool shared =
            std::find(out[j].frameworks.begin(), out[j].frameworks.end(), fw) != out[j].frameworks.end();
        if (shared && out[i].from <= out[j].to && out[j].from <= out[i].to) {
          all.add(out[j].file, "/dates",
                  fmt::format("covers framework \"{}\" over dates that overlap profile {} ({} to {})", fw,
                              out[i].name, out[i].from, out[i].to));
        }
      }
    }
  }
  all.throw_if_any();
  return out;
}

const FrameworkProfile* select_profile(const std::vector<FrameworkProfile>& profiles,
                                       const std::string& framework, const std::string& date) {
  if (date.empty()) return nullptr;
  const std::string month = date.substr(0, 7);
  for (const FrameworkProfile& p : profiles) {
    const bool named = std::find(p.frameworks.begin(), p.frameworks.end(), framework) != p.frameworks.end();
    if (named && p.from <= month && month <= p.to) return &p;
  }
  return nullptr;
}

namespace {

// The value at `key` when it has the type the rule reads, else `fallback`: a wrong-typed value is left for
// the experiment reader to report at its pointer (nlohmann's value() would throw a type error here).
std::string string_or(const nlohmann::json& obj, const char* key, const std::string& fallback) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

int int_or(const nlohmann::json& obj, const char* key, int fallback) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return fallback;
  const double v = it->get<double>();
  if (!(v >= -2147483648.0 && v <= 2147483647.0) || v != static_cast<double>(static_cast<long long>(v)))
    return fallback;
  return static_cast<int>(v);
}

bool bool_or(const nlohmann::json& obj, const char* key, bool fallback) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

}  // namespace

void apply_profile(nlohmann::json& experiment, const FrameworkProfile& p) {
  if (!experiment.is_object() || !experiment.contains("training") || !experiment["training"].is_object())
    return;
  if (experiment.contains("parallelism") && !experiment["parallelism"].is_object()) return;
  nlohmann::json& train = experiment["training"];
  nlohmann::json& par = experiment["parallelism"];
  if (par.is_null()) par = nlohmann::json::object();
  auto put = [](nlohmann::json& obj, const char* key, const nlohmann::json& value) {
    if (!obj.contains(key)) obj[key] = value;
  };
  const int tp = int_or(par, "tp", 1);
  const int pp = int_or(par, "pp", 1);
  auto rule = [&](const std::optional<WithTp>& r) {
    return *r == WithTp::on || (*r == WithTp::with_tp && tp > 1);
  };
  if (p.precision) put(train, "precision", *p.precision);
  if (p.recompute) put(train, "recompute", *p.recompute);
  if (p.flash_attention) put(train, "flash_attention", *p.flash_attention);
  if (p.selective_recompute && string_or(train, "recompute", "") == "selective")
    put(train, "selective_recompute", *p.selective_recompute);
  if (p.selective_layer_interval && string_or(train, "selective_recompute", "") == "layer")
    put(train, "selective_layer_interval", *p.selective_layer_interval);
  // Only where the attention is fused (a wrong-typed flash_attention is left for the reader to report).
  const auto fused = train.find("flash_attention");
  if (p.attention_kernel && (fused == train.end() || (fused->is_boolean() && fused->get<bool>())))
    put(train, "attention_kernel", *p.attention_kernel);
  if (p.micro_batch_rule && *p.micro_batch_rule == "one") put(train, "micro_batch", 1);
  const std::string precision = string_or(train, "precision", "bf16");
  if (p.fp8_scaling && precision == "fp8") put(train, "fp8_scaling", *p.fp8_scaling);
  if (p.mxfp8_separate_swizzle && precision == "fp8" && string_or(train, "fp8_scaling", "") == "mxfp8")
    put(train, "mxfp8_separate_swizzle", *p.mxfp8_separate_swizzle);
  if (p.eager_elementwise) put(train, "eager_elementwise", *p.eager_elementwise);
  if (p.separate_projections) put(train, "separate_projections", *p.separate_projections);
  if (p.fp8_saved_inputs && precision == "fp8") put(train, "fp8_saved_inputs", *p.fp8_saved_inputs);
  if (p.gradient_precision.contains(precision))
    put(train, "gradient_precision", p.gradient_precision[precision]);
  if (p.sequence_parallel) put(par, "sequence_parallel", rule(p.sequence_parallel) && tp > 1);
  if (p.tp_comm_overlap) put(par, "tp_comm_overlap", rule(p.tp_comm_overlap) && tp > 1);
  if (p.tp_comm_overlap_scope && bool_or(par, "tp_comm_overlap", false))
    put(par, "tp_comm_overlap_scope", *p.tp_comm_overlap_scope);
  // `fsdp: true` means ZeRO-3; `fsdp: false` rules out full sharding only, so a ZeRO-1/2 default still
  // applies and a ZeRO-3 default falls back to 0 (as for records, sim/config/reference_runs.cpp).
  const auto fsdp = par.find("fsdp");
  const bool fsdp_false = fsdp != par.end() && fsdp->is_boolean() && !fsdp->get<bool>();
  if (p.zero_stage && fsdp == par.end()) put(par, "zero_stage", *p.zero_stage);
  if (p.zero_stage && fsdp_false) put(par, "zero_stage", *p.zero_stage < 3 ? *p.zero_stage : 0);
  const bool zero3 = int_or(par, "zero_stage", 0) == 3 || bool_or(par, "fsdp", false);
  // with-zero3: DeepSpeed overlaps only under ZeRO-3, and its pipeline engine (which refuses ZeRO-2/3)
  // reduces after the last micro-batch.
  if (p.overlap_grad_reduce) put(train, "overlap_grad_reduce", p.overlaps_grad_reduce(zero3, pp));
  if (p.pipeline_p2p && pp > 1) put(par, "pipeline_p2p", *p.pipeline_p2p);
  if (zero3 && p.dp_collective_zero3) {
    put(par, "dp_collective", *p.dp_collective_zero3);
  } else if (p.dp_collective) {
    put(par, "dp_collective", *p.dp_collective);
  }
  if (p.schedule && pp > 1) {
    std::string schedule = *p.schedule == "interleaved" ? "interleaved-1f1b"
                           : *p.schedule == "zb"        ? "zb-h1"
                                                        : *p.schedule;
    // Megatron's rule is "1F1B unless virtual pipeline stages are set": a stated vp > 1 on a framework
    // that interleaves (interleave_max_vp) selects the interleaved schedule.
    if (schedule == "1f1b" && p.interleave_max_vp && int_or(par, "vp", 1) > 1) schedule = "interleaved-1f1b";
    put(par, "schedule", schedule);
  }
}

namespace {

// DeepSpeed's partition_balanced (deepspeed/runtime/utils.py at microsoft/DeepSpeed 29bee73, 2021-10-21:
// prefix_sum_inc, _lprobe, _rb_partition_balanced, partition_balanced, partition_uniform), ported line for
// line: a binary search (eps 1e-3) for the smallest bottleneck a greedy left-to-right probe can meet, then
// that probe's boundaries. Returns the num_parts + 1 boundaries into the item list.
std::vector<std::size_t> deepspeed_partition_uniform(std::size_t num_items, std::size_t num_parts) {
  std::vector<std::size_t> parts(num_parts + 1, 0);
  if (num_items <= num_parts) {
    for (std::size_t p = 0; p <= num_parts; ++p) parts[p] = std::min(p, num_items);
    return parts;
  }
  const std::size_t chunksize = num_items / num_parts;
  for (std::size_t p = 0; p < num_parts; ++p) parts[p] = std::min(chunksize * p, num_items);
  parts[num_parts] = num_items;
  return parts;
}

// The inclusive prefix sums of DeepSpeed's binary weights over GPTModelPipe's layer list (below), in O(1) per
// index: [cast, embedding (e), transpose, L transformer layers, undo, final norm, tied embedding (e), cast].
struct GptPipePrefix {
  double layers, embedding;
  [[nodiscard]] std::size_t size() const { return static_cast<std::size_t>(layers) + 7; }
  [[nodiscard]] double operator[](std::size_t i) const {
    const double x = static_cast<double>(i);
    return (i >= 1 ? embedding : 0.0) + std::clamp(x - 2.0, 0.0, layers) + (x >= layers + 5.0 ? embedding : 0.0);
  }
  [[nodiscard]] double back() const { return (*this)[size() - 1]; }
  // bisect_left(w, value, lo, hi)
  [[nodiscard]] std::size_t lower_bound(std::size_t lo, std::size_t hi, double value) const {
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if ((*this)[mid] < value) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
};

// _lprobe over the prefix sums `w`. Python's w[-1] (when a boundary is 0) is the last element.
std::pair<std::vector<std::size_t>, bool> deepspeed_lprobe(const GptPipePrefix& w, std::size_t num_parts,
                                                           double bottleneck) {
  const std::size_t num_items = w.size();
  const double total = w.back();
  std::vector<std::size_t> parts(num_parts + 1, num_items);
  parts[0] = 0;
  double bsum = bottleneck;
  const std::size_t chunksize = num_items / num_parts;
  std::size_t step = chunksize;
  for (std::size_t p = 1; p < num_parts; ++p) {
    while (step < num_items && w[step] < bsum) step += chunksize;
    parts[p] = w.lower_bound(step - chunksize, std::min(step, num_items), bsum);
    if (parts[p] == num_items) {
      const double part_size = total - w[parts[p - 1]];
      return {parts, part_size < bottleneck};
    }
    bsum = (parts[p] == 0 ? w.back() : w[parts[p] - 1]) + bottleneck;
  }
  return {parts, bsum >= total};
}

std::vector<std::size_t> deepspeed_partition_balanced(const GptPipePrefix& w, std::size_t num_parts) {
  const std::size_t num_items = w.size();
  if (num_items <= num_parts) return deepspeed_partition_uniform(num_items, num_parts);
  constexpr double eps = 1e-3;
  double lower = w.back() / static_cast<double>(num_parts);
  double upper = w.back();
  while (upper > lower + eps) {
    const double mid = lower + (upper - lower) / 2;
    if (deepspeed_lprobe(w, num_parts, mid).second) {
      upper = mid;
    } else {
      lower = mid + eps;
    }
  }
  return deepspeed_lprobe(w, num_parts, upper).first;
}

}  // namespace

std::string pipeline_split_refusal(const std::string& rule, int layers, int chunks) {
  if (layers > kMaxSplitItems || chunks > kMaxSplitItems) {
    return fmt::format("the split rules take at most {} layers and stages", kMaxSplitItems);
  }
  if (rule == "ends-one-fewer") return "Megatron-Core asserts layers + 2 divisible by the stages, and at least two stages";
  if (rule == "remainder-to-middle") return "torchtitan needs at least one layer per stage";
  if (rule == "even") return "the layers do not divide over the stages";
  return "DeepSpeed's partition would leave a stage without a transformer layer, which Megatron-DeepSpeed cannot run";
}

std::optional<std::vector<int>> pipeline_split_layers(const std::string& rule, int layers, int chunks) {
  if (layers <= 0 || chunks <= 0) return std::nullopt;
  // Keeps layers + 2 inside int and the search small (the bound the messages name).
  if (layers > kMaxSplitItems || chunks > kMaxSplitItems) return std::nullopt;
  if (rule == "deepspeed-transformer" || rule == "deepspeed-transformer-embedding") {
    // DeepSpeed's PipelineModule partition_method "type:transformer" (Megatron-DeepSpeed's default) or
    // "type:transformer|embedding" (BigScience's BLOOM runs): weight 1 for every layer whose class matches,
    // 0 for the rest, over Megatron-DeepSpeed's GPTModelPipe layer list (megatron/model/gpt_model.py,
    // bigscience-workshop/Megatron-DeepSpeed 8387ae17, lines 212-291): the fp16 cast, the input
    // EmbeddingPipe, a transpose, the transformer layers, the undo transpose, the final LayerNorm, the tied
    // output EmbeddingPipe, the fp32 cast.
    const GptPipePrefix prefix{static_cast<double>(layers),
                               rule == "deepspeed-transformer-embedding" ? 1.0 : 0.0};
    const auto n = static_cast<std::size_t>(chunks);
    const std::vector<std::size_t> parts = deepspeed_partition_balanced(prefix, n);
    const std::size_t first = 3;
    const std::size_t last = first + static_cast<std::size_t>(layers);  // one past the last transformer layer
    std::vector<int> out(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t lo = std::max(parts[k], first);
      const std::size_t hi = std::min(parts[k + 1], last);
      out[k] = hi > lo ? static_cast<int>(hi - lo) : 0;
      // "the current implementation of PP fails unless each stage has at least one transformer layer"
      // (the same file, above the partition_method default).
      if (out[k] == 0) return std::nullopt;
    }
    return out;
  }
  const auto n = static_cast<std::size_t>(chunks);
  if (rule == "even") {
    if (layers % chunks != 0) return std::nullopt;
    return std::vector<int>(n, layers / chunks);
  }
  if (rule == "ends-one-fewer") {
    // Megatron asserts (layers + 2) divisible by the chunks; with one per chunk the first chunk holds only
    // the embedding and the last only the loss (no transformer layer).
    if ((layers + 2) % chunks != 0 || chunks < 2) return std::nullopt;
    const int per = (layers + 2) / chunks;
    std::vector<int> out(n, per);
    out.front() = per - 1;
    out.back() = per - 1;
    return out;
  }
  if (rule == "remainder-to-middle") {
    if (chunks > layers) return std::nullopt;  // torchtitan: "Total stages cannot be greater than layers"
    const int base = layers / chunks;
    int extra = layers % chunks;
    std::vector<int> out(n, base);
    int used = base;
    for (std::size_t i = 1; i + 1 < n; ++i) {
      if (extra > 0) {
        out[i] = base + 1;
        --extra;
      }
      used += out[i];
    }
    if (n > 1) out.back() = layers - used;
    return out;
  }
  return std::nullopt;
}

std::vector<int> balanced_pipeline_split(int layers, int chunks, double first_extra, double last_extra) {
  const auto n = static_cast<std::size_t>(std::max(chunks, 1));
  std::vector<int> out(n, 0);
  const auto load = [&](std::size_t k) {
    return out[k] + (k == 0 ? first_extra : 0.0) + (k + 1 == n ? last_extra : 0.0);
  };
  // Water-filling: each layer goes to the least-loaded chunk (the first of equals), which minimises the
  // largest chunk load.
  for (int l = 0; l < layers; ++l) {
    std::size_t best = 0;
    for (std::size_t k = 1; k < n; ++k) {
      if (load(k) < load(best)) best = k;
    }
    ++out[best];
  }
  return out;
}

const FrameworkProfile* find_profile(const std::vector<FrameworkProfile>& profiles, const std::string& name) {
  for (const FrameworkProfile& p : profiles) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace clustersim::config
