// The node key nics_per_communicator (docs/collectives.md, "One NIC per communicator"): 1..nics, one
// located message per problem (its effect on collectives: tests/collectives/communicator_nics_test.cpp).
#include "tests/catch.hpp"

#include "tests/config/config_test_support.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

namespace {

constexpr const char* kKey = "/cluster/node/nics_per_communicator";

nlohmann::json with_key(const nlohmann::json& value) {
  auto doc = small_experiment();
  doc["cluster"]["node"]["nics"] = 4;
  doc["cluster"]["node"]["nics_per_communicator"] = value;
  return doc;
}

std::vector<Diagnostic> check(const nlohmann::json& doc) {
  TempDir dir;
  return diagnostics_of(dir.write("exp.json", doc));
}

}  // namespace

TEST_CASE("nics_per_communicator from 1 to the node's NICs is valid", "[config]") {
  for (int n : {1, 2, 4}) {
    const auto ds = check(with_key(n));
    INFO(dump(ds));
    CHECK(ds.empty());
  }
}

TEST_CASE("nics_per_communicator refusals are one located message each", "[config]") {
  std::vector<Diagnostic> ds;
  SECTION("more than the node's NICs") {
    ds = check(with_key(5));
    CHECK(has_diagnostic(ds, "exp.json", kKey, "5 is more than the node's 4 NICs"));
  }
  SECTION("zero") {
    ds = check(with_key(0));
    CHECK(has_diagnostic(ds, "exp.json", kKey, "out of range"));
  }
  SECTION("a string") {
    ds = check(with_key("one"));
    CHECK(has_diagnostic(ds, "exp.json", kKey, ""));
  }
  INFO(dump(ds));
  CHECK(ds.size() == 1);
}
