// config_fuzz: a seeded structural fuzzer of clustersim run in-process (docs/limits.md, "Fuzzing").
//
// Each case mutates a bundled input — an experiment, a catalog entry the experiment references (cluster,
// node, device, model, energy catalog; given through --configs), records of the published-runs corpus, a
// nccl-tests log, sweep/merge/compare files — and picks --set/--vary values and options of one subcommand
// (run, validate, sweep, plan, collective, calibrate-links, topo, report, merge, compare, explain, schema).
// It then calls run_cli(), the function the clustersim binary's main() is, with standard output and error
// captured, and classifies the outcome:
//   ok       exit 0 (or 3: a failed check) and no non-finite number in the output;
//   refused  exit 2 with a located message (`file:/pointer: ...`, `<command line>:--option: ...`, a CLI11
//            option message, `cannot write PATH: reason`);
//   finding  anything else: exit 1 (an exception other than the configuration error type: "internal
//            error"), exit 2 without a located message, `inf`/`nan` in an ok output, or a case still running
//            after the per-case budget (CPU seconds, default 30; 10x in wall time) (the driver then prints the case and exits 1, so a hang is reported
//            rather than waited for; resume after it with --first), or a sanitizer report in the case's
//            standard error (a UBSan `FILE:LINE:COL: runtime error:` line, `==PID==ERROR: ...Sanitizer`).
// In a sanitizer build (the asan preset, -fno-sanitize-recover) a report ends the process: a death callback
// prints the case as a finding with the report's first line, saves the case (and its standard error, as
// NAME.stderr.txt), prints the tally and "stopped by a sanitizer report at case N", and exits 1, as a hang
// does; tools/fuzz_campaign resumes after it. --self-test-sanitizer makes the first case commit a signed
// integer overflow (a sanitizer build) or write a UBSan-format line to its standard error (other builds), to
// check that either is reported.
//
// usage: config_fuzz [--cases N] [--seed S] [--first K] [--budget SECONDS] [--time SECONDS] [--save DIR]
//                    [--root SOURCE_DIR] [--self-test-sanitizer] [--verbose] [--print-cases] [--no-newer-keys]
// Case i depends only on (seed, i): `--first K --cases 1` replays case K alone (--print-cases prints each
// case's JSON, the format of tests/fuzz_corpus, before it runs). One case in five is a newer-key case
// (CaseMaker::newer); --no-newer-keys makes none, so a seed and index of a campaign before them (seeds up to
// 28000) give that campaign's case. --save writes every finding
// as a case file that tools/fuzz --replay runs through the CLI binary (tests/fuzz_corpus holds them).
// Exit 0 when no case was a finding.
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_main.hpp"

// The sanitizer runtime's death callback (sanitizer/common_interface_defs.h), declared weak: null in a build
// without a sanitizer.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace {

// Sets `callback` as the death callback of every sanitizer runtime in the process; returns how many. GCC
// links ASan and UBSan as two shared runtimes (libasan, libubsan), each with its own copy of the common
// code: a UBSan report ends the process through libubsan's copy, which the symbol above (bound to the first,
// libasan) does not reach, so each loaded runtime is asked for its own.
int set_sanitizer_death_callbacks(void (*callback)(void)) {
  std::vector<std::string> runtimes;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        const std::string name = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const std::string base = name.substr(name.find_last_of('/') + 1);
        if (base.rfind("lib", 0) == 0 && base.find("san.so") != std::string::npos)
          static_cast<std::vector<std::string>*>(data)->push_back(name);
        return 0;
      },
      &runtimes);
  int set = 0;
  for (const std::string& name : runtimes) {
    void* lib = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (lib == nullptr) continue;
    using Setter = void (*)(void (*)(void));
    if (auto* f = reinterpret_cast<Setter>(dlsym(lib, "__sanitizer_set_death_callback")); f != nullptr) {
      f(callback);
      ++set;
    }
    dlclose(lib);
  }
  // A runtime linked statically (clang's default) is not a shared object: the weak symbol is its function.
  if (set == 0 && __sanitizer_set_death_callback != nullptr) {
    __sanitizer_set_death_callback(callback);
    ++set;
  }
  return set;
}

}  // namespace

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// ------------------------------------------------------------------------------------------ random source
// splitmix64 over (seed, case): case i is the same whatever ran before it.
class Rng {
 public:
  Rng(std::uint64_t seed, std::uint64_t index) : state_(seed * 0x9E3779B97F4A7C15ULL ^ (index + 1) * 0xBF58476D1CE4E5B9ULL) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }
  bool chance(double p) { return unit() < p; }

 private:
  std::uint64_t state_;
};

const std::vector<json> kHuge = {1e308, -1e308, 1e30, 2147483648LL, 2147483647LL, -2147483648LL,
                                 9007199254740993LL, 9223372036854775807LL, 1e20, 0, -1, -0.0, 1e-320,
                                 0.5, 3, 7, 1e9, 65536, 1e-31, 1e-300};
const std::vector<std::string> kUnitStrings = {
    "1e308 GB", "1e308 Tb/s", "-5 GB/s", "0 W", "nan W", "inf TFLOPS", "1e999 TFLOPS", "5 parsecs", "", " ",
    "80", "80 GiB", "1.5 us", "0 s", "-1 s", "1e-300 s", "3e38 B", "NaN", "Infinity", "-inf", "1e30 B/s", "15T",
    "$-3", "999999999999 MW", "0x10 GB", "1,5 GB", "1e-31 s", "1e-40 GB/s", "2e-31 W"};
const std::vector<std::string> kPlainStrings = {"", "none", "bf16", "flow", "analytic", "fat-tree", "torus",
                                                "dragonfly", "../../etc/passwd", "\xc3\xb6", std::string(300, 'a'),
                                                "1f1b", "interleaved-1f1b", "zero", "powersgd", "topk", "int4"};
const std::vector<std::string> kRawNumbers = {"1e999", "-1e999", "1e-999", "123456789012345678901234567890",
                                              "-0"};
const std::vector<std::string> kExtraKeys = {"extra", "topolgy", "nodes ", "tp", "energy", "compression", "jobs",
                                             "monte_carlo", "groups", "routers"};
const std::vector<std::string> kSetPointers = {
    "/parallelism/tp", "/parallelism/pp", "/parallelism/dp", "/parallelism/vp", "/parallelism/cp",
    "/parallelism/zero_stage", "/training/global_batch", "/training/micro_batch", "/training/seq_len",
    "/cluster/nodes", "/cluster/node/nic/bandwidth", "/cluster/node/device/memory/capacity",
    "/compression/scheme", "/training/precision", "/parallelism/schedule", "/cluster/network/topology",
    "/cluster/network/oversubscription", "/model/layers", "/model/hidden", "/engine", "/run/duration",
    "/energy/pue", "/nonexistent/key", "/training/recompute", "/cluster/node/devices_per_node",
    "/jobs/0/nodes", "/parallelism/ep", "/cluster/network/groups", "/run/monte_carlo/samples",
    "/cluster/node/nics_per_communicator"};
const std::vector<std::string> kSetValues = {
    "0", "-1", "1", "3", "1e999", "1e308", "2147483648", "nan", "\"1e308 GB\"", "\"1e308 Tb/s\"", "\"-5 GB/s\"",
    "\"powersgd\"", "\"fp8\"", "\"flow\"", "true", "null", "[]", "{}", "\"\"", "1.5", "\"interleaved-1f1b\"",
    "\"torus\"", "1000000000", "8", "16", "\"60 d\"", "\"0 s\"", "\"1e-31 s\"", "\"1e-35 GB/s\"", "2", "4",
    "[[[[1]]]]", "{\"x\":1}"};
const std::vector<std::string> kVaryValues = {"1,2,4", "1..8", "1..1e12:x10", "0..4", "-3..3", "1..4:x1", "abc",
                                              "1..1e9:+1", "1e999", "8,nan", "1..64:x2", "2", "1..3:+0.5",
                                              "\"1 TB/s\",\"2 TB/s\"", ""};

// ------------------------------------------------------------------------------------------ mutation
using Path = std::vector<json>;  // keys (strings) and indices (numbers)

void paths_of(const json& doc, Path& prefix, std::vector<Path>& out) {
  out.push_back(prefix);
  if (doc.is_object()) {
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      prefix.emplace_back(it.key());
      paths_of(it.value(), prefix, out);
      prefix.pop_back();
    }
  } else if (doc.is_array()) {
    for (std::size_t i = 0; i < doc.size() && i < 8; ++i) {
      prefix.emplace_back(i);
      paths_of(doc[i], prefix, out);
      prefix.pop_back();
    }
  }
}

json* at_path(json& doc, const Path& path, std::size_t len) {
  json* cur = &doc;
  for (std::size_t i = 0; i < len; ++i) {
    if (path[i].is_string() && cur->is_object() && cur->contains(path[i].get<std::string>())) {
      cur = &(*cur)[path[i].get<std::string>()];
    } else if (path[i].is_number() && cur->is_array() && path[i].get<std::size_t>() < cur->size()) {
      cur = &(*cur)[path[i].get<std::size_t>()];
    } else {
      return nullptr;
    }
  }
  return cur;
}

json random_value(Rng& rng, const json& old) {
  const double r = rng.unit();
  if (r < 0.3) return rng.pick(kHuge);
  if (r < 0.55) return rng.pick(kUnitStrings);
  if (r < 0.65) return rng.pick(kPlainStrings);
  if (r < 0.72) {
    const std::vector<json> odd = {nullptr, true, false, json::array(), json::object(), json::array({1, 2}),
                                   json{{"x", 1}}};
    return rng.pick(odd);
  }
  if (r < 0.8 && old.is_number()) {
    const double v = old.get<double>();
    const std::vector<json> near = {v * 1000, -v, v + 1, old.is_number_integer() ? json(old.get<std::int64_t>() / 2)
                                                                                  : json(v / 3),
                                    old.dump()};
    return rng.pick(near);
  }
  if (r < 0.88 && old.is_string()) {
    const std::string s = old.get<std::string>();
    const auto space = s.find(' ');
    if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) != 0) && space != std::string::npos) {
      const std::string num = s.substr(0, space), unit = s.substr(space + 1);
      const std::vector<std::string> v = {num + "e300 " + unit, "-" + s, "0 " + unit, num, s + "x",
                                          num + "e-40 " + unit};
      return rng.pick(v);
    }
    const std::vector<std::string> v = {s + "x", s + "-", s + " "};
    return rng.pick(v);
  }
  return rng.chance(0.5) ? rng.pick(kHuge) : json(rng.pick(kUnitStrings));
}

