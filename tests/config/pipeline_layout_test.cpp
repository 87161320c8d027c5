// Megatron-Core's pipeline_model_parallel_layout strings (sim/config/pipeline_layout.hpp): the grammar of
// megatron/core/transformer/pipeline_parallel_layer_layout.py parse_str_to_list and the checks of its
// validate_layer_layout, and their conversion to the engine's per-virtual-stage layer counts.
#include "tests/catch.hpp"

#include <string>
#include <vector>

#include "sim/config/pipeline_layout.hpp"
#include "sim/config/scenario_json.hpp"
#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

namespace {
PipelineLayout parsed(const std::string& text) {
  const auto p = parse_pipeline_layout(text);
  INFO(text << ": " << p.error);
  REQUIRE(p.layout);
  return *p.layout;
}

std::string error_of(const std::string& text) {
  const auto p = parse_pipeline_layout(text);
  REQUIRE(!p.layout);
  return p.error;
}

std::vector<int> repeated(std::vector<int> head, int value, int times, std::vector<int> tail) {
  for (int i = 0; i < times; ++i) head.push_back(value);
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}
}  // namespace

TEST_CASE("Megatron-Bridge's DeepSeek-V3 layouts parse to per-stage transformer-layer counts") {
  SECTION("Et|(tt|)*30mL: 32 stages, the last holding only the MTP layer and the loss") {
    const auto l = parsed("Et|(tt|)*30mL");
    CHECK(l.stages.size() == 32);
    CHECK(l.decoder_per_stage() == repeated({1}, 2, 30, {0}));
    CHECK(l.decoder_layers() == 61);
    CHECK(l.mtp_layers() == 1);
    CHECK(l.mtp_stage() == 31);
    CHECK(l.stages.front().embedding);
    CHECK(l.stages.back().loss);
    CHECK(!pipeline_layout_unsupported(l));
    CHECK(pipeline_layout_problems(l, 8, 4, 61, 1).empty());
  }
  SECTION("Et*4|(t*4|)*14tmL: x*N inside a repeated group") {
    const auto l = parsed("Et*4|(t*4|)*14tmL");
    CHECK(l.stages.size() == 16);
    CHECK(l.decoder_per_stage() == repeated({4}, 4, 14, {1}));
    CHECK(pipeline_layout_problems(l, 4, 4, 61, 1).empty());
    CHECK(pipeline_layout_problems(l, 16, 1, 61, 1).empty());
  }
  SECTION("Et*3|(t*4|)*14ttL: no MTP") {
    const auto l = parsed("Et*3|(t*4|)*14ttL");
    CHECK(l.decoder_per_stage() == repeated({3}, 4, 14, {2}));
    CHECK(l.mtp_layers() == 0);
    CHECK(l.mtp_stage() == -1);
  }
  SECTION("commas are cosmetic; stages may be empty") {
    CHECK(parsed("E,t*2|t,t|L").decoder_per_stage() == std::vector<int>{2, 2, 0});
    CHECK(parsed("E|t*3|L").decoder_per_stage() == std::vector<int>{0, 3, 0});
    CHECK(parsed("(Ett|)*1tL").decoder_per_stage() == std::vector<int>{2, 1});
  }
  SECTION("Megatron's docstring example puts the MTP layer on a stage of its own") {
    const auto l = parsed("Ettt|(tt|)*29,m|L");
    CHECK(l.stages.size() == 32);
    CHECK(l.mtp_stage() == 30);
    CHECK(l.decoder_layers() == 61);
    const auto why = pipeline_layout_unsupported(l);
    REQUIRE(why);
    CHECK(why->find("standalone MTP stage") != std::string::npos);
  }
}

TEST_CASE("malformed layouts are refused with Megatron's reason") {
  CHECK(error_of("Etx|L").find("invalid layer character 'x'") != std::string::npos);
  // Megatron unrolls one level of parentheses; a nested group leaves a '(' behind.
  CHECK(error_of("E((t)*2)*3|L").find("invalid layer character '('") != std::string::npos);
  CHECK(error_of("Et*|L").find("invalid layer character '*'") != std::string::npos);
  CHECK(error_of("tE|L").find("first layer must be the embedding") != std::string::npos);
  CHECK(error_of("Et|tL|t").find("last layer must be the loss") != std::string::npos);
  CHECK(error_of("EEt|L").find("exactly once") != std::string::npos);
  CHECK(error_of("Et|LtL").find("exactly once") != std::string::npos);
  CHECK(error_of("Etm|tL").find("before the MTP layers") != std::string::npos);
  CHECK(error_of("").find("no layers") != std::string::npos);
  CHECK(error_of("|||").find("no layers") != std::string::npos);
  CHECK(error_of("Et*99999999999999999999|L").find("expand past") != std::string::npos);
  CHECK(error_of("E(t*1000|)*1000000L").find("expand past") != std::string::npos);
  CHECK(error_of("E\xc3\xa9|L").find("ASCII") != std::string::npos);
  // Inputs are bounded before any scan (a run of unclosed '(' would otherwise cost a scan each).
  CHECK(error_of(std::string(10001, '(')).find("a layout is at most 10000") != std::string::npos);
  CHECK(parse_pipeline_layout("E" + std::string(9990, 't') + "L").layout.has_value());
  CHECK(quoted_layout("Et|L") == "\"Et|L\"");
  CHECK(quoted_layout(std::string(100, 't')) == "\"" + std::string(60, 't') + "...\" (100 characters)");
}

