// Reads a resolved experiment document into a validated Scenario.
//
// Top level: schema_version (required, must be 1), name, description, engine ("analytic" | "flow"), then
// every registered section (section_registry.hpp). All problems — those recorded while resolving and
// overriding, per-field ones and cross-field ones — are collected and thrown as one ConfigError.
#pragma once

#include "sim/config/catalog.hpp"
#include "sim/config/read_context.hpp"
#include "sim/config/resolved_document.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/config/section_registry.hpp"

namespace clustersim::config {

inline constexpr int kSchemaVersion = 1;

/// Throws ConfigError with every diagnostic when the document is not a valid experiment. `catalog`, when
/// given, is offered to section readers through ReadContext::catalog() (cached file access).
Scenario read_experiment(const ResolvedDocument& doc, const SectionRegistry& sections,
                         Catalog* catalog = nullptr);

/// The two stages of read_experiment, for callers that patch typed fields between them (typed_patch.hpp).
/// read_sections: the header and every section's own keys into `s` (problems into `ctx`); false when the
/// document is not an object (then nothing else is read). finish_sections: the cross-field checks and
/// derivations (finalize_scenario) and every section's finish hook.
bool read_sections(const ResolvedDocument& doc, const SectionRegistry& sections, ReadContext& ctx, Scenario& s);
void finish_sections(Scenario& s, const SectionRegistry& sections, ReadContext& ctx);

}  // namespace clustersim::config
