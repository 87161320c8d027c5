// Reading published-run records (format v2): strict types and keys, values from the record or from a
// declared framework profile (never from citation text, notes or ids), like-with-like metrics.
#include "tests/catch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <tuple>

#include <nlohmann/json.hpp>

#include "sim/config/enum_names.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/config/framework_profile.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/report/validation.hpp"

using namespace clustersim;
using nlohmann::json;

namespace {
const config::CatalogPaths kPaths{{std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs"}};

json base_record() {
  return json::parse(R"({
    "id": "unit-llama3-8b-64gpu", "kind": "training_run_measurement", "source_group": "unit", "split": "test",
    "source": {"citation": "Megatron-Core benchmark, Megatron-LM README 2020, DeepSpeed", "url": null,
               "location": "Table 1", "source_type": "blog", "quote": "row"},
    "framework": {"name": "megatron-core", "version": null, "date": "2024-06"},
    "model": {"name": "Llama 3 8B", "catalog_hint": "llama3-8b", "layers": 32, "hidden": 4096, "heads": 32,
              "kv_heads": 8, "ffn_hidden": 14336, "vocab": 128256, "seq_len": 8192, "mlp": "swiglu",
              "norm": "rmsnorm", "position": "rope", "linear_bias": false, "tied_embeddings": false, "moe": null},
    "hardware": {"accelerator": "NVIDIA H100 SXM5 80GB", "count": 64, "gpus_per_node": 8},
    "parallelism": {"tp": 2, "pp": 1, "dp": null, "cp": null, "micro_batch": 1, "global_batch": 128},
    "precision": {"compute": "bf16"},
    "flash_attention": null,
    "measured": {"tokens_per_s_per_gpu": 9000, "tflops_basis": null},
    "confidence": "high", "notes": "DeepSpeed ZeRO-3 Megatron-Core"
  })");
}

config::ReferenceSet read(const json& rec) {
  return config::reference_runs_from_json(json::array({rec}), "unit.json", kPaths);
}

config::ReferenceCase only_case(const config::ReferenceSet& s) {
  INFO((s.skipped.empty() ? std::string() : s.skipped.front().reason));
  REQUIRE(s.cases.size() == 1);
  return s.cases.front();
}

double predict(const json& rec) {
  const ValidationResult r = run_validation(read(rec), kPaths);
  REQUIRE(r.rows.size() == 1);
  return r.rows.front().predicted;
}

bool mentions(const std::vector<std::string>& list, std::string_view text) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& a) { return a.find(text) != std::string::npos; });
}

std::string first_problem(const json& rec) {
  try {
    read(rec);
  } catch (const ConfigError& e) {
    return e.diagnostics().front().to_string();
  }
  return "";
}
}  // namespace

TEST_CASE("citation, notes, source and id never change a prediction") {
  const double reference = predict(base_record());
  json r = base_record();
  r["source"]["citation"] = "Someone else, a blog";
  r["source"]["quote"] = "Megatron-LM README 2020";
  r["notes"] = "";
  r["id"] = "zz-other-id";
  r["source_group"] = "megatron-lm-readme-2020";
  CHECK(predict(r) == reference);
  r["notes"] = "DeepSpeed DeepSpeed Megatron-Core";
  CHECK(predict(r) == reference);
}

TEST_CASE("records are read strictly: wrong types and unknown keys are errors with a pointer") {
  SECTION("wrong type") {
    json r = base_record();
    r["parallelism"]["tp"] = "2";
    CHECK(first_problem(r).find("unit.json:/0/parallelism/tp") != std::string::npos);
  }
  SECTION("unknown key") {
    json r = base_record();
    r["parallelism"]["tensor_parallel"] = 2;
    CHECK(first_problem(r).find("/0/parallelism/tensor_parallel: unknown key") != std::string::npos);
  }
  SECTION("split is required") {
    json r = base_record();
    r.erase("split");
    CHECK(first_problem(r).find("/0/split") != std::string::npos);
  }
  SECTION("tflops_per_gpu needs its basis") {
    json r = base_record();
    r["measured"]["tflops_per_gpu"] = 400;
    CHECK(first_problem(r).find("/0/measured/tflops_basis") != std::string::npos);
  }
}

TEST_CASE("the framework name and date choose the profile, its defaults are listed as assumptions") {
  const auto& mcore = only_case(read(base_record()));
  CHECK(mcore.profile == "megatron-core-2024");
  CHECK(mcore.experiment["parallelism"]["sequence_parallel"] == true);
  CHECK(mentions(mcore.assumptions, "sequence_parallel = on (not stated; megatron-core-2024"));
  CHECK(mentions(mcore.assumptions, "dp = 32 (derived"));
  json r = base_record();
  r["framework"] = {{"name", "megatron-lm"}, {"version", nullptr}, {"date", "2021-04"}};
  const auto& old = only_case(read(r));
  CHECK(old.profile == "megatron-lm-2021");
  CHECK(old.experiment["parallelism"]["sequence_parallel"] == false);
  CHECK(old.experiment["training"]["flash_attention"] == false);
}

TEST_CASE("stated fields win over profile defaults: flash attention off, recompute none, FP8, CP") {
  json r = base_record();
  r["flash_attention"] = false;
  r["parallelism"]["recompute"] = "none";
  r["parallelism"]["cp"] = 2;
  r["precision"]["compute"] = "fp8";
  const auto& c = only_case(read(r));
  CHECK(c.experiment["training"]["flash_attention"] == false);
  CHECK(c.experiment["training"]["recompute"] == "none");
  CHECK(c.experiment["training"]["precision"] == "fp8");
  CHECK(c.experiment["parallelism"]["cp"] == 2);
  // No recipe stated and none in the profile: the experiment's delayed scaling runs, said as an assumption.
  CHECK(!c.experiment["training"].contains("fp8_scaling"));
  CHECK(mentions(c.assumptions, "fp8_scaling = delayed (recipe not stated as tensorwise/rowwise/mxfp8/"
                                "blockwise/delayed/current; experiment default"));
  // Per-tensor current scaling is what NeMo and Megatron-Bridge call "tensorwise": read so, said.
  r["precision"]["fp8_recipe"] = "current";
  const auto current = only_case(read(r));
  CHECK(current.experiment["training"]["fp8_scaling"] == "tensorwise");
  CHECK(mentions(current.assumptions, "fp8_scaling = tensorwise (recipe stated as per-tensor current scaling"));
  // A stated delayed recipe runs as stated, with no "not stated" line.
  r["precision"]["fp8_recipe"] = "delayed";
  const auto delayed = only_case(read(r));
  CHECK(delayed.experiment["training"]["fp8_scaling"] == "delayed");
  CHECK(!mentions(delayed.assumptions, "fp8_scaling ="));
  r["precision"]["fp8_recipe"] = "tensorwise";
  const auto& stated = only_case(read(r));
  CHECK(stated.experiment["training"]["fp8_scaling"] == "tensorwise");
  CHECK(!mentions(stated.assumptions, "fp8_scaling = delayed"));
  // FP8 attention: unstated is BF16 attention, said; stated true reaches the experiment and is faster.
  CHECK(mentions(stated.assumptions, "fp8_attention = off (not stated"));
  CHECK(!stated.experiment["training"].contains("fp8_attention"));
  const double bf16_attention = predict(r);
  r["precision"]["fp8_attention"] = true;
  const auto& fp8_attn = only_case(read(r));
  CHECK(fp8_attn.experiment["training"]["fp8_attention"] == true);
  CHECK(!mentions(fp8_attn.assumptions, "fp8_attention = off"));
  CHECK(predict(r) > bf16_attention);
  CHECK(c.experiment["parallelism"]["dp"] == 16);
}

TEST_CASE("a stated 16-bit format reads as bf16 where FP16 and BF16 share one peak, said, else it is skipped") {
  json r = base_record();
  r["framework"] = {{"name", "megatron-lm"}, {"version", nullptr}, {"date", "2023-01"}};
  r["precision"]["compute"] = "bf16";
  const double bf16 = predict(r);
  r["precision"]["compute"] = "fp16";
  const double fp16 = predict(r);
  r["precision"]["compute"] = "16-bit";
  const auto& c = only_case(read(r));
  CHECK(c.experiment["training"]["precision"] == "bf16");
  CHECK(mentions(c.assumptions, "precision = bf16 (stated: a 16-bit format, FP16 or BF16 not said; "
                                "h100-sxm5-80gb runs both at 989 TFLOP/s dense"));
  // The gradient reduce width follows the profile's bf16 entry (fp32), printed; fp16 reduces in fp16.
  CHECK(mentions(c.assumptions, "gradient reduce in fp32 (megatron-lm-2023 default for bf16)"));
  CHECK(predict(r) == bf16);
  {
    // A profile whose entry stands for another reduction with the same bytes says so with the value.
    json ds = r;
    ds["framework"] = {{"name", "megatron-deepspeed"}, {"version", nullptr}, {"date", "2022-03"}};
    const auto& d = only_case(read(ds));
    CHECK(mentions(d.assumptions, "gradient reduce in fp32 (megatron-deepspeed-2021 default for bf16: stands for "
                                  "DeepSpeed's BF16_Optimizer"));
  }
  CHECK(fp16 > bf16);  // tokens/s per GPU: the narrower gradient reduce of the fp16 reading is faster
  // A V100 has no BF16 rate: the record has to say which format it ran.
  r["hardware"]["accelerator"] = "NVIDIA V100 SXM2 32GB";
  const auto s = read(r);
  REQUIRE(s.skipped.size() == 1);
  CHECK(s.skipped.front().reason.find("\"16-bit\" does not say FP16 or BF16, and device v100-sxm2-32gb does "
                                      "not run both at one dense peak: state which") != std::string::npos);
}

TEST_CASE("a global batch stated in sequences wins over a disagreeing token count, said") {
  json r = base_record();
  r["parallelism"]["global_batch_tokens"] = 1000000;  // a nominal "1M tokens" beside 128 x 8192
  const auto& c = only_case(read(r));
  CHECK(c.experiment["training"]["global_batch"] == 128);
  CHECK(mentions(c.assumptions, "global_batch = 128 sequences as stated; the stated global_batch_tokens 1000000 "
                                "is not 128 x seq_len 8192 and is not used"));
  r["parallelism"]["global_batch_tokens"] = 128 * 8192;  // agreeing: nothing to say
  CHECK_FALSE(mentions(only_case(read(r)).assumptions, "global_batch_tokens"));
}

