#include "tests/catch.hpp"

#include "sim/core/diagnostics.hpp"
#include "sim/plan/sweep_space.hpp"
#include "sim/plan/vary_spec.hpp"

using namespace clustersim;
using namespace clustersim::plan;

namespace {
std::string error_of(std::string_view spec) {
  try {
    (void)parse_vary(spec);
  } catch (const ConfigError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics().front().file == "<--vary>");
    return e.diagnostics().front().to_string();
  }
  FAIL("no error for " << spec);
  return {};
}
}  // namespace

TEST_CASE("a --vary list keeps its items in order, strings included", "[plan][vary]") {
  CHECK(parse_vary("/parallelism/tp=1,2,4,8").values == std::vector<std::string>{"1", "2", "4", "8"});
  const VarySpec r = parse_vary("/training/recompute=none,selective,full");
  CHECK(r.pointer == "/training/recompute");
  CHECK(r.values == std::vector<std::string>{"none", "selective", "full"});
  CHECK(parse_vary("/x/y=\"40 GiB\",\"a,b\"").values == std::vector<std::string>{"40 GiB", "a,b"});
  CHECK(parse_vary("/x=7").values == std::vector<std::string>{"7"});
}

TEST_CASE("a geometric range multiplies by its factor up to the bound", "[plan][vary]") {
  CHECK(parse_vary("/cluster/nodes=64..1024:x2").values == std::vector<std::string>{"64", "128", "256", "512", "1024"});
  CHECK(parse_vary("/a=1..100:x10").values == std::vector<std::string>{"1", "10", "100"});
  CHECK(parse_vary("/a=3..20:x2").values == std::vector<std::string>{"3", "6", "12"});
}

TEST_CASE("an arithmetic range adds its increment, 1 by default", "[plan][vary]") {
  CHECK(parse_vary("/a=1..8:+1").values.size() == 8);
  CHECK(parse_vary("/a=1..4").values == std::vector<std::string>{"1", "2", "3", "4"});
  CHECK(parse_vary("/a=0.5..1.5:+0.25").values == std::vector<std::string>{"0.5", "0.75", "1", "1.25", "1.5"});
  CHECK(parse_vary("/a=5..5").values == std::vector<std::string>{"5"});
}

TEST_CASE("invalid --vary specs give one message naming the problem", "[plan][vary]") {
  SECTION("no '='") { CHECK_THAT(error_of("/parallelism/tp"), Catch::Contains("not POINTER=VALUES")); }
  SECTION("pointer without '/'") { CHECK_THAT(error_of("parallelism/tp=1,2"), Catch::Contains("must start with '/'")); }
  SECTION("no values") { CHECK_THAT(error_of("/parallelism/tp="), Catch::Contains("no values")); }
  SECTION("empty list item") { CHECK_THAT(error_of("/parallelism/tp=1,,2"), Catch::Contains("empty value")); }
  SECTION("empty range") { CHECK_THAT(error_of("/cluster/nodes=1024..64:x2"), Catch::Contains("is empty")); }
  SECTION("non-numeric step") { CHECK_THAT(error_of("/cluster/nodes=64..1024:xtwo"), Catch::Contains("is not a number")); }
  SECTION("non-numeric bound") { CHECK_THAT(error_of("/cluster/nodes=a..8"), Catch::Contains("bounds must be numbers")); }
  SECTION("zero factor") { CHECK_THAT(error_of("/cluster/nodes=1..8:x0"), Catch::Contains("factor > 1")); }
  SECTION("factor one") { CHECK_THAT(error_of("/cluster/nodes=1..8:x1"), Catch::Contains("factor > 1")); }
  SECTION("negative increment") { CHECK_THAT(error_of("/cluster/nodes=1..8:+-1"), Catch::Contains("must be > 0")); }
  SECTION("unterminated quote") { CHECK_THAT(error_of("/a=\"x,y"), Catch::Contains("unterminated quote")); }
}

TEST_CASE("the cartesian product varies the last axis fastest, zip pairs values", "[plan][vary]") {
  const SweepSpace space({parse_vary("/a=1,2"), parse_vary("/b=x,y,z")}, false);
  REQUIRE(space.size() == 6);
  std::vector<config::Override> o;
  space.overrides_at(4, o);
  CHECK(o[0].value == "2");
  CHECK(o[1].value == "y");
  const SweepSpace zip({parse_vary("/a=1,2,3"), parse_vary("/b=x,y,z")}, true);
  CHECK(zip.size() == 3);
  zip.overrides_at(2, o);
  CHECK((o[0].value == "3" && o[1].value == "z"));
  CHECK_THROWS_AS(SweepSpace({parse_vary("/a=1,2"), parse_vary("/b=x")}, true), ConfigError);
  CHECK_THROWS_AS(SweepSpace({parse_vary("/a=1,2"), parse_vary("/a=3")}, false), ConfigError);
}

TEST_CASE("a shard i/n needs 0 <= i < n", "[plan][vary]") {
  CHECK(parse_shard("2/5").index == 2);
  CHECK(parse_shard("2/5").contains(7));
  CHECK_THROWS_AS(parse_shard("5/5"), ConfigError);
  CHECK_THROWS_AS(parse_shard("1/0"), ConfigError);
  CHECK_THROWS_AS(parse_shard("x"), ConfigError);
}

TEST_CASE("a range may carry a unit that every value gets", "[plan][vary]") {
  CHECK(parse_vary("/cluster/node/nic/bandwidth=100..400:x2 Gb/s").values ==
        std::vector<std::string>{"100 Gb/s", "200 Gb/s", "400 Gb/s"});
}
