#include "tests/catch.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "plan_test_support.hpp"
#include "row_compare.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/plan/merge.hpp"
#include "sim/plan/point_evaluator.hpp"
#include "sim/plan/row_format.hpp"
#include "sim/plan/sweep_runner.hpp"

using namespace clustersim;
using namespace clustersim::plan;
using namespace clustersim::plan::testing;

namespace {

// 24 points on one DGX A100: some fit, some do not fit in memory (micro-batch 64 without recomputation),
// some are invalid (tp 3 does not divide the heads, micro-batch 64 with a global batch of 64).
SweepSpace small_space() {
  return SweepSpace({parse_vary("/parallelism/tp=1,3"), parse_vary("/training/micro_batch=1,4,64"),
                     parse_vary("/training/global_batch=64,512"), parse_vary("/training/recompute=none,full")},
                    false);
}

SweepJob job_for(const SweepSpace& space, const std::filesystem::path& out, RowFormat format = RowFormat::csv) {
  SweepJob job;
  job.paths = bundled_catalog();
  config::ExperimentLoader loader(job.paths);
  job.document = loader.load("gpt2-1b-a100-8gpu");
  job.space = &space;
  job.output = out;
  job.format = format;
  return job;
}

void truncate_mid_line(const std::filesystem::path& p, double fraction) {
  const auto size = std::filesystem::file_size(p);
  auto cut = static_cast<std::uintmax_t>(static_cast<double>(size) * fraction);
  const std::string text = read_file(p);
  if (text[cut - 1] == '\n') ++cut;  // make sure the kill lands inside a line
  std::filesystem::resize_file(p, cut);
}

}  // namespace

TEST_CASE("a sweep writes one row per point in index order, infeasible points as rows with a reason", "[plan][sweep]") {
  TempDir dir;
  const SweepSpace space = small_space();
  const SweepSummary s = run_sweep(job_for(space, dir / "all.csv"));
  CHECK(s.written == 24);
  CHECK(s.ok > 0);
  CHECK(s.infeasible > 0);
  CHECK(s.invalid > 0);
  CHECK(s.error == 0);
  const std::string text = read_file(dir / "all.csv");
  const auto lines = sorted_lines(text);
  CHECK(lines.size() == 25);
  CHECK(text.starts_with("index,/parallelism/tp,/training/micro_batch,/training/global_batch,/training/recompute,status,reason,"));
  CHECK_THAT(text, Catch::Contains("step_time_s"));
  CHECK_THAT(text, Catch::Contains(",infeasible,\"memory: "));
  CHECK_THAT(text, Catch::Contains(",invalid,/parallelism/dp: tp·pp·dp·cp = 3·1·8·1"));
}

TEST_CASE("the output does not depend on the number of threads", "[plan][sweep]") {
  TempDir dir;
  const SweepSpace space = small_space();
  run_sweep(job_for(space, dir / "one.csv"));
  SweepJob two = job_for(space, dir / "two.csv");
  two.jobs = 3;
  run_sweep(two);
  CHECK(read_file(dir / "one.csv") == read_file(dir / "two.csv"));
}

TEST_CASE("resuming a killed sweep yields the file of an uninterrupted run", "[plan][sweep]") {
  TempDir dir;
  const SweepSpace space = small_space();
  for (RowFormat format : {RowFormat::csv, RowFormat::jsonl}) {
    const std::string ext = format == RowFormat::csv ? ".csv" : ".jsonl";
    run_sweep(job_for(space, dir / ("full" + ext), format));
    SweepJob job = job_for(space, dir / ("killed" + ext), format);
    run_sweep(job);
    truncate_mid_line(dir / ("killed" + ext), 0.55);
    job.resume = true;
    const SweepSummary s = run_sweep(job);
    CHECK(s.truncated_bytes > 0);
    CHECK(s.skipped > 0);
    CHECK(s.skipped + s.written == 24);
    CHECK(sorted_lines(read_file(dir / ("killed" + ext))) == sorted_lines(read_file(dir / ("full" + ext))));
    CHECK(read_file(dir / ("killed" + ext)) == read_file(dir / ("full" + ext)));
  }
}

TEST_CASE("resuming a complete sweep computes nothing, a file of another sweep is refused", "[plan][sweep]") {
  TempDir dir;
  const SweepSpace space = small_space();
  SweepJob job = job_for(space, dir / "a.csv");
  run_sweep(job);
  job.resume = true;
  CHECK(run_sweep(job).written == 0);
  const SweepSpace other({parse_vary("/training/micro_batch=1,2")}, false);
  SweepJob wrong = job_for(other, dir / "a.csv");
  wrong.resume = true;
  CHECK_THROWS_AS(run_sweep(wrong), ConfigError);
}