TEST_CASE("a catalog node or device entry of the wrong shape skips the record with the file and key") {
  // An extra catalog root (as --configs gives) shadows the bundled DGX H100 node and H100 device entries.
  const auto root = std::filesystem::temp_directory_path() / "clustersim-refrec-badcat";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "nodes");
  std::filesystem::create_directories(root / "devices");
  const auto bundled = std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs";
  const auto load = [](const std::filesystem::path& f) {
    std::ifstream in(f);
    return json::parse(in);
  };
  const json node = load(bundled / "nodes" / "dgx-h100.json");
  const json device = load(bundled / "devices" / "h100-sxm5-80gb.json");
  const auto write = [](const std::filesystem::path& f, const json& j) { std::ofstream(f) << j.dump(); };
  const config::CatalogPaths paths{{root, bundled}};
  json r = base_record();
  r["precision"]["compute"] = "16-bit";
  const auto reason = [&]() {
    const auto s = config::reference_runs_from_json(json::array({r}), "unit.json", paths);
    REQUIRE(s.skipped.size() == 1);
    return s.skipped.front().reason;
  };
  json bad = node;
  bad["device"] = 5;  // was an exception out of json::value, i.e. an internal error for every record
  write(root / "nodes" / "dgx-h100.json", bad);
  CHECK(reason().find("dgx-h100.json: /device must be a string") != std::string::npos);
  bad = node;
  bad["devices_per_node"] = "8";
  write(root / "nodes" / "dgx-h100.json", bad);
  CHECK(reason().find("dgx-h100.json: /devices_per_node must be a non-negative integer") != std::string::npos);
  write(root / "nodes" / "dgx-h100.json", json::array());
  CHECK(reason().find("dgx-h100.json: must be a JSON object") != std::string::npos);
  std::filesystem::remove(root / "nodes" / "dgx-h100.json");
  // A malformed peak is named as such, not as a device without one format.
  json dev = device;
  dev["peak"]["fp16"] = "fast";
  write(root / "devices" / "h100-sxm5-80gb.json", dev);
  CHECK(reason().find("h100-sxm5-80gb.json: /peak/fp16 must be a positive rate") != std::string::npos);
  dev["peak"] = 3;
  write(root / "devices" / "h100-sxm5-80gb.json", dev);
  CHECK(reason().find("h100-sxm5-80gb.json: /peak must be an object") != std::string::npos);
  std::filesystem::remove(root / "devices" / "h100-sxm5-80gb.json");
  // A catalog model of the wrong shape is read by the declared-field model reader: one located error.
  std::filesystem::create_directories(root / "models");
  json model = load(bundled / "models" / "llama3-8b.json");
  model["mlp"] = 3;
  write(root / "models" / "llama3-8b.json", model);
  std::string problem;
  try {
    (void)config::reference_runs_from_json(json::array({r}), "unit.json", paths);
  } catch (const ConfigError& e) {
    problem = e.diagnostics().front().to_string();
  }
  CHECK(problem.find("llama3-8b.json") != std::string::npos);
  CHECK(problem.find("/mlp") != std::string::npos);
  std::filesystem::remove_all(root);
}

TEST_CASE("Megatron-LM 2023 records are charged its README's selective recompute, not a full one, said") {
  json r = base_record();
  r["framework"] = {{"name", "megatron-lm"}, {"version", nullptr}, {"date", "2023-06"}};
  const auto& c = only_case(read(r));
  CHECK(c.profile == "megatron-lm-2023");
  CHECK(c.experiment["training"]["recompute"] == "selective");
  CHECK(c.experiment["training"]["selective_recompute"] == "attention");
  CHECK(mentions(c.assumptions, "recompute = selective (not stated; megatron-lm-2023 default)"));
  CHECK(mentions(c.assumptions, "selective_recompute = attention (not stated; megatron-lm-2023 default)"));
  const double selective = predict(r);  // tokens/s per GPU
  r["parallelism"]["recompute"] = "full";
  CHECK(predict(r) < selective);
  // A stated selective recomputation under a profile without a policy default gets the attention core, said.
  r = base_record();
  r["parallelism"]["recompute"] = "selective";
  const auto& mcore = only_case(read(r));
  CHECK(mcore.experiment["training"]["selective_recompute"] == "attention");
  CHECK(mentions(mcore.assumptions, "selective_recompute = attention (not stated, no profile default"));
}

TEST_CASE("architecture comes from the record or the named catalog model, never a GPT default") {
  json r = base_record();
  for (const char* key : {"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "mlp", "norm",
                          "position", "linear_bias", "tied_embeddings"}) {
    r["model"][key] = nullptr;
  }
  const auto& c = only_case(read(r));
  CHECK(c.experiment["model"]["mlp"] == "swiglu");
  CHECK(c.experiment["model"]["kv_heads"] == 8);
  CHECK(mentions(c.assumptions, "model.mlp = \"swiglu\" (not stated; catalog model llama3-8b)"));
  r["model"]["catalog_hint"] = nullptr;
  r["framework"]["name"] = "other";
  const auto s = read(r);
  REQUIRE(s.skipped.size() == 1);
  CHECK(s.skipped.front().reason.find("model.layers not stated") != std::string::npos);
}

TEST_CASE("accelerators map to nodes by exact name, B200, B300 and H800 predict, an unlisted name is skipped") {
  json r = base_record();
  r["hardware"]["accelerator"] = "NVIDIA B200";
  CHECK(only_case(read(r)).experiment["cluster"]["node"] == "dgx-b200");
  r["hardware"]["accelerator"] = "NVIDIA H800";
  CHECK(only_case(read(r)).experiment["cluster"]["node"] == "hgx-h800");
  // The name NVIDIA's Megatron-Bridge performance tables' DGX-B300 rows are recorded under.
  r["hardware"]["accelerator"] = "NVIDIA B300 (HGX/DGX B300)";
  CHECK(only_case(read(r)).experiment["cluster"]["node"] == "dgx-b300");
  r["hardware"]["accelerator"] = "NVIDIA B300";  // exact names only: no substring or prefix matching
  const auto s = read(r);
  REQUIRE(s.skipped.size() == 1);
  CHECK(s.skipped.front().reason.find("is not listed in reference/accelerators.json") != std::string::npos);
}

TEST_CASE("GB200 NVL72 jobs are placed as equal NVLink domains of whole trays, said as an assumption") {
  json r = base_record();
  r["hardware"]["accelerator"] = "NVIDIA GB200 NVL72";
  r["hardware"]["gpus_per_node"] = nullptr;
  SECTION("64 GPUs fit one 72-GPU domain as 16 trays of 4") {
    const auto c = only_case(read(r));
    CHECK(c.experiment["cluster"]["node"] == "gb200-nvl72");
    CHECK(c.experiment["cluster"]["nodes"] == 16);
    REQUIRE(c.domain_devices_override);
    CHECK(*c.domain_devices_override == 64);
    CHECK(mentions(c.assumptions, "placement = 1 NVLink domain(s) of 64 devices"));
  }
  SECTION("128 GPUs are two domains of 64") {
    r["hardware"]["count"] = 128;
    const auto c = only_case(read(r));
    REQUIRE(c.domain_devices_override);
    CHECK(*c.domain_devices_override == 64);
  }
  SECTION("144 GPUs fill two whole domains: no override") {
    r["hardware"]["count"] = 144;
    r["parallelism"]["global_batch"] = 144;
    CHECK_FALSE(only_case(read(r)).domain_devices_override);
  }
  SECTION("it predicts") {
    r["parallelism"]["tp"] = 1;
    CHECK(predict(r) > 0);
  }
}

TEST_CASE("a power limit the accelerator name states slows the device through the DVFS model") {
  json r = base_record();
  r["hardware"]["accelerator"] = "NVIDIA H100 SXM5 80GB";
  const double full = predict(r);
  r["hardware"]["accelerator"] = "NVIDIA H100 SXM 96GB HBM2e (500 W power limit)";
  const auto c = only_case(read(r));
  CHECK(c.experiment["energy"]["power_cap"] == "500 W");
  CHECK(mentions(c.assumptions, "power cap 500 W"));
  const double capped = predict(r);
  CHECK(capped < full);        // tokens/s per GPU falls under the cap
  CHECK(capped > 0.8 * full);  // compute slows by at most (630/430)^(1/3) = 1.14 (docs/energy.md)
}

TEST_CASE("a layer count the pipeline cannot split is skipped with the reason") {
  json r = base_record();
  r["model"]["layers"] = 126;
  r["parallelism"]["pp"] = 16;
  r["parallelism"]["tp"] = 4;
  const ValidationResult v = run_validation(read(r), kPaths);
  REQUIRE(v.skipped.size() == 1);
  // megatron-core-2024 declares no rule for uneven stages: the reason says what to state.
  CHECK(v.skipped.front().reason.find("do not divide over pp·vp = 16") != std::string::npos);
  CHECK(v.skipped.front().reason.find("pipeline_split") != std::string::npos);
}

TEST_CASE("framework rules for layers that do not divide over the pipeline chunks") {
  using config::pipeline_split_layers;
  SECTION("Megatron-Core embedding/loss accounting: first and last chunk one layer fewer") {
    std::vector<int> want(16, 8);
    want.front() = want.back() = 7;
    CHECK(pipeline_split_layers("ends-one-fewer", 126, 16) == want);
    const auto deep = pipeline_split_layers("ends-one-fewer", 126, 64);  // pp 8 x vp 8
    REQUIRE(deep);
    CHECK(deep->front() == 1);
    CHECK(deep->back() == 1);
    CHECK((*deep)[1] == 2);
    CHECK(!pipeline_split_layers("ends-one-fewer", 125, 16));  // Megatron asserts (layers + 2) % chunks
    const auto one = pipeline_split_layers("ends-one-fewer", 126, 128);  // pp 16 x vp 8: 128 = 126 + 2
    REQUIRE(one);
    CHECK(one->front() == 0);  // the embedding alone
    CHECK(one->back() == 0);   // the loss alone
    CHECK((*one)[64] == 1);
  }
  SECTION("torchtitan split points: remainder to the middle stages") {
    CHECK(pipeline_split_layers("remainder-to-middle", 126, 8) == std::vector<int>{15, 16, 16, 16, 16, 16, 16, 15});
    CHECK(pipeline_split_layers("remainder-to-middle", 10, 4) == std::vector<int>{2, 3, 3, 2});
    CHECK(pipeline_split_layers("remainder-to-middle", 11, 4) == std::vector<int>{2, 3, 3, 3});
    CHECK(pipeline_split_layers("remainder-to-middle", 32, 8) == std::vector<int>(8, 4));
    CHECK(!pipeline_split_layers("remainder-to-middle", 4, 8));
  }
  SECTION("DeepSpeed partition_method type:transformer and type:transformer|embedding") {
    // Expected values are what DeepSpeed's own partition_balanced (runtime/utils.py at 29bee73, run in
    // Python over GPTModelPipe's layer list) returns; the first two are printed by BigScience's pages.
    std::vector<int> bloom(12, 6);
    bloom.front() = bloom.back() = 5;  // tr11-176B-ml README: [embed | 5 blocks], 6 x 10, [5 blocks | embed]
    CHECK(pipeline_split_layers("deepspeed-transformer-embedding", 70, 12) == bloom);
    std::vector<int> prequel(12, 7);
    prequel.back() = 1;  // chronicles-prequel.md: "the last stage has 1 block, while the rest have 7"
    CHECK(pipeline_split_layers("deepspeed-transformer", 78, 12) == prequel);
    std::vector<int> emb78(12, 7);
    emb78.front() = 6;
    emb78.back() = 2;
    CHECK(pipeline_split_layers("deepspeed-transformer-embedding", 78, 12) == emb78);
    CHECK(pipeline_split_layers("deepspeed-transformer", 30, 4) == std::vector<int>{8, 8, 8, 6});
    CHECK(pipeline_split_layers("deepspeed-transformer-embedding", 10, 4) == std::vector<int>{2, 3, 3, 2});
    CHECK(pipeline_split_layers("deepspeed-transformer", 1000, 7) ==
          std::vector<int>{143, 143, 143, 143, 143, 143, 142});
    CHECK(pipeline_split_layers("deepspeed-transformer-embedding", 1000, 7) ==
          std::vector<int>{143, 144, 144, 144, 144, 144, 137});
    CHECK(pipeline_split_layers("deepspeed-transformer", 64, 16) == std::vector<int>(16, 4));
    // Where DeepSpeed leaves a stage without a transformer layer, Megatron-DeepSpeed fails to run
    // ("the current implementation of PP fails unless each stage has at least one transformer layer").
    CHECK(!pipeline_split_layers("deepspeed-transformer", 5, 4));  // DeepSpeed: 2, 2, 1, 0
    CHECK(!pipeline_split_layers("deepspeed-transformer-embedding", 95, 24));
    CHECK(!pipeline_split_layers("deepspeed-transformer", 3, 4));
    // Divisible with the embeddings counted: the same as Megatron-Core's embedding/loss accounting.
    CHECK(pipeline_split_layers("deepspeed-transformer-embedding", 106, 12) ==
          pipeline_split_layers("ends-one-fewer", 106, 12));
  }
  SECTION("even") {
    CHECK(pipeline_split_layers("even", 32, 8) == std::vector<int>(8, 4));
    CHECK(!pipeline_split_layers("even", 126, 16));
  }
}

