#include "tests/catch.hpp"

#include <string>

#include "catalog_json.hpp"
#include "models/energy/training_run_energy.hpp"
#include "sim/core/unit_parse.hpp"

using namespace clustersim;

namespace {

// Carbon intensity (kind = "gross" or "net") of the catalog entry stating the record's datacenter.
CarbonIntensity intensity_for(const nlohmann::json& catalog, const nlohmann::json& datacenter,
                              const char* kind) {
  for (const auto& [name, entry] : catalog.at("entries").items()) {
    if (entry.value("operator", "") == datacenter.at("operator") &&
        entry.value("site", "") == datacenter.at("site") &&
        entry.value("date", "") == datacenter.at("date")) {
      return CarbonIntensity(parse_quantity(entry.at(kind).get<std::string>(), Dimension::carbon_intensity));
    }
  }
  FAIL("no carbon intensity in configs/energy/carbon_intensity.json for " << datacenter.dump());
  return CarbonIntensity(0);
}

}  // namespace

TEST_CASE(
    "Patterson 2021 training runs: energy and tCO2e reproduced within 5 % from power, count, days, PUE") {
  const auto runs = test::read_json("configs/reference/energy_runs.json");
  const auto carbon = test::read_json("configs/energy/carbon_intensity.json");
  int checked = 0;
  for (const auto& rec : runs) {
    if (rec.at("kind") != "training_run_energy") continue;
    const std::string id = rec.at("id").get<std::string>();
    const auto& m = rec.at("measured");
    TrainingRunEnergyInput in;
    in.accelerators = rec.at("hardware").at("count").get<long long>();
    in.avg_system_power = Watts(m.at("avg_system_power_per_accelerator_W").get<double>());
    in.duration = Seconds(m.at("training_days").get<double>() * 86400.0);
    in.pue = m.at("pue").get<double>();
    in.carbon_intensity = intensity_for(carbon, rec.at("datacenter"), "gross");
    const TrainingRunEnergy gross = estimate_training_run_energy(in);
    in.carbon_intensity = intensity_for(carbon, rec.at("datacenter"), "net");
    const TrainingRunEnergy net = estimate_training_run_energy(in);

    const double mwh = to_mwh(gross.facility_energy);
    const double measured_mwh = m.at("energy_MWh").get<double>();
    const double measured_gross = m.at("gross_tCO2e").get<double>();
    const double measured_net = m.at("net_tCO2e").get<double>();
    INFO(id << ": predicted " << mwh << " MWh, " << to_tonnes(gross.co2e) << " / " << to_tonnes(net.co2e)
            << " tCO2e gross/net; measured " << measured_mwh << " MWh, " << measured_gross << " / "
            << measured_net);
    CHECK(mwh == Approx(measured_mwh).epsilon(0.05));
    CHECK(to_tonnes(gross.co2e) == Approx(measured_gross).epsilon(0.05));
    CHECK(to_tonnes(net.co2e) == Approx(measured_net).epsilon(0.05));
    ++checked;
  }
  CHECK(checked >= 4);  // T5, Meena, GShard, Switch (+ Evolved Transformer NAS)
}

TEST_CASE("run energy follows count x power x hours x PUE and CO2e follows energy x intensity") {
  TrainingRunEnergyInput in;
  in.accelerators = 10;
  in.avg_system_power = Watts(300);
  in.duration = Seconds(3600);
  in.pue = 1.5;
  in.carbon_intensity = CarbonIntensity(parse_quantity("500 gCO2e/kWh", Dimension::carbon_intensity));
  const TrainingRunEnergy e = estimate_training_run_energy(in);
  CHECK(e.it_energy.value() == Approx(3.0 * kJoulesPerKwh));
  CHECK(e.facility_energy.value() == Approx(4.5 * kJoulesPerKwh));
  CHECK(e.co2e.value() == Approx(4.5 * 0.5));
}