TEST_CASE(
    "resuming a file whose first row this sweep does not compute is refused (another experiment or model)",
    "[plan][sweep]") {
  TempDir dir;
  const SweepSpace space = small_space();
  SweepJob job = job_for(space, dir / "a.csv");
  run_sweep(job);
  std::string text = read_file(dir / "a.csv");
  truncate_mid_line(dir / "a.csv", 0.5);
  const std::string cut = read_file(dir / "a.csv");
  job.resume = true;
  SECTION("the same columns, another experiment") {
    SweepJob other = job;
    config::ExperimentLoader loader(other.paths);
    other.document = loader.load("gpt2-1b-a100-8gpu");
    other.document.document["training"]["seq_len"] = 512;
    if (other.document.unprofiled) {
      nlohmann::json j = *other.document.unprofiled;
      j["training"]["seq_len"] = 512;
      other.document.unprofiled = std::make_shared<const nlohmann::json>(std::move(j));
    }
    CHECK_THROWS_WITH(run_sweep(other),
                      Catch::Contains("--resume: its row of point 0 is not what this sweep computes for that "
                                      "point (column ") &&
                          Catch::Contains("remove the file or drop --resume"));
    CHECK(read_file(dir / "a.csv") == cut);  // left as it was
  }
  SECTION("a figure the model does not give") {
    // The first row's step time (a number after "ok,,") made one digit different.
    const auto header_end = cut.find('\n') + 1;
    const auto at = cut.find(",ok,,", header_end);
    REQUIRE(at != std::string::npos);
    REQUIRE(at < cut.find('\n', header_end));
    std::string changed = cut;
    const auto digit = changed.find_first_of("123456789", at + 5);
    changed[digit] = changed[digit] == '9' ? '8' : static_cast<char>(changed[digit] + 1);
    std::ofstream(dir / "a.csv", std::ios::trunc) << changed;
    CHECK_THROWS_WITH(run_sweep(job), Catch::Contains("is not what this sweep computes"));
  }
  SECTION("the file as written resumes") {
    run_sweep(job);
    CHECK(read_file(dir / "a.csv") == text);
  }
  SECTION(
      "a row of a point this sweep does not have (other --vary values) is refused, not an internal error") {
    const SweepSpace fewer({parse_vary("/parallelism/tp=1,3"), parse_vary("/training/micro_batch=1")}, false);
    SweepJob other = job_for(fewer, dir / "a.csv");
    // The same columns: the file's header names the same axes only if they are the same; write one whose
    // first row is point 7 of the other sweep.
    run_sweep(other);
    const std::string header = read_file(dir / "a.csv").substr(0, read_file(dir / "a.csv").find('\n') + 1);
    std::ofstream(dir / "a.csv", std::ios::trunc) << header << "7,1,1,ok,\n";
    other.resume = true;
    CHECK_THROWS_WITH(run_sweep(other),
                      Catch::Contains("line 2 is a row of point 7, but this sweep has 2 points"));
  }
  SECTION("rows whose varied values are not this sweep's (the values reordered) are refused, any row") {
    // Written with global_batch 64,512; resumed with 512,64: the same columns, the same point indices.
    const SweepSpace swapped(
        {parse_vary("/parallelism/tp=1,3"), parse_vary("/training/micro_batch=1,4,64"),
         parse_vary("/training/global_batch=512,64"), parse_vary("/training/recompute=none,full")},
        false);
    SweepJob other = job_for(swapped, dir / "a.csv");
    other.resume = true;
    CHECK_THROWS_WITH(run_sweep(other),
                      Catch::Contains("does not hold the values this sweep gives that point"));
    CHECK(read_file(dir / "a.csv") == cut);
  }
}

TEST_CASE(
    "resuming checks the first row of each status: a file that starts with invalid rows is still checked",
    "[plan][sweep]") {
  // tp = 3 does not divide the heads: the first rows are invalid, whatever the experiment; the first ok row
  // tells another experiment apart.
  TempDir dir;
  const SweepSpace space({parse_vary("/parallelism/tp=3,1"), parse_vary("/training/micro_batch=1,4")}, false);
  SweepJob job = job_for(space, dir / "a.csv");
  run_sweep(job);
  const std::string text = read_file(dir / "a.csv");
  REQUIRE(text.find(",invalid,") < text.find(",ok,"));
  SweepJob other = job;
  other.document.document["training"]["seq_len"] = 512;
  if (other.document.unprofiled) {
    nlohmann::json j = *other.document.unprofiled;
    j["training"]["seq_len"] = 512;
    other.document.unprofiled = std::make_shared<const nlohmann::json>(std::move(j));
  }
  other.resume = true;
  CHECK_THROWS_WITH(run_sweep(other), Catch::Contains("its row of point 2 is not what this sweep computes"));
  CHECK(read_file(dir / "a.csv") == text);
  job.resume = true;
  CHECK(run_sweep(job).written == 0);
}

