// The declared sections of experiment and catalog files (field.hpp): one Section per JSON object kind,
// defined next to the reader that reads it.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "sim/config/field.hpp"

namespace clustersim::config {

// Documentation keys shared by catalog entries and sections.
inline constexpr Field kDescriptionField{.key = "description", .kind = FieldKind::text, .doc = "free text"};
inline constexpr Field kSourceField{
    .key = "source", .kind = FieldKind::text, .doc = "citation of the values"};
inline constexpr Field kSourcesField{
    .key = "sources", .kind = FieldKind::string_map, .doc = "citation per field (field -> citation)"};
inline constexpr Field kEntryNameField{.key = "name",
                                       .kind = FieldKind::string,
                                       .doc = "catalog name",
                                       .fallback = "derived: the file name without .json"};

// device_reader.cpp
extern const Section kDeviceSection;
extern const Section kPeakSection;
extern const Section kMemorySection;
extern const Section kDevicePowerSection;
extern const Section kEfficiencySection;
// node_reader.cpp
extern const Section kNodeSection;
extern const Section kNodeLinkSection;
extern const Section kNodeCollectivesSection;
extern const Section kWeightStreamingSection;
extern const Section kClusterSection;
extern const Section kPoolSection;
extern const Section kInterPoolSection;
// topology_reader.cpp
extern const Section kNetworkSection;
extern const Section kNetworkLinkSection;
// model_reader.cpp
extern const Section kModelSection;
extern const Section kMlaSection;
extern const Section kMoeSection;
// parallelism_training_readers.cpp
extern const Section kParallelismSection;
extern const Section kTrainingSection;
// compression_reader.cpp
extern const Section kCompressionSection;
// run_section.cpp
extern const Section kRunSection;
// stragglers_section.cpp
extern const Section kStragglersSection;
extern const Section kFlowSection;
// jobs_section.cpp
extern const Section kJobSection;
// energy_section.cpp
extern const Section kEnergySection;

// energy_catalog_fields.cpp
extern const Section kEnergyDevicePowerEntrySection;
extern const Section kEnergyInfrastructureDefaultsSection;
/// The file of configs/energy/<stem>.json (group "") or the entries of its `group` ("devices", "nodes",
/// "entries", "defaults", ...); nullptr when not declared.
const Section* energy_catalog_section(std::string_view stem, std::string_view group = {});
/// The stems of the energy catalog files: device_power, infrastructure_power, pue, carbon_intensity, prices.
std::span<const std::string_view> energy_catalog_stems();

/// Every declared section: those an experiment reaches (the standard registry) and the energy catalog
/// files', each once.
std::vector<const Section*> all_declared_sections();

/// The top-level Field of the standard sections (section_registry.cpp lists them).
extern const Field kClusterKey, kModelKey, kParallelismKey, kTrainingKey, kCompressionKey, kRunKey,
    kStragglersKey, kFlowKey, kJobsKey, kEnergyKey;

/// The catalog entry kinds a file of configs/<kind>/ is read as: devices, nodes, clusters, models.
const Section* catalog_section(std::string_view catalog_kind);

}  // namespace clustersim::config