struct Doc {
  json value;
  std::map<std::string, std::string> raw;  // token -> text spliced into the rendered JSON
};

void mutate(Rng& rng, Doc& d) {
  const int n = 1 + static_cast<int>(rng.below(3));
  for (int k = 0; k < n; ++k) {
    std::vector<Path> paths;
    Path prefix;
    paths_of(d.value, prefix, paths);
    const Path& path = paths.size() > 1 ? paths[1 + rng.below(paths.size() - 1)] : paths[0];
    json* target = at_path(d.value, path, path.size());
    if (target == nullptr) continue;
    const json old = *target;
    const double op = rng.unit();
    if (op < 0.55) {
      *target = random_value(rng, old);
    } else if (op < 0.65) {
      if (path.empty()) continue;
      json* parent = at_path(d.value, path, path.size() - 1);
      if (parent->is_object()) {
        parent->erase(path.back().get<std::string>());
      } else if (parent->is_array() && !parent->empty()) {
        parent->erase(path.back().get<std::size_t>());
      }
    } else if (op < 0.72) {
      json* parent = path.empty() ? &d.value : at_path(d.value, path, path.size() - 1);
      if (parent->is_object()) (*parent)[rng.pick(kExtraKeys)] = random_value(rng, nullptr);
    } else if (op < 0.77) {
      const std::vector<int> depths = {3, 255, 300, 3000};
      const int depth = depths[rng.below(depths.size())];
      const std::string token = "@@RAW" + std::to_string(d.raw.size()) + "@@";
      d.raw[token] = std::string(static_cast<std::size_t>(depth), '[') + old.dump() +
                     std::string(static_cast<std::size_t>(depth), ']');
      *target = token;
    } else if (op < 0.85) {
      const std::string token = "@@RAW" + std::to_string(d.raw.size()) + "@@";
      d.raw[token] = rng.pick(kRawNumbers);
      *target = token;
    } else {
      *target = rng.chance(0.5) ? json{{"nested", old}} : json::array({old, old});
    }
  }
}

std::string render(const Doc& d) {
  std::string text = d.value.dump(1);
  for (const auto& [token, raw] : d.raw) {
    const std::string quoted = "\"" + token + "\"";
    for (auto pos = text.find(quoted); pos != std::string::npos; pos = text.find(quoted, pos + raw.size())) {
      text.replace(pos, quoted.size(), raw);
    }
  }
  return text;
}

// ------------------------------------------------------------------------------------------ inputs
struct Inputs {
  fs::path root;
  std::vector<std::string> experiments, clusters, energy_files, profiles;
  std::map<std::string, json> experiment_docs;
  json runs;      // the published-runs corpus
  json moe_runs;  // the MoE records (configs/reference/moe_runs.json): pipeline layouts, MTP, FP8 recipes
  std::vector<std::size_t> layout_records;     // indices of moe_runs records that state a pipeline_layout
  std::map<std::string, json> model_docs;      // catalog models named by the bundled experiments
};

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

std::vector<std::string> stems(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Inputs load_inputs(const fs::path& root) {
  Inputs in;
  in.root = root;
  in.experiments = stems(root / "configs/experiments");
  in.clusters = stems(root / "configs/clusters");
  in.energy_files = stems(root / "configs/energy");
  in.profiles = stems(root / "configs/profiles");
  for (const std::string& e : in.experiments) {
    in.experiment_docs[e] = read_json(root / "configs/experiments" / (e + ".json"));
  }
  in.runs = read_json(root / "configs/reference/published_runs.json");
  in.moe_runs = read_json(root / "configs/reference/moe_runs.json");
  for (std::size_t i = 0; i < in.moe_runs.size(); ++i) {
    const json& r = in.moe_runs[i];
    if (r.contains("parallelism") && r["parallelism"].is_object() && r["parallelism"].contains("pipeline_layout") &&
        r["parallelism"]["pipeline_layout"].is_string())
      in.layout_records.push_back(i);
  }
  for (const auto& [name, doc] : in.experiment_docs) {
    if (!doc.contains("model") || !doc["model"].is_string()) continue;
    const fs::path mp = root / "configs/models" / (doc["model"].get<std::string>() + ".json");
    if (fs::exists(mp)) in.model_docs[doc["model"].get<std::string>()] = read_json(mp);
  }
  return in;
}

// Experiments small enough for the flow engine, the planner and sweeps within a case budget.
const std::vector<std::string> kSmall = {"gpt2-1b-a100-8gpu", "two-jobs-halves", "two-jobs-interleaved",
                                         "llama2-70b-h100-dragonfly", "llama2-70b-h100-512",
                                         "mixtral-8x7b-h100-64"};

struct Case {
  std::vector<std::string> args;              // "@name" = a file of the case's directory
  std::map<std::string, std::string> files;   // relative path -> text
  bool newer = false;                         // made by CaseMaker::newer (not part of the case's JSON)
};

std::vector<std::string> sets(Rng& rng, std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back("--set");
    out.push_back(rng.pick(kSetPointers) + "=" + rng.pick(kSetValues));
  }
  return out;
}

void append(std::vector<std::string>& a, const std::vector<std::string>& b) { a.insert(a.end(), b.begin(), b.end()); }

template <class T>
std::vector<T> one_of(Rng& rng, const std::vector<std::vector<T>>& choices) {
  return choices[rng.below(choices.size())];
}

class CaseMaker {
 public:
  explicit CaseMaker(const Inputs& in, bool newer_keys = true) : in_(in), newer_keys_(newer_keys) {}

  Case make(Rng& rng) {
    Case c;
    // One case in five states the keys no bundled experiment states (parallelism.pipeline_layout with
    // layout-string mutations, model.moe.*, model.mtp_depth, parallelism.vocab_parallel/etp/moe_overlap, the
    // FP8 recipe and fp8_attention) or mutates the MoE records through `validate`. The choice is a draw of a
    // copy of the generator 16 draws ahead, so every other case of a seed is the case earlier campaigns ran.
    if (newer_keys_) {
      Rng side = rng;
      for (int k = 0; k < 16; ++k) side.next();
      if (side.chance(0.2)) {
        newer(rng, c);
        c.newer = true;
        return c;
      }
    }
    const std::vector<std::pair<std::string, int>> weights = {
        {"run", 30}, {"catalog", 8}, {"sweep", 9}, {"plan", 5},    {"validate", 9}, {"topo", 8},
        {"collective", 8}, {"calibrate-links", 4}, {"report", 4}, {"merge", 4},  {"compare", 4},
        {"explain", 3},   {"schema", 2}};
    int total = 0;
    for (const auto& w : weights) total += w.second;
    int r = static_cast<int>(rng.below(static_cast<std::size_t>(total)));
    std::string cmd;
    for (const auto& w : weights) {
      if (r < w.second) {
        cmd = w.first;
        break;
      }
      r -= w.second;
    }
    if (cmd == "run") run(rng, c);
    if (cmd == "catalog") catalog(rng, c);
    if (cmd == "sweep") sweep(rng, c);
    if (cmd == "plan") plan(rng, c);
    if (cmd == "validate") validate(rng, c);
    if (cmd == "topo") topo(rng, c);
    if (cmd == "collective") collective(rng, c);
    if (cmd == "calibrate-links") calibrate(rng, c);
    if (cmd == "report") report(rng, c);
    if (cmd == "merge") merge(rng, c);
    if (cmd == "compare") compare(rng, c);
    if (cmd == "explain") explain(rng, c);
    if (cmd == "schema") schema(rng, c);
    return c;
  }

 private:
  // An experiment argument: a bundled name, or a mutated copy written into the case.
  std::string experiment(Rng& rng, Case& c, const std::vector<std::string>& from, std::string* name_out = nullptr) {
    const std::string name = rng.pick(from);
    if (name_out != nullptr) *name_out = name;
    if (!rng.chance(0.6)) return name;
    Doc d{in_.experiment_docs.at(name), {}};
    // A framework profile named in the experiment: its rules read keys the mutations then break (a
    // wrong-typed fp8_scaling under a profile was an uncaught type error until b9aee61).
    // Drawn from a copy of the case's generator, so the case's own draws (and the cases of earlier
    // campaigns' seeds without a profile) stay as they were; its first draw is the mutation's below.
    Rng side = rng;
    if (side.chance(0.2) && d.value.is_object() && !in_.profiles.empty()) d.value["profile"] = side.pick(in_.profiles);
    if (rng.chance(0.9)) mutate(rng, d);
    c.files[name + ".json"] = render(d);
    return "@" + name + ".json";
  }

  void run(Rng& rng, Case& c) {
    std::string name;
    const std::string exp = experiment(rng, c, in_.experiments, &name);
    c.args = {"run", exp};
    append(c.args, sets(rng, rng.pick(std::vector<std::size_t>{0, 0, 1, 2})));
    append(c.args, one_of<std::string>(rng, {{}, {"--format", "json"}, {"--format", "csv"}}));
    // The flow engine only on the small experiments: 16,384 devices take ~30 s, legitimately.
    if (rng.chance(0.05) && std::find(kSmall.begin(), kSmall.end(), name) != kSmall.end()) {
      append(c.args, {"--engine", "flow"});
    }
    if (rng.chance(0.05)) append(c.args, {"--trace", rng.pick(std::vector<std::string>{"@trace.json", "/nonexistent/dir/t.json", "/dev/full"})});
    if (rng.chance(0.05)) append(c.args, {"--max-cost", rng.pick(std::vector<std::string>{"0", "-1", "1e999", "nan", "abc", "2"})});
    if (rng.chance(0.03)) append(c.args, {"--fidelity", rng.pick(std::vector<std::string>{"x", "high", "0"})});
  }