TEST_CASE("126 layers over 16 stages predict under a profile or a stated split rule") {
  json r = base_record();
  r["model"]["layers"] = 126;
  r["parallelism"]["pp"] = 16;
  r["parallelism"]["tp"] = 4;
  r["hardware"]["count"] = 128;
  r["parallelism"]["global_batch"] = 64;
  SECTION("megatron-core-2025 profile: embedding/loss accounting, listed as an assumption") {
    r["framework"]["date"] = "2025-06";
    const auto c = only_case(read(r));
    CHECK(c.experiment["parallelism"]["pipeline_layers"].size() == 16);
    CHECK(c.experiment["parallelism"]["pipeline_layers"][0] == 7);
    CHECK(mentions(c.assumptions, "pipeline_layers = [7,8,"));
    CHECK(predict(r) > 0);
  }
  SECTION("a stated rule wins and needs no profile default") {
    r["parallelism"]["pipeline_split"] = "remainder-to-middle";
    const auto c = only_case(read(r));
    CHECK(c.experiment["parallelism"]["pipeline_layers"][0] == 7);
    CHECK(c.experiment["parallelism"]["pipeline_layers"][1] == 8);
    CHECK(mentions(c.assumptions, "stated rule remainder-to-middle"));
  }
  SECTION("the lighter end stages are not the critical path: the split is faster than one more layer each") {
    r["framework"]["date"] = "2025-06";
    const double uneven = predict(r);
    json heavier = r;
    heavier["model"]["layers"] = 128;
    CHECK(uneven > predict(heavier));  // tokens/s/GPU: fewer layers per step is faster
  }
  SECTION("a stated even split of 126 layers over 16 stages is a skip with the reason") {
    r["parallelism"]["pipeline_split"] = "even";
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("cannot spread 126 layers") != std::string::npos);
  }
}

TEST_CASE("zero-bubble variants: zb-h1, zb-1p, zb-2p and v-half are built as stated, zb-v/v-min are skips that name the schedule") {
  json r = base_record();
  r["parallelism"]["pp"] = 8;
  r["parallelism"]["tp"] = 1;
  r["hardware"]["count"] = 8;
  r["parallelism"]["global_batch"] = 32;
  SECTION("zb-h1 reaches the experiment with no assumption; plain zb is read as ZB-H1, said") {
    r["parallelism"]["schedule"] = "zb-h1";
    const auto c = only_case(read(r));
    CHECK(c.experiment["parallelism"]["schedule"] == "zb-h1");
    CHECK(!mentions(c.assumptions, "schedule zb read as"));
    r["parallelism"]["schedule"] = "zb";
    const auto plain = only_case(read(r));
    CHECK(plain.experiment["parallelism"]["schedule"] == "zb-h1");
    CHECK(mentions(plain.assumptions, "schedule zb read as ZB-H1"));
    // One chunk per rank: a stated vp > 1 is a skip with the reason, as for 1f1b (it was dropped silently).
    r["parallelism"]["vp"] = 2;
    for (const char* s : {"zb", "zb-h1"}) {
      r["parallelism"]["schedule"] = s;
      const auto skipped = read(r);
      REQUIRE(skipped.skipped.size() == 1);
      CHECK(skipped.skipped.front().reason == fmt::format("schedule {} holds one chunk per rank, but vp = 2", s));
    }
  }
  SECTION("zb-1p and zb-2p (the automatic scheduler) reach the experiment as stated and predict otherwise") {
    r["parallelism"]["schedule"] = "zb-h1";
    const double h1 = predict(r);
    double searched[2] = {0, 0};
    int k = 0;
    for (const char* s : {"zb-1p", "zb-2p"}) {
      r["parallelism"]["schedule"] = s;
      const auto c = only_case(read(r));
      CHECK(c.experiment["parallelism"]["schedule"] == s);
      CHECK(!mentions(c.assumptions, "schedule"));
      searched[k++] = predict(r);
    }
    CHECK(searched[1] != Approx(searched[0]).epsilon(1e-9));
    CHECK(searched[1] != Approx(h1).epsilon(1e-9));
    r["parallelism"]["vp"] = 2;  // one chunk per rank, like zb-h1
    const auto skipped = read(r);
    REQUIRE(skipped.skipped.size() == 1);
    CHECK(skipped.skipped.front().reason == "schedule zb-2p holds one chunk per rank, but vp = 2");
  }
  SECTION("zb-v is skipped, the reason naming the schedule before a missing field") {
    r["model"]["vocab"] = nullptr;  // the schedule is the reason, not the vocabulary
    r["model"]["catalog_hint"] = nullptr;
    r["parallelism"]["schedule"] = "zb-v";
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.rows.empty());
    CHECK(v.skipped.front().reason.find("schedule zb-v") != std::string::npos);
    CHECK(v.skipped.front().reason.find("not expressible") != std::string::npos);
  }
  SECTION("v-half reaches the experiment as stated and predicts otherwise than ZB-H1; v-min is skipped") {
    r["parallelism"]["schedule"] = "v-half";
    const auto c = only_case(read(r));
    CHECK(c.experiment["parallelism"]["schedule"] == "v-half");
    CHECK(!c.experiment["parallelism"].contains("vp"));
    CHECK(!mentions(c.assumptions, "schedule"));
    const double v_half = predict(r);
    r["parallelism"]["schedule"] = "zb-h1";
    CHECK(predict(r) != Approx(v_half).epsilon(1e-6));
    r["model"]["vocab"] = nullptr;  // the schedule is the reason, not the vocabulary
    r["model"]["catalog_hint"] = nullptr;
    r["parallelism"]["schedule"] = "v-min";
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.rows.empty());
    CHECK(v.skipped.front().reason.find("schedule v-min") != std::string::npos);
    CHECK(v.skipped.front().reason.find("not expressible") != std::string::npos);
  }
  SECTION("v-half with what its reference does not run is a skip that says why") {
    r["parallelism"]["schedule"] = "v-half";
    const auto reason = [&] {
      const auto set = read(r);
      REQUIRE(set.skipped.size() == 1);
      return set.skipped.front().reason;
    };
    SECTION("a stated vp") {
      r["parallelism"]["vp"] = 2;
      CHECK(reason().find("schedule v-half holds its two chunks per rank by itself, but vp = 2") != std::string::npos);
    }
    SECTION("layers that do not divide over 2·pp") {
      r["parallelism"]["pp"] = 16;
      r["hardware"]["count"] = 16;
      r["parallelism"]["global_batch"] = 64;
      r["model"]["catalog_hint"] = nullptr;
      r["model"]["layers"] = 48;
      CHECK(reason().find("48 layers do not divide over the 2·pp = 32 chunks of schedule v-half") != std::string::npos);
    }
    SECTION("a stated pipeline_split") {
      r["parallelism"]["pipeline_split"] = "balanced";
      CHECK(reason().find("with schedule v-half") != std::string::npos);
    }
    SECTION("the interlaced vocabulary pipeline") {
      r["parallelism"]["vocab_parallel"] = "interlaced";
      CHECK(reason().find("schedule v-half with vocab_parallel interlaced") != std::string::npos);
    }
  }
  SECTION("an unknown variant is an error at its pointer") {
    r["parallelism"]["schedule"] = "v-min";  // a known value reads without a problem (then is skipped)
    CHECK(first_problem(r).empty());
    r["parallelism"]["schedule"] = "v-zb";
    CHECK(first_problem(r).find("/0/parallelism/schedule") != std::string::npos);
    r["parallelism"]["schedule"] = "zb-3p";
    CHECK(first_problem(r).find("/0/parallelism/schedule") != std::string::npos);
  }
}

TEST_CASE("a stated dp with tp unstated derives tp from the devices left, said as an assumption") {
  json r = base_record();
  r["framework"] = {{"name", "torchtitan"}, {"version", nullptr}, {"date", "2024-08"}};
  r["parallelism"]["tp"] = nullptr;
  r["parallelism"]["pp"] = nullptr;
  r["parallelism"]["dp"] = 16;
  r["parallelism"]["fsdp"] = true;
  r["hardware"]["count"] = 128;
  const auto c = only_case(read(r));
  CHECK(c.experiment["parallelism"]["tp"] == 8);  // 128 / (pp 1 · cp 1 · dp 16)
  CHECK(c.experiment["parallelism"]["dp"] == 16);
  CHECK(mentions(c.assumptions, "tp = 8 (derived: devices 128 / (pp 1 · cp 1 · stated dp 16); pp 1 is the torchtitan-2024 default)"));
  SECTION("a dp that leaves a fraction of a tensor group is still a skip") {
    r["parallelism"]["dp"] = 48;
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("stated dp 48") != std::string::npos);
  }
}