TEST_CASE("a layout is checked against pp·vp, the model's layers and its MTP depth") {
  const auto l = parsed("Et*4|(t*4|)*14tmL");
  const auto stages = pipeline_layout_problems(l, 2, 4, 61, 1);
  REQUIRE(stages.size() == 1);
  CHECK(stages.front().find("16 stages, but pp·vp = 2·4 = 8") != std::string::npos);
  const auto layers = pipeline_layout_problems(l, 4, 4, 60, 1);
  REQUIRE(layers.size() == 1);
  CHECK(layers.front().find("61 transformer layers (t), but the model has 60") != std::string::npos);
  const auto mtp = pipeline_layout_problems(l, 4, 4, 61, 0);
  REQUIRE(mtp.size() == 1);
  CHECK(mtp.front().find("1 MTP layers (m), but the model has 0") != std::string::npos);
  CHECK(pipeline_layout_problems(parsed("Et|tm|mL"), 3, 1, 2, 2).front().find("one stage") != std::string::npos);
}

TEST_CASE("an experiment's parallelism.pipeline_layout sets pipeline_layers, bad ones are errors at the key") {
  auto doc = small_experiment();  // 8 layers, pp 2
  TempDir dir;
  ExperimentLoader loader(bundled_catalog());
  SECTION("valid: t counts per virtual stage, written back as the layout") {
    doc["parallelism"]["pipeline_layout"] = "Et*3|t*4,tL";
    const Scenario s = loader.build(loader.load(dir.write("exp.json", doc).string()));
    CHECK(s.parallelism.pipeline_layers == std::vector<int>{3, 5});
    CHECK(s.parallelism.pipeline_layout == "Et*3|t*4,tL");
    const auto j = scenario_to_json(s);
    CHECK(j["parallelism"]["pipeline_layout"] == "Et*3|t*4,tL");
    CHECK(!j["parallelism"].contains("pipeline_layers"));
  }
  SECTION("with vp 2 the stages are chunk-major, as Megatron lists them") {
    doc["parallelism"]["vp"] = 2;
    doc["parallelism"]["schedule"] = "interleaved-1f1b";
    doc["training"]["global_batch"] = 64;
    doc["parallelism"]["pipeline_layout"] = "Et|ttt|tt|ttL";
    const auto ds = diagnostics_of(dir.write("exp.json", doc));
    INFO(dump(ds));
    REQUIRE(ds.empty());
    const Scenario s = loader.build(loader.load(dir.write("exp.json", doc).string()));
    CHECK(s.parallelism.pipeline_layers == std::vector<int>{1, 3, 2, 2});
  }
  SECTION("malformed") {
    doc["parallelism"]["pipeline_layout"] = "Et*3|t*4,tQ";
    const auto ds = diagnostics_of(dir.write("exp.json", doc));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_layout", "invalid layer character 'Q'"));
  }
  SECTION("malformed, on a model whose layers do not divide over pp: the layout's message alone") {
    doc["model"]["layers"] = 7;
    doc["parallelism"]["pipeline_layout"] = "Et*3|t*3,tQ";
    const auto ds = diagnostics_of(dir.write("exp.json", doc));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_layout", "invalid layer character 'Q'"));
    CHECK(ds.size() == 1);
  }
  SECTION("t count, stage count and m count against the model and pp·vp") {
    doc["parallelism"]["pipeline_layout"] = "Et*3|t*4L";
    auto ds = diagnostics_of(dir.write("exp.json", doc));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_layout", "7 transformer layers (t), but the model has 8"));
    doc["parallelism"]["pipeline_layout"] = "Et*3|t*4|tL";
    ds = diagnostics_of(dir.write("exp.json", doc));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_layout", "3 stages, but pp·vp = 2·1 = 2"));
    doc["parallelism"]["pipeline_layout"] = "Et*3|t*5mL";
    ds = diagnostics_of(dir.write("exp.json", doc));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_layout", "1 MTP layers (m), but the model has 0"));
  }
  SECTION("with pipeline_layers too") {
    doc["parallelism"]["pipeline_layout"] = "Et*3|t*5L";
    doc["parallelism"]["pipeline_layers"] = {3, 5};
    const auto ds = diagnostics_of(dir.write("exp.json", doc));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_layout", "not both"));
  }
}