  // A catalog entry the experiment uses (its cluster, node, device or model, or an energy catalog),
  // mutated in a --configs root searched before the bundled one.
  void catalog(Rng& rng, Case& c) {
    const std::string name = rng.pick(in_.experiments);
    const json& exp = in_.experiment_docs.at(name);
    std::vector<std::pair<std::string, std::string>> refs;  // (kind dir, entry)
    if (exp.contains("cluster") && exp["cluster"].is_string()) {
      const std::string cl = exp["cluster"].get<std::string>();
      refs.emplace_back("clusters", cl);
      const fs::path cp = in_.root / "configs/clusters" / (cl + ".json");
      if (fs::exists(cp)) {
        const json cj = read_json(cp);
        if (cj.contains("node") && cj["node"].is_string()) {
          const std::string node = cj["node"].get<std::string>();
          refs.emplace_back("nodes", node);
          const fs::path np = in_.root / "configs/nodes" / (node + ".json");
          if (fs::exists(np)) {
            const json nj = read_json(np);
            if (nj.contains("device") && nj["device"].is_string()) refs.emplace_back("devices", nj["device"].get<std::string>());
          }
        }
      }
    }
    if (exp.contains("model") && exp["model"].is_string()) refs.emplace_back("models", exp["model"].get<std::string>());
    for (const std::string& e : in_.energy_files) refs.emplace_back("energy", e);
    const auto& [kind, entry] = refs[rng.below(refs.size())];
    const fs::path src = in_.root / "configs" / kind / (entry + ".json");
    c.args = {"run", name, "--configs", "@cat"};
    if (!fs::exists(src)) return;
    Doc d{read_json(src), {}};
    mutate(rng, d);
    c.files["cat/" + kind + "/" + entry + ".json"] = render(d);
    if (rng.chance(0.3)) append(c.args, {"--format", "json"});
  }

  void sweep(Rng& rng, Case& c) {
    const std::string axis = kSetPointers[rng.below(12)];
    c.args = {"sweep", experiment(rng, c, kSmall), "--vary", axis + "=" + rng.pick(kVaryValues), "-o", "@out.csv"};
    append(c.args, sets(rng, rng.below(2)));
    if (rng.chance(0.2)) append(c.args, {"--format", rng.pick(std::vector<std::string>{"jsonl", "csv", "x"})});
    if (rng.chance(0.1)) append(c.args, {"--shard", rng.pick(std::vector<std::string>{"0/2", "2/2", "1/0", "-1/3", "a/b"})});
    if (rng.chance(0.1)) append(c.args, {"--max-cost", rng.pick(std::vector<std::string>{"1", "0.5", "nan"})});
    if (rng.chance(0.05)) append(c.args, {"--estimate"});
  }

  void plan(Rng& rng, Case& c) {
    c.args = {"plan", experiment(rng, c, kSmall)};
    append(c.args, one_of<std::string>(
                       rng, {{},
                             {"--devices", rng.pick(std::vector<std::string>{"0", "-8", "8", "1e9", "abc", "7", "16"})},
                             {"--max-devices", rng.pick(std::vector<std::string>{"0", "16", "-1"})},
                             {"--top", rng.pick(std::vector<std::string>{"0", "3", "-1"})},
                             {"--objective", rng.pick(std::vector<std::string>{"time", "cost", "energy", "x"})},
                             {"--deadline", rng.pick(std::vector<std::string>{"60d", "-1 d", "1e999 s", "abc"})},
                             {"--max-cost", rng.pick(std::vector<std::string>{"0", "1", "1e999", "nan"})},
                             {"--max-cp", rng.pick(std::vector<std::string>{"0", "2", "-1"})},
                             {"--trust-error", rng.pick(std::vector<std::string>{"5%", "-1", "nan"})}}));
    append(c.args, sets(rng, rng.below(2)));
  }

  void validate(Rng& rng, Case& c) {
    c.args = {"validate"};
    if (rng.chance(0.8)) {
      Doc d{json::array(), {}};
      for (int i = 0; i < 4; ++i) d.value.push_back(in_.runs[rng.below(in_.runs.size())]);
      if (rng.chance(0.9)) mutate(rng, d);
      c.files["published_runs.json"] = render(d);
      c.args.push_back("@published_runs.json");
    }
    append(c.args, one_of<std::string>(rng, {{},
                                             {"--max-error", rng.pick(std::vector<std::string>{"5%", "1e999", "-1%", "abc", "nan", "inf", "0"})},
                                             {"--format", "json"},
                                             {"--split", rng.pick(std::vector<std::string>{"test", "all", "x"})}}));
  }

  void topo(Rng& rng, Case& c) {
    std::string target = rng.pick(in_.clusters);
    // The two largest pods (8,960 and 24,576 devices) cost seconds each: rarely, and unmutated.
    const bool big = target == "tpu-v5p-pod" || target == "llama3-h100-24k";
    if (big && !rng.chance(0.05)) target = "a100-1node";
    if (!big && rng.chance(0.6)) {
      Doc d{read_json(in_.root / "configs/clusters" / (target + ".json")), {}};
      mutate(rng, d);
      c.files[target + ".json"] = render(d);
      target = "@" + target + ".json";
    }
    c.args = {"topo", target};
    append(c.args, one_of<std::string>(rng, {{},
                                             {"--format", "json"},
                                             {"--hop-sources", rng.pick(std::vector<std::string>{"0", "1", "-1"})},
                                             {"--dot", rng.pick(std::vector<std::string>{"@g.dot", "/dev/full", "/nonexistent/g.dot"})}}));
  }

  void collective(Rng& rng, Case& c) {
    c.args = {"collective", "--cluster", in_.clusters[rng.below(4)]};
    append(c.args, one_of<std::string>(rng, {{},
                                             {"--ranks", rng.pick(std::vector<std::string>{"0", "-1", "2", "1", "100000", "abc"})},
                                             {"--min", rng.pick(std::vector<std::string>{"0 B", "-1 B", "1e308 GB", "1 B", "abc", "1e-40 B"})},
                                             {"--max", rng.pick(std::vector<std::string>{"1e308 GB", "8 B", "0 B", "1 TiB"})},
                                             {"--factor", rng.pick(std::vector<std::string>{"1", "0.5", "1e308", "nan", "inf", "1.0000001", "2"})},
                                             {"--op", rng.pick(std::vector<std::string>{"all-reduce", "all-to-all", "x", "reduce-scatter"})},
                                             {"--algo", rng.pick(std::vector<std::string>{"ring", "tree", "x"})}}));
  }

  void calibrate(Rng& rng, Case& c) {
    std::string log = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
    double size = 1024;
    for (int i = 0; i < 8; ++i, size *= 8) {
      std::vector<std::string> cells = {num(size), num(size / 4), "float", "sum", "-1", num(5 + size / 2e4),
                                        num(size / (5 + size / 2e4) / 1e3), num(1.75 * size / (5 + size / 2e4) / 1e3), "0",
                                        num(5 + size / 2e4), num(size / (5 + size / 2e4) / 1e3), num(1.75 * size / (5 + size / 2e4) / 1e3), "0"};
      if (rng.chance(0.3)) cells[rng.below(cells.size())] = rng.pick(std::vector<std::string>{"nan", "-1", "1e999", "0", "inf", "x", ""});
      for (const std::string& s : cells) log += "  " + s;
      log += "\n";
    }
    if (rng.chance(0.1)) log = rng.pick(std::vector<std::string>{"", "garbage\n", "# only a comment\n"});
    c.files["nccl.log"] = log;
    c.args = {"calibrate-links", "@nccl.log", "--cluster", in_.clusters[rng.below(4)]};
    append(c.args, one_of<std::string>(rng, {{},
                                             {"--ranks", rng.pick(std::vector<std::string>{"0", "8", "-1", "abc"})},
                                             {"--op", rng.pick(std::vector<std::string>{"all-reduce", "x"})},
                                             {"--format", "json"}}));
  }

  void report(Rng& rng, Case& c) {
    c.args = {"report", experiment(rng, c, kSmall), "-o",
              rng.pick(std::vector<std::string>{"@r.html", "@r.html", "/dev/full", "/nonexistent/r.html"})};
    append(c.args, sets(rng, rng.below(2)));
  }

  void merge(Rng& rng, Case& c) {
    c.files["a.csv"] = rng.pick(std::vector<std::string>{"index,x\n0,1\n", "", "garbage\n\n", "index,x\n0,1\n1,2",
                                                         "index\nabc\n", "index,x\n-1,1\n", "index,x\n99999999999999999999,1\n"});
    c.files["b.csv"] = rng.pick(std::vector<std::string>{"index,x\n1,2\n", "index,y\n1,2\n", "index,x\n0,1\n"});
    c.args = {"merge", rng.pick(std::vector<std::string>{"@m.csv", "/dev/full", "/nonexistent/m.csv"}), "@a.csv"};
    if (rng.chance(0.5)) c.args.push_back("@b.csv");
  }

  void compare(Rng& rng, Case& c) {
    Doc d{json{{"step_time_s", 1.0}, {"mfu", 0.5}, {"x", json::array({1, 2})}}, {}};
    mutate(rng, d);
    c.files["a.json"] = render(d);
    c.args = {"compare", "@a.json", rng.pick(std::vector<std::string>{"@a.json", "tests/golden/gpt2-1b-a100-8gpu.json"}),
              "--rtol", rng.pick(std::vector<std::string>{"1e-6", "-1", "nan", "abc", "1e999", "5%"})};
  }

  void explain(Rng& rng, Case& c) {
    c.args = {"explain"};
    append(c.args, one_of<std::string>(rng, {{}, {"energy"}, {"energy", experiment(rng, c, in_.experiments)}, {"nonsense"}}));
  }

  void schema(Rng& rng, Case& c) {
    c.args = {"schema"};
    append(c.args, one_of<std::string>(rng, {{}, {"--list"}, {"--section", rng.pick(std::vector<std::string>{"experiment", "device", "x", ""})},
                                             {"--format", rng.pick(std::vector<std::string>{"markdown", "json", "x"})}}));
  }

  // ------------------------------------------------------------------ the newer keys (docs/limits.md)
  // A layout Megatron-Core accepts for `stages` virtual stages, `layers` transformer layers and `mtp` MTP
  // layers: E first, the m layers and L last, the layers spread over the stages (the remainder on the middle
  // ones), written out stage by stage or with (t*k|)*n for equal middle stages.
  static std::string valid_layout(Rng& rng, std::int64_t stages, std::int64_t layers, std::int64_t mtp) {
    stages = std::clamp<std::int64_t>(stages, 1, 512);
    layers = std::clamp<std::int64_t>(layers, 0, 4096);
    mtp = std::clamp<std::int64_t>(mtp, 0, 16);
    std::vector<std::int64_t> per(static_cast<std::size_t>(stages), layers / stages);
    for (std::int64_t k = 0; k < layers % stages; ++k) per[static_cast<std::size_t>(1 + k % std::max<std::int64_t>(stages - 1, 1)) % per.size()] += 1;
    const auto t = [](std::int64_t n) { return n <= 0 ? std::string() : n == 1 ? std::string("t") : "t*" + std::to_string(n); };
    const std::string tail = std::string(static_cast<std::size_t>(mtp), 'm') + "L";
    if (stages == 1) return "E" + t(per[0]) + tail;
    std::string s = "E" + t(per[0]) + "|";
    const bool equal_middle = std::all_of(per.begin() + 1, per.end() - 1, [&per](std::int64_t n) { return n == per[1]; });
    if (stages > 2 && equal_middle && rng.chance(0.6)) {
      s += "(" + t(per[1]) + "|)*" + std::to_string(stages - 2);
    } else {
      for (std::size_t k = 1; k + 1 < per.size(); ++k) s += t(per[k]) + "|";
    }
    return s + t(per.back()) + tail;
  }