// The mirror of dp = devices / (tp·pp·cp): a record that states tp and dp and the device count but no pp
// (Nemotron-4 15B: "8-way tensor parallelism and data parallelism", DP 96 on 768 GPUs) has pp =
// devices / (tp·cp·dp), printed as a derived value. megatron-core-2024 declares no pp default, so without the
// rule the record is skipped.
TEST_CASE("a stated tp and dp with pp unstated derive pp from the devices left, said as an assumption") {
  json r = base_record();
  r["parallelism"]["tp"] = 2;
  r["parallelism"]["pp"] = 4;
  r["parallelism"]["dp"] = 8;
  const double stated = predict(r);
  r["parallelism"]["pp"] = nullptr;
  const auto c = only_case(read(r));
  CHECK(c.experiment["parallelism"]["pp"] == 4);  // 64 / (tp 2 · cp 1 · dp 8)
  CHECK(c.experiment["parallelism"]["dp"] == 8);
  CHECK(mentions(c.assumptions, "pp = 4 (derived: devices 64 / (stated tp 2 · cp 1 · stated dp 8))"));
  CHECK(predict(r) == Approx(stated).epsilon(1e-12));
  SECTION("a stated cp is a factor too") {
    r["parallelism"]["cp"] = 2;
    r["parallelism"]["dp"] = 4;
    const auto with_cp = only_case(read(r));
    CHECK(with_cp.experiment["parallelism"]["pp"] == 4);  // 64 / (2 · 2 · 4)
    CHECK(mentions(with_cp.assumptions, "pp = 4 (derived: devices 64 / (stated tp 2 · cp 2 · stated dp 4))"));
  }
  SECTION("tp·cp·dp that does not divide the devices is a skip that says why") {
    r["parallelism"]["dp"] = 3;
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason ==
          "parallelism.pp not stated, and devices 64 are not a multiple of stated tp 2 · cp 1 · stated dp 3 = 6, "
          "so pp cannot be derived");
  }
  SECTION("tp·cp·dp larger than the devices is a skip too") {
    r["parallelism"]["dp"] = 64;
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("so pp cannot be derived") != std::string::npos);
  }
  SECTION("counts whose product overflows 64 bits are a skip, not a wrapped product") {
    // 2^31 - 1 each: tp·cp·dp is about 2^93; computed naively it wraps (a review found a wrapped product
    // of 4 deriving pp = 16 from nothing).
    r["parallelism"]["tp"] = 2147483647;
    r["parallelism"]["cp"] = 2147483647;
    r["parallelism"]["dp"] = 2147483647;
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("is more than the 64 devices, so pp cannot be derived") !=
          std::string::npos);
  }
  SECTION("a derived pp that contradicts the profile's pp default is a skip (dp may be a shard degree)") {
    r["framework"] = {{"name", "torchtitan"}, {"version", nullptr}, {"date", "2024-12"}};
    r["parallelism"] = json::parse(R"({"tp": 2, "dp": 8, "fsdp": true, "micro_batch": 1, "global_batch": 64})");
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("contradicts the torchtitan-2024 default pp 1") != std::string::npos);
  }
  SECTION("a record that is not FSDP-style derives pp even where its profile declares one") {
    // Megatron-LM 2020's profile declares pp 1 (the argument default); a stated tp and dp still fix pp.
    r["framework"] = {{"name", "megatron-lm"}, {"version", nullptr}, {"date", "2020-11"}};
    const auto mlm = only_case(read(r));
    CHECK(mlm.experiment["parallelism"]["pp"] == 4);
    CHECK(mentions(mlm.assumptions, "pp = 4 (derived: devices 64 / (stated tp 2"));
  }
  SECTION("a MoE record: ep is no factor (the expert grid lies over the tp·cp·dp ranks of a stage)") {
    r["model"] = json::parse(R"({"name": "Mixtral 8x7B", "catalog_hint": "mixtral-8x7b", "seq_len": 4096,
      "moe": {"num_experts": 8, "top_k": 2}})");
    r["parallelism"] = json::parse(R"({"tp": 2, "pp": 4, "dp": 8, "ep": 8, "micro_batch": 1, "global_batch": 64})");
    const double moe_stated = predict(r);
    r["parallelism"]["pp"] = nullptr;
    const auto moe = only_case(read(r));
    CHECK(moe.experiment["parallelism"]["pp"] == 4);
    CHECK(moe.experiment["parallelism"]["ep"] == 8);
    CHECK(predict(r) == Approx(moe_stated).epsilon(1e-12));
  }
}

// A framework's per-rank batch as printed ("Local batch size 8"): global_batch = local_batch x dp, said. A
// global_batch_tokens that is no multiple of seq_len says so instead of "not stated"; a profile's
// micro_batch x dp rule is refused with pp > 1 when the profile does not say how many micro-batches a
// replica runs (review of 2026-11-26).
TEST_CASE("local_batch gives global_batch = local_batch x dp, printed, batch readings that would drop work are skips") {
  json r = base_record();
  r["parallelism"] = json::parse(R"({"tp": 2, "pp": 4, "dp": 8, "micro_batch": 1, "global_batch": 64})");
  const double stated = predict(r);
  r["parallelism"]["global_batch"] = nullptr;
  r["parallelism"]["local_batch"] = 8;
  const auto c = only_case(read(r));
  CHECK(c.experiment["training"]["global_batch"] == 64);
  CHECK(mentions(c.assumptions, "global_batch = local_batch 8 x dp 8 = 64 sequences"));
  CHECK(predict(r) == Approx(stated).epsilon(1e-12));
  SECTION("a wrong type is an error, not 'not stated'") {
    r["parallelism"]["local_batch"] = "8";
    CHECK(first_problem(r).find("/0/parallelism/local_batch") != std::string::npos);
  }
  SECTION("a stated global_batch that contradicts local_batch x dp is a skip") {
    r["parallelism"]["global_batch"] = 128;
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("stated global_batch 128 != local_batch 8 x dp 8") != std::string::npos);
  }
  SECTION("local_batch x dp past 2^31 - 1 sequences is a skip, not an overflow") {
    r["parallelism"]["local_batch"] = 2147483647;
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("is more than 2147483647 sequences") != std::string::npos);
  }
  SECTION("global_batch_tokens that is no multiple of seq_len") {
    r["parallelism"]["local_batch"] = nullptr;
    r["parallelism"]["global_batch_tokens"] = 1000;
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("global_batch_tokens 1000 is not a multiple of seq_len") !=
          std::string::npos);
  }
  SECTION("torchtitan 2025 with pp > 1 and only micro_batch: the micro-batch count is unknown") {
    r["framework"] = {{"name", "torchtitan"}, {"version", nullptr}, {"date", "2025-06"}};
    r["parallelism"] = json::parse(R"({"tp": 2, "pp": 4, "dp": 8, "fsdp": true, "micro_batch": 1})");
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("with pp 4 > 1 the micro-batches per replica are not known") !=
          std::string::npos);
  }
}

// torchtitan at the 2024-12 benchmarks' commit (pytorch/torchtitan 9dec370, pipelining_utils.py
// build_pipeline_schedule): n_microbatches defaults to the pipeline degree, so the per-replica batch
// global_batch / dp is split into pp micro-batches (profile torchtitan-2024). 2025 code differs (pp x stages
// per rank from 2025-01-07, micro-batch size 1 from 2025-04-07): profile torchtitan declares no rule.
TEST_CASE("torchtitan 2024 splits the per-replica batch into pp pipeline micro-batches, said") {
  json r = base_record();
  r["framework"] = {{"name", "torchtitan"}, {"version", nullptr}, {"date", "2024-12"}};
  r["parallelism"] = json::parse(
      R"({"tp": 2, "pp": 4, "dp": 8, "fsdp": true, "micro_batch": 4, "global_batch": 128, "schedule": "1f1b"})");
  const double stated = predict(r);
  r["parallelism"]["micro_batch"] = nullptr;
  const auto c = only_case(read(r));
  CHECK(c.profile == "torchtitan-2024");
  CHECK(c.experiment["training"]["micro_batch"] == 4);  // 128 / (dp 8 · pp 4)
  CHECK(mentions(c.assumptions, "micro_batch = global_batch / (dp · pp) = 128 / (8 · 4) = 4 (not stated; "
                                "torchtitan-2024: the per-replica batch split into pp pipeline micro-batches)"));
  CHECK(predict(r) == Approx(stated).epsilon(1e-12));
  SECTION("a stated micro-batch without a global batch: pp micro-batches per replica") {
    r["parallelism"]["micro_batch"] = 4;
    r["parallelism"]["global_batch"] = nullptr;
    const auto g = only_case(read(r));
    CHECK(g.experiment["training"]["global_batch"] == 128);
    CHECK(mentions(g.assumptions, "global_batch = micro_batch x pp x dp = 128"));
  }
  SECTION("interleaved: two stages per rank (generate_split_points) and pp micro-batches") {
    r["parallelism"]["schedule"] = "interleaved";
    const auto i = only_case(read(r));
    CHECK(i.experiment["parallelism"]["vp"] == 2);
    CHECK(i.experiment["training"]["micro_batch"] == 4);
  }
  SECTION("a global batch that does not split is a skip that says why") {
    r["parallelism"]["global_batch"] = 100;
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("needs global_batch 100 to be a multiple of dp·pp = 8·4") !=
          std::string::npos);
  }
  SECTION("torchtitan of 2025 declares no micro-batch rule") {
    r["framework"]["date"] = "2025-06";
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason ==
          "parallelism.micro_batch not stated and profile torchtitan-2025 declares no default for it");
  }
}

TEST_CASE("throughput is compared like with like") {
  json r = base_record();
  const ValidationResult per_gpu = run_validation(read(r), kPaths);
  r["measured"] = {{"tokens_per_s", 9000.0 * 64}};
  const ValidationResult whole = run_validation(read(r), kPaths);
  r["measured"] = {{"step_time_s", 2.0}};
  const ValidationResult step = run_validation(read(r), kPaths);
  REQUIRE(per_gpu.rows.size() == 1);
  REQUIRE(whole.rows.size() == 1);
  REQUIRE(step.rows.size() == 1);
  CHECK(per_gpu.rows[0].metric == "tokens_per_s_per_gpu");
  CHECK(whole.rows[0].predicted == Approx(per_gpu.rows[0].predicted * 64));
  CHECK(step.rows[0].predicted == Approx(128.0 * 8192 / whole.rows[0].predicted));
  CHECK(whole.rows[0].rel_error == Approx(per_gpu.rows[0].rel_error));
}

TEST_CASE("an experiment can name a profile, the keys it states win") {
  json e = json::parse(R"({"schema_version": 1, "name": "p", "cluster": {"node": "dgx-h100", "nodes": 2},
    "model": "llama3-8b", "parallelism": {"tp": 2}, "training": {"global_batch": 64},
    "profile": "megatron-core-2024"})");
  const Scenario s = config::scenario_from_json(e, kPaths, "p.json");
  CHECK(s.parallelism.sequence_parallel);
  CHECK(s.parallelism.tp_comm_overlap);
  CHECK(s.training.micro_batch == 1);
  e["parallelism"]["sequence_parallel"] = false;
  e["training"]["flash_attention"] = false;
  const Scenario stated = config::scenario_from_json(e, kPaths, "p.json");
  CHECK_FALSE(stated.parallelism.sequence_parallel);
  CHECK_FALSE(stated.training.flash_attention);
  e["profile"] = "megatron-core-1999";
  try {
    config::scenario_from_json(e, kPaths, "p.json");
    FAIL("an unknown profile must be an error");
  } catch (const ConfigError& err) {
    CHECK(err.diagnostics().front().to_string().find("p.json:/profile: unknown profile") !=
          std::string::npos);
  }
}

TEST_CASE("profiles are read strictly: unknown keys, missing citations and overlapping dates are errors") {
  const std::filesystem::path root = std::filesystem::temp_directory_path() / "clustersim-profile-test";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "profiles");
  auto write = [&](const std::string& name, const json& doc) {
    std::ofstream(root / "profiles" / (name + ".json")) << doc.dump();
  };
  const json good = {{"name", "a"},
                     {"frameworks", {"torchtitan"}},
                     {"dates", {{"from", "2024-01"}, {"to", "2024-12"}}},
                     {"defaults", {{"recompute", "full"}}},
                     {"sources", {{"recompute", "a citation"}}}};
  auto problem = [&]() -> std::string {
    try {
      config::read_framework_profiles({{root}});
    } catch (const ConfigError& e) {
      return e.diagnostics().front().to_string();
    }
    return "";
  };
  write("a", good);
  CHECK(problem().empty());
  SECTION("unknown key") {
    json bad = good;
    bad["defaults"]["recomput"] = "full";
    write("a", bad);
    CHECK(problem().find("a.json:/defaults/recomput: unknown key") != std::string::npos);
  }
  SECTION("a default without a citation") {
    json bad = good;
    bad["defaults"]["flash_attention"] = true;
    write("a", bad);
    CHECK(problem().find("a.json:/sources/flash_attention: missing citation") != std::string::npos);
  }
  SECTION("two profiles covering the same framework and month") {
    json other = good;
    other["name"] = "b";
    other["dates"]["from"] = "2024-06";
    other["dates"]["to"] = "2025-06";
    write("b", other);
    CHECK(problem().find("overlap profile a") != std::string::npos);
  }
  std::filesystem::remove_all(root);
}