TEST_CASE("n shards merged equal the unsharded sweep", "[plan][sweep]") {
  TempDir dir;
  const SweepSpace space = small_space();
  run_sweep(job_for(space, dir / "all.csv"));
  std::vector<std::filesystem::path> parts;
  for (std::uint64_t i = 0; i < 3; ++i) {
    SweepJob job = job_for(space, dir / ("part" + std::to_string(i) + ".csv"));
    job.shard = {i, 3};
    run_sweep(job);
    parts.push_back(job.output);
  }
  parts.push_back(parts.front());  // a shard given twice: duplicates are dropped
  const MergeSummary m = merge_files(dir / "merged.csv", parts, RowFormat::csv);
  CHECK(m.rows == 24);
  CHECK(m.duplicates == 8);
  CHECK(read_file(dir / "merged.csv") == read_file(dir / "all.csv"));
}

TEST_CASE("merge refuses files with other columns", "[plan][sweep]") {
  TempDir dir;
  const SweepSpace a({parse_vary("/training/micro_batch=1,2")}, false);
  const SweepSpace b({parse_vary("/training/recompute=none,full")}, false);
  run_sweep(job_for(a, dir / "a.csv"));
  run_sweep(job_for(b, dir / "b.csv"));
  CHECK_THROWS_AS(merge_files(dir / "m.csv", {dir / "a.csv", dir / "b.csv"}, RowFormat::csv), ConfigError);
}

TEST_CASE("unknown or malformed --vary pointers are rejected before anything is written", "[plan][sweep]") {
  TempDir dir;
  const SweepSpace space({parse_vary("/parallelism/tpp=1,2"), parse_vary("/training/micro_batch=1,2")}, false);
  try {
    run_sweep(job_for(space, dir / "x.csv"));
    FAIL("no error");
  } catch (const ConfigError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics().front().pointer == "/parallelism/tpp");
    CHECK_THAT(e.diagnostics().front().message, Catch::Contains("unknown key"));
  }
  CHECK_FALSE(std::filesystem::exists(dir / "x.csv"));
  const SweepSpace deep({parse_vary("/parallelism/tp/x=1")}, false);
  CHECK_THROWS_AS(run_sweep(job_for(deep, dir / "y.csv")), ConfigError);
}

TEST_CASE("flatten_json_into a reused vector equals a fresh flatten_json", "[plan][sweep]") {
  using Pairs = std::vector<std::pair<std::string, nlohmann::json>>;
  // The last walks out of key order ("a-c" sorts before "a.b"), the third has fewer and other keys.
  const std::vector<nlohmann::json> docs = {
      nlohmann::json::parse(R"({"x": 1, "y": {"z": 2.5, "w": "s"}, "v": [1, 2]})"),
      nlohmann::json::parse(R"({"x": 3, "y": {"z": -1.0, "w": "a longer string value"}, "v": null})"),
      nlohmann::json::parse(R"({"q": true, "y": {"w": "t"}})"),
      nlohmann::json::parse(R"({"a": {"b": 1}, "a-c": 2, "a0": {"d": {"e": 3}}})"),
      nlohmann::json::parse(R"({"x": 1, "y": {"z": 2.5, "w": "s"}, "v": [1, 2]})")};
  Pairs reused;
  for (const nlohmann::json& d : docs) {
    Pairs fresh;
    flatten_json(d, fresh);
    flatten_json_into(d, reused);
    CHECK(reused == fresh);
  }
}

TEST_CASE("points evaluated into one reused row equal points evaluated fresh", "[plan][sweep]") {
  const SweepSpace space = small_space();
  const SweepJob job = job_for(space, "unused.csv");
  PointEvaluator fresh(job.paths, job.document, space), reusing(job.paths, job.document, space);
  SweepRow row;
  int ok = 0, failed = 0;
  // Backwards and forwards: a failing point after an ok one and the reverse.
  for (int pass = 0; pass < 2; ++pass) {
    for (std::uint64_t k = 0; k < space.size(); ++k) {
      const std::uint64_t i = pass == 0 ? space.size() - 1 - k : k;
      const SweepRow a = fresh.evaluate(i);
      reusing.evaluate(i, row);
      INFO("point " << i);
      CHECK(row.index == a.index);
      CHECK(row.status == a.status);
      CHECK(row.reason == a.reason);
      CHECK(row.metrics == a.metrics);
      (a.status == RowStatus::ok ? ok : failed) += 1;
    }
  }
  CHECK(ok > 0);
  CHECK(failed > 0);
}

