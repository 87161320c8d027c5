// Accuracy gates: predictions against the corpus (configs/reference/published_runs.json) must stay within
// the figures the README's "Accuracy" table claims, per split and source group. The test split is held
// out (nothing was fitted on it); the calibration split is in-sample. A change that moves a prediction
// past a bound, or that turns a predicted record into a skipped one, fails here.
#include "tests/catch.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/config/json_file.hpp"
#include "sim/report/validation.hpp"

using namespace clustersim;
namespace fs = std::filesystem;

namespace {
const fs::path kRoot = CLUSTERSIM_SOURCE_DIR;
const config::CatalogPaths kPaths{{kRoot / "configs"}};

fs::path reference_file() {
  return kRoot / "configs" / "reference" / "published_runs.json";
}

const config::ReferenceSet& corpus() {
  static const config::ReferenceSet set = read_corpus(reference_file(), kPaths, true);
  return set;
}

const ValidationResult& result() {
  static const ValidationResult r = run_validation(corpus(), kPaths);
  return r;
}

struct Gate {
  const char* split;
  const char* group;  // "" = the whole split
  int rows;           // records predicted (fewer = a record became a skip)
  double mean_pct;    // mean |relative error| bound, percent (measured, rounded up)
  double max_pct;     // max |relative error| bound, percent
};

// The README "Accuracy" table, test split first. Bounds are the measured figures rounded up to the next
// half percent; the row counts are exact.
constexpr Gate kGates[] = {
    // BEGIN GATES (tools/accuracy_tables.py --write)
    {"test", "bigscience_tr11_prequel_2022", 18, 9.0, 32.5},
    {"test", "bigscience_tr11_readme_2022", 2, 17.5, 30.0},
    {"test", "bigscience_tr8_104b_tuneup_2021", 5, 38.0, 40.5},
    {"test", "flashattn_repo_training_readme", 5, 8.0, 18.0},
    {"test", "llmfoundry-benchmarks-2023", 24, 7.5, 20.0},
    {"test", "maxtext-tpu-readmes", 23, 6.5, 19.0},
    {"test", "mbridge-perf-25.09", 13, 13.0, 35.5},
    {"test", "mbridge-perf-25.11", 15, 10.0, 18.5},
    {"test", "mbridge-perf-26.02", 14, 6.5, 12.0},
    {"test", "mbridge-perf-26.04.01", 14, 7.5, 14.0},
    {"test", "mbridge-perf-26.06", 12, 6.5, 12.5},
    {"test", "megascale2024", 23, 5.5, 12.5},
    {"test", "megatron-bridge-perf-summary", 64, 24.0, 126.0},
    {"test", "megatron-core-moe-report-2026", 7, 14.5, 44.0},
    {"test", "megatronlm-examples-llama-fp8-2025", 3, 10.0, 14.5},
    {"test", "megatronlm_v1_blog2020", 4, 9.5, 11.0},
    {"test", "moe-parallel-folding-2025", 34, 7.5, 19.0},
    {"test", "nemo-automodel-perf-summary", 7, 20.5, 45.0},
    {"test", "nemo-long-sequence-perf", 14, 20.5, 37.5},
    {"test", "nemo-perf-summary-24.07", 13, 7.5, 25.0},
    {"test", "nemo-perf-summary-25.02", 8, 18.0, 35.5},
    {"test", "nemo-perf-summary-25.04", 7, 11.0, 18.5},
    {"test", "nemo-perf-summary-25.07", 3, 12.5, 23.0},
    {"test", "nemotron4_15b_2024", 3, 7.0, 13.5},
    {"test", "nemotron4_340b_2024", 3, 12.0, 13.0},
    {"test", "torchtitan-benchmarks-asynctp-h100-202506", 12, 5.0, 8.0},
    {"test", "torchtitan-benchmarks-llama3-h100-202412", 18, 7.0, 24.5},
    {"test", "torchtitan-benchmarks-trainy-h200-202506", 2, 12.0, 13.0},
    {"test", "torchtitan-docs-performance-2024", 11, 8.0, 21.0},
    {"test", "vocabparallel_2025", 24, 12.0, 25.0},
    {"test", "", 405, 12.0, 126.0},
    {"calibration", "korthikanti2022", 9, 4.5, 8.5},
    {"calibration", "megatron-core-readme-2024", 9, 4.5, 14.0},
    {"calibration", "megatron-lm-readme-2020", 12, 2.5, 10.5},
    {"calibration", "narayanan2021", 22, 5.5, 21.0},
    {"calibration", "", 52, 4.5, 21.0},
    // END GATES
};

struct Counts {
  const char* split;
  int above_30_pct;  // rows with |relative error| above 30 % (the README says how many)
  int skipped;       // records skipped with a reason
  int not_fitting;   // rows whose configuration the memory model says does not fit (they ran)
};
constexpr Counts kCounts[] = {
    // BEGIN COUNTS (tools/accuracy_tables.py --write)
    {"test", 31, 78, 58},
    {"calibration", 0, 12, 1},
    // END COUNTS
};
}  // namespace

