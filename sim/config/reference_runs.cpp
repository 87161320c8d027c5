#include "sim/config/reference_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "sim/config/reference_energy_runs.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim::config {
namespace {

using nlohmann::json;

bool has_number(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_number();
}

std::string text_of(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : "";
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// Node catalog entry for an accelerator description; "" when none fits.
std::string node_for(const std::string& accelerator) {
  if (contains(accelerator, "V100")) return "dgx-2-v100";
  if (contains(accelerator, "A100-SXM4-80GB")) return "dgx-a100-80gb";
  if (contains(accelerator, "A100")) return "dgx-a100-40gb";
  if (contains(accelerator, "H100")) return "dgx-h100";
  if (contains(accelerator, "H200")) return "dgx-h200";
  return "";
}

struct Builder {
  const json& rec;
  ReferenceCase c;

  void assume(std::string what) { c.assumptions.push_back(std::move(what)); }

  int int_or(const json& obj, const char* key, int fallback, const std::string& why) {
    if (has_number(obj, key)) return obj[key].get<int>();
    assume(fmt::format("{} = {} ({})", key, fallback, why));
    return fallback;
  }
};

std::optional<std::string> build_case(Builder& b) {
  const json& rec = b.rec;
  const json& model = rec.value("model", json::object());
  const json& hw = rec.value("hardware", json::object());
  const json& par = rec.value("parallelism", json::object());
  const json& measured = rec.value("measured", json::object());
  const std::string citation = rec.contains("source") ? text_of(rec["source"], "citation") : "";
  b.c.citation = citation;
  const bool mcore = contains(citation, "Megatron-Core");
  if (rec.value("kind", "") == kTrainingRunEnergyKind) return build_energy_case(rec, b.c);

  if (rec.value("kind", "") != "training_run_measurement") {
    return fmt::format("record kind '{}' is not a whole training-step measurement", rec.value("kind", ""));
  }
  if (!has_number(par, "tp") || !has_number(par, "pp") || !has_number(par, "dp")) {
    return std::string("parallelism (tp, pp, dp) not stated in the source");
  }
  for (const char* key : {"layers", "hidden", "heads", "seq_len", "vocab"}) {
    if (!has_number(model, key)) return fmt::format("model.{} not stated", key);
  }
  const std::string accel = text_of(hw, "accelerator");
  const std::string node = node_for(accel);
  if (node.empty()) return fmt::format("no node catalog entry for accelerator '{}'", accel);
  const int count = has_number(hw, "count") ? hw["count"].get<int>() : 0;
  const int per_node = has_number(hw, "gpus_per_node") ? hw["gpus_per_node"].get<int>() : 8;
  if (count <= 0) return std::string("hardware.count not stated");

  json m = {{"name", text_of(model, "name")},
            {"layers", model["layers"]},
            {"hidden", model["hidden"]},
            {"heads", model["heads"]},
            {"kv_heads", has_number(model, "kv_heads") ? model["kv_heads"] : model["heads"]},
            {"ffn_hidden",
             has_number(model, "ffn_hidden") ? model["ffn_hidden"] : json(4 * model["hidden"].get<int>())},
            {"vocab", model["vocab"]},
            {"seq_len", model["seq_len"]},
            {"mlp", "gelu"},
            {"norm", "layernorm"},
            {"position", "learned"},
            {"linear_bias", true},
            {"tied_embeddings", true}};

  const int tp = par["tp"].get<int>(), pp = par["pp"].get<int>(), dp = par["dp"].get<int>();
  json p = {{"tp", tp}, {"pp", pp}, {"dp", dp}};
  if (has_number(par, "zero_stage")) p["zero_stage"] = par["zero_stage"];
  const std::string vp_text = par.contains("vp") && par["vp"].is_string() ? par["vp"].get<std::string>() : "";
  const int layers = model["layers"].get<int>();
  const int gb = has_number(par, "global_batch") ? par["global_batch"].get<int>() : 0;
  if (gb <= 0) return std::string("global batch not stated");
  // Megatron-LM v1 (the 2020 README, before pipeline parallelism) had no gradient accumulation: its
  // --batch-size was the batch of one model instance, so each data-parallel replica runs one micro-batch
  // of global_batch / dp (the README: "batch size 8" on one DGX-2, 16 per replica on DGX A100).
  const bool megatron_v1 = contains(citation, "Megatron-LM README") && contains(citation, "2020") && pp == 1;
  const int mb =
      megatron_v1 ? b.int_or(par, "micro_batch", gb / std::max(1, dp),
                             "not stated; Megatron-LM v1 had no gradient accumulation: --batch-size "
                             "is the batch per model instance, global_batch / dp")
                  : b.int_or(par, "micro_batch", 1, "not stated; Megatron-LM examples use 1 at these scales");
  const int microbatches = gb / std::max(1, mb * dp);
  int vp = 1;
  if (has_number(par, "vp")) {
    vp = par["vp"].get<int>();
  } else if (contains(vp_text, "interleaved") && pp > 1) {
    // Interleaving depth not stated: the deepest v <= 3 that Megatron accepts (layers % (pp·v) == 0,
    // micro-batches % pp == 0).
    for (int v = 3; v >= 2; --v) {
      if (layers % (pp * v) == 0 && microbatches % pp == 0) {
        vp = v;
        break;
      }
    }
    b.assume(fmt::format(
        "vp = {} (interleaved schedule, chunk count not stated: deepest v <= 3 Megatron accepts)", vp));
  }
  p["vp"] = vp;
  p["schedule"] = vp > 1 ? "interleaved-1f1b" : "1f1b";
  bool sp = false;
  if (par.contains("sequence_parallel") && par["sequence_parallel"].is_boolean()) {
    sp = par["sequence_parallel"].get<bool>();
  } else {
    sp = mcore && tp > 1;
    b.assume(fmt::format(
        "sequence_parallel = {} ({})", sp,
        mcore ? "Megatron-Core recommends it with TP" : "not available in Megatron-LM before 2022"));
  }
  p["sequence_parallel"] = sp;

  std::string recompute = "none";
  const std::string rc_text = text_of(par, "recompute");
  if (contains(rc_text, "selective")) {
    recompute = "selective";
  } else if (contains(rc_text, "full") || contains(rc_text, "Eq. 3")) {
    recompute = "full";
    if (!contains(rc_text, "full")) b.assume("recompute = full (the FLOP counting of Eq. 3 assumes it)");
  } else if (rc_text.empty()) {
    recompute = mcore ? "none" : "full";
    b.assume(mcore ? "recompute = none (Megatron-Core default)"
                   : "recompute = full (Megatron-LM of 2020-21 trained with activation checkpointing)");
  }
  const std::string precision_text =
      rec.value("precision", json("")).is_string() ? rec["precision"].get<std::string>() : "";
  const std::string precision =
      contains(precision_text, "BF16") || contains(precision_text, "bf16") ? "bf16" : "fp16";
  json t = {{"micro_batch", mb},
            {"global_batch", gb},
            {"precision", precision},
            {"recompute", recompute},
            {"flash_attention", mcore}};
  // Megatron-LM's --accumulate-allreduce-grads-in-fp32 is off by default and forced on for bf16, so fp16
  // runs reduce fp16 gradients.
  t["gradient_precision"] = precision == "bf16" ? "fp32" : "fp16";
  b.assume(fmt::format("gradient all-reduce in {} (Megatron-LM default for {} training)",
                       precision == "bf16" ? "fp32" : "fp16", precision));
  if (contains(text_of(rec, "notes"), "DeepSpeed") && has_number(par, "zero_stage") &&
      par["zero_stage"].get<int>() == 3 && dp * tp > per_node) {
    p["dp_collective"] = "flat-ring";
    b.assume(
        "dp_collective = flat-ring (DeepSpeed ZeRO-3 of 2021: parameter gathers and gradient scatters move "
        "the whole buffer through each rank's own NIC; inferred from these rows, whose step time stops "
        "falling with more GPUs, see docs/collectives.md)");
  }
  if (mcore && !has_number(par, "zero_stage")) {
    p["zero_stage"] = 1;
    b.assume(
        "zero_stage = 1 (Megatron-Core benchmarks use --use-distributed-optimizer with overlapped grad "
        "reduce and param gather)");
  }
  if (mcore && tp > 1) {
    p["tp_comm_overlap"] = true;
    b.assume("tp_comm_overlap = on (Megatron-Core performance benchmarks run with --tp-comm-overlap)");
  }
  b.assume(mcore ? "flash_attention = on (Megatron-Core with Transformer Engine)"
                 : "flash_attention = off (not used by Megatron-LM before 2023)");

  const int nodes = (count + per_node - 1) / per_node;
  json cluster = {
      {"name", hw.contains("cluster") && hw["cluster"].is_string() ? hw["cluster"] : json(b.c.id)},
      {"node", node},
      {"nodes", nodes}};
  b.c.experiment = {{"schema_version", 1}, {"name", b.c.id},   {"cluster", cluster},
                    {"model", m},          {"parallelism", p}, {"training", t}};
  if (count < per_node) b.c.experiment["devices_per_node_override"] = count;

  const std::string basis = text_of(measured, "tflops_basis");
  if (has_number(measured, "step_time_s"))
    b.c.metrics.push_back({"step_time_s", measured["step_time_s"].get<double>()});
  if (has_number(measured, "mfu")) b.c.metrics.push_back({"mfu", measured["mfu"].get<double>()});
  if (has_number(measured, "hfu")) b.c.metrics.push_back({"hfu", measured["hfu"].get<double>()});
  if (has_number(measured, "tflops_per_gpu") && !has_number(measured, "step_time_s") &&
      !has_number(measured, "mfu")) {
    const bool hardware = contains(basis, "recompute") || contains(basis, "Eq.(3)");
    b.c.metrics.push_back(
        {hardware ? "hw_tflops_per_device" : "tflops_per_device", measured["tflops_per_gpu"].get<double>()});
  }
  if (b.c.metrics.empty()) return std::string("no step time, MFU/HFU or TFLOP/s measured");
  return std::nullopt;
}

}  // namespace

ReferenceSet reference_runs_from_json(const json& records, const std::string& label) {
  if (!records.is_array()) throw ConfigError(label, "", "expected a JSON array of run records");
  ReferenceSet out;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const json& rec = records[i];
    if (!rec.is_object() || !rec.contains("id") || !rec["id"].is_string()) {
      throw ConfigError(label, fmt::format("/{}/id", i), "every record needs a string id");
    }
    Builder b{rec, {}};
    b.c.id = rec["id"].get<std::string>();
    b.c.group = b.c.id.substr(0, b.c.id.find('-'));
    if (auto reason = build_case(b)) {
      out.skipped.push_back({b.c.id, *reason});
    } else {
      out.cases.push_back(std::move(b.c));
    }
  }
  return out;
}

ReferenceSet read_reference_runs(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError(file.string(), "", "cannot open the file");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw ConfigError(file.string(), "", fmt::format("JSON syntax error: {}", e.what()));
  }
  return reference_runs_from_json(doc, file.string());
}

}  // namespace clustersim::config
