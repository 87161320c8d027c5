#include "catalog_json.hpp"

#include <fstream>
#include <stdexcept>

#include "models/energy/price_parse.hpp"
#include "sim/core/unit_parse.hpp"

namespace clustersim::test {

nlohmann::json read_json(const std::string& path_from_repo_root) {
  const std::string path = std::string(CLUSTERSIM_SOURCE_DIR) + "/" + path_from_repo_root;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(in);
}

Watts watts(const nlohmann::json& value) {
  return Watts(parse_quantity(value.get<std::string>(), Dimension::power));
}

DevicePower device_power_from_json(const std::string& name, const nlohmann::json& entry) {
  DevicePower d;
  d.device = name;
  d.tdp = watts(entry.at("tdp"));
  for (DeviceState s : kAllDeviceStates) d.power[s] = watts(entry.at(std::string(to_string(s))));
  if (entry.contains("dvfs")) {
    const auto& v = entry.at("dvfs");
    if (v.contains("exponent")) d.dvfs.exponent = v.at("exponent").get<double>();
    if (v.contains("min_clock_ratio")) d.dvfs.min_clock_ratio = v.at("min_clock_ratio").get<double>();
  }
  return d;
}

NodePower node_power_from_json(const nlohmann::json& entry) {
  NodePower n;
  n.host = watts(entry.at("host"));
  n.nic = watts(entry.at("nic"));
  n.nics = entry.at("nics").get<int>();
  return n;
}

NetworkPower network_power_from_json(const nlohmann::json& entry) {
  NetworkPower n;
  n.switch_port = watts(entry.at("switch_port"));
  n.optics_port = watts(entry.at("optics_port"));
  n.ports_per_nic = entry.at("ports_per_nic").get<double>();
  return n;
}

EnergySpec h100_reference_spec() {
  const auto devices = read_json("configs/energy/device_power.json");
  const auto infra = read_json("configs/energy/infrastructure_power.json");
  const auto pue = read_json("configs/energy/pue.json");
  const auto carbon = read_json("configs/energy/carbon_intensity.json");
  const auto prices = read_json("configs/energy/prices.json");
  EnergySpec s;
  s.device = device_power_from_json("h100-sxm5-80gb", devices.at("devices").at("h100-sxm5-80gb"));
  s.node = node_power_from_json(infra.at("nodes").at("dgx-h100"));
  s.network = network_power_from_json(infra.at("networks").at("ib-ndr-fat-tree-3-tier"));
  s.storage.checkpoint_io = watts(infra.at("storage").at("parallel-fs-appliance").at("checkpoint_io"));
  s.pue = pue.at("entries").at("microsoft-azure-2020").at("pue").get<double>();
  s.carbon_intensity = CarbonIntensity(
      parse_quantity(carbon.at("entries").at("us-average-2021").at("gross").get<std::string>(),
                     Dimension::carbon_intensity));
  s.pricing.electricity = parse_energy_price(
      prices.at("electricity").at("us-industrial-average-2023").at("price").get<std::string>());
  const auto& capex = prices.at("capex").at("illustrative-h100-with-system-share");
  s.pricing.capital = CapitalAmortisation{
      Usd(parse_quantity(capex.at("per_device").get<std::string>(), Dimension::money)),
      Seconds(parse_quantity(capex.at("amortisation").get<std::string>(), Dimension::time))};
  return s;
}

}  // namespace clustersim::test
