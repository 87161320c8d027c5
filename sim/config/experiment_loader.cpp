#include "sim/config/experiment_loader.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "sim/config/enum_names.hpp"
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

// The profile's rules for the keys it fills from tp, pp or the ZeRO stage, where `before` (the document
// before the profile filled it, overrides applied) leaves them unstated (Scenario::ProfileRules).
Scenario::ProfileRules profile_rules(const FrameworkProfile& p, const nlohmann::json& before) {
  // apply_profile's own guard: it fills nothing without a training object.
  const auto train = before.is_object() ? before.find("training") : before.end();
  if (train == before.end() || !train->is_object()) return {};
  if (before.contains("parallelism") && !before["parallelism"].is_object()) return {};
  const auto stated = [&](const nlohmann::json::const_iterator& section, const char* key) {
    return section != before.end() && section->is_object() && section->contains(key);
  };
  const auto par = before.find("parallelism");
  const auto holds = [](const std::optional<WithTp>& r) { return r && *r != WithTp::off; };
  Scenario::ProfileRules r;
  r.sequence_parallel = holds(p.sequence_parallel) && !stated(par, "sequence_parallel");
  r.tp_comm_overlap = holds(p.tp_comm_overlap) && !stated(par, "tp_comm_overlap");
  if (p.pipeline_p2p && !stated(par, "pipeline_p2p")) r.pipeline_p2p_blocking = *p.pipeline_p2p == "deepspeed";
  if (p.overlap_grad_reduce && !stated(train, "overlap_grad_reduce")) {
    // The profile's own rule, by its two outcomes: ZeRO-3 without a pipeline, and every other run.
    r.overlap_grad_reduce = p.overlaps_grad_reduce(false, 1) ? 1 : p.overlaps_grad_reduce(true, 1) ? 2 : 0;
  }
  if (p.selective_recompute && !stated(train, "selective_recompute")) {
    for (const auto& n : selective_policy_names()) {
      if (n.name == *p.selective_recompute) r.selective_policy = n.value;
    }
  }
  if (p.selective_layer_interval && !stated(train, "selective_layer_interval"))
    r.selective_layer_interval = *p.selective_layer_interval;
  if (!stated(par, "dp_collective")) {
    if (p.dp_collective) r.dp_flat_ring = *p.dp_collective == "flat-ring";
    if (p.dp_collective_zero3) {
      r.dp_flat_ring_zero3 = *p.dp_collective_zero3 == "flat-ring";
    } else {
      r.dp_flat_ring_zero3 = r.dp_flat_ring;
    }
  }
  return r;
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
    if (doc.profile && doc.unprofiled) s.profile_rules = profile_rules(*doc.profile, *doc.unprofiled);
    return s;
  }
  ResolvedDocument copy = doc;
  return build_in_place(copy, overrides);
}

void ExperimentLoader::apply_base_overrides(ResolvedDocument& doc, std::span<const Override> overrides) {
  if (!doc.profile || !doc.unprofiled) {
    apply_overrides(doc, overrides, catalog_);
    return;
  }
  doc.document = *doc.unprofiled;
  apply_overrides(doc, overrides, catalog_);
  doc.unprofiled = std::make_shared<const nlohmann::json>(doc.document);
  apply_profile(doc.document, *doc.profile);
}

Scenario ExperimentLoader::build_in_place(ResolvedDocument& doc, std::span<const Override> overrides) {
  const std::size_t known_problems = doc.problems.size();
  // With a profile, every build starts from the document as stated and fills the profile's defaults
  // after the overrides (ResolvedDocument::profile).
  if (doc.profile && doc.unprofiled) doc.document = *doc.unprofiled;
  apply_overrides(doc, overrides, catalog_);
  Scenario::ProfileRules rules;
  if (doc.profile) {
    rules = profile_rules(*doc.profile, doc.document);
    apply_profile(doc.document, *doc.profile);
  }
  try {
    Scenario s = read_experiment(doc, sections_, &catalog_);
    s.profile_rules = rules;
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