TEST_CASE("a profile accepts every value of each enumeration it defaults (the names of enum_names.hpp)") {
  const std::filesystem::path root = std::filesystem::temp_directory_path() / "clustersim-profile-enums";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "profiles");
  // key -> (every name the experiment accepts, where the reader puts it)
  using Get = std::function<std::optional<std::string>(const config::FrameworkProfile&)>;
  const auto model = [](const char* key) {
    return Get([key](const config::FrameworkProfile& p) -> std::optional<std::string> {
      if (!p.model.contains(key)) return std::nullopt;
      return p.model.at(key).get<std::string>();
    });
  };
  const std::vector<std::tuple<std::string, std::vector<std::string_view>, Get>> keys = {
      {"precision", {config::kPrecisionChoices.begin(), config::kPrecisionChoices.end()},
       [](const config::FrameworkProfile& p) { return p.precision; }},
      {"recompute", {config::kRecomputeChoices.begin(), config::kRecomputeChoices.end()},
       [](const config::FrameworkProfile& p) { return p.recompute; }},
      {"selective_recompute", {config::kSelectivePolicyChoices.begin(), config::kSelectivePolicyChoices.end()},
       [](const config::FrameworkProfile& p) { return p.selective_recompute; }},
      {"fp8_scaling", {config::kFp8ScalingChoices.begin(), config::kFp8ScalingChoices.end()},
       [](const config::FrameworkProfile& p) { return p.fp8_scaling; }},
      {"attention_kernel", {config::kAttentionKernelChoices.begin(), config::kAttentionKernelChoices.end()},
       [](const config::FrameworkProfile& p) { return p.attention_kernel; }},
      {"model/mlp", {config::kMlpChoices.begin(), config::kMlpChoices.end()}, model("mlp")},
      {"model/norm", {config::kNormChoices.begin(), config::kNormChoices.end()}, model("norm")},
  };
  std::size_t checked = 0;
  for (const auto& [key, names, get] : keys) {
    for (const std::string_view name : names) {
      json doc = {{"name", "a"},
                  {"frameworks", {"torchtitan"}},
                  {"dates", {{"from", "2024-01"}, {"to", "2024-12"}}},
                  {"defaults", json::object()},
                  {"sources", json::object()}};
      const auto slash = key.find('/');
      if (slash == std::string::npos) {
        doc["defaults"][key] = name;
        doc["sources"][key] = "a citation";
      } else {
        doc["defaults"]["model"][key.substr(slash + 1)] = name;
        doc["sources"]["model"] = "a citation";
      }
      std::ofstream(root / "profiles" / "a.json") << doc.dump();
      INFO(key << " = " << name);
      const std::vector<config::FrameworkProfile> profiles = config::read_framework_profiles({{root}});
      REQUIRE(profiles.size() == 1);
      CHECK(get(profiles.front()) == std::optional<std::string>(std::string(name)));
      ++checked;
    }
  }
  CHECK(checked >= 20);  // blockwise among them: the profile's own list once lacked it
  std::filesystem::remove_all(root);
}

TEST_CASE("TPU v5e and v3 records run on their host entries") {
  for (const char* accelerator : {"Google TPU v5e", "Google TPU v3"}) {
    json r = base_record();
    r["hardware"]["accelerator"] = accelerator;
    r["hardware"]["gpus_per_node"] = nullptr;
    INFO(accelerator);
    const auto c = only_case(read(r));
    CHECK(c.experiment["cluster"]["node"].get<std::string>().starts_with("tpu-v"));
    CHECK(predict(r) > 0);
  }
}

TEST_CASE("a MoE record's stated expert-parallel overlap reaches the experiment, unstated it is none, said") {
  json r = base_record();
  r["model"] = json::parse(R"({"name": "Mixtral 8x7B", "catalog_hint": "mixtral-8x7b", "seq_len": 4096,
    "moe": {"num_experts": 8, "top_k": 2}})");
  r["parallelism"] = json::parse(R"({"tp": 1, "pp": 1, "ep": 8, "micro_batch": 1, "global_batch": 64})");
  const auto& plain = only_case(read(r));
  CHECK(!plain.experiment["parallelism"].contains("moe_overlap"));
  CHECK(mentions(plain.assumptions, "moe_overlap = none (not stated"));
  r["parallelism"]["moe_overlap"] = "compute";
  const auto& hidden = only_case(read(r));
  CHECK(hidden.experiment["parallelism"]["moe_overlap"] == "compute");
  CHECK(!mentions(hidden.assumptions, "moe_overlap"));
  // Hiding the all-to-alls under compute makes the step faster, never slower.
  json exposed = r;
  exposed["parallelism"]["moe_overlap"] = "none";
  CHECK(predict(r) > predict(exposed));
  r["parallelism"]["moe_overlap"] = "always";
  CHECK_THROWS_WITH(read(r), Catch::Contains("/0/parallelism/moe_overlap: unknown value \"always\""));
}

// Megatron-Bridge 25.09's token-drop runs (apply_moe_token_drop: capacity factor 1.0, padded to capacity)
// compute capacity = tokens * top_k / E rows per expert, the balanced mean: stating the factor changes no
// prediction of a balanced record (docs/moe.md, "Megatron-Bridge performance summary").
TEST_CASE("a stated capacity factor of 1 reaches the experiment and costs what balanced dropless routing does") {
  json r = base_record();
  r["model"] = json::parse(R"({"name": "Mixtral 8x7B", "catalog_hint": "mixtral-8x7b", "seq_len": 4096,
    "moe": {"num_experts": 8, "top_k": 2}})");
  r["parallelism"] = json::parse(R"({"tp": 1, "pp": 1, "ep": 8, "micro_batch": 1, "global_batch": 64})");
  const double dropless = predict(r);
  r["model"]["moe"]["capacity_factor"] = 1.0;
  CHECK(only_case(read(r)).experiment["model"]["moe"]["capacity_factor"] == 1.0);
  CHECK(predict(r) == Approx(dropless).epsilon(1e-12));
  CHECK(!mentions(only_case(read(r)).assumptions, "capacity"));
}

// MaxText's 2023 default decoder (commit 76bd53b0f, profile maxtext-2023) and the llama2 block that
// became the default on 2024-02-14 (profile maxtext): the architecture a MaxText record leaves out, and
// MaxText's batch semantics (no gradient accumulation: one pass over global_batch / dp per replica).
TEST_CASE("MaxText records take the decoder of their date and its batch rule from the profile, said") {
  json r = base_record();
  r["framework"] = {{"name", "maxtext"}, {"version", nullptr}, {"date", "2023-12"}};
  r["hardware"] = {{"accelerator", "Google TPU v5p"}, {"count", 128}, {"gpus_per_node", 4}};
  r["model"] = json::parse(R"({"name": "MaxText 128B", "layers": 64, "hidden": 10240, "heads": 64,
      "kv_heads": 64, "head_dim": 256, "ffn_hidden": 65536, "vocab": 32768, "seq_len": 2048,
      "mlp": null, "norm": null, "position": null, "linear_bias": null, "tied_embeddings": null,
      "parallel_block": null, "moe": null})");
  r["parallelism"] = {{"tp", 8}, {"pp", 1}, {"micro_batch", nullptr}, {"global_batch", 256}, {"fsdp", "full_shard"}};
  r["measured"] = {{"tflops_per_gpu", 315}, {"tflops_basis", "model"}};
  const auto c = only_case(read(r));
  CHECK(c.profile == "maxtext-2023");
  const json& m = c.experiment["model"];
  CHECK(m["norm"] == "rmsnorm");
  CHECK(m["position"] == "rotary");
  CHECK(m["linear_bias"] == false);
  CHECK(m["tied_embeddings"] == true);
  CHECK(m["parallel_block"] == true);
  CHECK(m["mlp"] == "gelu");  // relu: a two-matrix MLP costed with the GELU kernels
  for (const char* said : {"model.norm = \"rmsnorm\" (not stated; maxtext-2023 default)",
                           "model.position = \"rope\" (not stated; maxtext-2023 default)",
                           "model.linear_bias = false (not stated; maxtext-2023 default)",
                           "model.parallel_block = true (not stated; maxtext-2023 default)",
                           "model.mlp = \"relu\" (not stated; maxtext-2023 default)",
                           "micro_batch = global_batch / dp = 16 (not stated; maxtext-2023: no gradient accumulation)",
                           "tp_comm_overlap = on (not stated; maxtext-2023 default: on when tp > 1)"}) {
    INFO(said);
    CHECK(mentions(c.assumptions, said));
  }
  CHECK(c.experiment["training"]["micro_batch"] == 16);  // 256 sequences / dp 16, one pass
  CHECK(c.experiment["parallelism"]["tp_comm_overlap"] == true);

  // From 2024-02 the llama2 block: SwiGLU, untied, sequential.
  r["framework"]["date"] = "2024-06";
  const auto later = only_case(read(r));
  CHECK(later.profile == "maxtext");
  CHECK(later.experiment["model"]["mlp"] == "swiglu");
  CHECK(later.experiment["model"]["tied_embeddings"] == false);
  CHECK(later.experiment["model"]["parallel_block"] == false);

  // A stated value wins over the profile's.
  r["framework"]["date"] = "2023-12";
  r["model"]["parallel_block"] = false;
  r["parallelism"]["micro_batch"] = 4;
  const auto stated = only_case(read(r));
  CHECK(stated.experiment["model"]["parallel_block"] == false);
  CHECK(stated.experiment["training"]["micro_batch"] == 4);
  CHECK_FALSE(mentions(stated.assumptions, "model.parallel_block"));
}

TEST_CASE("a named machine listed under clusters runs on its own node entry, an unlisted one on the generic") {
  json r = base_record();
  r["framework"] = {{"name", "megatron-deepspeed"}, {"version", nullptr}, {"date", "2021-09"}};
  r["hardware"] = {{"accelerator", "NVIDIA V100 SXM2 32GB"}, {"count", 128}, {"gpus_per_node", 4},
                   {"cluster", "Jean Zay (IDRIS) V100-32GB partition"}};
  r["model"] = {{"name", "tr8"},      {"layers", 64},       {"hidden", 11600}, {"heads", 80},
                {"vocab", 50257},     {"seq_len", 2048},    {"moe", nullptr}};
  r["parallelism"] = {{"tp", 4}, {"pp", 32}, {"micro_batch", 1}, {"global_batch", 2048}};
  r["precision"] = {{"compute", "fp16"}};
  r["measured"] = {{"step_time_s", 700}};
  const config::ReferenceCase named = only_case(read(r));
  CHECK(named.experiment["cluster"]["node"] == "jean-zay-v100-32gb");
  CHECK(mentions(named.assumptions, "node = jean-zay-v100-32gb (hardware.cluster"));
  // The DeepSpeed pipeline engine's transfers are the megatron-deepspeed profile's default, said.
  CHECK(named.experiment["parallelism"]["pipeline_p2p"] == "deepspeed");
  CHECK(mentions(named.assumptions, "pipeline_p2p = deepspeed (megatron-deepspeed-2021 default)"));
  r["hardware"]["cluster"] = "Some other V100 cluster";
  const config::ReferenceCase generic = only_case(read(r));
  CHECK(generic.experiment["cluster"]["node"] == "dgx-1-v100");
  // A cluster whose node holds another device than the accelerator's is not used.
  r["hardware"]["cluster"] = "Jean Zay (IDRIS/GENCI) A100 80GB partition";
  CHECK(only_case(read(r)).experiment["cluster"]["node"] == "dgx-1-v100");
  // The same record without the cluster's name predicts on the generic node: a different step.
  r["hardware"]["cluster"] = "Jean Zay (IDRIS) V100-32GB partition";
  const double jz = predict(r);
  r["hardware"].erase("cluster");
  CHECK(jz != Approx(predict(r)));
}