namespace {

// Every point of `space` evaluated with the typed patch (config/typed_patch.hpp) and with the JSON path
// (the whole document re-read): the formatted rows must be the same bytes. Returns the points that took
// the typed path.
std::uint64_t check_typed_equals_json(const std::string& experiment, const SweepSpace& space,
                                      std::span<const config::Override> sets = {}) {
  SweepJob job;
  job.paths = bundled_catalog();
  config::ExperimentLoader loader(job.paths);
  job.document = loader.load(experiment);
  loader.apply_base_overrides(job.document, sets);
  PointEvaluator typed(job.paths, job.document, space), json(job.paths, job.document, space);
  json.set_typed_patch(false);
  const RowSchema schema = probe_schema(json, space);
  check_same_rows(typed, json, space, schema, RowFormat::csv, experiment);
  CHECK(json.typed_points() == 0);
  return typed.typed_points();
}

}  // namespace

TEST_CASE("sweep points patched typed give the rows of points read from JSON", "[plan][sweep][typed]") {
  SECTION("network oversubscription (a cluster field), valid and out of range") {
    const SweepSpace space({parse_vary("/cluster/network/oversubscription=0.5,1,1.37,2,4,7.5,11,100")}, false);
    // 0.5 is below the field's minimum: that point takes the JSON path for its message.
    CHECK(check_typed_equals_json("gpt3-175b-a100-1024", space) == 7);
  }
  SECTION("global batch: divisible, not divisible by micro_batch x dp, and with oversubscription") {
    const SweepSpace space({parse_vary("/training/global_batch=16,1536,1537,4096"),
                            parse_vary("/cluster/network/oversubscription=1,3")},
                           false);
    // 1537 is not a multiple of micro_batch x dp, and 16 gives 1 micro-batch per replica, not a multiple
    // of pp as the interleaved schedule needs: their cross-checks fail, so they take the JSON path.
    CHECK(check_typed_equals_json("gpt3-175b-a100-1024", space) == 4);
  }
  SECTION("tensor and data parallelism, including a product that misses the device count") {
    const SweepSpace space({parse_vary("/parallelism/tp=1,2,4,8,16,3"),
                            parse_vary("/parallelism/dp=128,64,32,16,8,16")},
                           true);
    // tp 1 (12 micro-batches, not a multiple of pp) and tp 3 (384 of 1,024 devices) fail their checks;
    // tp 2 and 4 do not fit in memory (infeasible rows, typed).
    CHECK(check_typed_equals_json("gpt3-175b-a100-1024", space) == 4);
  }
  SECTION("an energy field (pue) of an experiment with an energy section") {
    const config::Override pue{"/energy/pue", "1.1"};
    const SweepSpace space({parse_vary("/energy/pue=0.5,1,1.12,1.58,3")}, false);
    CHECK(check_typed_equals_json("llama2-70b-h100-512-energy", space, std::span(&pue, 1)) == 4);
  }
  SECTION("a mixture-of-experts and a TPU experiment") {
    const SweepSpace moe({parse_vary("/cluster/network/oversubscription=1,2.5,4"),
                          parse_vary("/training/global_batch=256,512")},
                         false);
    CHECK(check_typed_equals_json("mixtral-8x7b-h100-64", moe) == 6);
    const SweepSpace tpu({parse_vary("/training/global_batch=1024,2048,4096")}, false);
    CHECK(check_typed_equals_json("palm-540b-tpuv4-6144", tpu) == 3);
  }
  SECTION("pointers and experiments the typed patch leaves to the JSON path") {
    const SweepSpace pp({parse_vary("/parallelism/pp=4,8")}, false);
    CHECK(check_typed_equals_json("gpt3-175b-a100-1024", pp) == 0);  // not a patchable field
    const SweepSpace catalog_pue({parse_vary("/energy/pue=1,1.2")}, false);
    CHECK(check_typed_equals_json("llama2-70b-h100-512-energy", catalog_pue) == 0);  // pue is a catalog name
    const SweepSpace cluster_with_energy({parse_vary("/cluster/network/oversubscription=1,2")}, false);
    CHECK(check_typed_equals_json("llama2-70b-h100-512-energy", cluster_with_energy) == 0);
    const SweepSpace jobs({parse_vary("/cluster/network/oversubscription=1,2")}, false);
    CHECK(check_typed_equals_json("two-jobs-halves", jobs) == 0);
  }
}
