#include "tests/catch.hpp"

#include <string>
#include <vector>

#include "catalog_json.hpp"
#include "models/energy/energy_spec.hpp"

using namespace clustersim;

namespace {
bool has_field(const std::vector<FieldProblem>& ps, const std::string& field) {
  for (const auto& p : ps) {
    if (p.field == field) return true;
  }
  return false;
}
}  // namespace

TEST_CASE("the reference H100 energy spec built from the catalogs is valid") {
  const EnergySpec spec = test::h100_reference_spec();
  const auto ds = spec.validate();
  for (const auto& d : ds) INFO(d.field << ": " << d.message);
  CHECK(ds.empty());
}

TEST_CASE("invalid energy inputs are reported by the member at fault") {
  EnergySpec spec = test::h100_reference_spec();
  SECTION("PUE below 1") {
    spec.pue = 0.9;
    const auto ds = spec.validate();
    REQUIRE(ds.size() == 1);
    CHECK(ds[0].field == "pue");
    CHECK(ds[0].message == "PUE must be >= 1 (facility energy / IT energy), got 0.9");
  }
  SECTION("negative state power") {
    spec.device.power[DeviceState::memory] = Watts(-5);
    CHECK(has_field(spec.validate(), "device.power[memory]"));
  }
  SECTION("idle power above TDP") {
    spec.device.power[DeviceState::idle] = Watts(800);
    const auto ds = spec.validate();
    CHECK(has_field(ds, "device.power[idle]"));
  }
  SECTION("a state above TDP") {
    spec.device.power[DeviceState::compute] = Watts(750);
    CHECK(has_field(spec.validate(), "device.power[compute]"));
  }
  SECTION("an active state below idle") {
    spec.device.power[DeviceState::waiting] = Watts(10);
    CHECK(has_field(spec.validate(), "device.power[waiting]"));
  }
  SECTION("zero TDP") {
    spec.device.tdp = Watts(0);
    CHECK(has_field(spec.validate(), "device.tdp"));
  }
  SECTION("DVFS exponent out of range") {
    spec.device.dvfs.exponent = 4.0;
    CHECK(has_field(spec.validate(), "device.dvfs.exponent"));
  }
  SECTION("DVFS minimum clock ratio below 1 % (a subnormal one made capped durations infinite)") {
    spec.device.dvfs.min_clock_ratio = 1e-320;
    CHECK(has_field(spec.validate(), "device.dvfs.min_clock_ratio"));
    spec.device.dvfs.min_clock_ratio = 0.009;
    CHECK(has_field(spec.validate(), "device.dvfs.min_clock_ratio"));
    spec.device.dvfs.min_clock_ratio = 0.01;
    CHECK_FALSE(has_field(spec.validate(), "device.dvfs.min_clock_ratio"));
  }
  SECTION("DVFS fraction out of range") {
    spec.device.dvfs.clock_time_fraction[DeviceState::memory] = 1.5;
    CHECK(has_field(spec.validate(), "device.dvfs.clock_time_fraction[memory]"));
  }
  SECTION("negative host power") {
    spec.node.host = Watts(-1);
    CHECK(has_field(spec.validate(), "node.host"));
  }
  SECTION("negative NIC count") {
    spec.node.nics = -2;
    CHECK(has_field(spec.validate(), "node.nics"));
  }
  SECTION("negative switch port power") {
    spec.network.switch_port = Watts(-3);
    CHECK(has_field(spec.validate(), "network.switch_port"));
  }
  SECTION("negative storage power") {
    spec.storage.checkpoint_io = Watts(-3);
    CHECK(has_field(spec.validate(), "storage.checkpoint_io"));
  }
  SECTION("negative carbon intensity") {
    spec.carbon_intensity = CarbonIntensity(-1e-7);
    CHECK(has_field(spec.validate(), "carbon_intensity"));
  }
  SECTION("negative electricity price") {
    spec.pricing.electricity = UsdPerJoule(-1e-8);
    CHECK(has_field(spec.validate(), "pricing.electricity"));
  }
  SECTION("both rental and capital given") {
    spec.pricing.device_rental = UsdPerSecond(1e-3);
    CHECK(has_field(spec.validate(), "pricing"));
  }
  SECTION("zero amortisation period") {
    spec.pricing.capital->period = Seconds(0);
    CHECK(has_field(spec.validate(), "pricing.capital.period"));
  }
  SECTION("power cap below idle") {
    spec.power_cap = Watts(50);
    CHECK(has_field(spec.validate(), "power_cap"));
  }
  SECTION("non-positive power cap") {
    spec.power_cap = Watts(0);
    CHECK(has_field(spec.validate(), "power_cap"));
  }
}

TEST_CASE("several problems are all reported, in order") {
  EnergySpec spec = test::h100_reference_spec();
  spec.pue = 0.5;
  spec.node.host = Watts(-1);
  spec.device.power[DeviceState::idle] = Watts(-1);
  const auto ds = spec.validate();
  REQUIRE(ds.size() == 3);
  CHECK(ds[0].field == "device.power[idle]");
  CHECK(ds[1].field == "node.host");
  CHECK(ds[2].field == "pue");
}