TEST_CASE("an MXFP8 record runs the mxfp8 recipe, its scale swizzles follow the profile of its date, said") {
  json r = base_record();
  r["framework"] = {{"name", "nemo"}, {"version", "25.09"}, {"date", "2025-10"}};
  r["hardware"] = {{"accelerator", "NVIDIA B200"}, {"count", 64}, {"gpus_per_node", 8}};
  r["precision"] = {{"compute", "fp8"}, {"fp8_recipe", "mxfp8"}};
  const auto& separate = only_case(read(r));
  CHECK(separate.profile == "nemo-2025-07");
  CHECK(separate.experiment["training"]["fp8_scaling"] == "mxfp8");
  CHECK(separate.experiment["training"]["mxfp8_separate_swizzle"] == true);
  CHECK(mentions(separate.assumptions, "mxfp8_separate_swizzle = true (not stated; nemo-2025-07 default)"));
  const double slower = predict(r);  // tokens/s/GPU
  r["framework"]["date"] = "2026-03";
  const auto& fused = only_case(read(r));
  CHECK(fused.profile == "nemo-2026");
  CHECK(fused.experiment["training"]["mxfp8_separate_swizzle"] == false);
  CHECK(mentions(fused.assumptions, "mxfp8_separate_swizzle = false (not stated; nemo-2026 default)"));
  CHECK(predict(r) > slower);
  // A profile that says nothing about it: the experiment default, said.
  r["framework"] = {{"name", "megatron-core"}, {"version", nullptr}, {"date", "2025-10"}};
  const auto& plain = only_case(read(r));
  CHECK(plain.experiment["training"]["fp8_scaling"] == "mxfp8");
  CHECK(mentions(plain.assumptions, "mxfp8_separate_swizzle = false (not stated; experiment default)"));
}

TEST_CASE("a record stating Megatron-Core's core_attn recompute re-runs the flash forward, attention does not") {
  json r = base_record();
  r["parallelism"]["recompute"] = "selective";
  r["parallelism"]["selective_recompute"] = "attention";
  const double attention = predict(r);  // flash attention (profile default): nothing recomputed
  r["parallelism"]["selective_recompute"] = "core-attn";
  CHECK(only_case(read(r)).experiment["training"]["selective_recompute"] == "core-attn");
  const double core_attn = predict(r);
  CHECK(core_attn < attention);  // tokens/s/GPU: one more flash forward per layer is slower
  r["parallelism"]["recompute"] = "none";
  r["parallelism"].erase("selective_recompute");
  CHECK(predict(r) == Approx(attention));
}

namespace {
// A 30-layer Llama-shaped record on pp 4 x vp 2 (8 virtual stages), the split stated as a Megatron-Core
// pipeline_model_parallel_layout.
json layout_record(const std::string& layout) {
  json r = base_record();
  r["model"]["layers"] = 30;
  r["parallelism"]["pp"] = 4;
  r["parallelism"]["vp"] = 2;
  r["parallelism"]["pipeline_layout"] = layout;
  return r;
}
}  // namespace

TEST_CASE("a record's Megatron-Core pipeline_layout becomes the experiment's pipeline_layers") {
  SECTION("t counts per virtual stage, chunk-major, listed as stated") {
    const auto c = only_case(read(layout_record("Et*3|(t*4|)*6tttL")));
    CHECK(c.experiment["parallelism"]["pipeline_layers"] == json::array({3, 4, 4, 4, 4, 4, 4, 3}));
    CHECK(c.experiment["parallelism"]["vp"] == 2);
    CHECK(!c.experiment["model"].contains("mtp_depth"));
    CHECK(mentions(c.assumptions, "pipeline_layers = [3,4,4,4,4,4,4,3] (stated pipeline_layout"));
    CHECK(predict(layout_record("Et*3|(t*4|)*6tttL")) > 0);
  }
  SECTION("the layout's stage count gives vp when the record does not state it (Megatron derives it)") {
    json r = layout_record("Et*3|(t*4|)*6tttL");
    r["parallelism"].erase("vp");
    const auto c = only_case(read(r));
    CHECK(c.experiment["parallelism"]["vp"] == 2);
    CHECK(mentions(c.assumptions, "vp = 2 (pipeline_layout stages / pp)"));
  }
  SECTION("a lighter first stage moves work off the embedding's rank: the prediction differs from even") {
    json even = layout_record("Et*4|(t*4|)*6ttL");  // 4,4,4,4,4,4,4,2
    CHECK(predict(even) != Approx(predict(layout_record("Et*2|(t*4|)*6t*4L"))));
  }
  SECTION("m layers are the model's multi-token prediction, run on the last virtual stage, and cost work") {
    const auto c = only_case(read(layout_record("Et*3|(t*4|)*6tttmL")));
    CHECK(c.experiment["model"]["mtp_depth"] == 1);
    CHECK(mentions(c.assumptions, "model.mtp_depth = 1 (the m layers of the stated pipeline_layout"));
    CHECK(predict(layout_record("Et*3|(t*4|)*6tttmL")) < predict(layout_record("Et*3|(t*4|)*6tttL")));
  }
  SECTION("an MTP stage of its own (Megatron's standalone MTP) is skipped with what the engine lacks") {
    const ValidationResult v = run_validation(read(layout_record("Et*3|(t*4|)*5t*7m|L")), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("standalone MTP stage") != std::string::npos);
  }
}

TEST_CASE("a malformed or inconsistent pipeline_layout is an error at its pointer") {
  const std::string at = "unit.json:/0/parallelism/pipeline_layout";
  CHECK(first_problem(layout_record("Et*3|(t*4|)*6tttX")).find(at) != std::string::npos);
  CHECK(first_problem(layout_record("Et*3|(t*4|)*6tttX")).find("invalid layer character 'X'") != std::string::npos);
  CHECK(first_problem(layout_record("tE*3|(t*4|)*6tttL")).find("first layer must be the embedding") !=
        std::string::npos);
  const std::string layers = first_problem(layout_record("Et*3|(t*4|)*6ttL"));
  CHECK(layers.find(at) != std::string::npos);
  CHECK(layers.find("29 transformer layers (t), but the model has 30") != std::string::npos);
  const std::string stages = first_problem(layout_record("Et*3|(t*4|)*5t*7L"));
  CHECK(stages.find("7 stages, but pp·vp = 4·2 = 8") != std::string::npos);
  json mtp = layout_record("Et*3|(t*4|)*6tttmL");
  mtp["model"]["moe"] = nullptr;
  mtp["parallelism"]["pipeline_split"] = "even";
  CHECK(first_problem(mtp).find("not both") != std::string::npos);
  json unstaged = layout_record("Et*3|(t*4|)*6tttL");
  unstaged["parallelism"].erase("vp");
  unstaged["parallelism"]["pp"] = 3;
  CHECK(first_problem(unstaged).find("8 stages do not divide over pp = 3") != std::string::npos);
}

TEST_CASE("a record's model.moe.mtp_depth reaches the experiment without a pipeline_layout") {
  json r = base_record();
  r["model"]["moe"] = json::parse(R"({"num_experts": 8, "top_k": 2, "moe_ffn_hidden": 14336})");
  const auto plain = only_case(read(r));
  CHECK(!plain.experiment["model"].contains("mtp_depth"));
  const double without = predict(r);
  r["model"]["moe"]["mtp_depth"] = 1;
  const auto c = only_case(read(r));
  CHECK(c.experiment["model"]["mtp_depth"] == 1);
  CHECK(predict(r) < without);  // one more transformer block and output head per step: fewer tokens/s
}

TEST_CASE("an FP4 record runs NVFP4 (said uncalibrated), another FP4 recipe, or FP4 on H100, is skipped") {
  json r = base_record();
  r["framework"] = {{"name", "nemo"}, {"version", "26.02"}, {"date", "2026-02"}};
  r["hardware"] = {{"accelerator", "NVIDIA B200"}, {"count", 64}, {"gpus_per_node", 8}};
  r["precision"] = {{"compute", "fp8"}, {"fp8_recipe", "mxfp8"}};
  const double fp8 = predict(r);  // tokens/s/GPU
  r["precision"] = {{"compute", "fp4"}, {"fp8_recipe", "nvfp4"}};
  const auto& c = only_case(read(r));
  CHECK(c.experiment["training"]["precision"] == "fp4");
  CHECK_FALSE(c.experiment["training"].contains("fp8_scaling"));
  CHECK(mentions(c.assumptions, "fp4 GEMMs at the device's dense FP4 peak"));
  CHECK(mentions(c.assumptions, "uncalibrated"));
  CHECK(predict(r) > fp8);
  // Unstated recipe: taken as NVFP4, said.
  r["precision"] = {{"compute", "fp4"}};
  CHECK(mentions(only_case(read(r)).assumptions, "fp4 recipe = nvfp4 (not stated"));
  // Another FP4 recipe is not modelled.
  r["precision"] = {{"compute", "fp4"}, {"fp8_recipe", "mxfp4"}};
  const auto other = read(r);
  REQUIRE(other.skipped.size() == 1);
  CHECK(other.skipped.front().reason.find("FP4 recipe \"mxfp4\" is not modelled") != std::string::npos);
  // An H100 has no FP4 peak: the built experiment fails validation and the record is skipped, said.
  r["precision"] = {{"compute", "fp4"}, {"fp8_recipe", "nvfp4"}};
  r["hardware"] = {{"accelerator", "NVIDIA H100 SXM5 80GB"}, {"count", 64}, {"gpus_per_node", 8}};
  const ValidationResult h100 = run_validation(read(r), kPaths);
  CHECK(h100.rows.empty());
  REQUIRE(h100.skipped.size() == 1);
  CHECK(h100.skipped.front().reason.find("has no fp4 peak") != std::string::npos);
}

TEST_CASE("validate's text report writes control bytes of a record's text as hex escapes") {
  json r = base_record();
  r["model"]["catalog"] = std::string("x\0y\x1b[31m", 8);  // a NUL and a terminal escape in a name
  const ValidationResult v = run_validation(read(r), kPaths);
  REQUIRE(v.skipped.size() == 1);
  const std::string text = validation_text(v);
  CHECK(text.find("model.catalog \"x\\x00y\\x1b[31m\" is not in configs/models") != std::string::npos);
  CHECK(text.find('\0') == std::string::npos);
  CHECK(text.find('\x1b') == std::string::npos);
}

