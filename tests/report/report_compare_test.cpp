// compare_reports: the field-by-field check behind golden reports and `clustersim compare`.
#include "tests/catch.hpp"

#include "sim/report/report_compare.hpp"

using namespace clustersim;
using nlohmann::json;

TEST_CASE("identical reports match, and numbers within the relative tolerance match") {
  const json golden = json::parse(R"({"step_time_s": 12.5, "memory": {"fits": true, "total_bytes": 7.5e10},
                                       "stages": [{"end_s": 1.0}, {"end_s": 2.0}], "engine": "analytic"})");
  CHECK(compare_reports(golden, golden).empty());
  json near = golden;
  near["step_time_s"] = 12.5 * (1 + 1e-7);
  CHECK(compare_reports(golden, near, {.rtol = 1e-6}).empty());
  CHECK(compare_reports(golden, near, {.rtol = 1e-9}).size() == 1);
  CHECK(compare_reports(json{{"x", 0.0}}, json{{"x", 1e-13}}, {.rtol = 1e-6, .atol = 1e-12}).empty());
}

TEST_CASE("every difference names its JSON pointer") {
  const json golden = json::parse(R"({"step_time_s": 12.5, "memory": {"fits": true, "total_bytes": 7.5e10},
                                       "stages": [{"end_s": 1.0}, {"end_s": 2.0}], "engine": "analytic",
                                       "a/b": 1})");
  json actual = golden;
  actual["memory"]["total_bytes"] = 8e10;
  actual["stages"][1]["end_s"] = 2.5;
  actual["engine"] = "flow";
  actual.erase("step_time_s");
  actual["a/b"] = "one";
  const auto diff = compare_reports(golden, actual);
  REQUIRE(diff.size() == 5);
  CHECK(diff[0].pointer == "/a~1b");
  CHECK_THAT(diff[0].message, Catch::Contains("expected number 1, got string"));
  CHECK(diff[1].pointer == "/engine");
  CHECK(diff[2].pointer == "/memory/total_bytes");
  CHECK_THAT(diff[2].message, Catch::Contains("+6.667 %"));
  CHECK(diff[3].pointer == "/stages/1/end_s");
  CHECK(diff[4].pointer == "/step_time_s");
  CHECK_THAT(diff[4].message, Catch::Contains("missing"));
}

TEST_CASE("new keys are allowed unless strict, arrays must keep their length") {
  const json golden = json::parse(R"({"stages": [1, 2]})");
  const json added = json::parse(R"({"stages": [1, 2], "new_key_s": 3})");
  CHECK(compare_reports(golden, added).empty());
  REQUIRE(compare_reports(golden, added, {.strict = true}).size() == 1);
  CHECK(compare_reports(golden, added, {.strict = true})[0].pointer == "/new_key_s");
  const auto shorter = compare_reports(golden, json::parse(R"({"stages": [1]})"));
  REQUIRE(shorter.size() == 1);
  CHECK(shorter[0].pointer == "/stages");
}
