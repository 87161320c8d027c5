#include "tests/catch.hpp"

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>

#include "energy_fixtures.hpp"
#include "sim/config/reference_runs.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/report/validation.hpp"

using namespace clustersim;

namespace {
// The repository's published-runs corpus.
std::filesystem::path reference_file() {
  return std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "configs" / "reference" / "energy_runs.json";
}
}  // namespace

TEST_CASE("the energy arithmetic check reproduces the Patterson 2021 records within 5 % in MWh and tCO2e") {
  const auto file = reference_file();
  ValidationResult r;
  add_energy_arithmetic(r, file, test::bundled_catalog());
  CHECK(r.arithmetic_skipped.empty());
  CHECK(r.rows.empty());  // never counted as accuracy
  std::map<std::string, int> per_metric;
  for (const ValidationRow& row : r.arithmetic) {
    CHECK(row.group == "patterson2021");
    INFO(row.id << " " << row.metric << " measured " << row.measured << " predicted " << row.predicted);
    CHECK(std::fabs(row.rel_error) < 0.05);
    ++per_metric[row.metric];
  }
  CHECK(per_metric["energy_mwh"] >= 4);
  CHECK(per_metric["co2e_t"] >= 4);
  const auto j = validation_json(r);
  CHECK(j["arithmetic_check"]["rows"].size() == r.arithmetic.size());
}

namespace {
// The arithmetic check of the bundled energy records with `edit` applied to the first one (written to a
// temporary file of its own: ctest runs test cases in parallel processes; removed afterwards).
ValidationResult check_edited(const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(reference_file());
  nlohmann::json doc = nlohmann::json::parse(in);
  edit(doc[0]);
  std::random_device rd;
  const auto file = std::filesystem::temp_directory_path() /
                    ("clustersim-energy-runs-" + std::to_string(rd()) + std::to_string(rd()) + ".json");
  std::ofstream(file) << doc.dump();
  ValidationResult r;
  try {
    add_energy_arithmetic(r, file, test::bundled_catalog());
  } catch (...) {
    std::filesystem::remove(file);
    throw;
  }
  std::filesystem::remove(file);
  return r;
}
}  // namespace

TEST_CASE("the energy check looks up carbon intensity by the record's datacenter, never by its id") {
  ValidationResult bundled;
  add_energy_arithmetic(bundled, reference_file(), test::bundled_catalog());
  const ValidationResult renamed = check_edited([](nlohmann::json& r) {
    r["id"] = "zz-renamed";
    r["notes"] = "";
    r["source"]["citation"] = "someone else";
  });
  REQUIRE(renamed.arithmetic.size() == bundled.arithmetic.size());
  for (std::size_t i = 0; i < bundled.arithmetic.size(); ++i)
    CHECK(renamed.arithmetic[i].predicted == bundled.arithmetic[i].predicted);
  const ValidationResult moved = check_edited([](nlohmann::json& r) { r["datacenter"]["site"] = "Mars"; });
  REQUIRE(moved.arithmetic_skipped.size() == 1);
  CHECK(moved.arithmetic_skipped.front().reason.find("site \"Mars\"") != std::string::npos);
}

TEST_CASE("energy records are read strictly: unknown keys and wrong types are errors with a pointer") {
  auto first_problem = [](const std::function<void(nlohmann::json&)>& edit) {
    try {
      check_edited(edit);
    } catch (const ConfigError& e) {
      return e.diagnostics().front().to_string();
    }
    return std::string();
  };
  SECTION("unknown key") {
    CHECK(first_problem([](nlohmann::json& r) {
            r["measured"]["energy_mwh"] = 1;
          }).find("/0/measured/energy_mwh") != std::string::npos);
  }
  SECTION("wrong type") {
    CHECK(first_problem([](nlohmann::json& r) {
            r["hardware"]["count"] = "512";
          }).find("/0/hardware/count") != std::string::npos);
  }
  SECTION("missing datacenter") {
    CHECK(first_problem([](nlohmann::json& r) { r.erase("datacenter"); }).find("datacenter") !=
          std::string::npos);
  }
}
