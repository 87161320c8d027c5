#include "tests/catch.hpp"

#include "energy_fixtures.hpp"

using namespace clustersim;
using test::all;
using test::has_diagnostic;

TEST_CASE("an experiment without an energy section gets catalog defaults for a device with a power entry") {
  const Scenario s = test::build(test::a100_experiment());
  REQUIRE(s.energy.has_value());
  CHECK(s.energy->device.device == "a100-sxm4-80gb");
  CHECK(s.energy->device.tdp.value() == Approx(400.0));
  CHECK(s.energy->device.at(DeviceState::compute).value() == Approx(400.0));
  CHECK(s.energy->node.host.value() == Approx(2000.0));  // energy catalog dgx-a100 (alias dgx-a100-80gb)
  CHECK(s.energy->node.nics == 8);
  CHECK(s.energy->pue == 1.0);
  CHECK_FALSE(s.energy->defaults_used.empty());
  CHECK(s.energy->validate().empty());
}

TEST_CASE("energy section values override the catalog and catalog names resolve") {
  nlohmann::json doc = test::a100_experiment();
  doc["energy"] = nlohmann::json::parse(R"({
    "device": {"idle": "60 W", "waiting": "120 W"},
    "node": {"host": "1.5 kW"},
    "network": "ib-ndr-fat-tree-2-tier",
    "storage": "parallel-fs-appliance",
    "pue": "google-georgia-2020-10",
    "carbon_intensity": "429 gCO2e/kWh",
    "price": {"electricity": "0.1 USD/kWh", "capex": "illustrative-h100-with-system-share"},
    "power_cap_sweep": ["400 W", "300 W"]
  })");
  const Scenario s = test::build(doc);
  REQUIRE(s.energy.has_value());
  const EnergySpec& e = *s.energy;
  CHECK(e.device.at(DeviceState::idle).value() == Approx(60.0));
  CHECK(e.device.at(DeviceState::waiting).value() == Approx(120.0));
  CHECK(e.device.at(DeviceState::compute).value() == Approx(400.0));
  CHECK(e.node.host.value() == Approx(1500.0));
  CHECK(e.network.ports_per_nic == 3.0);
  CHECK(e.storage.checkpoint_io.value() == Approx(3000.0));
  CHECK(e.pue == Approx(1.10));
  CHECK(e.carbon_intensity.value() * 3.6e6 * 1000.0 == Approx(429.0));
  CHECK(e.pricing.electricity.value() * 3.6e6 == Approx(0.1));
  REQUIRE(e.pricing.capital.has_value());
  CHECK(e.pricing.capital->per_device.value() == Approx(40000.0));
  REQUIRE(e.power_cap_sweep.size() == 2);
  CHECK(e.power_cap_sweep[1].value() == Approx(300.0));
}

TEST_CASE("a device without a power entry gets the reference entry scaled by its TDP only when asked") {
  nlohmann::json doc = test::h100_pipeline_experiment();
  doc["cluster"]["node"] = "dgx-b200";
  doc["model"]["vocab"] = 32000;
  const Scenario implicit = test::build(doc);
  CHECK_FALSE(implicit.energy.has_value());
  doc["energy"] = nlohmann::json::object();
  const Scenario s = test::build(doc);
  REQUIRE(s.energy.has_value());
  CHECK(s.energy->device.tdp.value() == Approx(1000.0));
  CHECK(s.energy->device.at(DeviceState::compute).value() == Approx(1000.0));
  CHECK(s.energy->device.at(DeviceState::memory).value() == Approx(450.0 * 1000.0 / 700.0));
  CHECK(s.energy->validate().empty());
}

TEST_CASE("a fat-tree cluster gets switch ports per NIC from its size") {
  nlohmann::json doc = test::h100_pipeline_experiment();
  const Scenario s = test::build(doc);
  REQUIRE(s.energy.has_value());
  // 2 nodes x 8 NICs = 16 endpoints fit one radix-64 switch: one tier, one port per NIC.
  CHECK(s.energy->network.ports_per_nic == 1.0);
  CHECK(s.energy->network.switch_port.value() == Approx(12.0));
  doc["cluster"]["nodes"] = 512;
  doc["parallelism"]["dp"] = 1024;
  doc["training"]["global_batch"] = 1024;
  const Scenario big = test::build(doc);
  CHECK(big.energy->network.ports_per_nic == 5.0);  // 4096 NICs: 3 tiers, 2L - 1 = 5
}

TEST_CASE("bad energy inputs are reported with their JSON pointers") {
  const auto diags = [](const char* energy) {
    nlohmann::json doc = test::a100_experiment();
    doc["energy"] = nlohmann::json::parse(energy);
    return test::diagnostics_of(doc);
  };
  SECTION("negative power") {
    const auto ds = diags(R"({"device": {"idle": "-5 W"}})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/device/idle", "negative"));
  }
  SECTION("PUE below 1") {
    const auto ds = diags(R"({"pue": 0.9})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/pue", "PUE must be >= 1"));
  }
  SECTION("PUE and carbon intensity over their bounds (1e308 made the cluster power infinite)") {
    const auto ds = diags(R"({"pue": 1e308, "carbon_intensity": "1e29 gCO2e/kWh"})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/pue", "over the bound of 10"));
    CHECK(has_diagnostic(ds, "/energy/carbon_intensity", "over the bound of 100000"));
  }
  SECTION("idle power above TDP") {
    const auto ds = diags(R"({"device": {"idle": "800 W"}})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/device/idle", "TDP"));
  }
  SECTION("a state power above TDP") {
    const auto ds = diags(R"({"device": {"tdp": "300 W"}})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/device/compute", "TDP"));
  }
  SECTION("a bare number for a power") {
    const auto ds = diags(R"({"node": {"host": 2500}})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/node/host", "W"));
  }
  SECTION("unknown key with a suggestion") {
    const auto ds = diags(R"({"carbon_intensty": "400 gCO2e/kWh"})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/carbon_intensty", "carbon_intensity"));
  }
  SECTION("unknown catalog name") {
    const auto ds = diags(R"({"device": "no-such-gpu"})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/device", "no-such-gpu"));
  }
  SECTION("negative carbon intensity") {
    const auto ds = diags(R"({"carbon_intensity": "-1 gCO2e/kWh"})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/carbon_intensity", ""));
  }
  SECTION("malformed price") {
    const auto ds = diags(R"({"price": {"electricity": "cheap"}})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/price/electricity", ""));
  }
  SECTION("rental and capital together") {
    const auto ds = diags(R"({"price": {"device_hour": "2 USD/h", "capex": {"per_device": "30000 USD", "amortisation": "4 y"}}})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/price", ""));
  }
  SECTION("cap below idle power and a cap that is not a power") {
    const auto ds = diags(R"({"power_cap": "20 W", "power_cap_sweep": ["300 W", 250]})");
    INFO(all(ds));
    CHECK(has_diagnostic(ds, "/energy/power_cap", "idle"));
    CHECK(has_diagnostic(ds, "/energy/power_cap_sweep/1", "power"));
  }
  SECTION("diagnostics name the experiment file") {
    const auto ds = diags(R"({"pue": 0.5})");
    REQUIRE_FALSE(ds.empty());
    CHECK(ds.front().file == "energy-test.json");
  }
}
