#include "sim/config/typed_patch.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/config/cross_checks.hpp"
#include "sim/config/experiment_reader.hpp"
#include "sim/config/json_file.hpp"
#include "sim/config/sections.hpp"
#include "sim/config/section_readers.hpp"

namespace clustersim::config {

// One patchable field: where it is, how its reader reads it (the same ObjectReader getter on the field's
// declared section, so range and type checks are the reader's own), where it goes in the Scenario, and
// what must be re-checked afterwards that the sections' readers (not finish_sections) check.
struct TypedField {
  std::string_view pointer;
  std::string_view parent;  // the object holding the key
  std::string_view key;
  const Section* section;
  bool integer;  // read with integer()/require_integer(), else number()
  /// Empty when the field can be patched in this document and its snapshot, else why not.
  std::string (*applicable)(const nlohmann::json& document, const Scenario& snapshot);
  /// Stores the value read; false when the reader would have reported a problem the patch cannot.
  bool (*store)(Scenario& s, double value);
};

namespace {

const nlohmann::json* at(const nlohmann::json& doc, std::string_view pointer) {
  try {
    const nlohmann::json::json_pointer p{std::string(pointer)};
    return doc.contains(p) ? &doc.at(p) : nullptr;
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

std::string no_rule(const nlohmann::json&, const Scenario&) { return {}; }

// read_cluster checks the fabric the cluster's keys imply (node_reader.cpp, the `countable` branch without
// an explicit shape); an explicit fabric (cluster.comm.topology) is built from the keys there: not patched.
std::string oversubscription_rule(const nlohmann::json&, const Scenario& s) {
  if (s.cluster.comm.topology) return "the cluster spells out its fabric (the oversubscription is built into it)";
  return {};
}

bool store_oversubscription(Scenario& s, double v) {
  s.cluster.network.oversubscription = v;
  return implied_fabric_problems(s.cluster).empty();
}

std::string global_batch_rule(const nlohmann::json& doc, const Scenario&) {
  if (at(doc, "/training/batch_rampup") != nullptr) return "the batch ramp-up's checks read global_batch";
  return {};
}

std::string pue_rule(const nlohmann::json&, const Scenario& s) {
  if (!s.energy) return "no energy section";
  return {};
}

bool store_pue(Scenario& s, double v) {
  s.energy->pue = v;
  return s.energy->validate().empty();
}

const TypedField kFields[] = {
    {"/cluster/network/oversubscription", "/cluster/network", "oversubscription", &kNetworkSection, false,
     oversubscription_rule, store_oversubscription},
    {"/parallelism/tp", "/parallelism", "tp", &kParallelismSection, true, no_rule,
     [](Scenario& s, double v) {
       s.parallelism.tp = static_cast<int>(v);
       return true;
     }},
    {"/parallelism/dp", "/parallelism", "dp", &kParallelismSection, true, no_rule,
     [](Scenario& s, double v) {
       s.parallelism.dp = static_cast<int>(v);
       return true;
     }},
    {"/training/global_batch", "/training", "global_batch", &kTrainingSection, true, global_batch_rule,
     [](Scenario& s, double v) {
       s.training.global_batch = static_cast<int>(v);
       return true;
     }},
    {"/energy/pue", "/energy", "pue", &kEnergySection, false, pue_rule, store_pue},
};

const TypedField* find_field(std::string_view pointer) {
  for (const TypedField& f : kFields) {
    if (f.pointer == pointer) return &f;
  }
  return nullptr;
}

}  // namespace

bool typed_patchable(std::string_view pointer) { return find_field(pointer) != nullptr; }

TypedPointBuilder::TypedPointBuilder(ExperimentLoader& loader, const ResolvedDocument& doc,
                                     std::span<const std::string> pointers)
    : loader_(loader), origin_(doc.origin) {
  const nlohmann::json& d = doc.document;
  const auto refuse = [this](std::string why) {
    enabled_ = false;
    reason_ = std::move(why);
  };
  enabled_ = !pointers.empty();
  if (!enabled_) reason_ = "no axis";
  const bool energy_section = d.is_object() && d.contains("energy");
  for (const std::string& p : pointers) {
    const TypedField* f = find_field(p);
    if (f == nullptr) {
      refuse(fmt::format("{} is not a patchable field", p));
      break;
    }
    const nlohmann::json* v = at(d, p);
    if (v == nullptr || !(f->integer ? v->is_number_integer() : v->is_number())) {
      refuse(fmt::format("the experiment does not give {} as a number", p));
      break;
    }
    // The energy section's reader reads the cluster, parallelism and training it powers: with one, only
    // its own keys are patched.
    if (energy_section && !p.starts_with("/energy/")) {
      refuse("the experiment's energy section is read from the other sections");
      break;
    }
    fields_.push_back(f);
  }
  if (enabled_ && d.is_object() && (d.contains("jobs") || at(d, "/cluster/pools") != nullptr)) {
    refuse("an experiment with jobs or pools");
  }
  if (enabled_ && !doc.problems.empty()) refuse("the experiment has problems");
  // A profile's defaults depend on the point's values (sequence parallelism with TP > 1...): they are
  // filled after the overrides, on the JSON path (ResolvedDocument::profile).
  if (enabled_ && doc.profile) refuse("the experiment names a framework profile");
  if (!enabled_) return;
  Diagnostics diagnostics;
  ReadContext ctx(origin_, diagnostics, &loader_.catalog());
  if (!read_sections(doc, loader_.sections(), ctx, snapshot_) || !diagnostics.empty()) {
    refuse("the experiment has problems");
    return;
  }
  for (const TypedField* f : fields_) {
    if (std::string why = f->applicable(d, snapshot_); !why.empty()) {
      refuse(fmt::format("{}: {}", f->pointer, why));
      return;
    }
  }
}

TypedPointBuilder::~TypedPointBuilder() = default;

std::optional<Scenario> TypedPointBuilder::build(std::span<const Override> overrides) {
  if (!enabled_ || overrides.size() != fields_.size()) return std::nullopt;
  Scenario s = snapshot_;
  Diagnostics diagnostics;
  ReadContext ctx(origin_, diagnostics, &loader_.catalog());
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    const TypedField& f = *fields_[i];
    const Override& o = overrides[i];
    if (o.pointer != f.pointer) return std::nullopt;
    // The value as apply_overrides parses it; anything but a number would be a type error.
    std::optional<nlohmann::json> value;
    try {
      value = try_parse_json_value(o.value, std::string(kSetLabel), o.pointer);
    } catch (const ConfigError&) {
      return std::nullopt;
    }
    if (!value || !value->is_number()) return std::nullopt;
    nlohmann::json object = nlohmann::json::object();
    object[std::string(f.key)] = std::move(*value);
    ObjectReader r(object, std::string(f.parent), *f.section, ctx);
    const double v = f.integer ? static_cast<double>(r.require_integer(f.key)) : r.require_number(f.key);
    if (!diagnostics.empty() || !f.store(s, v)) return std::nullopt;
  }
  finish_sections(s, loader_.sections(), ctx);
  if (!diagnostics.empty()) return std::nullopt;
  return s;
}

}  // namespace clustersim::config