  // One or two mutations of a layout string: repetition counts huge, zero, negative or not a number;
  // unbalanced parentheses; unknown characters; stage separators added or removed (a stage count that
  // disagrees with pp·vp); very long strings; nested groups; case swaps; whole replacements.
  static std::string mutate_layout(Rng& rng, std::string s) {
    const std::vector<std::string> counts = {"0",   "-1", "-4",  "999999999", "2147483648", "99999999999999999999",
                                             "1e3", "",   "x",   "1.5",       " 4",         "00",
                                             "+2",  "1000001", "4294967297", "18446744073709551617"};
    const std::vector<std::string> odd = {"X", "z", "e", "l", "T", "#", " ", "\t", "\xc3\xa9", "*", "**", "||", "\n",
                                          "-", "0", "M", "LL", "EE", "mm", "()", "(|)", ")(", "\\", "\"", "t*", "*t",
                                          std::string(1, '\0'), "\x1b[31m", "\x7f"};
    const std::vector<std::string> whole = {"",    "|",        "E|L",           "EL",        "L",     "E",
                                            "tmL", "Et*4mL",   "(|)*3",         "E(t|)*1000000000L",
                                            "Et*4|(t*4|)*14tmL", "E|(t|)*0|L",   "Et*0L",     "E||L",  "E(t)L",
                                            "E(t*2|)*-3L", "Et*2147483647|t*2147483647L", "E(((t)))L"};
    const int n = 1 + static_cast<int>(rng.below(2));
    for (int k = 0; k < n; ++k) {
      std::size_t at = rng.below(s.size() + 1);
      // never inside a multi-byte character: the case file must stay valid UTF-8
      while (at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0U) == 0x80U) ++at;
      const auto positions = [&s](const char* chars) {
        std::vector<std::size_t> p;
        for (std::size_t i = 0; i < s.size(); ++i)
          if (std::strchr(chars, s[i]) != nullptr) p.push_back(i);
        return p;
      };
      switch (rng.below(10)) {
        case 0:
        case 1: {  // a repetition count
          const auto stars = positions("*");
          const std::string count = rng.pick(counts);
          if (stars.empty()) {
            const auto ts = positions("t)");
            if (!ts.empty()) s.insert(rng.pick(ts) + 1, "*" + count);
          } else {
            const std::size_t star = rng.pick(stars);
            std::size_t end = star + 1;
            while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end])) != 0) ++end;
            s.replace(star + 1, end - star - 1, count);
          }
          break;
        }
        case 2:  // an unbalanced parenthesis
          s.insert(at, rng.chance(0.5) ? "(" : ")");
          break;
        case 3: {  // a parenthesis removed
          const auto parens = positions("()");
          if (!parens.empty()) s.erase(rng.pick(parens), 1);
          else s.insert(at, "(");
          break;
        }
        case 4:  // an unknown character
          s.insert(at, rng.pick(odd));
          break;
        case 5: {  // a stage separator more or fewer: the stage count disagrees with pp·vp
          const auto pipes = positions("|");
          if (!pipes.empty() && rng.chance(0.5)) s.erase(rng.pick(pipes), 1);
          else s.insert(at, "|");
          break;
        }
        case 6: {  // very long
          std::string longer;
          switch (rng.below(5)) {
            case 0: for (int i = 0; i < 5001; ++i) longer += "|t"; s += longer; break;
            case 1: s = "E" + std::string(10001, 't') + "L"; break;
            case 2: s = "E" + std::string(6000, '(') + "t" + std::string(rng.chance(0.5) ? 6000 : 0, ')') + "L"; break;
            case 3: for (int i = 0; i < 2000; ++i) longer += "(t|)*2"; s = "E" + longer + "L"; break;
            default: s = "E" + std::string(9990, 't') + "L"; break;  // just under the 10,000-character cap
          }
          break;
        }
        case 7:  // a nested group (Megatron unrolls one level)
          s = rng.chance(0.5) ? "(" + s + ")*" + rng.pick(counts) : "E((t|)*2|)*3L";
          break;
        case 8:  // a case swap of a layer letter
          for (char& ch : s) {
            if ((ch == 'E' || ch == 'L' || ch == 't' || ch == 'm') && rng.chance(0.3)) {
              ch = static_cast<char>(std::isupper(static_cast<unsigned char>(ch)) != 0 ? std::tolower(static_cast<unsigned char>(ch))
                                                                                       : std::toupper(static_cast<unsigned char>(ch)));
              break;
            }
          }
          break;
        default:
          s = rng.pick(whole);
          break;
      }
    }
    return s;
  }

  // One mutation of the value at `pointer` (when present): a layout string through mutate_layout, else a
  // value out of the key's range or of the wrong type, or a raw number beyond double.
  static void targeted(Rng& rng, Doc& d, const std::string& pointer) {
    json* v = nullptr;
    try {
      const json::json_pointer ptr(pointer);
      if (!d.value.contains(ptr)) return;
      v = &d.value[ptr];
    } catch (const json::exception&) {
      return;
    }
    const bool layout = pointer.size() >= 15 && pointer.compare(pointer.size() - 15, 15, "pipeline_layout") == 0;
    if (layout && v->is_string() && rng.chance(0.75)) {
      *v = mutate_layout(rng, v->get<std::string>());
      return;
    }
    const std::vector<json> odd = {0, -1, 17, 257, 65536, 1000000, 2147483648LL, 9223372036854775807LL, 1e308,
                                   1e-320, 0.5, 1.0000001, "vocab-3", "mxfp4", "interlaced", "compute",
                                   "shared-expert", "blockwise", "tensorwise", "mxfp8", true, false, nullptr, "",
                                   json::array(), json::object(), "Et*4|(t*4|)*14tmL"};
    const double r = rng.unit();
    if (r < 0.4) {
      *v = random_value(rng, *v);
    } else if (r < 0.85) {
      *v = rng.pick(odd);
    } else {
      const std::string token = "@@RAW" + std::to_string(d.raw.size()) + "@@";
      d.raw[token] = rng.pick(kRawNumbers);
      *v = token;
    }
  }

  // (virtual stages pp·vp, layers, MTP depth) of a bundled experiment, for layouts that fit it.
  struct Shape {
    std::int64_t stages = 1, layers = 32, mtp = 0;
  };
  static std::int64_t int_at(const json& j, const char* key, std::int64_t fallback) {
    return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<std::int64_t>() : fallback;
  }
  Shape shape_of(const json& experiment) const {
    Shape sh;
    const json par = experiment.is_object() ? experiment.value("parallelism", json::object()) : json::object();
    sh.stages = int_at(par, "pp", 1) * int_at(par, "vp", 1);
    json model = experiment.is_object() ? experiment.value("model", json()) : json();
    if (model.is_string() && in_.model_docs.count(model.get<std::string>()) != 0) model = in_.model_docs.at(model.get<std::string>());
    sh.layers = int_at(model, "layers", 32);
    sh.mtp = int_at(model, "mtp_depth", 0);
    return sh;
  }

  void newer(Rng& rng, Case& c) {
    const double r = rng.unit();
    if (r < 0.45) {
      newer_experiment(rng, c);
    } else if (r < 0.85) {
      newer_records(rng, c);
    } else {
      newer_sets(rng, c);
    }
    if (c.args.empty()) run(rng, c);  // an input without the sections it needs (not the bundled ones)
  }

  // An MoE or dense experiment that states the newer keys (its catalog model inlined, so that mutations
  // reach model.moe and model.mtp_depth), with one of them mutated and sometimes the generic mutations.
  void newer_experiment(Rng& rng, Case& c) {
    const std::vector<std::string> bases = {"deepseek-v3-h800-2048", "mixtral-8x7b-h100-64", "mixtral-8x7b-h100-64",
                                            "gpt3-175b-a100-1024", "llama2-70b-h100-512"};
    std::string name = rng.pick(bases);
    if (in_.experiment_docs.count(name) == 0) name = in_.experiments.front();
    json e = in_.experiment_docs.at(name);
    if (!e.is_object()) return;
    std::vector<std::string> targets;
    json model;
    if (e.contains("model") && e["model"].is_string() && in_.model_docs.count(e["model"].get<std::string>()) != 0)
      model = in_.model_docs.at(e["model"].get<std::string>());
    const auto integer = [](const json& j, const char* key, std::int64_t fallback) {
      return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<std::int64_t>() : fallback;
    };
    std::int64_t mtp = integer(model, "mtp_depth", 0);
    const std::int64_t layers = integer(model, "layers", 32);
    if (model.is_object() && rng.chance(0.6)) {
      if (rng.chance(0.3)) {
        mtp = static_cast<std::int64_t>(rng.below(4));
        model["mtp_depth"] = mtp;
      }
      if (model.contains("mtp_depth")) targets.push_back("/model/mtp_depth");
      if (model.contains("moe") && model["moe"].is_object()) {
        json& moe = model["moe"];
        if (rng.chance(0.4)) moe["capacity_factor"] = rng.pick(std::vector<json>{1.0, 1.25, 2.0, nullptr});
        if (rng.chance(0.2)) moe["load_imbalance"] = rng.pick(std::vector<json>{1.0, 1.5, 4.0});
        if (rng.chance(0.1)) moe["zipf_skew"] = rng.pick(std::vector<json>{0.5, 1.2});
        if (rng.chance(0.1)) moe["layer_freq"] = rng.pick(std::vector<json>{1, 2});
        for (const char* key : {"num_experts", "top_k", "moe_ffn_hidden", "shared_experts", "shared_ffn_hidden",
                                "first_k_dense", "layer_freq", "router", "capacity_factor", "load_imbalance",
                                "zipf_skew", "max_nodes_per_token", "fp8_dispatch"}) {
          if (moe.contains(key)) targets.push_back(std::string("/model/moe/") + key);
        }
      }
      e["model"] = model;
    }
    json& par = e["parallelism"];
    json& tr = e["training"];
    if (!par.is_object() || !tr.is_object()) return;
    const std::int64_t stages = integer(par, "pp", 1) * integer(par, "vp", 1);
    if (rng.chance(0.6)) {
      par.erase("pipeline_layers");
      std::string layout = valid_layout(rng, stages, layers, mtp);
      if (rng.chance(0.4)) layout = mutate_layout(rng, layout);
      par["pipeline_layout"] = layout;
      targets.push_back("/parallelism/pipeline_layout");
    }
    if (!par.contains("pipeline_layout") && rng.chance(0.25)) {
      // A framework's split rule, on depths that do and do not divide the layers (sweeps and plans re-derive it).
      par.erase("pipeline_layers");
      par["pipeline_split"] = rng.pick(std::vector<std::string>{"ends-one-fewer", "remainder-to-middle",
                                                                "deepspeed-transformer",
                                                                "deepspeed-transformer-embedding", "even"});
      targets.push_back("/parallelism/pipeline_split");
      if (rng.chance(0.5)) {
        par["pp"] = rng.pick(std::vector<json>{1, 3, 7, 16, 61, 127});
        targets.push_back("/parallelism/pp");
      }
    }
    if (rng.chance(0.3)) {
      par["vocab_parallel"] = rng.pick(std::vector<std::string>{"none", "vocab-1", "vocab-2", "interlaced"});
      targets.push_back("/parallelism/vocab_parallel");
    }
    if (model.is_object() && model.contains("moe")) {
      if (rng.chance(0.3)) {
        par["etp"] = rng.pick(std::vector<json>{1, 2, 4, 8});
        targets.push_back("/parallelism/etp");
      }
      if (rng.chance(0.3)) {
        par["moe_overlap"] = rng.pick(std::vector<std::string>{"none", "shared-expert", "compute"});
        targets.push_back("/parallelism/moe_overlap");
      }
      if (rng.chance(0.15)) {
        par["ep_comm_sms"] = rng.pick(std::vector<json>{1, 16, 20, 132});
        if (rng.chance(0.5)) par["ep_comm_sms_reserved"] = rng.chance(0.5);
        targets.push_back("/parallelism/ep_comm_sms");
      }
      if (par.contains("ep")) targets.push_back("/parallelism/ep");
    }
    // FP8 on the experiments whose devices have an FP8 peak (H100, H800); the A100 ones refuse it at once
    const bool fp8_device = name != "gpt3-175b-a100-1024";
    if (rng.chance(fp8_device ? 0.4 : 0.05)) {
      tr["precision"] = "fp8";
      tr["fp8_scaling"] = rng.pick(std::vector<std::string>{"delayed", "tensorwise", "rowwise", "blockwise", "mxfp8"});
      targets.push_back("/training/fp8_scaling");
      if (rng.chance(0.5)) {
        tr["fp8_attention"] = rng.chance(0.5);
        targets.push_back("/training/fp8_attention");
      }
      if (rng.chance(0.2)) tr["fp8_activation_cache"] = rng.chance(0.5);
      if (rng.chance(0.2)) tr["fp8_saved_inputs"] = rng.pick(std::vector<std::string>{"fp8", "fp8-bf16-proj", "bf16", "fp16"});
    }
    if (tr.contains("precision")) targets.push_back("/training/precision");
    // A framework profile, with the keys its rules read (fsdp, zero_stage, overlap_grad_reduce) stated or not.
    if (rng.chance(0.2)) {
      e["profile"] = rng.pick(std::vector<std::string>{"megatron-lm-2021", "megatron-deepspeed-2021", "nemo-2025",
                                                       "nemo-2025-07", "nemo-2025-11", "nemo-2026",
                                                       "torchtitan-2025", "megatron-core-2024",
                                                       "megatron-core-2026"});
      if (rng.chance(0.4)) par["fsdp"] = rng.chance(0.5);
      if (rng.chance(0.2)) tr["overlap_grad_reduce"] = rng.chance(0.5);
      targets.push_back("/profile");
      if (par.contains("fsdp")) targets.push_back("/parallelism/fsdp");
    }
    // Activation offloading (refused with pp > 1 or recomputation; needs the node's host_link).
    if (rng.chance(0.1)) {
      tr["activation_offload_layers"] = rng.pick(std::vector<json>{0, 1, 4, 40, 1000, -1});
      if (rng.chance(0.5)) {
        par["pp"] = 1;
        tr["recompute"] = "none";
      }
      targets.push_back("/training/activation_offload_layers");
    }
    Doc d{e, {}};
    // 0 (half the cases: the stated keys must reach the model too), 1 or 2 targeted mutations
    const std::size_t hits = rng.chance(0.5) ? 0 : 1 + rng.below(2);
    for (std::size_t k = 0; k < hits && !targets.empty(); ++k) targeted(rng, d, rng.pick(targets));
    if (rng.chance(0.2)) mutate(rng, d);
    c.files[name + ".json"] = render(d);
    const std::string file = "@" + name + ".json";
    const bool small = std::find(kSmall.begin(), kSmall.end(), name) != kSmall.end();
    const double r = rng.unit();
    if (small && r < 0.08) {
      c.args = {"report", file, "-o", "@r.html"};
    } else if (small && r < 0.14) {
      c.args = {"plan", file, "--top", "3"};
    } else if (small && r < 0.24) {
      c.args = {"sweep", file, "--vary", rng.pick(kNewerVary), "-o", "@out.csv"};
    } else {
      c.args = {"run", file};
      append(c.args, one_of<std::string>(rng, {{}, {}, {"--format", "json"}, {"--format", "csv"}}));
      if (small && rng.chance(0.03)) append(c.args, {"--engine", "flow"});
    }
    append(c.args, newer_set_args(rng, rng.pick(std::vector<std::size_t>{0, 0, 0, 1}), shape_of(d.value)));
  }

  // 1 to 4 records, mostly MoE records that state a pipeline layout, with their newer fields stated (a
  // layout made for a record without one, an MTP depth, vocab_parallel, fp8_attention, an FP8 recipe) and
  // mutated, through `validate FILE`.
  void newer_records(Rng& rng, Case& c) {
    if (!in_.moe_runs.is_array() || in_.moe_runs.empty()) return;
    Doc d{json::array(), {}};
    const std::size_t n = 1 + rng.below(4);
    std::vector<std::string> targets;
    for (std::size_t i = 0; i < n; ++i) {
      const double r = rng.unit();
      json rec = r < 0.5 && !in_.layout_records.empty() ? in_.moe_runs[rng.pick(in_.layout_records)]
                 : r < 0.9                              ? in_.moe_runs[rng.below(in_.moe_runs.size())]
                                                        : in_.runs[rng.below(in_.runs.size())];
      const std::string at = "/" + std::to_string(i);
      if (rec.is_object() && rec.contains("parallelism") && rec["parallelism"].is_object()) {
        json& par = rec["parallelism"];
        const auto integer = [](const json& j, const char* key, std::int64_t fallback) {
          return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<std::int64_t>() : fallback;
        };
        const json model = rec.value("model", json::object());
        const json moe = model.is_object() ? model.value("moe", json()) : json();
        std::int64_t mtp = integer(moe, "mtp_depth", 0);
        if ((!par.contains("pipeline_layout") || !par["pipeline_layout"].is_string()) && rng.chance(0.4)) {
          if (moe.is_object() && rng.chance(0.3)) {  // an MTP depth, and its m layers in the layout
            mtp = static_cast<std::int64_t>(rng.below(3));
            rec["model"]["moe"]["mtp_depth"] = mtp;
          }
          par.erase("pipeline_split");
          par["pipeline_layout"] = valid_layout(rng, integer(par, "pp", 1) * integer(par, "vp", 1),
                                                integer(model, "layers", 32), mtp);
        }
        if (rng.chance(0.2)) par["vocab_parallel"] = rng.pick(std::vector<std::string>{"none", "vocab-1", "vocab-2", "interlaced"});
        if (rng.chance(0.2)) par["dp_overlap"] = rng.chance(0.5);
        if (rng.chance(0.15)) par["fsdp"] = rng.pick(std::vector<json>{false, true, "shard_grad_op", "false"});
        if (rng.chance(0.15))
          rec["optimizer"] = rng.pick(std::vector<std::string>{"adam", "adamw", "lamb", "sgd", "muon", "adam-8bit"});
        if (rng.chance(0.2) && rec.contains("precision") && rec["precision"].is_object()) {
          rec["precision"]["compute"] = "fp8";
          rec["precision"]["fp8_recipe"] = rng.pick(std::vector<std::string>{"delayed", "tensorwise", "blockwise", "mxfp8", "current"});
          rec["precision"]["fp8_attention"] = rng.chance(0.5);
        }
      }
      for (const char* p : {"/parallelism/pipeline_layout", "/parallelism/pipeline_layout", "/parallelism/pipeline_layout",
                            "/parallelism/vocab_parallel", "/parallelism/etp", "/parallelism/ep", "/parallelism/pp",
                            "/parallelism/vp", "/parallelism/moe_overlap", "/parallelism/schedule",
                            "/model/moe/mtp_depth", "/model/moe/num_experts", "/model/moe/top_k",
                            "/model/moe/capacity_factor", "/model/moe/moe_ffn_hidden", "/model/moe/first_k_dense",
                            "/model/moe/shared_experts", "/model/moe/moe_layer_freq", "/model/moe/router",
                            "/model/moe/max_nodes_per_token", "/model/layers", "/precision/fp8_recipe",
                            "/precision/fp8_attention", "/precision/compute", "/model/moe",
                            "/parallelism/dp_overlap", "/parallelism/fsdp", "/optimizer"}) {
        targets.push_back(at + p);
      }
      // a record drawn twice is refused for its duplicate id before anything else is read
      for (const json& earlier : d.value) {
        if (rec.is_object() && earlier.is_object() && rec.value("id", json()) == earlier.value("id", json()))
          rec["id"] = rec.value("id", std::string("record")) + "-" + std::to_string(i);
      }
      d.value.push_back(std::move(rec));
    }
    const std::size_t hits = rng.chance(0.4) ? 0 : 1 + rng.below(3);  // 0 to 3 targeted mutations
    for (std::size_t k = 0; k < hits; ++k) targeted(rng, d, rng.pick(targets));
    if (rng.chance(0.2)) mutate(rng, d);
    c.files["moe_runs.json"] = render(d);
    c.args = {"validate", "@moe_runs.json"};
    append(c.args, one_of<std::string>(rng, {{},
                                             {"--format", "json"},
                                             {"--split", rng.pick(std::vector<std::string>{"test", "all", "calibration"})},
                                             {"--max-error", rng.pick(std::vector<std::string>{"5%", "50%", "0"})}}));
  }

  // A bundled experiment with --set of the newer keys (layout strings quoted as JSON).
  void newer_sets(Rng& rng, Case& c) {
    const std::vector<std::string> bases = {"deepseek-v3-h800-2048", "mixtral-8x7b-h100-64", "gpt3-175b-a100-1024",
                                            "llama2-70b-h100-512", "gpt2-1b-a100-8gpu"};
    std::string name = rng.pick(bases);
    if (in_.experiment_docs.count(name) == 0) name = in_.experiments.front();
    c.args = {"run", name};
    json e = in_.experiment_docs.at(name);
    if (name == "deepseek-v3-h800-2048" && rng.chance(0.7)) {
      // its pipeline_layers exclude a layout: a copy without them
      if (e.contains("parallelism") && e["parallelism"].is_object()) e["parallelism"].erase("pipeline_layers");
      c.files[name + ".json"] = e.dump(1);
      c.args[1] = "@" + name + ".json";
    }
    append(c.args, newer_set_args(rng, 1 + rng.below(3), shape_of(e)));
    append(c.args, one_of<std::string>(rng, {{}, {"--format", "json"}}));
  }

  static inline const std::vector<std::string> kNewerVary = {
      "/parallelism/etp=1,2,4", "/model/mtp_depth=0..3", "/parallelism/vocab_parallel=\"none\",\"vocab-1\",\"interlaced\"",
      "/model/moe/top_k=1..4", "/model/moe/capacity_factor=0.5,1,1e308", "/training/fp8_attention=true,false",
      "/parallelism/pipeline_layout=\"Et*8|(t*8|)*2t*8L\",\"Et*4|t*12|t*8|t*8L\",\"x\"",
      "/model/moe/num_experts=0..4", "/parallelism/moe_overlap=\"none\",\"compute\"",
      "/parallelism/pipeline_split=\"ends-one-fewer\",\"deepspeed-transformer\",\"x\"", "/parallelism/pp=1..9"};

  // --set arguments on the newer keys: layouts (valid for the bundled shapes, mutated), MoE, MTP, vocab
  // parallel, FP8 recipe.
  static std::vector<std::string> newer_set_args(Rng& rng, std::size_t n, const Shape& shape) {
    const std::vector<std::string> pointers = {
        "/parallelism/pipeline_layout", "/parallelism/pipeline_layout", "/parallelism/pipeline_layout",
        "/model/mtp_depth", "/model/moe/num_experts", "/model/moe/top_k", "/model/moe/capacity_factor",
        "/model/moe/first_k_dense", "/model/moe/layer_freq", "/model/moe/shared_experts", "/model/moe/load_imbalance",
        "/model/moe/zipf_skew", "/parallelism/etp", "/parallelism/ep", "/parallelism/moe_overlap",
        "/parallelism/vocab_parallel", "/training/fp8_scaling", "/training/fp8_attention", "/training/precision",
        "/parallelism/vp", "/parallelism/pipeline_split"};
    const std::vector<std::string> values = {
        "0", "-1", "1", "2", "3", "17", "256", "2147483648", "1e308", "1e-320", "0.5", "null", "true", "[]",
        "\"\"", "\"none\"", "\"vocab-1\"", "\"vocab-2\"", "\"interlaced\"", "\"vocab-3\"", "\"compute\"",
        "\"shared-expert\"", "\"mxfp8\"", "\"blockwise\"", "\"tensorwise\"", "\"rowwise\"", "\"fp8\"", "\"mxfp4\"",
        "\"ends-one-fewer\"", "\"deepspeed-transformer\"", "\"deepspeed-transformer-embedding\"",
        "\"remainder-to-middle\""};
    // layouts for the experiment's own shape mostly, else for another bundled shape
    const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
        {shape.stages, shape.layers}, {shape.stages, shape.layers}, {shape.stages, shape.layers},
        {16, 61}, {4, 32}, {24, 96}, {4, 80}, {1, 24}, {2, 32}};
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = rng.pick(pointers);
      std::string v;
      if (p == "/parallelism/pipeline_layout" && rng.chance(0.85)) {
        const auto& [stages, layers] = rng.pick(shapes);
        std::string layout = valid_layout(rng, stages, layers, rng.chance(0.8) ? shape.mtp : static_cast<std::int64_t>(rng.below(3)));
        if (rng.chance(0.5)) layout = mutate_layout(rng, layout);
        v = json(layout).dump();
      } else {
        v = rng.pick(values);
      }
      out.push_back("--set");
      out.push_back(p + "=" + v);
    }
    return out;
  }

  static std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
  }

  const Inputs& in_;
  bool newer_keys_ = true;  // false (--no-newer-keys): the cases of campaigns before the newer-key cases
};

