// Models given as Hugging Face config.json files (`{"hf_config": ...}`): conversion, refusals, notes,
// diagnostics against the HF file, and agreement with the catalog entries of the same models.
#include "tests/catch.hpp"

#include "models/transformer_cost.hpp"

#include <algorithm>

#include "sim/config/catalog_entries.hpp"
#include "sim/config/hf_config.hpp"
#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

namespace {

std::filesystem::path hf_data(const std::string& file) {
  return repo_root() / "tests" / "config" / "data" / "hf" / file;
}

nlohmann::json read(const std::filesystem::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

// The small experiment without model parallelism, so that any head count fits.
nlohmann::json experiment_with(const nlohmann::json& model) {
  auto doc = small_experiment();
  doc["model"] = model;
  doc["parallelism"] = {{"tp", 1}, {"pp", 1}, {"dp", 16}};
  return doc;
}

Scenario with_model(const nlohmann::json& model) {
  const auto doc = experiment_with(model);
  return scenario_from_json(doc, bundled_catalog());
}

/// Diagnostics of an experiment file written in `dir` whose model is `model`.
std::vector<Diagnostic> model_diagnostics(const TempDir& dir, const nlohmann::json& model) {
  return diagnostics_of(dir.write("exp.json", experiment_with(model)));
}

bool has_note(const TransformerSpec& m, const std::string& part) {
  return std::any_of(m.notes.begin(), m.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

void check_same_shape(const TransformerSpec& a, const TransformerSpec& b) {
  CHECK(a.layers == b.layers);
  CHECK(a.hidden == b.hidden);
  CHECK(a.heads == b.heads);
  CHECK(a.kv_heads == b.kv_heads);
  CHECK(a.ffn_hidden == b.ffn_hidden);
  CHECK(a.vocab == b.vocab);
  CHECK(a.seq_len == b.seq_len);
  CHECK(a.mlp == b.mlp);
  CHECK(a.norm == b.norm);
  CHECK(a.position == b.position);
  CHECK(a.linear_bias == b.linear_bias);
  CHECK(a.tied_embeddings == b.tied_embeddings);
  CHECK(a.parallel_block == b.parallel_block);
}

}  // namespace

TEST_CASE("each supported family's config.json gives the model of its catalog entry", "[config][hf]") {
  struct Case {
    const char* file;
    const char* catalog;
    nlohmann::json beside;
  };
  const Case cases[] = {
      {"meta-llama-3-8b.json", "llama3-8b", nlohmann::json::object()},
      {"mistral-7b-v0.1.json", "mistral-7b", {{"seq_len", 8192}}},
      {"qwen2-7b.json", "qwen2-7b", {{"seq_len", 4096}}},
      {"gpt-neox-20b.json", "gpt-neox-20b", nlohmann::json::object()},
      {"gpt2-xl.json", "gpt2-xl", nlohmann::json::object()},
  };
  Catalog catalog(bundled_catalog());
  for (const Case& c : cases) {
    INFO(c.file);
    nlohmann::json model = c.beside;
    model["hf_config"] = hf_data(c.file).string();
    const Scenario s = with_model(model);
    check_same_shape(s.model, load_model(catalog, c.catalog));
    CHECK(has_note(s.model, "HF keys ignored"));
  }
}

TEST_CASE("Llama 2 7B from its config.json has the shapes of the published model", "[config][hf]") {
  const Scenario s = with_model({{"hf_config", hf_data("llama-2-7b.json").string()}});
  CHECK(s.model.name == "meta-llama/Llama-2-7b-hf");  // _name_or_path names an inline model
  CHECK(s.model.layers == 32);
  CHECK(s.model.hidden == 4096);
  CHECK(s.model.heads == 32);
  CHECK(s.model.kv_heads == 32);
  CHECK(s.model.ffn_hidden == 11008);
  CHECK(s.model.vocab == 32000);
  CHECK(s.model.seq_len == 4096);
  CHECK(s.model.mlp == MlpKind::swiglu);
  CHECK(s.model.norm == NormKind::rmsnorm);
  CHECK(s.model.position == PositionKind::rotary);
  CHECK_FALSE(s.model.linear_bias);
  CHECK_FALSE(s.model.tied_embeddings);
  SECTION("the keys it does not use are listed, and the seq_len it assumed is said") {
    CHECK(has_note(s.model, "pretraining_tp"));
    CHECK(has_note(s.model, "torch_dtype"));
    CHECK(has_note(s.model, "rope_scaling"));
    CHECK(has_note(s.model, "seq_len = 4096 (max_position_embeddings"));
  }
}

TEST_CASE("the catalog's llama2-7b, written as an hf_config entry, keeps its shapes", "[config][hf]") {
  Catalog catalog(bundled_catalog());
  const TransformerSpec m = load_model(catalog, "llama2-7b");
  CHECK(m.name == "llama2-7b");    // a catalog entry is named by its file
  TransformerSpec explicit_entry;  // the entry as it was written before (explicit keys)
  explicit_entry.layers = 32;
  explicit_entry.hidden = 4096;
  explicit_entry.heads = 32;
  explicit_entry.kv_heads = 32;
  explicit_entry.ffn_hidden = 11008;
  explicit_entry.vocab = 32000;
  explicit_entry.seq_len = 4096;
  explicit_entry.mlp = MlpKind::swiglu;
  explicit_entry.norm = NormKind::rmsnorm;
  explicit_entry.position = PositionKind::rotary;
  explicit_entry.linear_bias = false;
  explicit_entry.tied_embeddings = false;
  check_same_shape(m, explicit_entry);
  CHECK(m.published_params == Approx(7e9));
  CHECK_FALSE(has_note(m, "max_position_embeddings"));  // seq_len is given beside hf_config
}

TEST_CASE("MoE configs and head_dim convert, experts in a dense family are refused with the HF key", "[config][hf]") {
  TempDir dir;
  SECTION("Mixtral 8x7B becomes a MoE model with its experts") {
    const Scenario s = with_model({{"hf_config", hf_data("mixtral-8x7b-v0.1.json").string()}, {"seq_len", 4096}});
    CHECK(s.model.moe.num_experts == 8);
    CHECK(s.model.moe.top_k == 2);
    CHECK(s.model.moe.ffn_hidden == 14336);
    CHECK(parameter_count(s.model).total() / 1e9 == Approx(46.7).epsilon(0.01));
  }
  SECTION("experts in a family without a MoE converter are refused") {
    auto hf = read(hf_data("meta-llama-3-8b.json"));
    hf["num_experts"] = 8;
    const auto ds = model_diagnostics(dir, {{"hf_config", dir.write("llama-moe.json", hf).string()}});
    CHECK(has_diagnostic(ds, "llama-moe.json", "/num_experts", "the MoE families read are mixtral"));
    CHECK(ds.size() == 1);  // no "missing layers" noise after the refusal
  }
  SECTION("a head_dim of its own (Gemma 7B) is kept") {
    auto hf = read(hf_data("meta-llama-3-8b.json"));
    hf["model_type"] = "gemma";
    hf["hidden_size"] = 3072;
    hf["num_attention_heads"] = 16;
    hf["num_key_value_heads"] = 16;
    hf["head_dim"] = 256;
    const Scenario s = with_model({{"hf_config", dir.write("gemma.json", hf).string()}});
    CHECK(s.model.head_dim() == 256);
  }
  SECTION("a model_type without a converter") {
    const auto ds = model_diagnostics(
        dir, {{"hf_config", dir.write("bert.json", nlohmann::json{{"model_type", "bert"}}).string()}});
    CHECK(has_diagnostic(ds, "bert.json", "/model_type", "model_type \"bert\" is not supported"));
  }
}

TEST_CASE("sliding windows and defaults are reported as assumptions, parallel residuals become parallel blocks", "[config][hf]") {
  const Scenario mistral = with_model({{"hf_config", hf_data("mistral-7b-v0.1.json").string()}});
  CHECK(has_note(mistral.model, "sliding_window 4096 ignored: attention FLOPs are counted as full"));
  CHECK(mistral.model.seq_len == 32768);  // max_position_embeddings, said in a note
  const Scenario neox = with_model({{"hf_config", hf_data("gpt-neox-20b.json").string()}});
  CHECK(neox.model.parallel_block);  // use_parallel_residual: true
  CHECK(has_note(neox.model, "rotary_pct"));
  const Scenario gpt2 = with_model({{"hf_config", hf_data("gpt2-xl.json").string()}});
  CHECK(gpt2.model.ffn_hidden == 4 * 1600);
  CHECK(has_note(gpt2.model, "n_inner is null"));
  CHECK(has_note(gpt2.model, "tie_word_embeddings absent"));
  const Scenario qwen = with_model({{"hf_config", hf_data("qwen2-7b.json").string()}});
  CHECK(has_note(qwen.model, "q, k and v projections only"));
  CHECK(has_note(qwen.model, "use_sliding_window is false"));
}

TEST_CASE("keys written beside hf_config override the converted ones", "[config][hf]") {
  const Scenario s = with_model({{"hf_config", hf_data("meta-llama-3-8b.json").string()},
                                 {"layers", 4},
                                 {"seq_len", 2048},
                                 {"name", "l3"}});
  CHECK(s.model.layers == 4);
  CHECK(s.model.seq_len == 2048);
  CHECK(s.model.name == "l3");
  CHECK(has_note(s.model, "layers = 4 (given beside hf_config) replaces the converted 32"));
  CHECK_FALSE(has_note(s.model, "(max_position_embeddings, the longest"));
}

TEST_CASE("hf_config paths are relative to the file naming them, and may name a directory", "[config][hf]") {
  TempDir dir;
  dir.write("ckpt/config.json", read(hf_data("gpt2-xl.json")));
  const auto file = dir.write("exp.json", experiment_with({{"hf_config", "ckpt"}, {"layers", 8}}));
  ExperimentLoader loader(bundled_catalog());
  const Scenario s = loader.build(loader.load(file.string()));
  CHECK(s.model.name == "ckpt");
  CHECK(s.model.vocab == 50257);
}

TEST_CASE("bad HF input is reported against the HF file", "[config][hf]") {
  TempDir dir;
  auto hf = read(hf_data("meta-llama-3-8b.json"));
  SECTION("a missing file names the reference") {
    const auto ds = model_diagnostics(dir, {{"hf_config", "nowhere/config.json"}});
    CHECK(has_diagnostic(ds, "exp.json", "/model/hf_config", "no Hugging Face config at"));
  }
  SECTION("a file that is not JSON") {
    const auto ds = model_diagnostics(
        dir, {{"hf_config", dir.write("bad.json", std::string("{\"model_type\": ")).string()}});
    REQUIRE_FALSE(ds.empty());
    CHECK(ds.front().file.ends_with("bad.json"));
  }
  SECTION("a missing required key") {
    hf.erase("num_hidden_layers");
    const auto ds = model_diagnostics(dir, {{"hf_config", dir.write("c.json", hf).string()}});
    CHECK(has_diagnostic(ds, "c.json", "/num_hidden_layers", "missing required key"));
    CHECK(ds.size() == 1);
  }
  SECTION("a value of the wrong type") {
    hf["hidden_size"] = "4096";
    const auto ds = model_diagnostics(dir, {{"hf_config", dir.write("c.json", hf).string()}});
    CHECK(has_diagnostic(ds, "c.json", "/hidden_size", "expected a positive integer, got string"));
  }
  SECTION("a converted value that fails a model check points into the HF file") {
    hf["num_key_value_heads"] = 5;
    const auto ds = model_diagnostics(dir, {{"hf_config", dir.write("c.json", hf).string()}});
    CHECK(has_diagnostic(ds, "c.json", "/num_key_value_heads", "kv_heads (5) must divide heads (32)"));
  }
  SECTION("hf_config that is not a string") {
    const auto ds = model_diagnostics(dir, {{"hf_config", 7}});
    CHECK(has_diagnostic(ds, "exp.json", "/model/hf_config",
                         "expected the path of a Hugging Face config.json"));
  }
}

TEST_CASE("the converter is a pure function of the HF object", "[config][hf]") {
  const auto hf = read(hf_data("gpt2-xl.json"));
  const HfConversion a = convert_hf_config(hf, nlohmann::json::object());
  const HfConversion b = convert_hf_config(hf, nlohmann::json::object());
  REQUIRE(a.problems.empty());
  CHECK(a.model == b.model);
  CHECK(a.ignored == b.ignored);
  CHECK(a.model["mlp"] == "gelu");
  CHECK(a.model["position"] == "learned");
  CHECK(std::find(a.ignored.begin(), a.ignored.end(), "summary_type") != a.ignored.end());
  CHECK(std::find(a.ignored.begin(), a.ignored.end(), "n_embd") == a.ignored.end());
}

TEST_CASE("Gemma with head_dim = hidden/heads and phi are expressible, with their notes", "[config][hf]") {
  // Gemma 2B's published shapes (hidden 2048, 8 heads of 256, 1 KV head, GeGLU 16384, vocab 256000).
  const nlohmann::json gemma = {
      {"model_type", "gemma"},           {"num_hidden_layers", 18},  {"hidden_size", 2048},
      {"num_attention_heads", 8},        {"num_key_value_heads", 1}, {"head_dim", 256},
      {"intermediate_size", 16384},      {"vocab_size", 256000},     {"hidden_act", "gelu"},
      {"max_position_embeddings", 8192}, {"rms_norm_eps", 1e-6}};
  const HfConversion g = convert_hf_config(gemma, nlohmann::json::object());
  REQUIRE(g.problems.empty());
  CHECK(g.model["mlp"] == "swiglu");
  CHECK(g.model["tied_embeddings"] == true);
  CHECK(g.model["kv_heads"] == 1);
  const auto has = [](const HfConversion& c, const std::string& part) {
    return std::any_of(c.assumptions.begin(), c.assumptions.end(),
                       [&](const std::string& a) { return a.find(part) != std::string::npos; });
  };
  CHECK(has(g, "GeGLU"));
  const nlohmann::json phi = {{"model_type", "phi"},        {"num_hidden_layers", 32},
                              {"hidden_size", 2560},        {"num_attention_heads", 32},
                              {"intermediate_size", 10240}, {"vocab_size", 51200},
                              {"hidden_act", "gelu_new"},   {"max_position_embeddings", 2048},
                              {"layer_norm_eps", 1e-5},     {"tie_word_embeddings", false}};
  const HfConversion p = convert_hf_config(phi, nlohmann::json::object());
  REQUIRE(p.problems.empty());
  CHECK(p.model["mlp"] == "gelu");
  CHECK(p.model["norm"] == "layernorm");
  CHECK(p.model["linear_bias"] == true);
  CHECK(p.model["parallel_block"] == true);  // Phi: attention and MLP on one input_layernorm output
  CHECK_FALSE(g.model.contains("parallel_block"));
}

TEST_CASE("gpt_neox's use_parallel_residual sets parallel_block, true when absent as in Transformers", "[config][hf]") {
  nlohmann::json neox = read(hf_data("gpt-neox-20b.json"));
  neox.erase("use_parallel_residual");
  const HfConversion absent = convert_hf_config(neox, nlohmann::json::object());
  REQUIRE(absent.problems.empty());
  CHECK(absent.model["parallel_block"] == true);
  CHECK(std::any_of(absent.assumptions.begin(), absent.assumptions.end(), [](const std::string& a) {
    return a.find("use_parallel_residual absent") != std::string::npos;
  }));
  neox["use_parallel_residual"] = false;
  const HfConversion off = convert_hf_config(neox, nlohmann::json::object());
  CHECK(off.model["parallel_block"] == false);
  const HfConversion beside = convert_hf_config(neox, {{"parallel_block", true}});
  CHECK(beside.model.value("parallel_block", true) == true);  // a key written beside hf_config wins
  const HfConversion gpt2 = convert_hf_config(read(hf_data("gpt2-xl.json")), nlohmann::json::object());
  CHECK_FALSE(gpt2.model.value("parallel_block", false));
}

TEST_CASE("hf_config cannot be replaced alone with --set, but the whole model can", "[config][hf]") {
  TempDir dir;
  const auto file = dir.write("exp.json", experiment_with({{"hf_config", hf_data("gpt2-xl.json").string()}}));
  const auto ds = diagnostics_of(file, {{"/model/hf_config", hf_data("llama-2-7b.json").string()}});
  CHECK(has_diagnostic(ds, "<--set>", "/model/hf_config", "hf_config cannot be replaced alone"));
  ExperimentLoader loader(bundled_catalog());
  const std::string whole = nlohmann::json{{"hf_config", hf_data("llama-2-7b.json").string()}}.dump();
  const Scenario s = loader.build(loader.load(file.string()), std::vector<Override>{{"/model", whole}});
  CHECK(s.model.ffn_hidden == 11008);
}

TEST_CASE("an inline job model may name a Hugging Face config", "[config][hf]") {
  Catalog catalog(bundled_catalog());
  auto doc = experiment_with("llama3-8b");
  doc["jobs"] =
      nlohmann::json::array({{{"name", "a"},
                              {"nodes", 1},
                              {"parallelism", {{"tp", 1}, {"pp", 1}}},
                              {"model", {{"hf_config", hf_data("gpt2-xl.json").string()}}}},
                             {{"name", "b"}, {"nodes", 1}, {"parallelism", {{"tp", 1}, {"pp", 1}}}}});
  const Scenario s = scenario_from_json(doc, bundled_catalog());
  REQUIRE(s.jobs.size() == 2);
  CHECK(s.jobs[0].scenario.model.layers == 48);
  CHECK_FALSE(s.jobs[0].scenario.model.notes.empty());
}

namespace {

bool has_assumption(const HfConversion& c, const std::string& part) {
  return std::any_of(c.assumptions.begin(), c.assumptions.end(),
                     [&](const std::string& a) { return a.find(part) != std::string::npos; });
}

bool has_ignored(const HfConversion& c, const std::string& key) {
  return std::find(c.ignored.begin(), c.ignored.end(), key) != c.ignored.end();
}

/// The model keys the converter gives (a key written beside hf_config is left out of `model`).
void check_keys(const HfConversion& c, int layers, int hidden, int heads, int kv_heads, int ffn, int vocab,
                const std::string& position, bool linear_bias, bool tied, bool parallel_block) {
  REQUIRE(c.problems.empty());
  CHECK(c.model["layers"] == layers);
  CHECK(c.model["hidden"] == hidden);
  CHECK(c.model["heads"] == heads);
  CHECK(c.model["kv_heads"] == kv_heads);
  CHECK(c.model["ffn_hidden"] == ffn);
  CHECK(c.model["vocab"] == vocab);
  CHECK(c.model["position"] == position);
  CHECK(c.model["mlp"] == "gelu");
  CHECK(c.model["norm"] == "layernorm");
  CHECK(c.model["linear_bias"] == linear_bias);
  CHECK(c.model["tied_embeddings"] == tied);
  CHECK(c.model.value("parallel_block", false) == parallel_block);
}

std::filesystem::path bundled_hf(const std::string& file) {
  return repo_root() / "configs" / "models" / "hf" / file;
}

}  // namespace

TEST_CASE("BLOOM converts to an ALiBi model with biases, LayerNorm and a 4h GELU MLP", "[config][hf][alibi]") {
  const nlohmann::json beside = {{"seq_len", 2048}};
  const HfConversion b = convert_hf_config(read(bundled_hf("bloom-176b.json")), beside);
  check_keys(b, 70, 14336, 112, 112, 4 * 14336, 250880, "alibi", true, true, false);
  CHECK_FALSE(b.model.contains("seq_len"));  // written beside hf_config
  CHECK(has_assumption(b, "bloom_gelu"));
  CHECK(has_assumption(b, "word_embeddings_layernorm"));
  CHECK(has_assumption(b, "tie_word_embeddings absent"));
  CHECK(has_ignored(b, "offset_alibi"));
  CHECK(has_ignored(b, "pretraining_tp"));
  CHECK_FALSE(has_ignored(b, "n_layer"));
  SECTION("the aliases of BloomConfig's attribute_map are read, and disagreeing ones refused") {
    auto hf = read(hf_data("bloom-560m.json"));
    hf.erase("n_layer");
    hf.erase("hidden_size");
    hf.erase("n_head");
    hf["num_hidden_layers"] = 24;
    hf["n_embed"] = 1024;
    hf["num_attention_heads"] = 16;
    const HfConversion a = convert_hf_config(hf, beside);
    check_keys(a, 24, 1024, 16, 16, 4096, 250880, "alibi", true, true, false);
    hf["n_head"] = 8;
    const HfConversion bad = convert_hf_config(hf, beside);
    REQUIRE(bad.problems.size() == 1);
    CHECK(bad.problems.front().pointer == "/num_attention_heads");
  }
  SECTION("the catalog's bloom-176b is this config with seq_len 2048") {
    Catalog catalog(bundled_catalog());
    const TransformerSpec m = load_model(catalog, "bloom-176b");
    CHECK(m.position == PositionKind::alibi);
    CHECK(m.seq_len == 2048);
    CHECK(m.tied_embeddings);
    CHECK(m.linear_bias);
    // BLOOM-176B: 176 B parameters (BigScience Workshop 2022) with the padded 250880 vocabulary.
    CHECK(parameter_count(m).total() / 1e9 == Approx(176.2).epsilon(0.01));
  }
}

TEST_CASE("BLOOM without seq_len beside it is one located error, at the experiment's hf_config",
          "[config][hf][alibi]") {
  TempDir dir;
  auto doc = experiment_with({{"hf_config", hf_data("bloom-560m.json").string()}});
  doc["training"]["seq_len"] = 1024;  // the training length is not the model's: not taken from there
  const auto ds = diagnostics_of(dir.write("exp.json", doc));
  INFO(dump(ds));
  // Said where it is fixed: the experiment's hf_config, naming the file that lacks the length.
  CHECK(has_diagnostic(ds, "exp.json", "/model/hf_config", "bloom-560m.json: a BLOOM config.json gives no sequence length"));
  CHECK(ds.size() == 1);
  auto hf = read(hf_data("bloom-560m.json"));
  hf["n_layer"] = -3;
  const auto bad = model_diagnostics(dir, {{"hf_config", dir.write("b.json", hf).string()}, {"seq_len", 2048}});
  CHECK(has_diagnostic(bad, "b.json", "/n_layer", "expected a positive integer"));
}

TEST_CASE("MPT converts from d_model, n_heads, expansion_ratio and attn_config", "[config][hf][alibi]") {
  const auto mpt = read(hf_data("mpt-7b-instruct.json"));
  const HfConversion m = convert_hf_config(mpt, nlohmann::json::object());
  check_keys(m, 32, 4096, 32, 32, 16384, 50432, "alibi", false, true, false);
  CHECK(m.model["seq_len"] == 2048);  // max_seq_len, said in a note
  CHECK(has_assumption(m, "seq_len = 2048 (max_seq_len"));
  CHECK(has_assumption(m, "learned_pos_emb true beside attn_config.alibi true: no position table"));
  CHECK(has_assumption(m, "attn_config.attn_impl \"torch\" is not read"));
  CHECK(has_ignored(m, "attn_config.clip_qkv"));
  CHECK(has_ignored(m, "init_config"));
  CHECK_FALSE(has_ignored(m, "attn_config.alibi"));
  // The MPT-7B model card: n_parameters 6.7B (6.65 B: 32 layers of 12·d_model² plus the tied 50432-token table).
  CHECK(parameter_count(with_model({{"hf_config", hf_data("mpt-7b-instruct.json").string()}}).model).total() / 1e9 ==
        Approx(6.65).epsilon(0.01));
  SECTION("no ALiBi: learned positions; GQA from kv_n_heads; biases; expansion_ratio") {
    auto hf = mpt;
    hf["attn_config"]["alibi"] = false;
    hf["attn_config"]["attn_type"] = "grouped_query_attention";
    hf["attn_config"]["kv_n_heads"] = 8;
    hf["no_bias"] = false;
    hf["expansion_ratio"] = 2.5;
    const HfConversion g = convert_hf_config(hf, nlohmann::json::object());
    check_keys(g, 32, 4096, 32, 8, 10240, 50432, "learned", true, true, false);
    CHECK(has_assumption(g, "expansion_ratio 2.5"));
    hf["attn_config"]["attn_type"] = "multiquery_attention";
    CHECK(convert_hf_config(hf, nlohmann::json::object()).model["kv_heads"] == 1);
  }
  SECTION("bad values are located inside the nested object") {
    auto hf = mpt;
    hf["attn_config"]["attn_type"] = "grouped_query_attention";
    hf["attn_config"]["kv_n_heads"] = "8";
    const HfConversion bad = convert_hf_config(hf, nlohmann::json::object());
    REQUIRE(bad.problems.size() == 1);
    CHECK(bad.problems.front().pointer == "/attn_config/kv_n_heads");
    hf = mpt;
    hf["attn_config"] = 3;
    const HfConversion not_object = convert_hf_config(hf, nlohmann::json::object());
    REQUIRE_FALSE(not_object.problems.empty());
    CHECK(not_object.problems.front().pointer == "/attn_config");
    hf = mpt;
    hf["expansion_ratio"] = -1;
    CHECK(convert_hf_config(hf, nlohmann::json::object()).problems.front().pointer == "/expansion_ratio");
  }
  SECTION("a GQA kv_n_heads that does not divide the heads fails the model check, pointing into the HF file") {
    TempDir dir;
    auto hf = mpt;
    hf["attn_config"]["attn_type"] = "grouped_query_attention";
    hf["attn_config"]["kv_n_heads"] = 5;
    const auto ds = model_diagnostics(dir, {{"hf_config", dir.write("mpt.json", hf).string()}});
    CHECK(has_diagnostic(ds, "mpt.json", "/attn_config/kv_n_heads", "kv_heads (5) must divide heads (32)"));
  }
}

TEST_CASE("Falcon: multi-query 7B, the new decoder architecture of 40B, ALiBi and biases", "[config][hf][alibi]") {
  const nlohmann::json beside = {{"seq_len", 2048}};
  const HfConversion f7 = convert_hf_config(read(hf_data("falcon-7b.json")), beside);
  check_keys(f7, 32, 4544, 71, 1, 4 * 4544, 65024, "rotary", false, true, true);
  CHECK(has_assumption(f7, "ffn_hidden_size absent"));
  const HfConversion f40 = convert_hf_config(read(hf_data("falcon-40b.json")), beside);
  check_keys(f40, 60, 8192, 128, 8, 4 * 8192, 65024, "rotary", false, true, true);
  CHECK(has_assumption(f40, "two LayerNorms (ln_attn, ln_mlp)"));
  SECTION("the older configs give no max_position_embeddings: seq_len must be written beside") {
    const HfConversion none = convert_hf_config(read(hf_data("falcon-7b.json")), nlohmann::json::object());
    REQUIRE(none.problems.size() == 1);
    CHECK(none.problems.front().pointer == "/max_position_embeddings");
  }
  SECTION("Falcon-RW style: ALiBi, biases, sequential block, multi-head") {
    auto hf = read(hf_data("falcon-7b.json"));
    hf["alibi"] = true;
    hf["bias"] = true;
    hf["parallel_attn"] = false;
    hf["multi_query"] = false;
    hf["num_attention_heads"] = 32;
    hf["hidden_size"] = 2048;
    hf["num_hidden_layers"] = 24;
    hf["vocab_size"] = 50304;
    hf["ffn_hidden_size"] = 8192;
    const HfConversion rw = convert_hf_config(hf, beside);
    check_keys(rw, 24, 2048, 32, 32, 8192, 50304, "alibi", true, true, false);
    // Keys and values on every head there (fused QKV of 3·hidden_size): a smaller num_kv_heads is refused.
    hf["num_kv_heads"] = 8;
    const HfConversion gqa = convert_hf_config(hf, beside);
    REQUIRE(gqa.problems.size() == 1);
    CHECK(gqa.problems.front().pointer == "/num_kv_heads");
    hf["num_kv_heads"] = 32;
    CHECK(convert_hf_config(hf, beside).problems.empty());
  }
  SECTION("a wrong type is located") {
    auto hf = read(hf_data("falcon-40b.json"));
    hf["new_decoder_architecture"] = "yes";
    const HfConversion bad = convert_hf_config(hf, beside);
    REQUIRE_FALSE(bad.problems.empty());
    CHECK(bad.problems.front().pointer == "/new_decoder_architecture");
  }
  SECTION("the converted Falcon runs: parallel block, one KV head") {
    const Scenario s = with_model({{"hf_config", hf_data("falcon-7b.json").string()}, {"seq_len", 2048}});
    CHECK(s.model.parallel_block);
    CHECK(s.model.kv_heads == 1);
    CHECK(s.model.position == PositionKind::rotary);
  }
}
