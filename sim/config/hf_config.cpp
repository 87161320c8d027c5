#include "sim/config/hf_config.hpp"

#include <fmt/format.h>

#include <array>
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
    // Families with their own key names and defaults: convert_bloom(), convert_mpt(), convert_falcon().
    // The flags here are only their kind (all plain GELU MLPs with LayerNorm); the converters read the rest.
    {"bloom", MlpShape::plain, false, false, false, false, true, Bias::all, "gelu", false},
    {"mpt", MlpShape::plain, false, false, false, false, true, Bias::none, "gelu", false},
    {"falcon", MlpShape::plain, false, true, false, true, true, Bias::none, "gelu", true},
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

  // The value of `key` (inside the nested object `parent` when not empty, e.g. MPT's "attn_config"), or
  // nullptr when absent or null. Marks the key as used.
  const json* get(std::string_view key, std::string_view parent = {}) {
    if (!parent.empty()) {
      const json* object = get(parent);
      if (object == nullptr || !object->is_object()) return nullptr;
      nested_used_.insert(std::string(parent) + "/" + std::string(key));
      auto it = object->find(key);
      return it == object->end() || it->is_null() ? nullptr : &*it;
    }
    used_.insert(std::string(key));
    auto it = hf_.find(key);
    return it == hf_.end() || it->is_null() ? nullptr : &*it;
  }

  std::optional<int> positive(std::string_view key, bool required, std::string_view parent = {}) {
    const json* v = get(key, parent);
    if (v == nullptr) {
      if (required) problem(key, fmt::format("missing required key \"{}\"", key), parent);
      return std::nullopt;
    }
    if (!v->is_number_integer() || v->get<std::int64_t>() < 1 || v->get<std::int64_t>() > 1 << 30) {
      problem(key, fmt::format("expected a positive integer, got {} {}", v->type_name(), shown(*v)), parent);
      return std::nullopt;
    }
    return v->get<int>();
  }

  /// A positive number (integer or not), e.g. MPT's expansion_ratio.
  std::optional<double> positive_number(std::string_view key, std::string_view parent = {}) {
    const json* v = get(key, parent);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number() || !(v->get<double>() > 0) || v->get<double>() > 1 << 20) {
      problem(key, fmt::format("expected a positive number, got {} {}", v->type_name(), shown(*v)), parent);
      return std::nullopt;
    }
    return v->get<double>();
  }

  std::optional<std::string> text(std::string_view key, std::string_view parent = {}) {
    const json* v = get(key, parent);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) {
      problem(key, fmt::format("expected a string, got {} {}", v->type_name(), shown(*v)), parent);
      return std::nullopt;
    }
    return v->get<std::string>();
  }

  std::optional<bool> flag(std::string_view key, std::string_view parent = {}) {
    const json* v = get(key, parent);
    if (v == nullptr) return std::nullopt;
    if (!v->is_boolean()) {
      problem(key, fmt::format("expected true or false, got {} {}", v->type_name(), shown(*v)), parent);
      return std::nullopt;
    }
    return v->get<bool>();
  }

  /// The nested object `key` (absent or null: nullptr; not an object: a problem and nullptr). Its keys that
  /// are never read are listed as ignored ("attn_config.clip_qkv").
  const json* section(std::string_view key) {
    const json* v = get(key);
    if (v == nullptr) return nullptr;
    if (!v->is_object()) {
      problem(key, fmt::format("expected an object, got {} {}", v->type_name(), shown(*v)));
      return nullptr;
    }
    sections_.insert(std::string(key));
    return v;
  }

  /// Reads a key that Transformers also accepts under an alias (BloomConfig's attribute_map: n_layer and
  /// num_hidden_layers). Both present with different values is a problem; returns the value and its key.
  std::optional<std::pair<int, std::string>> aliased(std::string_view key, std::string_view alias, bool required) {
    const bool has_key = get(key) != nullptr;
    const bool has_alias = get(alias) != nullptr;
    if (!has_key && !has_alias) {
      if (required) problem(key, fmt::format("missing required key \"{}\" (or \"{}\")", key, alias));
      return std::nullopt;
    }
    const auto a = has_key ? positive(key, false) : std::nullopt;
    const auto b = has_alias ? positive(alias, false) : std::nullopt;
    if (a && b && *a != *b) {
      problem(alias, fmt::format("\"{}\" = {} and \"{}\" = {} name the same value and disagree", key, *a, alias, *b));
      return std::nullopt;
    }
    if (a) return std::pair<int, std::string>{*a, std::string(key)};
    if (b) return std::pair<int, std::string>{*b, std::string(alias)};
    return std::nullopt;
  }

  /// True when the user wrote `key` beside hf_config (their value wins; no assumption is made).
  [[nodiscard]] bool given(std::string_view key) const { return given_.contains(key); }

  // Sets clustersim `key` from HF `hf_key`, unless given beside hf_config.
  void set(std::string_view key, const json& value, std::string_view hf_key) {
    // hf_key may name a nested key as "attn_config/alibi".
    std::string hf_pointer;
    if (const auto slash = hf_key.find('/'); slash != std::string_view::npos) {
      hf_pointer = child_pointer(child_pointer("", hf_key.substr(0, slash)), hf_key.substr(slash + 1));
    } else if (!hf_key.empty()) {
      hf_pointer = child_pointer("", hf_key);
    }
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

  void problem(std::string_view key, std::string message, std::string_view parent = {}) {
    std::string pointer = parent.empty() ? std::string() : child_pointer("", parent);
    if (!key.empty()) pointer = child_pointer(pointer, key);
    out_.problems.push_back({std::move(pointer), std::move(message)});
  }

  void finish() {
    for (const auto& [key, value] : hf_.items()) {
      if (!used_.contains(key)) out_.ignored.push_back(key);
    }
    for (const std::string& parent : sections_) {
      for (const auto& [key, value] : hf_.at(parent).items()) {
        if (!nested_used_.contains(parent + "/" + key)) out_.ignored.push_back(parent + "." + key);
      }
    }
  }

 private:
  const json& hf_;
  const json& given_;
  HfConversion& out_;
  std::set<std::string, std::less<>> used_;
  std::set<std::string, std::less<>> nested_used_;  // "parent/key"
  std::set<std::string, std::less<>> sections_;     // nested objects whose keys are listed when unused
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

// ---- BLOOM, MPT and Falcon: families with key names and defaults of their own ----------------------------

// seq_len from the longest context `key` names (required unless seq_len is written beside hf_config).
void convert_positions(Converter& c, std::string_view key) {
  if (c.get(key) == nullptr && !c.given("seq_len")) {
    c.problem(key, fmt::format("missing required key \"{}\" (the longest context, taken as seq_len): write "
                               "\"seq_len\" beside hf_config",
                               key));
    return;
  }
  if (auto positions = c.positive(key, false)) {
    c.set("seq_len", *positions, key);
    if (!c.given("seq_len")) {
      c.assume(fmt::format("seq_len = {} ({}, the longest context the model takes): the model gives no seq_len; "
                           "write \"seq_len\" beside hf_config or set /training/seq_len to train on shorter "
                           "sequences",
                           *positions, key));
    }
  }
}

void convert_tied(Converter& c, bool default_tied, std::string_view why) {
  if (auto tied = c.flag("tie_word_embeddings")) {
    c.set("tied_embeddings", *tied, "tie_word_embeddings");
    return;
  }
  c.set("tied_embeddings", default_tied, "");
  if (!c.given("tied_embeddings")) {
    c.assume(fmt::format("tie_word_embeddings absent: {} ({})", why, default_tied ? "tied" : "untied"));
  }
}

// BLOOM (Transformers BloomConfig, src/transformers/models/bloom/configuration_bloom.py at commit
// d94ee404add5208a61220111258cbafa50aaa297: n_layer and n_head with the aliases num_hidden_layers and
// num_attention_heads, hidden_size with the older n_embed; and modeling_bloom.py at commit
// 9d97831a1cbb420edac062c2e8454ce9ac1c4b79: BloomMLP is
// dense_h_to_4h (h -> 4h) and dense_4h_to_h with bloom_gelu, the tanh approximation of GELU; every Linear in
// the block has a bias; LayerNorms; ALiBi positions (build_alibi_tensor), no position table and no maximum
// length in the config; word_embeddings_layernorm after the embedding; lm_head tied to the word embeddings,
// PretrainedConfig's tie_word_embeddings default true).
// layers, hidden, heads and vocab from keys with an alias each (BLOOM, MPT).
struct AliasedShape {
  std::optional<std::pair<int, std::string>> hidden, heads;
};
AliasedShape convert_aliased_shape(Converter& c, std::array<std::string_view, 2> layers,
                                   std::array<std::string_view, 2> hidden, std::array<std::string_view, 2> heads) {
  const auto l = c.aliased(layers[0], layers[1], !c.given("layers"));
  AliasedShape out{c.aliased(hidden[0], hidden[1], !c.given("hidden")),
                   c.aliased(heads[0], heads[1], !c.given("heads"))};
  if (l) c.set("layers", l->first, l->second);
  if (out.hidden) c.set("hidden", out.hidden->first, out.hidden->second);
  if (out.heads) c.set("heads", out.heads->first, out.heads->second);
  if (auto vocab = c.positive("vocab_size", !c.given("vocab"))) c.set("vocab", *vocab, "vocab_size");
  return out;
}

void convert_bloom(Converter& c) {
  const auto [hidden, heads] =
      convert_aliased_shape(c, {"n_layer", "num_hidden_layers"}, {"hidden_size", "n_embed"}, {"n_head", "num_attention_heads"});
  if (heads) c.set("kv_heads", heads->first, heads->second);
  if (hidden) c.set("ffn_hidden", 4 * hidden->first, hidden->second);
  c.set("mlp", "gelu", "");
  c.get("layer_norm_epsilon");
  c.set("norm", "layernorm", "");
  c.set("position", "alibi", "");
  c.set("linear_bias", true, "");
  c.assume(fmt::format("bloom: what Transformers' modeling_bloom.py fixes and config.json does not say: MLP "
                       "4·hidden{} with bloom_gelu (tanh GELU: mlp \"gelu\"), LayerNorm, biases on every linear "
                       "layer, ALiBi positions",
                       hidden ? fmt::format(" = {}", 4 * hidden->first) : std::string()));
  c.assume(
      "word_embeddings_layernorm (BLOOM's LayerNorm on the embedding output: 2·hidden parameters and one norm "
      "pass over the tokens' embeddings per step) is not modelled: negligible beside a layer");
  if (!c.given("seq_len")) {
    c.problem("", "a BLOOM config.json gives no sequence length (ALiBi positions have no table and no "
                  "maximum): write \"seq_len\" beside hf_config (the model's sequence length, as catalog models "
                  "state it)");
  }
  convert_tied(c, true, "Transformers' default for bloom, lm_head tied to word_embeddings");
}

// MPT. Transformers' MptConfig (src/transformers/models/mpt/configuration_mpt.py at commit
// 79f1fc71ad1e0220e2b05723f5fd2e14bc270de5) defaults: expansion_ratio 4, max_seq_len 2048, no_bias true,
// learned_pos_emb true, norm_type low_precision_layernorm, attn_config.alibi true, attn_type
// multihead_attention. Transformers' port (modeling_mpt.py at commit 4352620161a5f53911ddc19dbfa1bd76d92c93be)
// only builds the published checkpoints' shape: an MLP of 4·d_model with exact GELU, no biases, LayerNorms
// without bias, ALiBi, keys and values on every head, lm_head tied to wte. MosaicML's own MPT code (the
// checkpoints' auto_map modeling_mpt.py, llm-foundry) reads the keys the converter reads here:
// expansion_ratio, no_bias, learned_pos_emb, attn_config.alibi and the attention type, so a config that
// differs from the published shape is converted as MosaicML's code builds it, and a note says so.
void convert_mpt(Converter& c) {
  const auto [hidden, heads] =
      convert_aliased_shape(c, {"n_layers", "num_hidden_layers"}, {"d_model", "hidden_size"}, {"n_heads", "num_attention_heads"});
  convert_positions(c, "max_seq_len");

  // Attention: attn_config (a nested object; absent: MptAttentionConfig's defaults).
  const json* attn = c.section("attn_config");
  if (attn == nullptr && c.get("attn_config") == nullptr) {
    c.assume("attn_config absent: MptAttentionConfig's defaults (multi-head attention, ALiBi)");
  }
  const std::string attn_type = c.text("attn_type", "attn_config").value_or("multihead_attention");
  if (heads) {
    if (attn_type == "multihead_attention") {
      c.set("kv_heads", heads->first, heads->second);
    } else if (attn_type == "multiquery_attention") {
      c.set("kv_heads", 1, "attn_config/attn_type");
    } else if (attn_type == "grouped_query_attention") {
      if (auto kv = c.positive("kv_n_heads", !c.given("kv_heads"), "attn_config")) {
        c.set("kv_heads", *kv, "attn_config/kv_n_heads");
      }
    } else {
      c.problem("attn_type",
                fmt::format("attn_type \"{}\" is not an MPT attention (multihead_attention, "
                            "multiquery_attention, grouped_query_attention)",
                            attn_type),
                "attn_config");
    }
    if (attn_type != "multihead_attention" && !c.given("kv_heads")) {
      c.assume(fmt::format("attn_config.attn_type \"{}\": kv_heads as MosaicML's MPT code builds it (Transformers' "
                           "MptAttention puts keys and values on every head)",
                           attn_type));
    }
  }
  if (auto impl = c.text("attn_impl", "attn_config")) {
    c.assume(fmt::format("attn_config.attn_impl \"{}\" is not read: the attention kernel is the experiment's "
                         "/training/attention_kernel",
                         *impl));
  }
  if (c.flag("qk_ln", "attn_config").value_or(false)) {
    c.assume("attn_config.qk_ln true: the LayerNorms on queries and keys are not modelled (two norm passes over "
             "the q and k activations per layer)");
  }

  // Positions: ALiBi, else a learned table, else rotary (llm-foundry's attn_config.rope).
  const std::optional<bool> alibi = c.flag("alibi", "attn_config");
  const std::optional<bool> learned = c.flag("learned_pos_emb");
  const bool rope = c.flag("rope", "attn_config").value_or(false);
  if (alibi.value_or(true)) {
    c.set("position", "alibi", alibi ? "attn_config/alibi" : "");
    if (!alibi && attn != nullptr && !c.given("position")) {
      c.assume("attn_config.alibi absent: MptAttentionConfig's default (ALiBi)");
    }
    if (learned.value_or(false) && !c.given("position")) {
      c.assume("learned_pos_emb true beside attn_config.alibi true: no position table is counted (the MPT-7B "
               "model card: ALiBi, \"does not use positional embeddings\"; Transformers' MptModel has none); "
               "llm-foundry's MPTModel would also build a max_seq_len x d_model wpe table (negligible)");
    }
  } else if (rope) {
    c.set("position", "rotary", "attn_config/rope");
  } else if (learned.value_or(true)) {
    c.set("position", "learned", learned ? "learned_pos_emb" : "attn_config/alibi");
    if (!learned && !c.given("position")) {
      c.assume("learned_pos_emb absent: MptConfig's default (a learned position table)");
    }
  } else if (!c.given("position")) {
    c.problem("learned_pos_emb",
              "no position encoding (attn_config.alibi false, learned_pos_emb false, no rope) is not modelled: "
              "give \"position\" beside hf_config");
  }

  // MLP: expansion_ratio·d_model with GELU (llm-foundry's ffn_config may name another FFN).
  std::string mlp = "gelu";
  std::optional<int> ffn_override;
  if (c.section("ffn_config") != nullptr) {
    const std::string ffn_type = c.text("ffn_type", "ffn_config").value_or("mptmlp");
    if (ffn_type == "mptglu") {
      mlp = "swiglu";
      if (!c.given("mlp")) {
        c.assume("ffn_config.ffn_type \"mptglu\" (a gated MLP) is counted as \"swiglu\": the same three matrices "
                 "and FLOPs; the activation itself is not costed");
      }
    } else if (ffn_type != "mptmlp" && !c.given("mlp")) {
      c.problem("ffn_type",
                fmt::format("ffn_type \"{}\" is not modelled (mptmlp, mptglu); give \"mlp\" and \"ffn_hidden\" "
                            "beside hf_config (or a \"moe\" section: docs/moe.md)",
                            ffn_type),
                "ffn_config");
    }
    ffn_override = c.positive("ffn_hidden_size", false, "ffn_config");
  }
  c.set("mlp", mlp, "");
  if (ffn_override) {
    c.set("ffn_hidden", *ffn_override, "ffn_config/ffn_hidden_size");
  } else if (hidden) {
    const std::optional<double> ratio = c.positive_number("expansion_ratio");
    const double r = ratio.value_or(4.0);
    const double ffn = r * hidden->first;
    if (ffn != static_cast<double>(static_cast<long long>(ffn)) || ffn > 1 << 30) {
      c.problem("expansion_ratio",
                fmt::format("expansion_ratio {} · d_model {} is not a whole MLP size", r, hidden->first));
    } else {
      c.set("ffn_hidden", static_cast<int>(ffn), ratio ? "expansion_ratio" : hidden->second);
      if (!ratio && !c.given("ffn_hidden")) {
        c.assume(fmt::format("expansion_ratio absent: MptConfig's default 4 (ffn_hidden = {})", static_cast<int>(ffn)));
      } else if (r != 4.0 && !c.given("ffn_hidden")) {
        c.assume(fmt::format("expansion_ratio {} taken as MosaicML's MPT code builds it (Transformers' MptMLP is "
                             "fixed at 4·d_model)",
                             r));
      }
    }
  }

  // Norms: LayerNorm (low_precision_layernorm is a LayerNorm computed in lower precision) or RMSNorm.
  const std::optional<std::string> norm_type = c.text("norm_type");
  const std::string norm = norm_type.value_or("low_precision_layernorm");
  c.get("layer_norm_epsilon");
  if (norm.find("rmsnorm") != std::string::npos) {
    c.set("norm", "rmsnorm", "norm_type");
  } else if (norm.find("layernorm") != std::string::npos) {
    c.set("norm", "layernorm", norm_type ? "norm_type" : "");
  } else if (!c.given("norm")) {
    c.problem("norm_type", fmt::format("norm_type \"{}\" is not modelled (a layernorm or rmsnorm)", norm));
  }

  const std::optional<bool> no_bias = c.flag("no_bias");
  c.set("linear_bias", !no_bias.value_or(true), no_bias ? "no_bias" : "");
  if (!no_bias && !c.given("linear_bias")) c.assume("no_bias absent: MptConfig's default (no biases)");
  if (no_bias && !*no_bias && !c.given("linear_bias")) {
    c.assume("no_bias false: biases as MosaicML's MPT code builds them (Transformers' port has none)");
  }
  convert_tied(c, true, "MPT ties lm_head to wte (Transformers' MptForCausalLM and MosaicML's code)");
}

// Falcon. Transformers' FalconConfig (src/transformers/models/falcon/configuration_falcon.py at commit
// 5fd8edad2a672d6a10d6352b62b823d56c3032bf; later versions add ffn_hidden_size, default 4·hidden_size,
// activation, default "gelu", and num_ln_in_parallel_attn) and modeling_falcon.py (FalconAttention at commit
// 44272086ad6636711ce99155bf7d03f0cf95e8f4; FalconDecoderLayer's num_ln_in_parallel_attn, default 2 with the
// new decoder architecture, in the later versions that read it): keys and values on
// num_kv_heads heads with new_decoder_architecture, on one head with multi_query, else on every head (the fused
// QKV is 3·hidden_size; _split_heads views num_heads); new_decoder_architecture
// (Falcon-40B/180B) always computes attention and MLP in parallel, from two LayerNorms (ln_attn, ln_mlp) unless
// num_ln_in_parallel_attn is 1; otherwise parallel_attn chooses a parallel block from one input_layernorm or a
// sequential block with post_attention_layernorm; ALiBi when alibi, else rotary; biases on every Linear when
// bias; lm_head tied to word_embeddings (PretrainedConfig's default).
void convert_falcon(Converter& c) {
  const auto layers = c.positive("num_hidden_layers", !c.given("layers"));
  const auto hidden = c.aliased("hidden_size", "n_embed", !c.given("hidden"));
  const auto heads = c.positive("num_attention_heads", !c.given("heads"));
  if (layers) c.set("layers", *layers, "num_hidden_layers");
  if (hidden) c.set("hidden", hidden->first, hidden->second);
  if (heads) c.set("heads", *heads, "num_attention_heads");
  if (auto vocab = c.positive("vocab_size", !c.given("vocab"))) c.set("vocab", *vocab, "vocab_size");

  const std::optional<bool> new_arch = c.flag("new_decoder_architecture");
  const std::optional<bool> multi_query = c.flag("multi_query");
  const std::optional<bool> parallel_attn = c.flag("parallel_attn");
  const std::optional<int> kv = c.positive("num_kv_heads", false);
  const std::optional<int> norms = c.positive("num_ln_in_parallel_attn", false);
  if (!new_arch) c.assume("new_decoder_architecture absent: FalconConfig's default (false: the Falcon-7B block)");
  if (new_arch.value_or(false)) {
    if (kv) {
      c.set("kv_heads", *kv, "num_kv_heads");
    } else if (heads) {
      c.set("kv_heads", *heads, "num_attention_heads");
      if (!c.given("kv_heads")) c.assume("num_kv_heads absent: FalconConfig's default (kv_heads = heads)");
    }
    c.set("parallel_block", true, "new_decoder_architecture");
    if (parallel_attn && !*parallel_attn && !c.given("parallel_block")) {
      c.assume("parallel_attn false is ignored, as in Transformers: the new decoder architecture is always a "
               "parallel attention+MLP block");
    }
    if (norms && *norms > 2) {
      c.problem("num_ln_in_parallel_attn", fmt::format("expected 1 or 2 LayerNorms, got {}", *norms));
    } else if (norms.value_or(2) == 2 && !c.given("parallel_block")) {
      c.assume("new_decoder_architecture: the block's two LayerNorms (ln_attn, ln_mlp) on the same input are "
               "counted as one norm pass, as for parallel_block (one write of the tokens' activations left out "
               "per layer pass; docs/model.md)");
    }
  } else {
    if (multi_query.value_or(true)) {
      c.set("kv_heads", 1, multi_query ? "multi_query" : "");
      if (!multi_query && !c.given("kv_heads")) {
        c.assume("multi_query absent: FalconConfig's default (true: one key/value head)");
      }
      if (kv && heads && *kv != 1 && !c.given("kv_heads")) {
        c.assume(fmt::format("num_kv_heads {} ignored: multi_query true gives one key/value head (Transformers' "
                             "FalconAttention)",
                             *kv));
      }
    } else if (heads) {
      // FalconAttention (modeling_falcon.py): without the new decoder architecture or multi_query the fused
      // QKV is 3·hidden_size and _split_heads views keys and values on every head; a num_kv_heads that
      // differs cannot be reshaped there.
      if (kv && *kv != *heads && !c.given("kv_heads")) {
        c.problem("num_kv_heads",
                  fmt::format("{} key/value heads, but without new_decoder_architecture or multi_query Transformers' "
                              "FalconAttention projects keys and values on every head ({})",
                              *kv, *heads));
      }
      c.set("kv_heads", *heads, "num_attention_heads");
    }
    c.set("parallel_block", parallel_attn.value_or(true), parallel_attn ? "parallel_attn" : "");
    if (!parallel_attn && !c.given("parallel_block")) {
      c.assume("parallel_attn absent: FalconConfig's default (true: parallel attention+MLP block)");
    }
  }

  const std::optional<bool> alibi = c.flag("alibi");
  c.set("position", alibi.value_or(false) ? "alibi" : "rotary", alibi ? "alibi" : "");
  if (!alibi && !c.given("position")) c.assume("alibi absent: FalconConfig's default (false: rotary positions)");
  if (alibi.value_or(false)) {
    // FalconConfig: max_position_embeddings is the longest sequence "when `alibi` is `False`".
    if (auto positions = c.positive("max_position_embeddings", false); positions && !c.given("seq_len")) {
      c.set("seq_len", *positions, "max_position_embeddings");
      c.assume(fmt::format("seq_len = {} (max_position_embeddings; with ALiBi it is no limit of the model): "
                           "write \"seq_len\" beside hf_config or set /training/seq_len",
                           *positions));
    } else if (!positions && !c.given("seq_len")) {
      c.problem("", "this Falcon config.json (alibi true) gives no sequence length: write \"seq_len\" beside "
                    "hf_config");
    }
  } else {
    convert_positions(c, "max_position_embeddings");
  }

  const std::optional<std::string> act = c.text("activation");
  const std::string name = act.value_or("gelu");
  if (is_gelu(name)) {
    c.set("mlp", "gelu", act ? "activation" : "");
  } else if (!c.given("mlp")) {
    c.problem("activation",
              fmt::format("activation \"{}\" is not modelled (expected gelu*); give \"mlp\" beside hf_config", name));
  }
  if (auto ffn = c.positive("ffn_hidden_size", false)) {
    c.set("ffn_hidden", *ffn, "ffn_hidden_size");
  } else if (hidden) {
    c.set("ffn_hidden", 4 * hidden->first, hidden->second);
    if (!c.given("ffn_hidden")) {
      c.assume(fmt::format("ffn_hidden_size absent: FalconConfig's default 4·hidden_size = {}", 4 * hidden->first));
    }
  }
  c.get("layer_norm_epsilon");
  c.set("norm", "layernorm", "");
  const std::optional<bool> bias = c.flag("bias");
  c.set("linear_bias", bias.value_or(false), bias ? "bias" : "");
  if (!bias && !c.given("linear_bias")) c.assume("bias absent: FalconConfig's default (false: no linear biases)");
  convert_tied(c, true, "Transformers' default for falcon, lm_head tied to word_embeddings");
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
  if (*type == "bloom") {
    convert_bloom(c);
  } else if (*type == "mpt") {
    convert_mpt(c);
  } else if (*type == "falcon") {
    convert_falcon(c);
  } else {
    convert_family(c, *family);
  }
  if (is_moe_family(family->model_type)) convert_moe(c, *family);
  c.finish();
  return out;
}

}  // namespace clustersim::config