// ------------------------------------------------------------------------------------------ running
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool word_char(char ch) { return std::isalpha(static_cast<unsigned char>(ch)) != 0 || ch == '_'; }

// The first `inf`, `nan` or `infinity` standing alone as a word (case-insensitive), or npos.
std::size_t non_finite(const std::string& text) {
  for (std::size_t i = 0; i + 3 <= text.size(); ++i) {
    if (i > 0 && word_char(text[i - 1])) continue;
    std::string w;
    std::size_t j = i;
    while (j < text.size() && word_char(text[j])) w += static_cast<char>(std::tolower(static_cast<unsigned char>(text[j++])));
    if (w == "inf" || w == "nan" || w == "infinity") return i;
    if (j > i) i = j - 1;
  }
  return std::string::npos;
}

// Input strings that hold a non-finite word ("inf TFLOPS" as a model name) are echoed verbatim by the
// reports (names, descriptions): they are removed from the output before it is judged, so that only a
// figure the tool computed can be a finding.
void erase_echoed_strings(const struct Case& c, std::string& text);

bool located(const std::string& line) {
  // error: FILE:/pointer: msg | error: <command line>:--opt: msg | error: cannot write P: why | error: X: msg
  // (a file or option named) | CLI11's option messages (--opt: ..., "... is required", "Could not convert").
  auto starts = [&line](const char* p) { return line.rfind(p, 0) == 0; };
  if (starts("error: ")) {
    const std::string rest = line.substr(7);
    // An option named in the message (as tools/fuzz accepts: `error: .*--option.*`).
    for (auto at = rest.find("--"); at != std::string::npos; at = rest.find("--", at + 2)) {
      if (at + 2 < rest.size() && std::islower(static_cast<unsigned char>(rest[at + 2])) != 0) return true;
    }
    const auto colon = rest.find(": ");
    return colon != std::string::npos && colon > 0 && colon + 2 < rest.size() && rest[0] != ' ';
  }
  if (starts("--") || starts("-")) return line.find(": ") != std::string::npos;
  return line.find("not in {") != std::string::npos || starts("The following argument") ||
         line.find(" is required") != std::string::npos || starts("Could not convert") ||
         line.find("not in range") != std::string::npos;
}