TEST_CASE("NeMo AutoModel records take the AutoModel profile of their date, its defaults are said") {
  json r = base_record();
  r["framework"] = {{"name", "nemo-automodel"}, {"version", nullptr}, {"date", "2025-10"}};
  r["parallelism"] = {{"tp", nullptr}, {"pp", nullptr}, {"fsdp", true}, {"micro_batch", 1}, {"global_batch", 128}};
  const auto moe_era = only_case(read(r));
  // The profiles are chosen by date only; nemo-automodel-2025 holds the MoE path's defaults, which this dense
  // record also gets (said in the profile's description and docs/validation.md: a dense 2025 record must state
  // fsdp and precision.gradient_reduce).
  CHECK(moe_era.profile == "nemo-automodel-2025");
  CHECK(moe_era.experiment["training"]["recompute"] == "none");
  CHECK(moe_era.experiment["training"]["gradient_precision"] == "fp32");  // the MoE parallelizer's reduce_dtype
  CHECK(moe_era.experiment["parallelism"]["zero_stage"] == 3);            // a stated fsdp true wins
  CHECK(mentions(moe_era.assumptions, "gradient reduce in fp32 (nemo-automodel-2025 default for bf16)"));
  r["precision"]["gradient_reduce"] = "bf16";  // stated (e.g. a dense record: FSDP2Manager's BF16 reduce) wins
  const auto stated = only_case(read(r));
  CHECK(stated.experiment["training"]["gradient_precision"] == "bf16");
  CHECK_FALSE(mentions(stated.assumptions, "gradient reduce in"));
  r["precision"]["gradient_reduce"] = "int8";
  CHECK(first_problem(r).find("unit.json:/0/precision/gradient_reduce: unknown value \"int8\"") != std::string::npos);
  r["precision"].erase("gradient_reduce");
  r["parallelism"]["fsdp"] = "shard_grad_op";  // FSDP2 reshard_after_forward=False
  CHECK(only_case(read(r)).experiment["parallelism"]["zero_stage"] == 2);
  r["parallelism"].erase("fsdp");
  CHECK(only_case(read(r)).experiment["parallelism"]["zero_stage"] == 2);  // parallelize_model's default
  r["framework"]["date"] = "2026-04";
  const auto dense_era = only_case(read(r));
  CHECK(dense_era.profile == "nemo-automodel-2026");
  CHECK(dense_era.experiment["training"]["gradient_precision"] == "bf16");  // FSDP2Config's mp_policy
  CHECK(dense_era.experiment["parallelism"]["zero_stage"] == 3);
  r["framework"]["date"] = "2026-05";  // 6ec67a855 switched the reduce to FP32: no profile reads that code
  const ValidationResult after = run_validation(read(r), kPaths);
  REQUIRE(after.skipped.size() == 1);
  CHECK(after.skipped.front().reason.find("framework \"nemo-automodel\" at 2026-05") != std::string::npos);
  r["framework"]["date"] = "2024-10";  // before AutoModel: no profile, the record says what is missing
  const ValidationResult v = run_validation(read(r), kPaths);
  REQUIRE(v.skipped.size() == 1);
  CHECK(v.skipped.front().reason.find("framework \"nemo-automodel\" at 2024-10") != std::string::npos);
}

// AutoPipeline's split, mirrored from NVIDIA-NeMo/Automodel @8d9bfb90e
// nemo_automodel/components/distributed/pipelining/functional.py: calculate_virtual_stages makes
// ceil(layers / layers_per_stage) + 1 virtual stages (l.162; here without rounding to a multiple of pp), and
// generate_hf_model_fqn_per_model_part gives every stage layers // stages layers and the first
// layers % stages stages one more (l.114-126). Stage s runs on pp rank s % pp, so the list is already in
// virtual-stage order (k = chunk·pp + rank).
namespace {
std::vector<int> autopipeline_split(int layers, int layers_per_stage, int pp) {
  const int stages = (layers + layers_per_stage - 1) / layers_per_stage + 1;
  REQUIRE(stages % pp == 0);
  std::vector<int> split(static_cast<std::size_t>(stages), layers / stages);
  for (int s = 0; s < layers % stages; ++s) ++split[static_cast<std::size_t>(s)];
  return split;
}
}  // namespace

TEST_CASE("AutoPipeline's split, stated as a layout, gives the layers AutoPipeline computes") {
  json r = base_record();
  r["framework"] = {{"name", "nemo-automodel"}, {"version", nullptr}, {"date", "2025-10"}};
  SECTION("DeepSeek-V3 / Kimi-K2: 61 layers, layers_per_stage 2, pp 4 (32 stages, vp 8)") {
    r["model"]["layers"] = 61;
    r["hardware"]["count"] = 32;
    r["parallelism"] = {{"tp", 1},         {"pp", 4},    {"vp", 8},         {"fsdp", "shard_grad_op"},
                        {"micro_batch", 1}, {"global_batch", 64}, {"schedule", "interleaved"},
                        {"pipeline_layout", "Ett|(tt|)*28t|t|tL"}};  // the records' layout
    CHECK(only_case(read(r)).experiment["parallelism"]["pipeline_layers"] == json(autopipeline_split(61, 2, 4)));
  }
  SECTION("26 layers, layers_per_stage 3, pp 2 (10 stages, vp 5): the remainder goes to the first stages") {
    r["model"]["layers"] = 26;
    r["hardware"]["count"] = 8;
    r["parallelism"] = {{"tp", 1},         {"pp", 2},    {"vp", 5},         {"fsdp", "shard_grad_op"},
                        {"micro_batch", 1}, {"global_batch", 64}, {"schedule", "interleaved"},
                        {"pipeline_layout", "Ettt|ttt|ttt|ttt|ttt|ttt|tt|tt|tt|ttL"}};
    CHECK(only_case(read(r)).experiment["parallelism"]["pipeline_layers"] == json(autopipeline_split(26, 3, 2)));
  }
}

TEST_CASE("a record's framework date is a real month (and day), else one located message") {
  json r = base_record();
  for (const char* ok : {"2025-10", "2025-12", "2024-02-29", "2025-10-31"}) {
    r["framework"]["date"] = ok;
    INFO(ok);
    CHECK(first_problem(r).empty());
  }
  for (const char* bad : {"2025-13", "2025-00", "2025-10-99", "2025-10-00", "2025-02-29", "2025-04-31"}) {
    r["framework"]["date"] = bad;
    INFO(bad);
    CHECK(first_problem(r) == fmt::format("unit.json:/0/framework/date: \"{}\" is not a date (expected YYYY-MM with "
                                          "month 01..12, or YYYY-MM-DD with a day of that month)",
                                          bad));
  }
}

TEST_CASE("Megatron-DeepSpeed records whose layers do not divide take DeepSpeed's type:transformer partition") {
  json r = base_record();
  r["framework"] = {{"name", "megatron-deepspeed"}, {"version", nullptr}, {"date", "2022-02"}};
  r["model"]["layers"] = 78;
  r["parallelism"]["pp"] = 12;
  r["parallelism"]["tp"] = 1;
  r["hardware"]["count"] = 96;
  r["parallelism"]["global_batch"] = 96;
  const auto c = only_case(read(r));
  // chronicles-prequel.md line 874: "the last stage has 1 block, while the rest have 7".
  std::vector<int> want(12, 7);
  want.back() = 1;
  CHECK(c.experiment["parallelism"]["pipeline_layers"].get<std::vector<int>>() == want);
  CHECK(mentions(c.assumptions, "not stated; megatron-deepspeed-2021 rule deepspeed-transformer"));
  SECTION("the stated type:transformer|embedding rule puts the embeddings in the balance") {
    r["parallelism"]["pipeline_split"] = "deepspeed-transformer-embedding";
    const auto e = only_case(read(r));
    std::vector<int> emb(12, 7);
    emb.front() = 6;
    emb.back() = 2;
    CHECK(e.experiment["parallelism"]["pipeline_layers"].get<std::vector<int>>() == emb);
    CHECK(mentions(e.assumptions, "stated rule deepspeed-transformer-embedding"));
  }
  SECTION("a split DeepSpeed would leave a stage empty on is skipped with the reason") {
    r["model"]["layers"] = 95;
    r["parallelism"]["pp"] = 24;
    r["parallelism"]["pipeline_split"] = "deepspeed-transformer-embedding";
    const ValidationResult v = run_validation(read(r), kPaths);
    REQUIRE(v.skipped.size() == 1);
    CHECK(v.skipped.front().reason.find("cannot spread 95 layers over pp·vp = 24") != std::string::npos);
  }
}

TEST_CASE("fsdp false rules out full sharding only: the profile's distributed-optimizer default applies, said") {
  json r = base_record();
  r["framework"] = {{"name", "nemo"}, {"version", nullptr}, {"date", "2025-11"}};
  r["parallelism"] = {{"tp", 1}, {"pp", 1}, {"fsdp", false}, {"micro_batch", 1}, {"global_batch", 128}};
  // Megatron-Bridge's tables print "FSDP 0" for runs on the distributed optimizer (its pretrain recipes set
  // use_distributed_optimizer=True): ZeRO-1 from nemo-2025, printed as an assumption.
  const auto nemo = only_case(read(r));
  CHECK(nemo.experiment["parallelism"]["zero_stage"] == 1);
  CHECK(mentions(nemo.assumptions,
                 "zero_stage = 1 (not stated; fsdp false rules out full sharding only; nemo-2025-11 default)"));
  // A profile whose default is full sharding falls back to plain data parallelism, also said.
  r["framework"] = {{"name", "torchtitan"}, {"version", nullptr}, {"date", "2025-06"}};
  const auto titan = only_case(read(r));
  CHECK(titan.experiment["parallelism"]["zero_stage"] == 0);
  CHECK(mentions(titan.assumptions, "zero_stage = 0 (not stated; fsdp false: no sharding)"));
  // A stated stage wins without an assumption.
  r["parallelism"]["zero_stage"] = 2;
  const auto stated = only_case(read(r));
  CHECK(stated.experiment["parallelism"]["zero_stage"] == 2);
  CHECK_FALSE(mentions(stated.assumptions, "zero_stage ="));
}

TEST_CASE("validate says which published configurations the memory model does not fit") {
  json r = base_record();
  const ValidationResult fits = run_validation(read(r), kPaths);
  REQUIRE(fits.rows.size() == 1);
  CHECK(fits.rows.front().fits_memory);
  CHECK(fits.rows.front().memory_bytes > 0);
  CHECK(fits.rows.front().memory_bytes < fits.rows.front().capacity_bytes);
  CHECK(validation_text(fits).find("the model says 0 of these 1 published configurations do not fit") !=
        std::string::npos);
  // Eight times the sequence on one micro-batch without recomputation: the activations alone pass 80 GB.
  r["model"]["seq_len"] = 65536;
  r["parallelism"]["cp"] = 1;
  r["parallelism"]["recompute"] = "none";
  const ValidationResult over = run_validation(read(r), kPaths);
  REQUIRE(over.rows.size() == 1);
  const ValidationRow& row = over.rows.front();
  CHECK_FALSE(row.fits_memory);
  CHECK(row.memory_bytes > row.capacity_bytes);
  CHECK(row.capacity_bytes == Approx(80.0 * 1024 * 1024 * 1024));  // the catalog's 80 GB read as GiB
  CHECK(validation_text(over).find("the model says 1 of these 1 published configurations do not fit") !=
        std::string::npos);
  const nlohmann::json j = validation_json(over);
  CHECK(j["rows"][0]["fits_memory"] == false);
  CHECK(j["rows"][0]["memory_bytes"].get<double>() == row.memory_bytes);
}

TEST_CASE("NeMo performance-script profiles reduce gradients as the scripts of their date set it, said") {
  json r = base_record();
  r["framework"] = {{"name", "nemo"}, {"version", nullptr}, {"date", "2025-03"}};
  r["precision"] = {{"compute", "fp8"}};
  // NeMo 2 performance scripts before the 25.07 refactor: FP8 runs set grad_reduce_in_fp32 = False ...
  const auto fp8 = only_case(read(r));
  CHECK(fp8.profile == "nemo-2025");
  CHECK(fp8.experiment["training"]["gradient_precision"] == "bf16");
  CHECK(mentions(fp8.assumptions, "gradient reduce in bf16 (nemo-2025 default for fp8)"));
  // ... BF16 runs keep bf16_mixed()'s FP32 reduction.
  r["precision"] = {{"compute", "bf16"}};
  CHECK(only_case(read(r)).experiment["training"]["gradient_precision"] == "fp32");
  // From the 25.07 refactor on (and in every Megatron-Bridge release) both reduce in BF16.
  r["framework"]["date"] = "2025-10";
  const auto bridge = only_case(read(r));
  CHECK(bridge.profile == "nemo-2025-07");
  CHECK(bridge.experiment["training"]["gradient_precision"] == "bf16");
  r["framework"]["date"] = "2026-03";
  CHECK(only_case(read(r)).experiment["training"]["gradient_precision"] == "bf16");
  // A stated reduction wins.
  r["precision"]["gradient_reduce"] = "fp32";
  const auto stated = only_case(read(r));
  CHECK(stated.experiment["training"]["gradient_precision"] == "fp32");
  CHECK_FALSE(mentions(stated.assumptions, "gradient reduce in"));
}