TEST_CASE("the README's counts of rows above 30 %, of skipped records and of rows not fitting in memory are exact") {
  for (const Counts& c : kCounts) {
    int above = 0, skipped = 0, over = 0;
    for (const ValidationRow& r : result().rows) above += r.split == c.split && std::fabs(r.rel_error) > 0.30;
    for (const ValidationRow& r : result().rows) over += r.split == c.split && !r.fits_memory;
    for (const auto& s : result().skipped) skipped += s.split == c.split;
    INFO(c.split);
    CHECK(above == c.above_30_pct);
    CHECK(skipped == c.skipped);
    CHECK(over == c.not_fitting);
  }
}

TEST_CASE("the README's prose states the counts validate gives (rows above 30 %, skips, rows not fitting)") {
  std::ifstream in(kRoot / "README.md");
  REQUIRE(in);
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int rows = 0, above = 0, skipped = 0, over = 0, cal_rows = 0, cal_over = 0;
  for (const ValidationRow& r : result().rows) {
    if (r.split == "test") {
      ++rows;
      above += std::fabs(r.rel_error) > 0.30;
      over += !r.fits_memory;
    } else if (r.split == "calibration") {
      ++cal_rows;
      cal_over += !r.fits_memory;
    }
  }
  for (const auto& s : result().skipped) skipped += s.split == "test";
  for (const std::string& claim :
       {fmt::format("{} rows are above 30 %", above), fmt::format("{} test records are skipped", skipped),
        fmt::format("**{} of the {}** test-split configurations ({} of {} in calibration)", over, rows, cal_over,
                    cal_rows)}) {
    INFO(claim);
    CHECK(readme.find(claim) != std::string::npos);
  }
}

TEST_CASE("every reference record is either predicted or skipped with a reason") {
  const nlohmann::json step = config::read_json_file(reference_file());
  const nlohmann::json moe = config::read_json_file(reference_file().parent_path() / "moe_runs.json");
  const std::size_t records = step.size() + moe.size();
  std::set<std::string> seen;
  for (const ValidationRow& r : result().rows) seen.insert(r.id);
  for (const auto& s : result().skipped) {
    CHECK_FALSE(s.reason.empty());
    seen.insert(s.id);
  }
  CHECK(seen.size() == records);
  CHECK(corpus().records == records);
}

TEST_CASE("the corpus has at least 150 step-level records, 50 of them in the test split") {
  std::map<std::string, int> per_split;
  for (const auto& c : corpus().cases) per_split[c.split] += 1;
  for (const auto& s : corpus().skipped) per_split[s.split] += 1;
  CHECK(per_split["test"] + per_split["calibration"] >= 150);
  CHECK(per_split["test"] >= 50);
}

TEST_CASE(
    "per-source accuracy stays within the README's figures (test split held out, calibration in-sample)") {
  for (const Gate& g : kGates) {
    const ValidationSummary s = std::string(g.group).empty() ? result().overall(g.split) : [&] {
      for (const ValidationSummary& x : result().summaries(g.split)) {
        if (x.group == g.group) return x;
      }
      return ValidationSummary{g.split, g.group, 0, 0, 0};
    }();
    INFO(fmt::format("{} / {}: {} rows, mean {:.2f} %, max {:.2f} %", g.split, *g.group ? g.group : "ALL",
                     s.rows, 100 * s.mean_abs_error, 100 * s.max_abs_error));
    CHECK(s.rows == g.rows);
    CHECK(100 * s.mean_abs_error <= g.mean_pct);
    CHECK(100 * s.max_abs_error <= g.max_pct);
  }
}

TEST_CASE("every predicted source group has a gate") {
  std::set<std::pair<std::string, std::string>> gated;
  for (const Gate& g : kGates) gated.insert({g.split, g.group});
  for (const ValidationRow& r : result().rows) {
    INFO(r.split << " / " << r.group);
    CHECK(gated.count({r.split, r.group}) == 1);
  }
}

TEST_CASE("the MoE corpus reads strictly, its expressible records are predicted, the rest say why") {
  const fs::path file = kRoot / "configs" / "reference" / "moe_runs.json";
  const config::ReferenceSet moe = config::read_reference_runs(file, kPaths);
  CHECK(moe.cases.size() + moe.skipped.size() == moe.records);
  CHECK(moe.cases.size() >= 30);
  for (const auto& s : moe.skipped) {
    INFO(s.id << ": " << s.reason);
    CHECK(s.reason.find("not modelled yet") == std::string::npos);
    CHECK(!s.reason.empty());
  }
}