// A line of a sanitizer report: UBSan's `FILE:LINE:COL: runtime error: ...` (a file name then two numbers:
// never a located message, whose file is followed by `:/pointer`) or `==PID==ERROR: AddressSanitizer: ...`
// (LeakSanitizer, ThreadSanitizer alike). Returns the first such line of `err`, or "".
std::string sanitizer_line(const std::string& err) {
  std::istringstream lines(err);
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("==", 0) == 0 && l.find("ERROR: ") != std::string::npos && l.find("Sanitizer") != std::string::npos)
      return l;
    const auto at = l.find(": runtime error: ");
    if (at == std::string::npos) continue;
    // FILE:LINE:COL before it
    std::size_t i = at, digits = 0;
    int numbers = 0;
    while (i > 0 && numbers < 2) {
      const char ch = l[i - 1];
      if (std::isdigit(static_cast<unsigned char>(ch)) != 0) {
        ++digits;
      } else if (ch == ':' && digits > 0) {
        ++numbers;
        digits = 0;
      } else {
        break;
      }
      --i;
    }
    if (numbers == 2 && i > 0 && l.find(' ') > i) return l;
  }
  return "";
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Outcome {
  std::string kind;  // ok, refused, finding
  std::string detail;
};

json to_json(const struct Case& c);

// The run's tally, read by the watchdog too: a hang prints it (the hanging case counted as a finding)
// before the process exits, so that tools/fuzz_campaign sums it and resumes after the case.
struct Tally {
  std::atomic<std::uint64_t> ok{0}, refused{0}, finding{0}, ran{0}, repeats{0};
  std::uint64_t seed = 0, first = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};
Tally g_tally;

std::string summary_line(std::uint64_t extra_findings) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_tally.start).count();
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%llu cases (seed %llu, first %llu) in %.1f s: %llu ok, %llu refused with a located message, %llu "
                "findings\ndistinct cases run: %llu (%llu repeats of an earlier identical case counted with its "
                "outcome)\n",
                static_cast<unsigned long long>(g_tally.ran + extra_findings), static_cast<unsigned long long>(g_tally.seed),
                static_cast<unsigned long long>(g_tally.first), elapsed, static_cast<unsigned long long>(g_tally.ok.load()),
                static_cast<unsigned long long>(g_tally.refused.load()),
                static_cast<unsigned long long>(g_tally.finding + extra_findings),
                static_cast<unsigned long long>(g_tally.ran + extra_findings - g_tally.repeats),
                static_cast<unsigned long long>(g_tally.repeats.load()));
  return buf;
}

class Driver {
 public:
  Driver(fs::path work, double budget, std::string save) : work_(std::move(work)), budget_(budget), save_(std::move(save)) {
    watchdog_ = std::thread([this] { watch(); });
  }
  ~Driver() {
    g_driver = nullptr;  // a leak check at exit runs the death callback after the driver is gone
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    watchdog_.join();
  }

