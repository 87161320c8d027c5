// The typed patch of sweep points (sim/config/typed_patch.hpp): a patched Scenario equals the one read
// from JSON with the same override, and the cases it must leave to the JSON path are refused.
#include "tests/catch.hpp"

#include <set>
#include <sstream>

#include "config_test_support.hpp"
#include "sim/config/scenario_json.hpp"
#include "sim/config/typed_patch.hpp"

using namespace clustersim;
using namespace clustersim::config;
using namespace clustersim::config::testing;

namespace {

ResolvedDocument load_with(ExperimentLoader& loader, const std::string& experiment,
                           std::vector<Override> sets = {}) {
  ResolvedDocument doc = loader.load(experiment);
  apply_overrides(doc, sets, loader.catalog());
  return doc;
}

// Every field of the energy section a scenario carries (scenario_to_json leaves it out), exactly.
std::string energy_text(const Scenario& s) {
  if (!s.energy) return "none";
  const EnergySpec& e = *s.energy;
  std::ostringstream o;
  o.precision(17);
  o << e.device.device << ' ' << e.device.tdp.value();
  for (DeviceState st : kAllDeviceStates)
    o << ' ' << e.device.power[st].value() << ' ' << e.device.dvfs.clock_power_fraction[st] << ' '
      << e.device.dvfs.clock_time_fraction[st];
  o << ' ' << e.device.dvfs.exponent << ' ' << e.device.dvfs.min_clock_ratio << '|' << e.node.host.value() << ' '
    << e.node.nic.value() << ' ' << e.node.nics << '|' << e.network.switch_port.value() << ' '
    << e.network.optics_port.value() << ' ' << e.network.ports_per_nic << '|' << e.storage.checkpoint_io.value()
    << ' ' << e.pue << ' ' << e.carbon_intensity.value() << ' ' << e.pricing.electricity.value() << ' '
    << e.pricing.device_rental.has_value() << e.pricing.capital.has_value() << e.power_cap.has_value() << ' '
    << e.power_cap_sweep.size();
  for (const std::string& d : e.defaults_used) o << '\n' << d;
  return o.str();
}

}  // namespace

TEST_CASE("a typed patch gives the Scenario the JSON read gives", "[config][typed]") {
  ExperimentLoader loader(bundled_catalog());
  const ResolvedDocument doc = load_with(loader, "gpt3-175b-a100-1024");
  const std::vector<std::string> pointers{"/cluster/network/oversubscription", "/training/global_batch",
                                          "/parallelism/tp", "/parallelism/dp"};
  TypedPointBuilder typed(loader, doc, pointers);
  REQUIRE(typed.enabled());
  const std::vector<std::vector<std::string>> values{
      {"1", "1536", "8", "16"}, {"2.5", "3072", "4", "32"}, {"7", "1024", "16", "8"}, {"1.001", "2048", "8", "16"}};
  for (const auto& v : values) {
    std::vector<Override> o;
    for (std::size_t i = 0; i < pointers.size(); ++i) o.push_back({pointers[i], v[i]});
    const std::optional<Scenario> patched = typed.build(o);
    REQUIRE(patched.has_value());
    const Scenario read = loader.build(doc, o);
    CHECK(scenario_to_json(*patched).dump() == scenario_to_json(read).dump());
    CHECK(patched->cluster.network.oversubscription == read.cluster.network.oversubscription);
    CHECK(patched->training.global_batch == read.training.global_batch);
    CHECK(patched->parallelism.tp == read.parallelism.tp);
    REQUIRE(patched->energy.has_value());  // derived by the energy finish hook from the patched cluster
    CHECK(patched->energy->network.ports_per_nic == read.energy->network.ports_per_nic);
    CHECK(patched->energy->defaults_used == read.energy->defaults_used);
  }
  SECTION("a value the reader would refuse is left to the JSON path") {
    CHECK_FALSE(typed.build(std::vector<Override>{{pointers[0], "0.5"}, {pointers[1], "1536"}, {pointers[2], "8"},
                                                  {pointers[3], "16"}}));  // below the minimum of 1
    CHECK_FALSE(typed.build(std::vector<Override>{{pointers[0], "\"2\""}, {pointers[1], "1536"}, {pointers[2], "8"},
                                                  {pointers[3], "16"}}));  // a string
    CHECK_FALSE(typed.build(std::vector<Override>{{pointers[0], "2"}, {pointers[1], "1536"}, {pointers[2], "3"},
                                                  {pointers[3], "16"}}));  // tp·pp·dp misses the devices
    CHECK_FALSE(typed.build(std::vector<Override>{{pointers[0], "2"}, {pointers[1], "1536"}}));  // other pointers
  }
}

