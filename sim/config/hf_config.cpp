#include "sim/config/hf_config.hpp"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <string_view>

#include "sim/config/provenance.hpp"

namespace clustersim::config {
namespace {

using nlohmann::json;

enum class MlpShape { gated, plain };  // gated: gate, up, down (SwiGLU/GeGLU); plain: up, down
enum class Bias { keys, none, qkv, all };

// What a model_type fixes that its config.json does not say (Transformers' modelling code).
struct Family {
  std::string_view model_type;
  MlpShape mlp;
  bool rmsnorm;
  bool rotary;
  bool gpt2_names;  // n_layer, n_embd, n_head, n_inner, n_positions, activation_function
  bool has_kv_heads;
  bool tied_default;  // Transformers' default for tie_word_embeddings
  Bias bias;
  std::string_view default_act;
  bool parallel_block;  // attention and MLP read the same input
};

constexpr Family kFamilies[] = {
    {"llama", MlpShape::gated, true, true, false, true, false, Bias::keys, "silu", false},
    {"mistral", MlpShape::gated, true, true, false, true, false, Bias::none, "silu", false},
    {"qwen2", MlpShape::gated, true, true, false, true, false, Bias::qkv, "silu", false},
    {"gemma", MlpShape::gated, true, true, false, true, true, Bias::keys, "gelu_pytorch_tanh", false},
    {"gpt_neox", MlpShape::plain, false, true, false, false, false, Bias::all, "gelu", false},
    {"gpt2", MlpShape::plain, false, false, true, false, true, Bias::all, "gelu_new", false},
    {"phi", MlpShape::plain, false, true, false, true, false, Bias::all, "gelu_new", true},
    // Mixture-of-experts families (docs/moe.md): converted by convert_moe().
    {"mixtral", MlpShape::gated, true, true, false, true, false, Bias::none, "silu", false},
    {"qwen2_moe", MlpShape::gated, true, true, false, true, false, Bias::qkv, "silu", false},
    {"qwen3_moe", MlpShape::gated, true, true, false, true, false, Bias::keys, "silu", false},
    {"deepseek_v3", MlpShape::gated, true, true, false, true, false, Bias::none, "silu", false},
};

// Keys that make a model a mixture of experts, in the families Transformers ships.
constexpr std::string_view kExpertKeys[] = {"num_local_experts", "num_experts", "n_routed_experts",
                                            "moe_num_experts", "num_experts_per_tok"};

bool is_moe_family(std::string_view t) {
  return t == "mixtral" || t == "qwen2_moe" || t == "qwen3_moe" || t == "deepseek_v3";
}

std::string supported_list() {
  std::string out;
  for (const Family& f : kFamilies) out += fmt::format("{}{}", out.empty() ? "" : ", ", f.model_type);
  return out;
}

std::string shown(const json& v) {
  std::string text = v.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

class Converter {
 public:
  Converter(const json& hf, const json& given, HfConversion& out) : hf_(hf), given_(given), out_(out) {}

  // The value of `key`, or nullptr when absent or null. Marks the key as used.
  const json* get(std::string_view key) {
    used_.insert(std::string(key));
    auto it = hf_.find(key);
    return it == hf_.end() || it->is_null() ? nullptr : &*it;
  }

  std::optional<int> positive(std::string_view key, bool required) {
    const json* v = get(key);
    if (v == nullptr) {
      if (required) problem(key, fmt::format("missing required key \"{}\"", key));
      return std::nullopt;
    }
    if (!v->is_number_integer() || v->get<std::int64_t>() < 1 || v->get<std::int64_t>() > 1 << 30) {
      problem(key, fmt::format("expected a positive integer, got {} {}", v->type_name(), shown(*v)));
      return std::nullopt;
    }
    return v->get<int>();
  }

  std::optional<std::string> text(std::string_view key) {
    const json* v = get(key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) {
      problem(key, fmt::format("expected a string, got {} {}", v->type_name(), shown(*v)));
      return std::nullopt;
    }
    return v->get<std::string>();
  }

  std::optional<bool> flag(std::string_view key) {
    const json* v = get(key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_boolean()) {
      problem(key, fmt::format("expected true or false, got {} {}", v->type_name(), shown(*v)));
      return std::nullopt;
    }
    return v->get<bool>();
  }

  /// True when the user wrote `key` beside hf_config (their value wins; no assumption is made).
  [[nodiscard]] bool given(std::string_view key) const { return given_.contains(key); }

  // Sets clustersim `key` from HF `hf_key`, unless given beside hf_config.
  void set(std::string_view key, const json& value, std::string_view hf_key) {
    const std::string hf_pointer = hf_key.empty() ? std::string() : child_pointer("", hf_key);
    if (given(key)) {
      const json& mine = given_.at(std::string(key));
      if (mine != value) {
        assume(fmt::format("{} = {} (given beside hf_config) replaces the converted {}{}", key, shown(mine),
                           shown(value), hf_key.empty() ? "" : fmt::format(" (from {})", hf_key)));
      }
      return;
    }
    out_.model[std::string(key)] = value;
    out_.origins.push_back({std::string(key), hf_pointer});
  }

  void assume(std::string sentence) { out_.assumptions.push_back(std::move(sentence)); }

  void problem(std::string_view key, std::string message) {
    out_.problems.push_back({key.empty() ? std::string() : child_pointer("", key), std::move(message)});
  }

  void finish() {
    for (const auto& [key, value] : hf_.items()) {
      if (!used_.contains(key)) out_.ignored.push_back(key);
    }
  }

 private:
  const json& hf_;
  const json& given_;
  HfConversion& out_;
  std::set<std::string, std::less<>> used_;
};

bool is_gelu(std::string_view act) {
  return act.starts_with("gelu");
}

void convert_mlp(Converter& c, const Family& f, int hidden) {
  std::string act_key = f.gpt2_names ? "activation_function" : "hidden_act";
  std::optional<std::string> act;
  if (f.model_type == "gemma") {
    act = c.text("hidden_activation");  // newer Gemma configs: the one Transformers uses
    if (act) act_key = "hidden_activation";
  }
  if (!act) act = c.text(act_key);
  const std::string name = act.value_or(std::string(f.default_act));
  if (!act && !c.given("mlp")) {
    c.assume(fmt::format("{} absent: {}'s default activation \"{}\"", act_key, f.model_type, name));
  }
  if (f.mlp == MlpShape::gated) {
    if (name == "silu" || name == "swish") {
      c.set("mlp", "swiglu", act_key);
    } else if (is_gelu(name)) {
      c.set("mlp", "swiglu", act_key);
      if (!c.given("mlp")) {
        c.assume(
            fmt::format("{} \"{}\" on a gated MLP (GeGLU) is counted as \"swiglu\": the same three "
                        "matrices and FLOPs; the activation itself is not costed",
                        act_key, name));
      }
    } else if (!c.given("mlp")) {
      c.problem(act_key, fmt::format("activation \"{}\" is not modelled (a gated MLP takes silu, swish or "
                                     "gelu*); give \"mlp\" beside hf_config",
                                     name));
    }
  } else if (is_gelu(name)) {
    c.set("mlp", "gelu", act_key);
  } else if (!c.given("mlp")) {
    c.problem(act_key,
              fmt::format("activation \"{}\" is not modelled (expected gelu*); give \"mlp\" beside hf_config",
                          name));
  }

  const std::string ffn_key = f.gpt2_names ? "n_inner" : "intermediate_size";
  if (auto ffn = c.positive(ffn_key, !f.gpt2_names && !c.given("ffn_hidden"))) {
    c.set("ffn_hidden", *ffn, ffn_key);
  } else if (f.gpt2_names && hidden > 0) {
    c.set("ffn_hidden", 4 * hidden, "n_embd");
    if (!c.given("ffn_hidden")) {
      c.assume(fmt::format("n_inner is null: GPT-2's MLP inner size is 4·n_embd = {}", 4 * hidden));
    }
  }
}

void convert_attention(Converter& c, const Family& f, int hidden, int heads) {
  if (f.has_kv_heads) {
    if (auto kv = c.positive("num_key_value_heads", false)) {
      c.set("kv_heads", *kv, "num_key_value_heads");
    } else if (heads > 0) {
      c.set("kv_heads", heads, "num_attention_heads");
      if (!c.given("kv_heads")) {
        c.assume("num_key_value_heads absent: multi-head attention (kv_heads = heads)");
      }
    }
  } else if (heads > 0) {
    c.set("kv_heads", heads, "num_attention_heads");
  }
  if (f.model_type == "deepseek_v3") return;  // multi-head latent attention: convert_moe()
  if (auto head_dim = c.positive("head_dim", false); head_dim && hidden > 0 && heads > 0) {
    if (hidden % heads != 0 || *head_dim != hidden / heads) c.set("head_dim", *head_dim, "head_dim");
  }
  const std::optional<int> window = c.positive("sliding_window", false);
  bool sliding = window.has_value();
  if (f.model_type == "qwen2") sliding = sliding && c.flag("use_sliding_window").value_or(false);
  if (sliding) {
    c.assume(
        fmt::format("sliding_window {} ignored: attention FLOPs are counted as full causal attention over "
                    "seq_len (an over-estimate when seq_len exceeds the window)",
                    *window));
  } else if (window) {
    c.assume("sliding_window ignored: use_sliding_window is false, attention is full causal attention");
  }
}

void convert_bias(Converter& c, const Family& f, int hidden) {
  switch (f.bias) {
    case Bias::none:
      c.set("linear_bias", false, "");
      break;
    case Bias::keys: {
      const bool attention = c.flag("attention_bias").value_or(false);
      const bool mlp = f.model_type == "llama" && c.flag("mlp_bias").value_or(false);
      c.set("linear_bias", attention || mlp, attention ? "attention_bias" : "mlp_bias");
      if (attention != mlp && !c.given("linear_bias")) {
        c.assume(
            fmt::format("linear_bias true counts biases on every linear layer; the model has them on the "
                        "{} only (a few vectors per layer)",
                        attention ? "attention projections" : "MLP"));
      }
      break;
    }
    case Bias::qkv:
      c.set("linear_bias", true, "");
      if (!c.given("linear_bias")) {
        c.assume(
            fmt::format("{} has biases on the q, k and v projections only; linear_bias true also counts "
                        "them on the attention output and the MLP (a few vectors of {} per layer: "
                        "negligible)",
                        f.model_type, hidden));
      }
      break;
    case Bias::all: {
      const auto attention = c.flag("attention_bias");
      c.set("linear_bias", true, attention ? "attention_bias" : "");
      if (attention && !*attention && !c.given("linear_bias")) {
        c.assume(
            "attention_bias false: linear_bias true still counts biases on the attention projections (a "
            "few vectors per layer)");
      }
      break;
    }
  }
}

void convert_family(Converter& c, const Family& f) {
  const bool g2 = f.gpt2_names;
  const auto layers = c.positive(g2 ? "n_layer" : "num_hidden_layers", !c.given("layers"));
  const auto hidden = c.positive(g2 ? "n_embd" : "hidden_size", !c.given("hidden"));
  const auto heads = c.positive(g2 ? "n_head" : "num_attention_heads", !c.given("heads"));
  if (layers) c.set("layers", *layers, g2 ? "n_layer" : "num_hidden_layers");
  if (hidden) c.set("hidden", *hidden, g2 ? "n_embd" : "hidden_size");
  if (heads) c.set("heads", *heads, g2 ? "n_head" : "num_attention_heads");
  convert_attention(c, f, hidden.value_or(0), heads.value_or(0));
  convert_mlp(c, f, hidden.value_or(0));
  if (auto vocab = c.positive("vocab_size", !c.given("vocab"))) c.set("vocab", *vocab, "vocab_size");

  const std::string positions_key = g2 ? "n_positions" : "max_position_embeddings";
  if (g2) c.get("n_ctx");  // GPT-2's older spelling of n_positions
  if (auto positions = c.positive(positions_key, !c.given("seq_len"))) {
    c.set("seq_len", *positions, positions_key);
    if (!c.given("seq_len")) {
      c.assume(
          fmt::format("seq_len = {} ({}, the longest context the model takes): the model gives no "
                      "seq_len; write \"seq_len\" beside hf_config or set /training/seq_len to train "
                      "on shorter sequences",
                      *positions, positions_key));
    }
  }

  c.get(f.rmsnorm ? "rms_norm_eps" : (g2 ? "layer_norm_epsilon" : "layer_norm_eps"));
  c.set("norm", f.rmsnorm ? "rmsnorm" : "layernorm", f.rmsnorm ? "rms_norm_eps" : "");
  c.set("position", f.rotary ? "rotary" : "learned", "");
  convert_bias(c, f, hidden.value_or(0));

  if (auto tied = c.flag("tie_word_embeddings")) {
    c.set("tied_embeddings", *tied, "tie_word_embeddings");
  } else {
    c.set("tied_embeddings", f.tied_default, "");
    if (!c.given("tied_embeddings")) {
      c.assume(fmt::format("tie_word_embeddings absent: Transformers' default for {} ({})", f.model_type,
                           f.tied_default ? "tied" : "untied"));
    }
  }
  if (f.model_type == "gpt_neox") {
    // Transformers' GPTNeoXConfig defaults use_parallel_residual to true (GPT-NeoX-20B, Pythia).
    const std::optional<bool> stated = c.flag("use_parallel_residual");
    c.set("parallel_block", stated.value_or(true), stated ? "use_parallel_residual" : "");
    if (!stated && !c.given("parallel_block")) {
      c.assume("use_parallel_residual absent: Transformers' default for gpt_neox (parallel attention+MLP block)");
    }
  } else if (f.parallel_block) {
    c.set("parallel_block", true, "");  // Phi: attention and MLP on one input_layernorm output
  }
}

// The experts (and DeepSeek's multi-head latent attention) of a MoE family, as Transformers' modelling
// code reads its config: Mixtral (num_local_experts, num_experts_per_tok; intermediate_size is an
// expert's), Qwen2/Qwen3-MoE (num_experts, moe_intermediate_size, shared_expert_intermediate_size,
// decoder_sparse_step, mlp_only_layers), DeepSeek-V3 (n_routed_experts, n_shared_experts,
// moe_intermediate_size, first_k_dense_replace, moe_layer_freq, MLA ranks and head dims).
void convert_moe(Converter& c, const Family& f) {
  const std::string_view t = f.model_type;
  nlohmann::json moe = nlohmann::json::object();
  const char* experts_key = t == "mixtral" ? "num_local_experts" : t == "deepseek_v3" ? "n_routed_experts" : "num_experts";
  if (auto n = c.positive(experts_key, true)) moe["num_experts"] = *n;
  if (auto k = c.positive("num_experts_per_tok", true)) moe["top_k"] = *k;
  if (t == "mixtral") {
    if (auto ffn = c.positive("intermediate_size", false)) moe["moe_ffn_hidden"] = *ffn;
    c.get("router_aux_loss_coef");
    c.get("output_router_logits");
  } else {
    if (auto ffn = c.positive("moe_intermediate_size", true)) moe["moe_ffn_hidden"] = *ffn;
  }
  if (t == "qwen2_moe") {
    if (auto shared = c.positive("shared_expert_intermediate_size", false)) {
      moe["shared_experts"] = 1;
      moe["shared_ffn_hidden"] = *shared;
    }
  }
  if (t == "qwen2_moe" || t == "qwen3_moe") {
    if (auto step = c.positive("decoder_sparse_step", false); step && *step > 1) moe["layer_freq"] = *step;
    if (const json* only = c.get("mlp_only_layers"); only != nullptr && only->is_array() && !only->empty()) {
      c.assume(fmt::format("mlp_only_layers {} ignored: every layer is MoE here", shown(*only)));
    }
    c.get("norm_topk_prob");
    c.get("router_aux_loss_coef");
    c.get("output_router_logits");
  }
  if (t == "deepseek_v3") {
    if (auto shared = c.positive("n_shared_experts", false)) moe["shared_experts"] = *shared;
    if (auto first = c.get("first_k_dense_replace"); first != nullptr && first->is_number_integer()) {
      moe["first_k_dense"] = first->get<int>();
    }
    if (auto freq = c.positive("moe_layer_freq", false); freq && *freq > 1) moe["layer_freq"] = *freq;
    if (auto scoring = c.text("scoring_func"); scoring && *scoring == "sigmoid") moe["router"] = "sigmoid";
    for (const char* k : {"topk_group", "n_group", "routed_scaling_factor", "topk_method", "norm_topk_prob",
                          "ep_size", "aux_loss_alpha", "seq_aux", "num_nextn_predict_layers"}) {
      c.get(k);
    }
    if (auto groups = c.positive("topk_group", false)) {
      c.assume(fmt::format("topk_group {} (group-limited routing) is not node-limited routing: set "
                           "moe.max_nodes_per_token to model it",
                           *groups));
    }
    nlohmann::json mla = nlohmann::json::object();
    if (const json* q = c.get("q_lora_rank"); q != nullptr && q->is_number_integer()) mla["q_lora_rank"] = q->get<int>();
    for (const char* k : {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"}) {
      if (auto v = c.positive(k, true)) mla[k] = *v;
    }
    c.set("mla", mla, "kv_lora_rank");
    if (auto mtp = c.positive("num_nextn_predict_layers", false)) c.set("mtp_depth", *mtp, "num_nextn_predict_layers");
  }
  if (!moe.contains("moe_ffn_hidden") && moe.contains("num_experts")) {
    c.assume("moe_ffn_hidden = ffn_hidden (the config gives no expert size of its own)");
  }
  c.set("moe", moe, experts_key);
}

}  // namespace

HfConversion convert_hf_config(const json& hf, const json& given) {
  HfConversion out;
  if (!hf.is_object()) {
    out.problems.push_back(
        {"", fmt::format("expected a JSON object (a Hugging Face config.json), got {}", hf.type_name())});
    return out;
  }
  static const json kNothingGiven = json::object();
  Converter c(hf, given.is_object() ? given : kNothingGiven, out);
  const auto type = c.text("model_type");
  if (!type || !is_moe_family(*type)) {
    for (std::string_view key : kExpertKeys) {
      const json* v = c.get(key);
      if (v != nullptr && (!v->is_number() || v->get<double>() > 1)) {
        c.problem(key, fmt::format("{} = {}: a mixture-of-experts config of model_type \"{}\"; the MoE families "
                                   "read are mixtral, qwen2_moe, qwen3_moe and deepseek_v3 (or write a \"moe\" "
                                   "section: docs/moe.md)",
                                   key, shown(*v), type.value_or("?")));
        return out;
      }
    }
  }
  if (!type) {
    if (out.problems.empty()) c.problem("model_type", "missing required key \"model_type\"");
    return out;
  }
  const Family* family = nullptr;
  for (const Family& f : kFamilies) {
    if (f.model_type == *type) family = &f;
  }
  if (family == nullptr) {
    c.problem("model_type",
              fmt::format("model_type \"{}\" is not supported (supported: {})", *type, supported_list()));
    return out;
  }
  convert_family(c, *family);
  if (is_moe_family(family->model_type)) convert_moe(c, *family);
  c.finish();
  return out;
}

}  // namespace clustersim::config