TEST_CASE("an experiment's parallelism.pipeline_split gives pipeline_layers at every pp·vp") {
  auto doc = small_experiment();  // 8 layers, pp 2
  TempDir dir;
  ExperimentLoader loader(bundled_catalog());
  SECTION("Megatron-Core's embedding/loss accounting: 8 layers + 2 over 2 stages") {
    doc["parallelism"]["pipeline_split"] = "ends-one-fewer";
    const Scenario s = loader.build(loader.load(dir.write("exp.json", doc).string()));
    CHECK(s.parallelism.pipeline_layers == std::vector<int>{4, 4});
    const auto j = scenario_to_json(s);
    CHECK(j["parallelism"]["pipeline_split"] == "ends-one-fewer");  // the rule, not this pp's split
    CHECK(!j["parallelism"].contains("pipeline_layers"));
  }
  SECTION("a sweep point with another pp gets that pp's split") {
    doc["model"]["layers"] = 10;
    doc["parallelism"]["pipeline_split"] = "ends-one-fewer";
    const auto loaded = loader.load(dir.write("exp.json", doc).string());
    CHECK(loader.build(loaded).parallelism.pipeline_layers == std::vector<int>{5, 5});
    const std::vector<Override> pp4{{"/parallelism/pp", "4"}, {"/parallelism/dp", "2"}};
    const Scenario s4 = loader.build(loaded, pp4);
    CHECK(s4.parallelism.pipeline_layers == std::vector<int>{2, 3, 3, 2});
  }
  SECTION("pp 1 holds every layer whatever the rule") {
    doc["model"]["layers"] = 7;
    doc["parallelism"]["pipeline_split"] = "ends-one-fewer";
    const std::vector<Override> pp1{{"/parallelism/pp", "1"}, {"/parallelism/dp", "8"}};
    const Scenario s = loader.build(loader.load(dir.write("exp.json", doc).string()), pp1);
    CHECK(s.parallelism.pipeline_layers.empty());
  }
  SECTION("DeepSpeed's type:transformer: 7 layers over 4 stages, which do not divide") {
    doc["model"]["layers"] = 7;
    doc["parallelism"]["pipeline_split"] = "deepspeed-transformer";
    const std::vector<Override> pp4{{"/parallelism/pp", "4"}, {"/parallelism/dp", "2"}};
    const Scenario s = loader.build(loader.load(dir.write("exp.json", doc).string()), pp4);
    CHECK(s.parallelism.pipeline_layers == std::vector<int>{2, 2, 2, 1});
  }
  SECTION("a rule that cannot split the layers is one message at the key") {
    doc["model"]["layers"] = 7;
    doc["parallelism"]["pipeline_split"] = "ends-one-fewer";  // 7 + 2 over 2 stages
    const auto ds = diagnostics_of(dir.write("exp.json", doc));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_split",
                         "\"ends-one-fewer\" cannot spread 7 layers over pp·vp = 2·1 = 2 virtual stages"));
    CHECK(ds.size() == 1);  // not also "layers are not divisible by pp·vp"
    // Near INT_MAX, layers + 2 must not wrap (it once blamed pipeline_layers with a negative sum).
    doc["model"]["layers"] = 2147483646;
    const auto huge = diagnostics_of(dir.write("exp.json", doc));
    INFO(dump(huge));
    CHECK(has_diagnostic(huge, "exp.json", "/parallelism/pipeline_split", "at most 1048576 layers and stages"));
    for (const auto& d : huge) CHECK(d.pointer != "/parallelism/pipeline_layers");
  }
  SECTION("with pipeline_layers or pipeline_layout too, or under v-half") {
    doc["parallelism"]["pipeline_split"] = "ends-one-fewer";
    doc["parallelism"]["pipeline_layers"] = {4, 4};
    auto ds = diagnostics_of(dir.write("exp.json", doc));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_split", "state one of pipeline_split"));
    doc["parallelism"].erase("pipeline_layers");
    doc["parallelism"]["schedule"] = "v-half";
    ds = diagnostics_of(dir.write("exp.json", doc));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_split", "not supported with it"));
  }
  SECTION("an unknown rule lists the known ones") {
    doc["parallelism"]["pipeline_split"] = "ends-one-fower";
    const auto ds = diagnostics_of(dir.write("exp.json", doc));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_split", "did you mean \"ends-one-fewer\""));
  }
}
