#include <fmt/format.h>

#include <array>

#include "sim/config/enum_names.hpp"
#include "sim/config/section_readers.hpp"
#include "sim/config/sections.hpp"

namespace clustersim::config {
namespace {

constexpr IntRange kPositive{.min = 1};
constexpr IntRange kNonNegative{.min = 0};
constexpr auto kRouterChoices = std::to_array<std::string_view>({"softmax", "sigmoid"});

constexpr Field kMlaFields[] = {
    {.key = "q_lora_rank",
     .kind = FieldKind::integer,
     .doc = "query down-projection rank (0: queries projected directly from the hidden state)",
     .fallback = "0",
     .ints = kNonNegative},
    {.key = "kv_lora_rank",
     .kind = FieldKind::integer,
     .doc = "key/value latent rank",
     .fallback = "required",
     .ints = kPositive},
    {.key = "qk_nope_head_dim",
     .kind = FieldKind::integer,
     .doc = "per-head query/key dimension without position encoding",
     .fallback = "required",
     .ints = kPositive},
    {.key = "qk_rope_head_dim",
     .kind = FieldKind::integer,
     .doc = "per-head decoupled RoPE dimension",
     .fallback = "required",
     .ints = kNonNegative},
    {.key = "v_head_dim", .kind = FieldKind::integer, .doc = "per-head value dimension", .fallback = "required", .ints = kPositive},
};

constexpr Field kMoeFields[] = {
    {.key = "num_experts",
     .kind = FieldKind::integer,
     .doc = "routed experts per MoE layer",
     .fallback = "required",
     .ints = kPositive},
    {.key = "top_k",
     .kind = FieldKind::integer,
     .doc = "routed experts per token; at most num_experts",
     .fallback = "required",
     .ints = kPositive},
    {.key = "moe_ffn_hidden",
     .kind = FieldKind::integer,
     .doc = "inner size of one routed expert",
     .fallback = "derived: the model's ffn_hidden",
     .ints = kPositive},
    {.key = "shared_experts",
     .kind = FieldKind::integer,
     .doc = "always-active shared experts per MoE layer",
     .fallback = "0",
     .ints = kNonNegative},
    {.key = "shared_ffn_hidden",
     .kind = FieldKind::integer,
     .doc = "inner size of one shared expert",
     .fallback = "derived: moe_ffn_hidden",
     .ints = kPositive},
    {.key = "first_k_dense",
     .kind = FieldKind::integer,
     .doc = "the first k layers keep a dense MLP (DeepSeek-V3: 3)",
     .fallback = "0",
     .ints = kNonNegative},
    {.key = "layer_freq",
     .kind = FieldKind::integer,
     .doc = "after the first_k_dense layers every layer_freq-th layer is MoE (1: all)",
     .fallback = "1",
     .ints = kPositive},
    {.key = "router",
     .kind = FieldKind::choice,
     .doc = "gating function (costs the same: a hidden x num_experts GEMM and a top-k)",
     .fallback = "\"softmax\"",
     .choices = kRouterChoices},
    // At least 1: the model caps the busiest rank's load L >= 1 at the factor (models/moe_load.cpp) and has
    // no cost for dropping tokens of a balanced load, so 0.5 ran as 1.0 without a word (found while extending
    // config_fuzz to the MoE keys).
    {.key = "capacity_factor",
     .kind = FieldKind::number,
     .doc = "expert capacity over the mean load, at least 1 (below 1 a balanced load would drop tokens, which "
            "the model does not cost); tokens beyond it are dropped (absent or null: dropless)",
     .numbers = {.min = 1.0},
     .also = also_null},
    {.key = "load_imbalance",
     .kind = FieldKind::number,
     .doc = "token load of the busiest expert-parallel rank over the mean (1: balanced; docs/moe.md)",
     .fallback = "1.0",
     .numbers = {.min = 1.0, .max = 1e6}},
    {.key = "zipf_skew",
     .kind = FieldKind::number,
     .doc = "Zipf exponent of expert popularity; when given it sets load_imbalance (models/moe_load.hpp)",
     .numbers = {.min = 0, .max = 100, .min_exclusive = true}},
    {.key = "max_nodes_per_token",
     .kind = FieldKind::integer,
     .doc = "node-limited routing: a token's experts lie on at most this many nodes (0: unlimited)",
     .fallback = "0",
     .ints = kNonNegative},
    {.key = "fp8_dispatch",
     .kind = FieldKind::boolean,
     .doc = "dispatch tokens in FP8 (1 byte/element; the combine stays BF16)",
     .fallback = "false"},
};

}  // namespace

const Section kMlaSection{"mla", "/model/mla", "multi-head latent attention (DeepSeek-V2/V3)", kMlaFields};
const Section kMoeSection{"moe", "/model/moe", "mixture-of-experts feed-forward layers (docs/moe.md)", kMoeFields};

namespace {

constexpr Field kModelFields[] = {
    kEntryNameField,
    kDescriptionField,
    kSourceField,
    kSourcesField,
    {.key = "layers",
     .kind = FieldKind::integer,
     .doc = "transformer layers",
     .fallback = "required",
     .ints = kPositive},
    {.key = "hidden",
     .kind = FieldKind::integer,
     .doc = "h; `heads` must divide it unless head_dim or mla is given",
     .fallback = "required",
     .ints = kPositive},
    {.key = "heads",
     .kind = FieldKind::integer,
     .doc = "query heads",
     .fallback = "required",
     .ints = kPositive},
    {.key = "kv_heads",
     .kind = FieldKind::integer,
     .doc = "GQA groups; must divide `heads`",
     .fallback = "derived: heads",
     .ints = kPositive},
    {.key = "head_dim",
     .kind = FieldKind::integer,
     .doc = "query/key/value head dimension when it is not hidden/heads (PaLM: 256 at hidden 18432, 48 heads)",
     .fallback = "derived: hidden / heads",
     .ints = kPositive},
    {.key = "mla",
     .kind = FieldKind::object,
     .doc = "multi-head latent attention instead of the QKV projection",
     .section = &kMlaSection},
    {.key = "moe",
     .kind = FieldKind::object,
     .doc = "mixture-of-experts layers (absent: dense)",
     .section = &kMoeSection},
    {.key = "ffn_hidden",
     .kind = FieldKind::integer,
     .doc = "MLP inner size",
     .fallback = "derived: 4·hidden for gelu; required for swiglu",
     .ints = kPositive,
     .source = "Radford et al. 2019; Narayanan et al. 2021 Eq. 2"},
    {.key = "vocab",
     .kind = FieldKind::integer,
     .doc = "vocabulary, as padded by the framework",
     .fallback = "required",
     .ints = kPositive},
    {.key = "seq_len",
     .kind = FieldKind::integer,
     .doc = "default training sequence length",
     .fallback = "required",
     .ints = kPositive},
    {.key = "mlp",
     .kind = FieldKind::choice,
     .doc = "MLP kind",
     .fallback = "\"gelu\"",
     .choices = kMlpChoices},
    {.key = "norm",
     .kind = FieldKind::choice,
     .doc = "normalisation",
     .fallback = "\"layernorm\"",
     .choices = kNormChoices},
    {.key = "position",
     .kind = FieldKind::choice,
     .doc = "position embedding",
     .fallback = "\"learned\"",
     .choices = kPositionChoices},
    {.key = "linear_bias",
     .kind = FieldKind::boolean,
     .doc = "biases on the linear layers (GPT yes, Llama no)",
     .fallback = "true"},
    {.key = "tied_embeddings",
     .kind = FieldKind::boolean,
     .doc = "LM head shares the embedding",
     .fallback = "true"},
    {.key = "mtp_depth",
     .kind = FieldKind::integer,
     .doc = "multi-token-prediction modules on the last pipeline stage (DeepSeek-V3: 1; docs/moe.md); not "
            "in `params` or model FLOPs",
     .fallback = "0",
     .ints = {.min = 0, .max = 16}},
    {.key = "parallel_block",
     .kind = FieldKind::boolean,
     .doc = "attention and MLP in parallel from one normed input (GPT-J, GPT-NeoX, PaLM): one TP reduction "
            "per layer pass instead of two, one norm and one residual add",
     .fallback = "false",
     .source = "Chowdhery et al. 2022 (PaLM) §2; GPT-NeoX gpt_j_residual"},
    {.key = "params", .kind = FieldKind::quantity, .doc = "published parameter count, for checks (\"175B\")"},
    {.key = "hf_config",
     .kind = FieldKind::string,
     .doc = "a Hugging Face config.json (or its directory), relative to this file: its keys give the model "
            "(llama, mistral, qwen2, gemma, gpt_neox, gpt2, phi, bloom, mpt, falcon and the MoE families mixtral, "
            "qwen2_moe, qwen3_moe, deepseek_v3); keys written beside it win"},
    {.key = "model_notes",
     .kind = FieldKind::array,
     .doc = "remarks printed with the report; hf_config adds the HF keys it ignored and what it assumed",
     .items = FieldKind::text},
};

}  // namespace

const Section kModelSection{"model", "/model",
                            "a decoder-only transformer, dense or mixture-of-experts (configs/models/<name>.json)", kModelFields,
                            "hf_config"};

TransformerSpec read_model(ObjectReader& r) {
  TransformerSpec m;
  m.name = r.string("name", entry_name_from_file(r));
  r.accept("description");
  accept_sources(r);
  m.layers = r.require_integer("layers");
  m.hidden = r.require_integer("hidden");
  m.heads = r.require_integer("heads");
  m.kv_heads = r.integer("kv_heads", m.heads);
  m.vocab = r.require_integer("vocab");
  m.seq_len = r.require_integer("seq_len");
  m.mlp = r.enumeration("mlp", mlp_names());
  if (r.has("ffn_hidden")) {
    m.ffn_hidden = r.require_integer("ffn_hidden");
  } else if (m.mlp == MlpKind::gelu) {
    m.ffn_hidden = 4 * m.hidden;  // GPT convention (Radford et al. 2019; Narayanan et al. 2021 Eq. 2)
  } else if (r.valid()) {
    r.error("ffn_hidden",
            "missing required key (no default for mlp \"swiglu\"; Llama uses about 8h/3 rounded)");
  }
  m.norm = r.enumeration("norm", norm_names());
  m.position = r.enumeration("position", position_names());
  m.linear_bias = r.boolean("linear_bias");
  m.tied_embeddings = r.boolean("tied_embeddings");
  m.mtp_depth = r.integer("mtp_depth");
  m.parallel_block = r.boolean("parallel_block");
  m.published_params = r.get_quantity("params").value_or(0.0);
  r.accept("hf_config");  // converted and spliced in by the resolver (hf_model_splice.hpp)
  if (const nlohmann::json* notes = r.find("model_notes")) {
    if (!notes->is_array()) {
      r.error("model_notes", fmt::format("expected an array of strings, got {}", describe(*notes)));
    } else {
      for (const auto& n : *notes) {
        if (n.is_string()) {
          m.notes.push_back(n.get<std::string>());
        } else {
          r.error("model_notes", fmt::format("expected an array of strings, found {}", describe(n)));
          break;
        }
      }
    }
  }
  if (r.has("head_dim")) m.head_dim_override = r.require_integer("head_dim");
  if (auto mla = r.child("mla")) {
    m.mla.q_lora_rank = mla->integer("q_lora_rank");
    m.mla.kv_lora_rank = mla->require_integer("kv_lora_rank");
    m.mla.qk_nope_head_dim = mla->require_integer("qk_nope_head_dim");
    m.mla.qk_rope_head_dim = mla->require_integer("qk_rope_head_dim");
    m.mla.v_head_dim = mla->require_integer("v_head_dim");
    mla->finish();
    if (r.has("head_dim")) {
      r.error("head_dim", "with \"mla\" the head dimensions are mla.qk_nope_head_dim + qk_rope_head_dim "
                          "(queries, keys) and mla.v_head_dim (values); remove head_dim");
    }
    if (r.has("kv_heads") && m.kv_heads != m.heads) {
      r.error("kv_heads", fmt::format("multi-head latent attention expands keys and values for every head: "
                                      "kv_heads ({}) must equal heads ({}) or be absent",
                                      m.kv_heads, m.heads));
    }
  }
  if (auto moe = r.child("moe")) {
    MoeSpec& x = m.moe;
    x.num_experts = moe->require_integer("num_experts");
    x.top_k = moe->require_integer("top_k");
    x.ffn_hidden = moe->integer("moe_ffn_hidden", m.ffn_hidden);
    x.shared_experts = moe->integer("shared_experts");
    x.shared_ffn_hidden = moe->integer("shared_ffn_hidden", x.ffn_hidden);
    x.first_dense_layers = moe->integer("first_k_dense");
    x.layer_freq = moe->integer("layer_freq");
    moe->choice("router");
    if (auto c = moe->get_number("capacity_factor")) x.capacity_factor = *c;
    x.load_imbalance = moe->number("load_imbalance");
    if (auto z = moe->get_number("zipf_skew")) x.zipf_skew = *z;
    x.max_nodes_per_token = moe->integer("max_nodes_per_token");
    x.fp8_dispatch = moe->boolean("fp8_dispatch");
    if (x.num_experts > 0 && x.top_k > x.num_experts) {
      moe->error("top_k", fmt::format("top_k ({}) is more than num_experts ({})", x.top_k, x.num_experts));
    }
    if (m.layers > 0 && x.first_dense_layers >= m.layers) {
      moe->error("first_k_dense", fmt::format("first_k_dense ({}) leaves no MoE layer among the {} layers",
                                              x.first_dense_layers, m.layers));
    }
    if (moe->has("zipf_skew") && moe->has("load_imbalance")) {
      moe->error("zipf_skew", "give load_imbalance or zipf_skew, not both (zipf_skew derives the imbalance)");
    }
    moe->finish();
    // A key that failed leaves a value the cost model must never see: the model stays dense (the run
    // stops at the reported error anyway).
    if (x.num_experts < 1 || x.top_k < 1 || x.ffn_hidden < 1 || x.layer_freq < 1) x.num_experts = 0;
  }
  if (m.heads > 0 && m.hidden > 0 && m.hidden % m.heads != 0 && m.head_dim_override == 0 && !m.mla.enabled() &&
      !r.context().failed(r.pointer_of("heads"))) {
    r.error("heads", fmt::format("heads ({}) must divide hidden ({})", m.heads, m.hidden));
  }
  if (m.heads > 0 && m.kv_heads > 0 && m.heads % m.kv_heads != 0) {
    r.error("kv_heads", fmt::format("kv_heads ({}) must divide heads ({}) (grouped-query attention)",
                                    m.kv_heads, m.heads));
  }
  return m;
}

}  // namespace clustersim::config