TEST_CASE("the typed patch refuses what its fields' readers do not only copy", "[config][typed]") {
  ExperimentLoader loader(bundled_catalog());
  const auto enabled = [&](const std::string& experiment, std::vector<Override> sets, const std::string& pointer) {
    const ResolvedDocument doc = load_with(loader, experiment, std::move(sets));
    const std::vector<std::string> pointers{pointer};
    TypedPointBuilder b(loader, doc, pointers);
    INFO(experiment << " " << pointer << ": " << b.reason());
    return b.enabled();
  };
  CHECK(enabled("gpt3-175b-a100-1024", {}, "/training/global_batch"));
  CHECK_FALSE(enabled("gpt3-175b-a100-1024", {}, "/parallelism/pp"));  // not a patchable field
  CHECK_FALSE(enabled("gpt3-175b-a100-1024",
                      {{"/training/batch_rampup", R"({"start": 384, "increment": 384, "samples": 1000000})"}},
                      "/training/global_batch"));  // the ramp-up's checks read global_batch
  CHECK_FALSE(enabled("gpt3-175b-a100-1024", {{"/cluster/network/tiers", "2"}},
                      "/cluster/network/oversubscription"));  // an explicit fabric is built from it
  CHECK_FALSE(enabled("gpt3-175b-a100-1024", {{"/cluster/network/oversubscription", "[2]"}},
                      "/cluster/network/oversubscription"));  // given per tier, not as one number
  CHECK_FALSE(enabled("gpt3-175b-a100-1024", {{"/parallelism/tp", "\"8\""}}, "/parallelism/tp"));  // a problem
  CHECK_FALSE(enabled("llama2-70b-h100-512-energy", {}, "/cluster/network/oversubscription"));  // energy reads it
  CHECK_FALSE(enabled("llama2-70b-h100-512-energy", {}, "/energy/pue"));  // a catalog name
  CHECK(enabled("llama2-70b-h100-512-energy", {{"/energy/pue", "1.2"}}, "/energy/pue"));
  CHECK_FALSE(enabled("gpt3-175b-a100-1024", {}, "/energy/pue"));  // no energy section
  CHECK_FALSE(enabled("two-jobs-halves", {}, "/cluster/network/oversubscription"));  // jobs
  CHECK_FALSE(enabled("llama2-13b-h100a100-hetero", {}, "/training/global_batch"));  // pools
}

// The default energy section is memoised per catalog (sim/config/energy_section.cpp, default_energy): a
// point read with the memo must equal the point read by a fresh loader (empty memo), both for points
// that share the memo's key (oversubscription, which re-derives the fat tree's ports per NIC and its
// assumption line; tp, dp) and for points that change it (NIC count, another device and node).
TEST_CASE("memoised energy defaults equal freshly read ones", "[config][typed][energy]") {
  ExperimentLoader loader(bundled_catalog());
  const ResolvedDocument doc = load_with(loader, "gpt3-175b-a100-1024");
  const std::vector<std::string> pointers{"/cluster/network/oversubscription", "/parallelism/tp",
                                          "/parallelism/dp"};
  TypedPointBuilder typed(loader, doc, pointers);
  REQUIRE(typed.enabled());
  const auto fresh = [](const std::string& experiment, const std::vector<Override>& o) {
    ExperimentLoader once(bundled_catalog());
    const Scenario s = once.build(load_with(once, experiment), o);
    return scenario_to_json(s).dump() + energy_text(s);
  };
  const auto text = [](const Scenario& s) { return scenario_to_json(s).dump() + energy_text(s); };
  std::set<double> ports;
  const std::vector<std::vector<std::string>> values{
      {"1", "8", "16"}, {"2.5", "4", "32"}, {"7", "8", "16"}, {"1", "8", "16"}, {"11", "16", "8"}};
  for (const auto& v : values) {
    std::vector<Override> o;
    for (std::size_t i = 0; i < pointers.size(); ++i) o.push_back({pointers[i], v[i]});
    const std::optional<Scenario> patched = typed.build(o);
    REQUIRE(patched.has_value());
    REQUIRE(patched->energy.has_value());
    ports.insert(patched->energy->network.ports_per_nic);
    CHECK(text(*patched) == fresh("gpt3-175b-a100-1024", o));
  }
  CHECK(ports.size() == 4);  // the oversubscription values give different switch counts
  CHECK(loader.catalog().derived("energy_defaults") != nullptr);  // the memo was used
  // Points that change the key, read through the same (memoised) catalog.
  const std::vector<Override> nics{{"/cluster/node/nics", "4"}, {"/cluster/network/oversubscription", "3"}};
  CHECK(text(loader.build(doc, nics)) == fresh("gpt3-175b-a100-1024", nics));
  for (const std::string experiment : {"llama2-70b-h100-512", "mixtral-8x7b-h100-64", "gpt3-175b-a100-1024"}) {
    const Scenario s = loader.build(load_with(loader, experiment), {});
    CHECK(text(s) == fresh(experiment, {}));
  }
  // More keys than the memo keeps (a sweep over node counts makes one per point): it starts again when
  // full, and what it returns before, across and after that stays equal to a fresh read.
  const ResolvedDocument llama = load_with(loader, "llama2-70b-h100-512");
  const auto nodes = [](int k) {  // TP8 PP4 on 8-GPU nodes: dp = k
    return std::vector<Override>{{"/cluster/nodes", std::to_string(4 * k)},
                                 {"/training/global_batch", std::to_string(8 * k)}};
  };
  for (int k = 1; k <= 100; ++k) {
    const Scenario s = loader.build(llama, nodes(k));
    REQUIRE(s.energy.has_value());
    if (k == 1 || k == 64 || k == 65 || k == 66 || k == 100) CHECK(text(s) == fresh("llama2-70b-h100-512", nodes(k)));
  }
  CHECK(text(loader.build(llama, nodes(1))) == fresh("llama2-70b-h100-512", nodes(1)));
}
