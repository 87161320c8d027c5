#include "sim/config/experiment_loader.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "sim/config/experiment_reader.hpp"
#include "sim/config/framework_profile.hpp"
#include "sim/config/json_file.hpp"
#include "sim/config/reference_resolver.hpp"

namespace clustersim::config {

ExperimentLoader::ExperimentLoader(CatalogPaths paths, const SectionRegistry& sections)
    : catalog_(std::move(paths)), sections_(sections) {}

ResolvedDocument ExperimentLoader::load(std::string_view file_or_name) {
  std::filesystem::path file;
  try {
    file = catalog_.resolve(CatalogKind::experiments, file_or_name, {});
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string(file_or_name), "", e.what());
  }
  return resolve(read_json_file(file), file.string(), file.parent_path());
}

// `"profile": "<name>"` at the top level fills what the experiment leaves out from
// configs/profiles/<name>.json (docs/validation.md, "Framework profiles"); stated keys win, --set and
// --vary values included (ResolvedDocument::profile).
namespace {
std::shared_ptr<const FrameworkProfile> take_named_profile(nlohmann::json& document, const std::string& label,
                                                           const CatalogPaths& paths) {
  const nlohmann::json name = document["profile"];
  document.erase("profile");
  if (!name.is_string())
    throw ConfigError(label, "/profile", "expected the name of a configs/profiles entry (a string)");
  const std::vector<FrameworkProfile> profiles = read_framework_profiles(paths);
  const FrameworkProfile* p = find_profile(profiles, name.get<std::string>());
  if (p == nullptr) {
    std::string names;
    for (const FrameworkProfile& q : profiles) names += (names.empty() ? "" : ", ") + q.name;
    throw ConfigError(label, "/profile",
                      fmt::format("unknown profile \"{}\" (available: {})", name.get<std::string>(), names));
  }
  return std::make_shared<const FrameworkProfile>(*p);
}

// Which TP-dependent parallelism keys the profile filled with a rule that holds for every TP > 1;
// `before` is the document before the profile filled it (overrides applied).
Scenario::ProfileTpRules profile_tp_rules(const FrameworkProfile& p, const nlohmann::json& before) {
  // apply_profile's own guard: it fills nothing without a training object.
  const auto train = before.is_object() ? before.find("training") : before.end();
  if (train == before.end() || !train->is_object()) return {};
  if (before.contains("parallelism") && !before["parallelism"].is_object()) return {};
  const auto stated = [&](const char* key) {
    const auto par = before.find("parallelism");
    return par != before.end() && par->is_object() && par->contains(key);
  };
  const auto holds = [](const std::optional<WithTp>& r) { return r && *r != WithTp::off; };
  return {.sequence_parallel = holds(p.sequence_parallel) && !stated("sequence_parallel"),
          .tp_comm_overlap = holds(p.tp_comm_overlap) && !stated("tp_comm_overlap")};
}
}  // namespace

ResolvedDocument ExperimentLoader::resolve(nlohmann::json document, std::string label,
                                           std::filesystem::path base_dir) {
  std::shared_ptr<const FrameworkProfile> profile;
  if (document.is_object() && document.contains("profile"))
    profile = take_named_profile(document, label, catalog_.paths());
  ResolvedDocument doc{std::move(document), Provenance(std::move(label), std::move(base_dir)), {}, {}, {}};
  ReferenceResolver(catalog_).resolve_experiment(doc);
  if (profile) {
    doc.unprofiled = std::make_shared<const nlohmann::json>(doc.document);
    doc.profile = std::move(profile);
    apply_profile(doc.document, *doc.profile);
  }
  return doc;
}

Scenario ExperimentLoader::build(const ResolvedDocument& doc, std::span<const Override> overrides) {
  if (overrides.empty()) {
    Scenario s = read_experiment(doc, sections_, &catalog_);
    if (doc.profile && doc.unprofiled) s.profile_tp_rules = profile_tp_rules(*doc.profile, *doc.unprofiled);
    return s;
  }
  ResolvedDocument copy = doc;
  return build_in_place(copy, overrides);
}

Scenario ExperimentLoader::build_in_place(ResolvedDocument& doc, std::span<const Override> overrides) {
  const std::size_t known_problems = doc.problems.size();
  // With a profile, every build starts from the document as stated and fills the profile's defaults
  // after the overrides (ResolvedDocument::profile).
  if (doc.profile && doc.unprofiled) doc.document = *doc.unprofiled;
  apply_overrides(doc, overrides, catalog_);
  Scenario::ProfileTpRules rules;
  if (doc.profile) {
    rules = profile_tp_rules(*doc.profile, doc.document);
    apply_profile(doc.document, *doc.profile);
  }
  try {
    Scenario s = read_experiment(doc, sections_, &catalog_);
    s.profile_tp_rules = rules;
    doc.problems.resize(known_problems);
    return s;
  } catch (...) {
    doc.problems.resize(known_problems);  // the next point must not inherit this point's --set problems
    throw;
  }
}

Scenario load_scenario(const CatalogPaths& paths, std::string_view file_or_name,
                       std::span<const Override> overrides) {
  ExperimentLoader loader(paths);
  return loader.build(loader.load(file_or_name), overrides);
}

Scenario scenario_from_json(const nlohmann::json& experiment, const CatalogPaths& paths, std::string label) {
  ExperimentLoader loader(paths);
  return loader.build(loader.resolve(experiment, std::move(label)));
}

}  // namespace clustersim::config
