// Entry point of the configuration layer: experiment file (or in-memory document) -> validated Scenario.
//
//   ExperimentLoader loader({.roots = {repo / "configs"}});
//   ResolvedDocument doc = loader.load("gpt3-175b-a100-1024");          // catalog name or path
//   Scenario s = loader.build(doc, {{"/parallelism/tp", "4"}});          // throws ConfigError
//
// load() resolves every catalog reference once; build() copies the resolved document, applies --set
// overrides and reads it, so a sweep loads once and builds once per point (no file I/O unless an
// override names another catalog entry, which is then cached).
//
// Problems are ConfigErrors holding every diagnostic of the document; load() throws only when the
// experiment file itself cannot be read or parsed — everything else is reported together by build().
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/config/catalog.hpp"
#include "sim/config/override.hpp"
#include "sim/config/resolved_document.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/config/section_registry.hpp"

namespace clustersim::config {

class ExperimentLoader {
 public:
  explicit ExperimentLoader(CatalogPaths paths,
                            const SectionRegistry& sections = SectionRegistry::standard());

  /// Reads an experiment file, or the experiments-catalog entry when `file_or_name` is a name.
  ResolvedDocument load(std::string_view file_or_name);

  /// Resolves an in-memory experiment document. `label` names it in diagnostics ("<memory>", a record
  /// id); relative paths in it resolve against `base_dir`.
  ResolvedDocument resolve(nlohmann::json document, std::string label = "<memory>",
                           std::filesystem::path base_dir = {});

  /// Applies `overrides` to a copy of `doc` and reads it. Throws ConfigError.
  Scenario build(const ResolvedDocument& doc, std::span<const Override> overrides = {});

  /// Applies `overrides` to `doc` for good: the base of a sweep (`sweep --set`), which every point's build
  /// starts from. With a framework profile they go into the document as stated and the profile is filled
  /// again after them (ResolvedDocument::profile). Problems are kept in doc.problems for build().
  void apply_base_overrides(ResolvedDocument& doc, std::span<const Override> overrides);

  /// Like build(), but applies the overrides to `doc` itself (no copy). For sweeps that rebuild many
  /// points from one document: pass the same pointers every time so each point overwrites the last.
  Scenario build_in_place(ResolvedDocument& doc, std::span<const Override> overrides);

  [[nodiscard]] Catalog& catalog() { return catalog_; }
  [[nodiscard]] const SectionRegistry& sections() const { return sections_; }

 private:
  Catalog catalog_;
  const SectionRegistry& sections_;
};

/// One-shot helpers for the CLI and the validation command.
Scenario load_scenario(const CatalogPaths& paths, std::string_view file_or_name,
                       std::span<const Override> overrides = {});
Scenario scenario_from_json(const nlohmann::json& experiment, const CatalogPaths& paths,
                            std::string label = "<memory>");

}  // namespace clustersim::config