  Outcome run(const Case& c, const std::string& label, const std::string& file_name, std::uint64_t index) {
    index_ = index;
    // A fresh directory per case: the library memoises a few per-path facts (is there an energy catalog
    // in this directory?) as a long-running CLI process may.
    const fs::path dir = work_ / ("case" + std::to_string(serial_++));
    fs::create_directories(dir);
    for (const auto& [name, text] : c.files) {
      fs::create_directories((dir / name).parent_path());
      std::ofstream(dir / name, std::ios::binary) << text;
    }
    std::vector<std::string> args = {"clustersim"};
    for (const std::string& a : c.args) args.push_back(!a.empty() && a[0] == '@' ? (dir / a.substr(1)).string() : a);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    const fs::path out_path = dir / "stdout.txt", err_path = dir / "stderr.txt";
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    const int saved_out = dup(1), saved_err = dup(2);
    const int out_fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    close(out_fd);
    close(err_fd);
    arm(label, saved_err, file_name, to_json(c).dump(1), err_path);
    const auto start = std::chrono::steady_clock::now();
    int rc = 1;
    std::string escaped;
    try {
      if (self_test_sanitizer_) {
        self_test_sanitizer_ = false;
        commit_sanitizer_error();
      }
      rc = clustersim::cli::run_cli(static_cast<int>(args.size()), argv.data());
    } catch (const std::exception& e) {  // run_cli maps every exception; anything past it is a finding
      escaped = e.what();
      rc = -1;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    disarm();
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    std::clearerr(stdout);
    std::clearerr(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);

    const std::string out = slurp(out_path), err = slurp(err_path);
    const Outcome o = classify(c, dir, rc, escaped, out, err, seconds);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return o;
  }

 private:
  // The sanitizer death callback: the case running when a sanitizer ended the process is a finding.
  static void sanitizer_died() {
    // Only the fuzzer's own process reports (a forked flow-engine child inherits the callback; its death is
    // seen by the case in the parent).
    if (getpid() != g_pid) return;
    Driver* d = g_driver;
    if (d == nullptr || !d->armed_) {
      // Outside a case: a leak check at exit (after the tally) or a report between cases, on the real
      // standard error above this line. tools/fuzz_campaign counts the line as a finding.
      static const char msg[] = "FINDING a sanitizer report outside a case (above)\n";
      if (write(2, msg, sizeof msg - 1) < 0) {
      }
      return;
    }
    d->report_sanitizer();
  }

  // Enables the death callback (a sanitizer build) and --self-test-sanitizer.
 public:
  void install_sanitizer_hook(bool self_test) {
    g_driver = this;
    g_pid = getpid();
    self_test_sanitizer_ = self_test;
    sanitized_ = set_sanitizer_death_callbacks(&Driver::sanitizer_died) > 0;
  }

 private:
  void commit_sanitizer_error() const {
    if (sanitized_) {
      volatile int big = 2147483647;
      volatile int one = 1;
      volatile int sum = big + one;  // UBSan: signed integer overflow (fatal with -fno-sanitize-recover)
      (void)sum;
      return;
    }
    // No sanitizer in this build: the line a recovering UBSan would write to the case's standard error.
    const std::string line = std::string(__FILE__) + ":" + std::to_string(__LINE__) +
                             ":7: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in "
                             "type 'int' (written by --self-test-sanitizer)\n";
    if (write(2, line.data(), line.size()) < 0) {
    }
  }

  void report_sanitizer() {
    std::fflush(stderr);
    const std::string err = slurp(err_path_);
    std::string first = sanitizer_line(err);
    if (first.empty()) first = err.substr(0, 300);
    const std::string msg = "FINDING " + label_ + "\n  sanitizer report: " + first + "\n";
    if (write(real_err_, msg.data(), msg.size()) < 0) {
    }
    if (!save_.empty()) {
      fs::create_directories(save_);
      std::ofstream(fs::path(save_) / file_name_) << case_json_ << "\n";
      std::ofstream(fs::path(save_) / (file_name_ + ".stderr.txt")) << err;
    }
    const std::string tally = summary_line(1) + "stopped by a sanitizer report at case " + std::to_string(index_) +
                              ": resume with --first " + std::to_string(index_ + 1) + "\n";
    if (write(real_err_, tally.data(), tally.size()) < 0) {
    }
    _exit(1);
  }

  static Outcome classify(const Case& c, const fs::path& dir, int rc, const std::string& escaped,
                          const std::string& out, const std::string& err, double seconds) {
    // A sanitizer that recovers (built without -fno-sanitize-recover) writes its report and goes on.
    if (const std::string report = sanitizer_line(err); !report.empty()) {
      return {"finding", "exit " + std::to_string(rc) + " after a sanitizer report: " + report.substr(0, 300)};
    }
    if (rc == -1) return {"finding", "exception escaped run_cli: " + escaped};
    if (rc == 0 || rc == 3) {
      std::string text = out;
      for (const char* f : {"out.csv", "trace.json", "m.csv"}) {
        if (fs::exists(dir / f)) text += slurp(dir / f);
      }
      const std::string& cmd = c.args[0];
      erase_echoed_strings(c, text);  // before the sweep's row filter: a CSV header names the columns
      if (cmd == "sweep") {  // rows quote invalid input values in their reason; judge ok rows only
        std::string rows;
        std::istringstream lines(text);
        for (std::string l; std::getline(lines, l);) {
          if (l.find(",ok,") != std::string::npos) rows += l + "\n";
        }
        text = rows;
      }
      if (cmd == "compare" || cmd == "merge" || cmd == "schema" || cmd == "explain") text.clear();
      const auto at = non_finite(text);
      if (at != std::string::npos) {
        return {"finding", "exit " + std::to_string(rc) + " with a non-finite number: ..." +
                               text.substr(at > 80 ? at - 80 : 0, 120) + "..."};
      }
      return {"ok", "exit " + std::to_string(rc) + " in " + std::to_string(seconds) + " s"};
    }
    if (rc == 2) {
      // A control byte of the input quoted raw (a NUL cut `error: %s` short, before the reason): messages
      // write them as \xNN (Diagnostic::to_string).
      for (const char ch : err) {
        const auto u = static_cast<unsigned char>(ch);
        if ((u < 0x20 && ch != '\n' && ch != '\t') || u == 0x7f) {
          return {"finding", "exit 2 with a raw control byte (" + std::to_string(u) + ") in its message: " + err.substr(0, 300)};
        }
      }
      std::istringstream lines(err);
      for (std::string l; std::getline(lines, l);) {
        if (located(l)) return {"refused", l.substr(0, 160)};
      }
      return {"finding", "exit 2 without a located message: " + err.substr(0, 300)};
    }
    return {"finding", "exit " + std::to_string(rc) + ": " + err.substr(0, 400)};
  }

  // The watchdog: a case still running `budget_` seconds after it started is a hang. Its description goes
  // to the real standard error and the process exits 1 (an in-process case cannot be killed alone).
  // The budget is CPU time of this process (a loaded machine stretches wall time, not CPU time), with a
  // wall-clock backstop of 10x for cases that wait (a forked flow-engine child, a deadlock).
  void watch() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      if (!armed_) {
        cv_.wait(lock);
        continue;
      }
      cv_.wait_for(lock, std::chrono::milliseconds(500));
      if (!armed_ || stop_) continue;
      const double cpu = cpu_seconds() - cpu_started_;
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
      if (cpu > budget_ || wall > 10 * budget_) {
        const std::string msg = "FINDING " + label_ + "\n  hang: still running after " + std::to_string(cpu) +
                                " s of CPU (" + std::to_string(wall) + " s wall); the per-case budget is " +
                                std::to_string(budget_) + " s of CPU\n";
        if (write(real_err_, msg.data(), msg.size()) < 0) {
        }
        if (!save_.empty()) {
          fs::create_directories(save_);
          std::ofstream(fs::path(save_) / file_name_) << case_json_ << "\n";
        }
        const std::string tally = summary_line(1) + "stopped by a hang at case " + std::to_string(index_) +
                                  ": resume with --first " + std::to_string(index_ + 1) + "\n";
        if (write(real_err_, tally.data(), tally.size()) < 0) {
        }
        _exit(1);
      }
    }
  }
  void arm(const std::string& label, int real_err, const std::string& file_name, std::string case_json,
           const fs::path& err_path) {
    std::lock_guard<std::mutex> lock(mu_);
    label_ = label;
    err_path_ = err_path;
    file_name_ = file_name;
    case_json_ = std::move(case_json);
    real_err_ = real_err;
    started_ = std::chrono::steady_clock::now();
    cpu_started_ = cpu_seconds();
    armed_ = true;
    cv_.notify_all();
  }
  void disarm() {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = false;
    cv_.notify_all();
  }

  static inline Driver* g_driver = nullptr;
  static inline pid_t g_pid = 0;
  bool self_test_sanitizer_ = false, sanitized_ = false;
  fs::path err_path_;
  fs::path work_;
  double budget_;
  std::uint64_t serial_ = 0;
  std::string save_, file_name_, case_json_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false, stop_ = false;
  std::string label_;
  int real_err_ = 2;
  std::uint64_t index_ = 0;
  std::chrono::steady_clock::time_point started_;
  double cpu_started_ = 0;
  std::thread watchdog_;
};

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string describe(const Case& c) {
  std::string s;
  for (const std::string& a : c.args) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Splits a CSV line into cells (double-quoted cells may hold commas) with their [begin, end) offsets.
std::vector<std::pair<std::size_t, std::size_t>> csv_cells(const std::string& line) {
  std::vector<std::pair<std::size_t, std::size_t>> cells;
  std::size_t begin = 0;
  bool quoted = false;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i < line.size() && line[i] == '"') quoted = !quoted;
    if (i == line.size() || (line[i] == ',' && !quoted)) {
      cells.emplace_back(begin, i);
      begin = i + 1;
    }
  }
  return cells;
}

// A CSV report prints a name bare in its "name" column ("name" or "….name" in the header line above):
// a cell there equal to `word` is erased. A header is a line of two or more cells of identifier
// characters ('.', '_', letters, digits), each starting with a letter or '_'.
void erase_csv_name_cells(const std::string& word, std::string& text) {
  std::vector<std::string> header;
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto cells = csv_cells(line);
    // Every cell an identifier starting with a letter or '_': a row of figures has a cell starting with a
    // digit (a row with no negative number is made of the same characters as a header).
    const bool is_header =
        cells.size() >= 2 &&
        std::all_of(line.begin(), line.end(),
                    [](char ch) {
                      return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '.' || ch == ',';
                    }) &&
        std::all_of(cells.begin(), cells.end(), [&line](const std::pair<std::size_t, std::size_t>& cell) {
          return cell.second > cell.first &&
                 (std::isalpha(static_cast<unsigned char>(line[cell.first])) != 0 || line[cell.first] == '_');
        });
    if (is_header) {
      header.clear();
      for (const auto& [b, e] : cells) header.push_back(line.substr(b, e - b));
    } else if (cells.size() == header.size()) {
      for (std::size_t k = cells.size(); k-- > 0;) {
        const std::string& h = header[k];
        // "experiment" heads the experiment's name in the multi-job CSV (experiment,job,placement,...).
        const bool name_column =
            h == "name" || h == "experiment" || (h.size() > 5 && h.compare(h.size() - 5, 5, ".name") == 0);
        if (name_column && line.compare(cells[k].first, cells[k].second - cells[k].first, word) == 0) {
          line.erase(cells[k].first, cells[k].second - cells[k].first);
        }
      }
    }
    out += line;
    out += '\n';
  }
  text = out;
}

