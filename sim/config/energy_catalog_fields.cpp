// The declared keys of the energy catalogs (configs/energy/*.json), read by energy_section.cpp.
#include "sim/config/sections.hpp"

#include <array>

namespace clustersim::config {
namespace {

constexpr Field kConfidenceField{.key = "confidence",
                                 .kind = FieldKind::string_map,
                                 .doc = "how sure the values are (high, estimate, ...), or that per field",
                                 .also = also_name,
                                 .type_text = "string, or an object of strings"};
constexpr Field kAliasesField{.key = "aliases",
                              .kind = FieldKind::array,
                              .doc = "other device or node names this entry applies to",
                              .items = FieldKind::string};

constexpr Field power(std::string_view key, std::string_view doc) {
  return {.key = key,
          .kind = FieldKind::quantity,
          .doc = doc,
          .fallback = "required",
          .dimension = Dimension::power,
          .rule = QuantityRule::non_negative};
}

constexpr Field kCatalogDvfsFields[] = {
    {.key = "exponent", .kind = FieldKind::number, .doc = "power ~ clock^exponent"},
    {.key = "min_clock_ratio", .kind = FieldKind::number, .doc = "lowest clock a power cap may set"},
};
const Section kCatalogDvfsSection{"energy_catalog_dvfs", "/devices/*/dvfs", "clock scaling",
                                  kCatalogDvfsFields};

constexpr Field kDevicePowerEntryFields[] = {
    power("tdp", "thermal design power"),
    power("idle", "power while idle"),
    power("compute", "power while computing"),
    power("memory", "power in memory-bound kernels"),
    power("communication", "power while communicating"),
    power("waiting", "power while waiting"),
    {.key = "dvfs", .kind = FieldKind::object, .doc = "clock scaling", .section = &kCatalogDvfsSection},
    kAliasesField,
    kSourcesField,
    kConfidenceField,
    kDescriptionField,
};

constexpr Field kTdpScalingFields[] = {
    {.key = "reference",
     .kind = FieldKind::string,
     .doc = "the entry scaled by TDP ratio for unlisted devices"},
    kDescriptionField,
};
const Section kTdpScalingSection{"energy_catalog_tdp_scaling", "/tdp_scaling", "the TDP-scaling rule",
                                 kTdpScalingFields};

constexpr Field kDevicePowerFileFields[] = {
    kDescriptionField,
    {.key = "devices",
     .kind = FieldKind::object_map,
     .doc = "device power entries by device name",
     .fallback = "required",
     .section = &kEnergyDevicePowerEntrySection},
    {.key = "tdp_scaling",
     .kind = FieldKind::object,
     .doc = "devices without an entry",
     .section = &kTdpScalingSection},
    {.key = "average_system_power",
     .kind = FieldKind::string_map,
     .doc = "published average system power per device (documentation)",
     .schema = R"({"type": "object"})"},
};

constexpr Field kNodePowerEntryFields[] = {
    power("host", "host power per node"),
    power("nic", "power per NIC"),
    {.key = "nics",
     .kind = FieldKind::integer,
     .doc = "NICs per node",
     .fallback = "required",
     .ints = {.min = 0}},
    kAliasesField,
    kSourcesField,
    kConfidenceField,
};
const Section kNodePowerEntrySection{"energy_catalog_node", "/nodes/*", "host and NIC power of a node",
                                     kNodePowerEntryFields};

constexpr Field kNetworkPowerEntryFields[] = {
    power("switch_port", "power per switch port"),
    power("optics_port", "optics power per port"),
    {.key = "ports_per_nic",
     .kind = FieldKind::number,
     .doc = "switch ports per NIC",
     .fallback = "required",
     .numbers = {.min = 0.0}},
    kSourcesField,
    kConfidenceField,
};
const Section kNetworkPowerEntrySection{"energy_catalog_network", "/networks/*", "switch power of a network",
                                        kNetworkPowerEntryFields};

constexpr Field kStoragePowerEntryFields[] = {
    power("checkpoint_io", "storage power during checkpoint I/O"),
    kSourcesField,
    kConfidenceField,
};
const Section kStoragePowerEntrySection{"energy_catalog_storage", "/storage/*", "storage power",
                                        kStoragePowerEntryFields};

constexpr Field kInfrastructureDefaultsFields[] = {
    power("nic", "power per NIC when the node has no entry"),
    {.key = "fat_tree_network",
     .kind = FieldKind::string,
     .doc = "the networks entry of a derived fat-tree",
     .fallback = "required"},
    {.key = "switch_radix",
     .kind = FieldKind::number,
     .doc = "switch ports of a derived fat-tree",
     .fallback = "required",
     .numbers = {.min = 2.0}},
    kDescriptionField,
    kSourcesField,
    kConfidenceField,
};

constexpr Field kInfrastructureFileFields[] = {
    kDescriptionField,
    {.key = "nodes",
     .kind = FieldKind::object_map,
     .doc = "node entries by node name",
     .section = &kNodePowerEntrySection},
    {.key = "networks",
     .kind = FieldKind::object_map,
     .doc = "network entries by name",
     .section = &kNetworkPowerEntrySection},
    {.key = "storage",
     .kind = FieldKind::object_map,
     .doc = "storage entries by name",
     .section = &kStoragePowerEntrySection},
    {.key = "defaults",
     .kind = FieldKind::object,
     .doc = "defaults for what no entry gives",
     .section = &kEnergyInfrastructureDefaultsSection},
};

constexpr Field kPueEntryFields[] = {
    {.key = "pue",
     .kind = FieldKind::number,
     .doc = "power usage effectiveness",
     .fallback = "required",
     .numbers = {.min = 1.0}},
    kSourceField,
    kConfidenceField,
};
const Section kPueEntrySection{"energy_catalog_pue_entry", "/entries/*", "a facility's PUE", kPueEntryFields};
constexpr Field kPueFileFields[] = {
    kDescriptionField,
    {.key = "entries",
     .kind = FieldKind::object_map,
     .doc = "PUE entries by name",
     .fallback = "required",
     .section = &kPueEntrySection},
};

constexpr Field kCarbonEntryFields[] = {
    {.key = "gross",
     .kind = FieldKind::quantity,
     .doc = "location-based grid mix",
     .fallback = "required",
     .dimension = Dimension::carbon_intensity,
     .rule = QuantityRule::non_negative},
    {.key = "net",
     .kind = FieldKind::quantity,
     .doc = "after carbon-free energy purchases",
     .fallback = "required",
     .dimension = Dimension::carbon_intensity,
     .rule = QuantityRule::non_negative},
    {.key = "operator",
     .kind = FieldKind::string,
     .doc = "who runs the datacenter (energy records match it)"},
    {.key = "site", .kind = FieldKind::string, .doc = "where the datacenter is (energy records match it)"},
    {.key = "date", .kind = FieldKind::string, .doc = "YYYY-MM the intensity held (energy records match it)"},
    kSourceField,
    kConfidenceField,
};
const Section kCarbonEntrySection{"energy_catalog_carbon", "/entries/*", "a site's carbon intensity",
                                  kCarbonEntryFields};
constexpr Field kCarbonFileFields[] = {
    kDescriptionField,
    {.key = "entries",
     .kind = FieldKind::object_map,
     .doc = "carbon-intensity entries by name",
     .fallback = "required",
     .section = &kCarbonEntrySection},
};

constexpr Field kPriceEntryFields[] = {
    {.key = "price",
     .kind = FieldKind::string,
     .doc = "\"0.08 USD/kWh\" or \"2.5 USD/h\"",
     .fallback = "required"},
    kSourceField,
    kConfidenceField,
};
const Section kPriceEntrySection{"energy_catalog_price", "/electricity/*", "a price", kPriceEntryFields};
constexpr Field kCapexEntryFields[] = {
    {.key = "per_device",
     .kind = FieldKind::quantity,
     .doc = "purchase price per device",
     .fallback = "required",
     .dimension = Dimension::money,
     .rule = QuantityRule::non_negative},
    {.key = "amortisation",
     .kind = FieldKind::quantity,
     .doc = "amortisation period",
     .fallback = "required",
     .dimension = Dimension::time},
    kSourceField,
    kConfidenceField,
};
const Section kCapexEntrySection{"energy_catalog_capex", "/capex/*", "a capital cost", kCapexEntryFields};
constexpr Field kPricesFileFields[] = {
    kDescriptionField,
    {.key = "electricity",
     .kind = FieldKind::object_map,
     .doc = "electricity prices by name",
     .section = &kPriceEntrySection},
    {.key = "device_hour",
     .kind = FieldKind::object_map,
     .doc = "rental prices by name",
     .section = &kPriceEntrySection},
    {.key = "capex",
     .kind = FieldKind::object_map,
     .doc = "capital costs by name",
     .section = &kCapexEntrySection},
};

}  // namespace

const Section kEnergyDevicePowerEntrySection{"energy_catalog_device", "/devices/*",
                                             "power per state of a device", kDevicePowerEntryFields};
const Section kEnergyInfrastructureDefaultsSection{"energy_catalog_defaults", "/defaults",
                                                   "infrastructure defaults", kInfrastructureDefaultsFields};

const Section* energy_catalog_section(std::string_view stem, std::string_view group) {
  static const Section kDevicePowerFile{"energy_catalog_device_power", "", "configs/energy/device_power.json",
                                        kDevicePowerFileFields};
  static const Section kInfrastructureFile{"energy_catalog_infrastructure_power", "",
                                           "configs/energy/infrastructure_power.json",
                                           kInfrastructureFileFields};
  static const Section kPueFile{"energy_catalog_pue", "", "configs/energy/pue.json", kPueFileFields};
  static const Section kCarbonFile{"energy_catalog_carbon_intensity", "",
                                   "configs/energy/carbon_intensity.json", kCarbonFileFields};
  static const Section kPricesFile{"energy_catalog_prices", "", "configs/energy/prices.json",
                                   kPricesFileFields};
  const Section* file = stem == "device_power"           ? &kDevicePowerFile
                        : stem == "infrastructure_power" ? &kInfrastructureFile
                        : stem == "pue"                  ? &kPueFile
                        : stem == "carbon_intensity"     ? &kCarbonFile
                        : stem == "prices"               ? &kPricesFile
                                                         : nullptr;
  if (file == nullptr || group.empty()) return file;
  const Field* f = file->find(group);
  return f == nullptr ? nullptr : f->section;
}

std::span<const std::string_view> energy_catalog_stems() {
  static constexpr std::array<std::string_view, 5> kStems{"device_power", "infrastructure_power", "pue",
                                                          "carbon_intensity", "prices"};
  return kStems;
}

}  // namespace clustersim::config
