// One SECTION per invalid input; each asserts the file AND the JSON pointer of the diagnostic.
#include "tests/catch.hpp"

#include <algorithm>

#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

namespace {

// Writes `doc` as exp.json in a temp dir and returns its diagnostics.
std::vector<Diagnostic> check(const nlohmann::json& doc, const std::vector<Override>& overrides = {}) {
  TempDir dir;
  return diagnostics_of(dir.write("exp.json", doc), overrides);
}

}  // namespace

TEST_CASE("the small test experiment is valid", "[config]") {
  const auto ds = check(small_experiment());
  INFO(dump(ds));
  CHECK(ds.empty());
}

TEST_CASE("each invalid experiment is reported with its file and JSON pointer", "[config]") {
  auto doc = small_experiment();
  auto& device = doc["cluster"]["node"]["device"];
  std::vector<Diagnostic> ds;

  SECTION("syntax error: line and column") {
    TempDir dir;
    ds = diagnostics_of(
        dir.write("exp.json", std::string("{\n  \"schema_version\": 1\n  \"name\": \"x\"\n}\n")));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "", "line 3"));
  }
  SECTION("duplicate key") {
    TempDir dir;
    ds = diagnostics_of(
        dir.write("exp.json", std::string(R"({"schema_version": 1, "parallelism": {"tp": 2, "tp": 4}})")));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/tp", "duplicate key"));
  }
  SECTION("unknown top-level key with a suggestion") {
    doc["paralelism"] = doc["parallelism"];
    doc.erase("parallelism");
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/paralelism", "did you mean \"parallelism\""));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism", "missing required key"));
  }
  SECTION("a node ici block on a node that is not a torus-ici node, and a torus of 4 dimensions") {
    doc["cluster"]["node"]["ici"] = {{"dims", 2}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/ici", "torus-ici"));
    doc["cluster"]["node"]["ici"] = {{"dims", 4}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/ici/dims", ""));
  }
  SECTION("unknown key inside a section with a suggestion") {
    doc["training"]["micro_bach"] = 2;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/micro_bach", "did you mean \"micro_batch\""));
  }
  SECTION("unknown key in an inline device") {
    device["peek"] = device["peak"];
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/device/peek", "did you mean \"peak\""));
  }
  SECTION("wrong type: a string where an integer is expected") {
    doc["parallelism"]["tp"] = "4";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/tp", "expected an integer, got string \"4\""));
  }
  SECTION("wrong type: a string where a boolean is expected") {
    doc["parallelism"]["sequence_parallel"] = "yes";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/sequence_parallel", "expected true or false"));
  }
  SECTION("wrong type: a section that is not an object") {
    doc["training"] = 5;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training", "expected an object"));
  }
  SECTION("bare number where a unit is needed names the unit") {
    device["memory"]["capacity"] = 80;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/device/memory/capacity",
                         "bare number 80 needs a unit"));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/device/memory/capacity", "GiB"));
  }
  SECTION("a unit of the wrong dimension") {
    device["memory"]["bandwidth"] = "2039 GB";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/device/memory/bandwidth", "is not a bandwidth"));
  }
  SECTION("zero size") {
    device["memory"]["capacity"] = "0 GiB";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/device/memory/capacity", "must be positive"));
  }
  SECTION("negative bandwidth") {
    doc["cluster"]["node"]["intra_link"]["bandwidth"] = "-300 GB/s";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/intra_link/bandwidth", "must be positive"));
  }
  SECTION("negative integer") {
    doc["training"]["micro_batch"] = -1;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/micro_batch", "out of range"));
  }
  SECTION("zero node count") {
    doc["cluster"]["nodes"] = 0;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/nodes", "out of range"));
  }
  SECTION("missing required key") {
    doc["training"].erase("global_batch");
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/global_batch", "missing required key"));
  }
  SECTION("a missing section is one diagnostic, without follow-up noise") {
    doc.erase("cluster");
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster", "missing required key"));
    CHECK(ds.size() == 1);
  }
  SECTION("missing schema_version") {
    doc.erase("schema_version");
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/schema_version", "missing required key"));
  }
  SECTION("unsupported schema_version") {
    doc["schema_version"] = 2;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/schema_version", "unsupported schema_version 2"));
  }
  SECTION("tp does not divide the attention heads") {
    doc["model"]["heads"] = 20;
    doc["model"]["hidden"] = 1280;
    doc["parallelism"] = {{"tp", 8}, {"pp", 2}, {"dp", 1}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/tp",
                         "does not divide the number of attention heads (20)"));
  }
  SECTION("kv_heads incompatible with tp") {
    doc["model"]["heads"] = 12;
    doc["model"]["hidden"] = 1536;
    doc["model"]["kv_heads"] = 6;
    doc["parallelism"] = {{"tp", 4}, {"pp", 2}, {"dp", 2}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/tp", "kv_heads (6) are incompatible"));
  }
  SECTION("tp does not divide ffn_hidden") {
    doc["model"]["ffn_hidden"] = 1001;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/tp", "does not divide ffn_hidden (1001)"));
  }
  SECTION("heads must divide hidden") {
    doc["model"]["heads"] = 24;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/model/heads", "must divide hidden"));
  }
  SECTION("swiglu needs an explicit ffn_hidden") {
    doc["model"]["mlp"] = "swiglu";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/model/ffn_hidden", "missing required key"));
  }
  SECTION("tp*pp*dp*cp differs from the device count") {
    doc["parallelism"]["dp"] = 3;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/dp", "= 12 but the cluster has 16 devices"));
  }
  SECTION("dp cannot be derived when tp*pp*cp does not divide the devices") {
    doc["parallelism"] = {{"tp", 2}, {"pp", 3}};
    doc["model"]["layers"] = 9;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism", "dp cannot be derived"));
  }
  SECTION("micro_batch*dp does not divide the global batch") {
    doc["training"]["global_batch"] = 30;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/global_batch", "not a multiple of micro_batch·dp"));
  }
  SECTION("layers not divisible by pp") {
    doc["model"]["layers"] = 9;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pp", "layers (9) are not divisible by pp·vp"));
  }
  SECTION("vp > 1 needs the interleaved schedule") {
    doc["parallelism"]["vp"] = 2;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/vp", "needs schedule \"interleaved-1f1b\""));
  }
  SECTION("the interleaved schedule with vp 1 is Megatron-Core's one-chunk interleaving, not an error") {
    doc["parallelism"]["schedule"] = "interleaved-1f1b";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.empty());
  }
  SECTION("the interleaved schedule needs microbatches divisible by pp") {
    doc["parallelism"]["vp"] = 2;
    doc["parallelism"]["schedule"] = "interleaved-1f1b";
    doc["training"]["global_batch"] = 12;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/vp",
                         "number of micro-batches (3) to be a multiple of pp (2)"));
  }
  SECTION("sequence parallelism needs tp > 1") {
    doc["parallelism"] = {{"tp", 1}, {"pp", 2}, {"dp", 8}, {"sequence_parallel", true}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/sequence_parallel", "needs tp > 1"));
  }
  SECTION("zero_stage out of range") {
    doc["parallelism"]["zero_stage"] = 4;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/zero_stage", "must be in 0..3"));
  }
  SECTION("fsdp contradicts zero_stage") {
    doc["parallelism"]["fsdp"] = true;
    doc["parallelism"]["zero_stage"] = 1;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/fsdp", "zero_stage 3"));
  }
  SECTION("cp does not divide the sequence length") {
    doc["parallelism"] = {{"tp", 2}, {"pp", 2}, {"dp", 2}, {"cp", 2}};
    doc["training"]["seq_len"] = 2047;
    doc["training"]["global_batch"] = 32;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/cp", "does not divide the sequence length (2047)"));
  }
  SECTION("expert parallelism on a dense model") {
    doc["parallelism"]["ep"] = 2;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/ep", "needs a mixture-of-experts model"));
  }
  SECTION("moe_overlap of a wrong type or an unknown name (its default is derived from the schedule)") {
    // An internal error until the fuzzer stated the key (config_fuzz seed 29 cases 137 and 352).
    for (const nlohmann::json& bad : {nlohmann::json(17), nlohmann::json("interlaced"), nlohmann::json::array()}) {
      doc["parallelism"]["moe_overlap"] = bad;
      ds = check(doc);
      INFO(dump(ds));
      CHECK(has_diagnostic(ds, "exp.json", "/parallelism/moe_overlap", "\"shared-expert\""));
    }
  }
  SECTION("an SM partition for the all-to-all without compute overlap, and one that leaves no SMs") {
    doc["parallelism"]["ep_comm_sms_reserved"] = true;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/ep_comm_sms_reserved", "moe_overlap \"compute\""));
    doc["parallelism"]["moe_overlap"] = "compute";
    doc["parallelism"]["ep_comm_sms"] = 100000;
    device["sm_count"] = 132;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/ep_comm_sms", "leaves none of the device's 132 SMs"));
  }
  SECTION("the device has no peak for the chosen precision") {
    doc["training"]["precision"] = "fp8";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/precision", "has no fp8 peak (it lists: fp32, bf16)"));
  }
  SECTION("fp4 (NVFP4) training on a device without an fp4 peak") {
    doc["training"]["precision"] = "fp4";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/precision", "has no fp4 peak (it lists: fp32, bf16)"));
  }
  SECTION("fp4 training with an FP8 scaling recipe, and fp4 gradient buffers") {
    doc["training"]["precision"] = "fp4";
    doc["training"]["fp8_scaling"] = "mxfp8";
    doc["training"]["gradient_precision"] = "fp4";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/fp8_scaling", "\"fp4\" is NVFP4 with its own scaling"));
    CHECK(has_diagnostic(ds, "exp.json", "/training/gradient_precision", "not a gradient-buffer format"));
    // One message for the one problem (mxfp8's own "needs fp8" was printed too).
    CHECK(std::count_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.pointer == "/training/fp8_scaling"; }) == 1);
  }
  SECTION("BF16 layers without a quantised precision, and more BF16 layers than the model has") {
    // 0 keeps nothing out of anything: accepted with bf16 (a sweep over precisions may state it).
    doc["training"]["bf16_layers_at_start"] = 0;
    doc["training"]["bf16_layers_at_end"] = 0;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.empty());
    doc["training"].erase("bf16_layers_at_end");
    doc["training"]["bf16_layers_at_start"] = 1;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/bf16_layers_at_start", "needs \"precision\": \"fp8\" or \"fp4\""));
    device["peak"]["fp8"] = "1979 TFLOPS";
    doc["training"]["precision"] = "fp8";
    doc["training"]["bf16_layers_at_start"] = 100000;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/bf16_layers_at_start", "BF16 layers, but the model has"));
  }
  SECTION("fp8 training on a device without a bf16 peak (attention and the LM head run in bf16)") {
    device["peak"] = {{"fp8", "1979 TFLOPS"}};
    doc["training"]["precision"] = "fp8";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/precision", "has no bf16 peak"));
  }
  SECTION("fp8 attention without fp8 training") {
    doc["training"]["fp8_attention"] = true;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/fp8_attention", "needs \"precision\": \"fp8\""));
  }
  SECTION("vocabulary parallelism without pipeline parallelism") {
    doc["parallelism"]["pp"] = 1;
    doc["parallelism"]["vocab_parallel"] = "vocab-1";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/vocab_parallel", "needs pp > 1"));
  }
  SECTION("vocabulary parallelism with a wrong pp: one message, at pp") {
    // review-s37c: the reader's own vocab_parallel check also fired when pp itself was refused.
    doc["parallelism"]["vocab_parallel"] = "vocab-1";
    for (const nlohmann::json& pp : {nlohmann::json(0), nlohmann::json("x"), nlohmann::json(-1)}) {
      doc["parallelism"]["pp"] = pp;
      ds = check(doc);
      INFO(pp.dump() << ": " << dump(ds));
      CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pp", ""));
      CHECK_FALSE(has_diagnostic(ds, "exp.json", "/parallelism/vocab_parallel", ""));
    }
  }
  SECTION("JAX's dots policy on a mixture-of-experts model") {
    doc["training"]["recompute"] = "selective";
    doc["training"]["selective_recompute"] = "dots";
    CHECK_FALSE(has_diagnostic(check(doc), "exp.json", "/training/selective_recompute", ""));
    doc["model"] = "dbrx";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/selective_recompute", "mixture-of-experts layers"));
  }
  SECTION("an attention kernel named without fused attention") {
    doc["training"]["flash_attention"] = false;
    doc["training"]["attention_kernel"] = "triton-flash";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/attention_kernel", "flash_attention is false"));
  }
  SECTION("FP8 attention with a FlashAttention-2 kernel, which has no FP8 path") {
    doc["training"]["precision"] = "fp8";
    doc["training"]["fp8_attention"] = true;
    doc["training"]["attention_kernel"] = "flash-2";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/fp8_attention", "with an FP8 path"));
    doc["training"]["attention_kernel"] = "cudnn";
    CHECK_FALSE(has_diagnostic(check(doc), "exp.json", "/training/fp8_attention", "with an FP8 path"));
  }
  SECTION("blockwise FP8 scaling without fp8 training, and an unknown scaling") {
    doc["training"]["fp8_scaling"] = "blockwise";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/fp8_scaling", "needs \"precision\": \"fp8\""));
    doc["training"]["fp8_scaling"] = "per-block";
    ds = check(doc);
    CHECK(has_diagnostic(ds, "exp.json", "/training/fp8_scaling", ""));
  }
  SECTION("MXFP8 without fp8 training, and a scale-swizzle setting without MXFP8") {
    doc["training"]["fp8_scaling"] = "mxfp8";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/fp8_scaling", "\"mxfp8\" needs \"precision\": \"fp8\""));
    doc["training"]["fp8_scaling"] = "delayed";
    doc["training"]["mxfp8_separate_swizzle"] = true;
    ds = check(doc);
    CHECK(has_diagnostic(ds, "exp.json", "/training/mxfp8_separate_swizzle", "only with \"fp8_scaling\": \"mxfp8\""));
    doc["training"]["mxfp8_separate_swizzle"] = "yes";
    ds = check(doc);
    CHECK(has_diagnostic(ds, "exp.json", "/training/mxfp8_separate_swizzle", ""));
  }
  SECTION("wrong-typed keys a framework profile's rules read are reported by the reader, not thrown") {
    // apply_profile reads precision, fp8_scaling, tp, pp, zero_stage... to choose defaults; a wrong type there
    // was an uncaught json type error (exit 1) under the nemo profiles.
    doc["profile"] = "nemo-2026";
    doc["training"]["precision"] = "fp8";
    doc["training"]["fp8_scaling"] = 5;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/fp8_scaling", ""));
    doc["training"].erase("fp8_scaling");
    doc["training"]["precision"] = 8;
    ds = check(doc);
    CHECK(has_diagnostic(ds, "exp.json", "/training/precision", ""));
    doc["training"]["precision"] = "bf16";
    doc["parallelism"]["tp"] = "8";
    doc["parallelism"]["zero_stage"] = "3";
    doc["parallelism"]["tp_comm_overlap"] = 1;
    ds = check(doc);
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/tp", ""));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/zero_stage", ""));
  }
  SECTION("a negative SM count") {
    device["sm_count"] = -1;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/device/sm_count", ""));
  }
  SECTION("unknown schedule lists the allowed values") {
    doc["parallelism"]["schedule"] = "1f1f";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/schedule",
                         "allowed: \"gpipe\", \"1f1b\", \"interleaved-1f1b\", \"zb-h1\", \"dualpipe\", \"v-half\""));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/schedule", "did you mean \"1f1b\""));
  }
  SECTION("unknown recompute value") {
    doc["training"]["recompute"] = "ful";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/recompute", "did you mean \"full\""));
  }
  SECTION("unknown engine") {
    doc["engine"] = "simgrid";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/engine", "allowed: \"analytic\", \"flow\""));
  }
  SECTION("unknown topology") {
    doc["cluster"]["network"] = {{"topology", "fat_tree"}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/topology", "did you mean \"fat-tree\""));
  }
  SECTION("oversubscription below 1") {
    doc["cluster"]["network"] = {{"oversubscription", 0.5}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/oversubscription", "out of range"));
  }
  SECTION("oversubscription past 10^6: one message at the key, with the value as written") {
    doc["cluster"]["network"] = {{"oversubscription", 1e12}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.size() == 1);
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/network/oversubscription", "1000000000000 is out of range"));
  }
  SECTION("efficiency above 1") {
    doc["cluster"]["node"]["intra_link"]["efficiency"] = 1.5;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/intra_link/efficiency", "out of range"));
  }
  SECTION("attention half-keys of zero or past 10^6: one located message each") {
    device["efficiency"]["attention_half_keys"] = 0;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.size() == 1);
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/device/efficiency/attention_half_keys", "out of range"));
    device["efficiency"]["attention_half_keys"] = 1e9;
    ds = check(doc);
    CHECK(ds.size() == 1);
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/device/efficiency/attention_half_keys", "out of range"));
  }
  SECTION("ALiBi with FlashAttention (v1): one located message; other kernels and the unfused path pass") {
    doc["model"]["position"] = "alibi";
    doc["training"]["flash_attention"] = true;
    doc["training"]["attention_kernel"] = "flash-1";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.size() == 1);
    CHECK(has_diagnostic(ds, "exp.json", "/training/attention_kernel", "bias input"));
    for (const char* ok : {"flash-2", "cudnn", "triton-flash", "native"}) {
      doc["training"]["attention_kernel"] = ok;
      CHECK(check(doc).empty());
    }
    doc["training"]["attention_kernel"] = "flash-1";
    doc["training"]["flash_attention"] = false;
    CHECK(!check(doc).empty());  // a kernel named with flash attention off is its own error
    doc["training"].erase("attention_kernel");
    CHECK(check(doc).empty());
  }
  SECTION("NICs without a NIC description") {
    doc["cluster"]["node"].erase("nic");
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/nic", "nics is 8"));
  }
  SECTION("unknown catalog name lists close matches") {
    doc["model"] = "gpt3-175";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/model", "unknown model \"gpt3-175\""));
    CHECK(has_diagnostic(ds, "exp.json", "/model", "did you mean \"gpt3-175b\""));
    CHECK(ds.size() == 1);  // no follow-up type error for the unresolved slot
  }
  SECTION("unknown catalog name for a nested device") {
    device = "a100";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/device", "a100-sxm4-40gb"));
  }
  SECTION("missing referenced file") {
    doc["model"] = "models/nope.json";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/model", "model file \"models/nope.json\" not found"));
  }
  SECTION("missing experiment file") {
    ds = diagnostics_of(std::filesystem::temp_directory_path() / "clustersim-no-such-dir" / "x.json");
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "x.json", "", "not found"));
  }
  SECTION("a problem inside a referenced file is reported against that file") {
    TempDir dir;
    auto bad_device = small_experiment()["cluster"]["node"]["device"];
    bad_device["memory"]["bandwidth"] = 2039;
    dir.write("devices/bad.json", bad_device);
    auto node = doc["cluster"]["node"];
    node["device"] = "../devices/bad.json";
    dir.write("nodes/n.json", node);
    doc["cluster"]["node"] = "nodes/n.json";
    ds = diagnostics_of(dir.write("exp.json", doc));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "devices/bad.json", "/memory/bandwidth", "bare number 2039 needs a unit"));
  }
  SECTION("a syntax error inside a referenced file") {
    TempDir dir;
    dir.write("models/broken.json", std::string("{\n  \"layers\": 8,\n  \"hidden\" 1024\n}\n"));
    doc["model"] = "models/broken.json";
    ds = diagnostics_of(dir.write("exp.json", doc));
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "models/broken.json", "", "line 3"));
    CHECK(has_diagnostic(ds, "exp.json", "/model", "could not be read"));
  }
  SECTION("--set with a pointer outside the schema suggests the right key") {
    ds = check(doc, {{"/parallelism/tpp", "4"}});
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "<--set>", "/parallelism/tpp", "did you mean \"tp\""));
  }
  SECTION("--set with a misspelt section") {
    ds = check(doc, {{"/paralelism/tp", "4"}});
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "<--set>", "/paralelism", "did you mean \"parallelism\""));
  }
  SECTION("--set through a value that is not an object") {
    ds = check(doc, {{"/parallelism/tp/x", "1"}});
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "<--set>", "/parallelism/tp/x", "/parallelism/tp is number, not an object"));
  }
  SECTION("--set value is checked like a file value, and reported against <--set>") {
    ds = check(doc, {{"/cluster/node/device/memory/capacity", "80"}});
    INFO(dump(ds));
    CHECK(
        has_diagnostic(ds, "<--set>", "/cluster/node/device/memory/capacity", "bare number 80 needs a unit"));
  }
  SECTION("--set naming an unknown catalog entry") {
    ds = check(doc, {{"/cluster/node/device", "h100"}});
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "<--set>", "/cluster/node/device", "h100-sxm5-80gb"));
  }
  SECTION("batch ramp: start above the final batch, increment 0 or not dividing, samples 0, too many batches") {
    doc["training"]["batch_rampup"] = {{"start", 64}, {"increment", 4}, {"samples", 1000}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/batch_rampup/start", "above global_batch (32)"));
    doc["training"]["batch_rampup"] = {{"start", 8}, {"increment", 0}, {"samples", 1000}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/batch_rampup/increment", ""));
    doc["training"]["batch_rampup"] = {{"start", 8}, {"increment", 5}, {"samples", 1000}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/batch_rampup/increment", "does not divide global_batch - start"));
    doc["training"]["batch_rampup"] = {{"start", 8}, {"increment", 8}, {"samples", 0}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/batch_rampup/samples", ""));
    doc["training"]["batch_rampup"] = {{"start", 8}, {"increment", 8}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/batch_rampup/samples", "missing required key"));
    doc["training"]["global_batch"] = 8192;
    doc["training"]["batch_rampup"] = {{"start", 4}, {"increment", 4}, {"samples", 1000}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/batch_rampup/increment", "2048 distinct batches"));
  }
  SECTION("batch ramp: a batch of the ramp that does not split into micro-batches or that the schedule refuses") {
    // micro_batch·dp = 1·4
    doc["training"]["batch_rampup"] = {{"start", 6}, {"increment", 2}, {"samples", 1000}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/batch_rampup/start", "not a multiple of micro_batch·dp"));
    doc["training"]["batch_rampup"] = {{"start", 4}, {"increment", 2}, {"samples", 1000}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/batch_rampup/increment", "not a multiple of micro_batch·dp"));
    // DualPipe at pp 2 needs an even micro-batch count of at least 4: the ramp's first batch gives 1.
    doc["parallelism"]["schedule"] = "dualpipe";
    doc["training"]["batch_rampup"] = {{"start", 4}, {"increment", 4}, {"samples", 1000}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/batch_rampup/start", "the ramp's batch 4 gives 1 micro-batches"));
    // From 16 (4 micro-batches) by 4: the batch 20 gives 5, an odd count.
    doc["training"]["batch_rampup"] = {{"start", 16}, {"increment", 4}, {"samples", 1000}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/training/batch_rampup/increment", "the ramp's batch 20 gives 5"));
    doc["training"]["batch_rampup"] = {{"start", 16}, {"increment", 8}, {"samples", 1000}};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.empty());
  }
  SECTION("v-half: vp, layers over 2·pp, explicit splits and the interlaced vocabulary pipeline, one message each") {
    doc["parallelism"]["schedule"] = "v-half";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.empty());  // 8 layers over 2·pp = 4 chunks
    doc["parallelism"]["vp"] = 2;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.size() == 1);
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/vp", "vp must be 1 or absent (got 2)"));
    doc["parallelism"].erase("vp");
    doc["model"]["layers"] = 6;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.size() == 1);
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pp", "needs the layers (6) divisible by 2·pp = 4"));
    doc["model"]["layers"] = 8;
    doc["parallelism"]["pipeline_layers"] = {2, 2, 2, 2};
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_layers", "an explicit split is not supported"));
    doc["parallelism"].erase("pipeline_layers");
    doc["parallelism"]["vocab_parallel"] = "interlaced";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.size() == 1);
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/vocab_parallel", "vocab-1 or vocab-2 only"));
    doc["parallelism"]["vocab_parallel"] = "vocab-1";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.empty());
  }
  SECTION("v-half: every problem of one experiment is listed, one message each at its own pointer") {
    // A stray vp used to stop check_v_half: the split, the layer count and the vocabulary pipeline
    // went unreported until the vp was fixed.
    doc["parallelism"]["schedule"] = "v-half";
    doc["parallelism"]["vp"] = 2;
    doc["parallelism"]["vocab_parallel"] = "interlaced";
    doc["parallelism"]["pipeline_layers"] = {2, 2, 1, 1};
    doc["model"]["layers"] = 6;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.size() == 4);
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/vp", "vp must be 1 or absent (got 2)"));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/vocab_parallel", "vocab-1 or vocab-2 only"));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_layers", "an explicit split is not supported"));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pp", "needs the layers (6) divisible by 2·pp = 4"));
    // A layout string instead of pipeline_layers: named at its own key.
    doc["parallelism"].erase("pipeline_layers");
    doc["parallelism"]["pipeline_layout"] = "Et|t|t|tL";
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.size() == 4);
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pipeline_layout", "an explicit split is not supported"));
    // A vp the reader already refuses (out of range) hides nothing either: its own message plus the three.
    doc["parallelism"]["vp"] = 0;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.size() == 4);
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/vp", "out of range"));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/vocab_parallel", "vocab-1 or vocab-2 only"));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pp", "needs the layers (6) divisible by 2·pp = 4"));
  }
  SECTION("dualpipe: a refused vp does not hide an odd pp") {
    doc["parallelism"]["schedule"] = "dualpipe";
    doc["parallelism"]["vp"] = -3;
    doc["parallelism"]["pp"] = 3;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/vp", "out of range"));
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/pp", "needs an even pp"));
  }
  SECTION("all problems of a document are reported together") {
    doc["parallelism"]["tp"] = "2";
    doc["training"]["recompute"] = "some";
    device["power"]["tdp"] = 400;
    ds = check(doc);
    INFO(dump(ds));
    CHECK(ds.size() == 3);
    CHECK(has_diagnostic(ds, "exp.json", "/parallelism/tp", "expected an integer"));
    CHECK(has_diagnostic(ds, "exp.json", "/training/recompute", "unknown value"));
    CHECK(has_diagnostic(ds, "exp.json", "/cluster/node/device/power/tdp", "needs a unit"));
  }
}