void erase_echoed_strings(const Case& c, std::string& text) {
  std::vector<std::string> echoed;
  const auto collect = [&echoed](const std::string& src) {
    for (std::size_t i = 0; i < src.size(); ++i) {
      if (src[i] != '"') continue;
      std::string value;
      std::size_t j = i + 1;
      for (; j < src.size() && src[j] != '"'; ++j) {
        if (src[j] == '\\' && j + 1 < src.size()) ++j;
        value += src[j];
      }
      if (!value.empty() && non_finite(value) != std::string::npos) echoed.push_back(value);
      i = j;
    }
  };
  for (const auto& [name, file_text] : c.files) collect(file_text);
  for (const std::string& a : c.args) collect(a);
  // Longest first, so that "inf TFLOPS" goes before a bare "inf" inside it.
  std::sort(echoed.begin(), echoed.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (std::string e : echoed) {
    // A value that is only the word ("inf", "-NaN") is erased only as a quoted JSON string: unquoted it
    // could be a figure the tool printed.
    std::string word = e;
    word.erase(std::remove_if(word.begin(), word.end(), [](char ch) { return ch == '-' || ch == '+' || ch == ' '; }),
               word.end());
    for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (word == "inf" || word == "nan" || word == "infinity") {
      // The text report prints a name before its parenthesised summary ("clustersim — NAME (analytic
      // engine)", "model  NAME (32 layers, ...)"): the bare word is erased there too, nowhere else.
      const std::string named = e + " (";
      for (auto pos = text.find(named); pos != std::string::npos; pos = text.find(named, pos)) {
        if (pos == 0 || text[pos - 1] == ' ') text.erase(pos, e.size());
        else pos += named.size();
      }
      // A table prints a name as its first cell: the line's indentation, the name, two or more spaces
      // ("  -inf         scattered   4 ..." in the multi-job table). Only there is the bare word erased.
      const std::string cell = e + "  ";
      for (auto pos = text.find(cell); pos != std::string::npos; pos = text.find(cell, pos)) {
        std::size_t line = pos;
        while (line > 0 && text[line - 1] == ' ') --line;
        if (line == 0 || text[line - 1] == '\n') text.erase(pos, e.size());
        else pos += cell.size();
      }
      // `topo` heads its summary with the cluster's name at the start of a line: "NAME: 1 nodes x 8 devices";
      // the text report's `cluster` line prints the same summary after its label ("  cluster    NAME: 4
      // nodes x 8 a100-sxm4-80gb = 32 devices"): there, after a space, only before "<count> nodes x ".
      const std::string headed = e + ": ";
      // A heterogeneous cluster's line reads "NAME: pools 2 nodes x 8 h100-sxm5-80gb + 2 nodes x ..." (seed
      // 29205 case 1149, a cluster named NaN): "pools " may come before the count.
      const auto summary_follows = [&text](std::size_t at) {
        if (text.compare(at, 6, "pools ") == 0) at += 6;
        std::size_t j = at;
        while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])) != 0) ++j;
        return j > at && text.compare(j, 9, " nodes x ") == 0;
      };
      for (auto pos = text.find(headed); pos != std::string::npos; pos = text.find(headed, pos)) {
        if (pos == 0 || text[pos - 1] == '\n' || (text[pos - 1] == ' ' && summary_follows(pos + headed.size())))
          text.erase(pos, e.size());
        else pos += headed.size();
      }
      erase_csv_name_cells(e, text);
      // Quoted inside a JSON string (a message that quotes the input: "reason": "accelerator \"NaN\" is
      // not listed ..."): the escaped quotes are the quotes.
      std::string escaped = "\\\"";
      escaped += e;
      escaped += "\\\"";
      for (auto pos = text.find(escaped); pos != std::string::npos; pos = text.find(escaped, pos)) {
        text.erase(pos, escaped.size());
      }
      e = "\"" + e + "\"";
    }
    for (auto pos = text.find(e); pos != std::string::npos; pos = text.find(e, pos)) text.erase(pos, e.size());
  }
}

json to_json(const Case& c) {
  json files = json::object();
  for (const auto& [name, text] : c.files) files[name] = text;
  return json{{"args", c.args}, {"files", files}};
}

int usage(const char* why) {
  std::fprintf(stderr,
               "config_fuzz: %s\nusage: config_fuzz [--cases N] [--seed S] [--first K] [--budget SECONDS] "
               "[--time SECONDS] [--save DIR] [--root SOURCE_DIR] [--self-test-sanitizer] [--verbose] [--print-cases] [--no-newer-keys]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t cases = 1000, seed = 1, first = 0;
  double budget = 30, time_limit = 0;
  std::string save, root = CLUSTERSIM_SOURCE_ROOT;
  bool verbose = false, self_test_sanitizer = false, print_cases = false, newer_keys = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    try {
      if (a == "--verbose") {
        verbose = true;
      } else if (a == "--print-cases") {
        print_cases = true;
      } else if (a == "--no-newer-keys") {
        newer_keys = false;
      } else if (a == "--self-test-sanitizer") {
        self_test_sanitizer = true;
      } else if (auto v = (a == "--cases" || a == "--seed" || a == "--first" || a == "--budget" || a == "--time" ||
                           a == "--save" || a == "--root")
                              ? value()
                              : std::nullopt) {
        if (a == "--cases") cases = std::stoull(*v);
        if (a == "--seed") seed = std::stoull(*v);
        if (a == "--first") first = std::stoull(*v);
        if (a == "--budget") budget = std::stod(*v);
        if (a == "--time") time_limit = std::stod(*v);
        if (a == "--save") save = *v;
        if (a == "--root") root = *v;
      } else {
        return usage(("unknown or incomplete option " + a).c_str());
      }
    } catch (const std::exception&) {
      return usage(("bad value for " + a).c_str());
    }
  }
  const fs::path source = fs::absolute(root);
  if (!fs::exists(source / "configs/experiments")) return usage("--root has no configs/experiments");
  // Relative paths in cases (tests/golden/...) are from the source root, as the CLI tests run.
  fs::current_path(source);
  char tmpl[] = "/tmp/config-fuzz-XXXXXX";
  const char* made = mkdtemp(tmpl);
  if (made == nullptr) return usage("cannot create a temporary directory");
  const fs::path work = made;

  std::map<std::string, std::uint64_t> per_command;
  std::map<std::string, std::uint64_t> newer_outcomes;  // ok/refused/finding of the newer-key cases
  std::map<std::string, double> per_command_cpu;
  std::map<std::uint64_t, Outcome> memo;  // FNV-1a of a case's JSON -> its outcome
  g_tally.seed = seed;
  g_tally.first = first;
  g_tally.start = std::chrono::steady_clock::now();
  const auto start = g_tally.start;
  {
    const Inputs inputs = load_inputs(source);
    Driver driver(work, budget, save);
    driver.install_sanitizer_hook(self_test_sanitizer);
    CaseMaker maker(inputs, newer_keys);
    for (std::uint64_t i = first; i < first + cases; ++i) {
      if (time_limit > 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > time_limit) {
        std::printf("time bound of %g s reached\n", time_limit);
        break;
      }
      Rng rng(seed, i);
      const Case c = maker.make(rng);
      const std::string label = "case " + std::to_string(i) + " (seed " + std::to_string(seed) + "): clustersim " + describe(c);
      const std::string file_name = "seed" + std::to_string(seed) + "-case" + std::to_string(i) + ".json";
      // A case identical to an earlier one (same arguments, same file texts: e.g. `validate` of the bundled
      // corpus, `collective --cluster eos-h100`) has the same outcome (the CLI is deterministic); it is
      // counted with that outcome, not run again.
      if (print_cases) std::printf("%s\n", to_json(c).dump(1).c_str());
      const std::uint64_t key = fnv1a(to_json(c).dump());
      const auto seen = memo.find(key);
      const bool repeat = seen != memo.end();
      const double cpu0 = cpu_seconds();
      const Outcome o = repeat ? seen->second : driver.run(c, label, file_name, i);
      const double cpu = cpu_seconds() - cpu0;
      if (repeat) {
        ++g_tally.repeats;
      } else {
        memo.emplace(key, o);
      }
      ++(o.kind == "ok" ? g_tally.ok : o.kind == "refused" ? g_tally.refused : g_tally.finding);
      ++per_command[c.args[0]];
      if (c.newer) ++newer_outcomes[o.kind];
      per_command_cpu[c.args[0]] += cpu;
      ++g_tally.ran;
      if (verbose) std::printf("%s\n  %s (%.4f s CPU): %s\n", label.c_str(), o.kind.c_str(), cpu, o.detail.c_str());
      if (o.kind == "finding" && !repeat) {
        std::printf("FINDING %s\n  %s\n", label.c_str(), o.detail.c_str());
        if (!save.empty()) {
          fs::create_directories(save);
          std::ofstream(fs::path(save) / file_name) << to_json(c).dump(1) << "\n";
        }
      }
      std::fflush(stdout);
    }
  }
  fs::remove_all(work);
  const std::uint64_t ran = g_tally.ran;
  std::printf("%s", summary_line(0).c_str());
  std::printf("newer-key cases: %llu ok, %llu refused with a located message, %llu findings\n",
              static_cast<unsigned long long>(newer_outcomes["ok"]),
              static_cast<unsigned long long>(newer_outcomes["refused"]),
              static_cast<unsigned long long>(newer_outcomes["finding"]));
  std::printf("by command:");
  for (const auto& [cmd, n] : per_command) std::printf(" %s %llu", cmd.c_str(), static_cast<unsigned long long>(n));
  std::printf("\nCPU seconds by command:");
  double cpu_total = 0;
  for (const auto& [cmd, t] : per_command_cpu) {
    std::printf(" %s %.1f", cmd.c_str(), t);
    cpu_total += t;
  }
  std::printf(" (%.1f ms per case)\n", ran > 0 ? 1e3 * cpu_total / static_cast<double>(ran) : 0.0);
  return g_tally.finding == 0 ? 0 : 1;
}