TEST_CASE("the data-parallel reduction overlaps the backward as the framework of the record's date did, said") {
  json r = base_record();
  r["framework"] = {{"name", "megatron-lm"}, {"version", nullptr}, {"date", "2021-06"}};
  r["hardware"] = {{"accelerator", "NVIDIA A100 SXM4 80GB"}, {"count", 64}, {"gpus_per_node", 8}};
  r["parallelism"] = {{"tp", 8}, {"pp", 2}, {"micro_batch", 1}, {"global_batch", 128}};
  // Megatron-LM 2021: local DDP all-reduces after forward_backward_func returns.
  const auto megatron = only_case(read(r));
  CHECK(megatron.experiment["training"]["overlap_grad_reduce"] == false);
  CHECK(mentions(megatron.assumptions, "overlap_grad_reduce = off (not stated; megatron-lm-2021 default)"));
  const double after = predict(r);
  // A stated overlap wins, without an assumption line, and is faster.
  r["parallelism"]["dp_overlap"] = true;
  const auto stated = only_case(read(r));
  CHECK(stated.experiment["training"]["overlap_grad_reduce"] == true);
  CHECK_FALSE(mentions(stated.assumptions, "overlap_grad_reduce ="));
  CHECK(predict(r) > after);  // tokens/s/GPU
  r["parallelism"]["dp_overlap"] = "yes";
  CHECK(first_problem(r).find("unit.json:/0/parallelism/dp_overlap") != std::string::npos);
  r["parallelism"].erase("dp_overlap");
  // DeepSpeed: overlap_comm defaults to true only for ZeRO-3; the PipelineEngine reduces after the last
  // micro-batch.
  r["framework"] = {{"name", "megatron-deepspeed"}, {"version", nullptr}, {"date", "2021-06"}};
  CHECK(only_case(read(r)).experiment["training"]["overlap_grad_reduce"] == false);
  r["parallelism"] = {{"tp", 1}, {"pp", 1}, {"zero_stage", 3}, {"micro_batch", 1}, {"global_batch", 128}};
  const auto zero3 = only_case(read(r));
  CHECK(zero3.experiment["training"]["overlap_grad_reduce"] == true);
  CHECK(mentions(zero3.assumptions, "overlap_grad_reduce = on (not stated; megatron-deepspeed-2021 default: on only "
                                    "with ZeRO-3 and no pipeline)"));
  // A profile without the key: the experiment's default, said.
  r["framework"] = {{"name", "nemo"}, {"version", nullptr}, {"date", "2025-10"}};
  r["parallelism"] = {{"tp", 2}, {"pp", 1}, {"micro_batch", 1}, {"global_batch", 128}};
  const auto nemo = only_case(read(r));
  CHECK(!nemo.experiment["training"].contains("overlap_grad_reduce"));
  CHECK(mentions(nemo.assumptions, "overlap_grad_reduce = on (not stated; experiment default"));
}

TEST_CASE("an experiment naming a Megatron-LM 2021 profile reduces its gradients after the backward") {
  json e = json::parse(R"({"schema_version": 1, "name": "p", "cluster": {"node": "dgx-a100-80gb", "nodes": 2},
    "model": "llama3-8b", "parallelism": {"tp": 2}, "training": {"global_batch": 64},
    "profile": "megatron-lm-2021"})");
  CHECK_FALSE(config::scenario_from_json(e, kPaths, "p.json").training.overlap_grad_reduce);
  e["training"]["overlap_grad_reduce"] = true;  // stated wins
  CHECK(config::scenario_from_json(e, kPaths, "p.json").training.overlap_grad_reduce);
  e["training"].erase("overlap_grad_reduce");
  e["profile"] = "megatron-deepspeed-2021";
  CHECK_FALSE(config::scenario_from_json(e, kPaths, "p.json").training.overlap_grad_reduce);
  e["parallelism"]["zero_stage"] = 3;
  CHECK(config::scenario_from_json(e, kPaths, "p.json").training.overlap_grad_reduce);
  // DeepSpeed's pipeline engine reduces after the last micro-batch whatever the ZeRO stage.
  e["parallelism"]["pp"] = 2;
  e["parallelism"]["tp"] = 1;
  CHECK_FALSE(config::scenario_from_json(e, kPaths, "p.json").training.overlap_grad_reduce);
}

TEST_CASE("an experiment stating fsdp false keeps its profile's distributed optimizer, as a record does") {
  json e = json::parse(R"({"schema_version": 1, "name": "p", "cluster": {"node": "dgx-a100-80gb", "nodes": 2},
    "model": "llama3-8b", "parallelism": {"tp": 2, "fsdp": false}, "training": {"global_batch": 64},
    "profile": "nemo-2025"})");
  CHECK(config::scenario_from_json(e, kPaths, "p.json").parallelism.zero_stage == 1);
  e["parallelism"]["fsdp"] = true;
  CHECK(config::scenario_from_json(e, kPaths, "p.json").parallelism.zero_stage == 3);
  // A profile whose default is full sharding falls back to plain data parallelism under fsdp false.
  e["parallelism"]["fsdp"] = false;
  e["profile"] = "torchtitan-2025";  // no micro-batch rule: stated
  e["training"]["micro_batch"] = 1;
  CHECK(config::scenario_from_json(e, kPaths, "p.json").parallelism.zero_stage == 0);
  e["parallelism"]["zero_stage"] = 2;  // stated wins
  CHECK(config::scenario_from_json(e, kPaths, "p.json").parallelism.zero_stage == 2);
}

TEST_CASE("a record's optimizer is read: sgd runs as stated, what is not modelled is costed as Adam, said") {
  json r = base_record();
  const auto unstated = only_case(read(r));
  CHECK(mentions(unstated.assumptions, "optimizer = adam with fp32 master weights and states (not stated"));
  CHECK(!unstated.experiment["training"].contains("optimizer"));
  r["optimizer"] = "adamw";
  CHECK_FALSE(mentions(only_case(read(r)).assumptions, "optimizer"));
  r["optimizer"] = "muon";
  CHECK(mentions(only_case(read(r)).assumptions, "optimizer muon costed as adam"));
  r["optimizer"] = "adam-8bit";
  CHECK(mentions(only_case(read(r)).assumptions, "optimizer adam-8bit costed as adam"));
  r["optimizer"] = "lamb";
  CHECK(mentions(only_case(read(r)).assumptions, "optimizer lamb costed as adam"));
  const double adam = predict(r);
  r["optimizer"] = "sgd";
  const auto sgd = only_case(read(r));
  CHECK(sgd.experiment["training"]["optimizer"] == "sgd");
  CHECK(predict(r) > adam);  // tokens/s/GPU: SGD reads and writes fewer bytes per parameter
  r["optimizer"] = "adagrad";
  CHECK(first_problem(r).find("unit.json:/0/optimizer") != std::string::npos);
}

TEST_CASE("values the reader used to set silently are printed as assumptions") {
  json r = base_record();  // 64 H100 on 8 nodes, TP 2, Megatron-Core 2024, MFU-free
  r["parallelism"]["pp"] = 2;
  r["parallelism"]["vp"] = 2;
  r["model"]["parallel_block"] = nullptr;
  const auto c = only_case(read(r));
  CHECK(mentions(c.assumptions, "node = dgx-h100 (the catalog's node for accelerator \"NVIDIA H100 SXM5 80GB\""));
  CHECK(mentions(c.assumptions, "network = the experiment defaults for the node's NICs"));
  CHECK(mentions(c.assumptions, "attention_kernel = native (not stated; experiment default"));
  CHECK(mentions(c.assumptions, "pipeline_p2p = megatron (not stated; experiment default"));
  CHECK(mentions(c.assumptions, "tp_comm_overlap_scope = forward-backward (not stated; experiment default"));
  CHECK(mentions(c.assumptions, "schedule = interleaved (not stated; derived from vp = 2)"));
  CHECK(mentions(c.assumptions, "model.parallel_block = false (not stated"));
  // Stated values print nothing.
  r["model"]["parallel_block"] = false;
  r["attention_kernel"] = "cudnn";
  r["parallelism"]["schedule"] = "interleaved";
  const auto stated = only_case(read(r));
  CHECK_FALSE(mentions(stated.assumptions, "model.parallel_block"));
  CHECK_FALSE(mentions(stated.assumptions, "attention_kernel ="));
  CHECK_FALSE(mentions(stated.assumptions, "schedule = interleaved"));
  // One node: no network line.
  r["hardware"]["count"] = 8;
  r["parallelism"]["global_batch"] = 16;
  CHECK_FALSE(mentions(only_case(read(r)).assumptions, "network ="));
  // An MFU record without the peak it divided by: the catalog's, said.
  r["measured"] = {{"mfu", 0.4}};
  CHECK(mentions(only_case(read(r)).assumptions, "mfu peak = the device catalog's dense peak"));
  r["measured"]["peak_tflops_used"] = 989;
  CHECK_FALSE(mentions(only_case(read(r)).assumptions, "mfu peak"));
}

TEST_CASE("parallelism.activation_offload_layers reads through to the experiment, null assumes nothing, refusals skip") {
  json r = base_record();
  r["parallelism"]["recompute"] = "none";
  // Null (or absent): no offloading, the experiment default, and no assumption line about it.
  r["parallelism"]["activation_offload_layers"] = nullptr;
  const auto& none = only_case(read(r));
  CHECK(!none.experiment["training"].contains("activation_offload_layers"));
  for (const auto& a : none.assumptions) CHECK(a.find("offload") == std::string::npos);
  // Stated: it reaches the experiment, uses less memory and the row still predicts.
  r["parallelism"]["activation_offload_layers"] = 16;
  const auto& stated = only_case(read(r));
  CHECK(stated.experiment["training"]["activation_offload_layers"] == 16);
  const ValidationResult v = run_validation(read(r), kPaths);
  REQUIRE(v.rows.size() == 1);
  CHECK(std::isfinite(v.rows.front().predicted));
  // A record Megatron-Core would refuse (offloading with pipeline parallelism) is skipped with the reason.
  r["parallelism"]["tp"] = 1;
  r["parallelism"]["pp"] = 2;
  const ValidationResult skipped = run_validation(read(r), kPaths);
  CHECK(skipped.rows.empty());
  REQUIRE(skipped.skipped.size() == 1);
  INFO(skipped.skipped.front().reason);
  CHECK(skipped.skipped.front().reason.find("activation offloading with pp = 2") != std::string::npos);
  CHECK(skipped.skipped.front().reason.find("pipeline parallelism") != std::string::npos);
  // A wrong type is a located error.
  r["parallelism"]["activation_offload_layers"] = "some";
  CHECK_THROWS_AS(read(r), ConfigError);
}
