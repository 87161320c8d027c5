#include "sim/config/experiment_reader.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "sim/config/cross_checks.hpp"
#include "sim/config/enum_names.hpp"

namespace clustersim::config {
namespace {

void read_header(ObjectReader& top, Scenario& s) {
  if (const auto* v = top.find("schema_version"); v == nullptr) {
    top.error("schema_version",
              fmt::format("missing required key (this clustersim reads schema_version {})", kSchemaVersion));
  } else if (auto version = top.get_integer("schema_version"); version && *version != kSchemaVersion) {
    top.error("schema_version", fmt::format("unsupported schema_version {} (this clustersim reads {})",
                                            *version, kSchemaVersion));
  }
  const auto& root = top.context().origin().root_file();
  const bool from_file = root.ends_with(".json");
  s.name = top.string("name", from_file ? std::filesystem::path(root).stem().string() : std::string());
  s.source_file = from_file ? root : std::string();
  top.accept("description");
  s.engine = std::string(top.choice("engine"));
}

}  // namespace

bool read_sections(const ResolvedDocument& doc, const SectionRegistry& sections, ReadContext& ctx, Scenario& s) {
  for (const auto& p : doc.problems) ctx.record(p.diagnostic, p.at);
  const Section top_section = sections.top_section();
  ObjectReader top(doc.document, "", top_section, ctx);
  if (!top.valid()) return false;
  read_header(top, s);
  for (const auto& section : sections.sections()) {
    if (section.required) {
      auto reader = top.require_child(section.key);
      section.parse(reader, s);
      reader.finish();
    } else if (section.parse_value) {
      if (const auto* value = top.find(section.key)) {
        section.parse_value(*value, child_pointer(top.pointer(), section.key), ctx, s);
      }
    } else if (auto reader = top.child(section.key)) {
      section.parse(*reader, s);
      reader->finish();
    }
  }
  top.finish();
  return true;
}

void finish_sections(Scenario& s, const SectionRegistry& sections, ReadContext& ctx) {
  finalize_scenario(s, ctx);
  for (const auto& section : sections.sections()) {
    if (section.finish) section.finish(s, ctx);
  }
}

Scenario read_experiment(const ResolvedDocument& doc, const SectionRegistry& sections, Catalog* catalog) {
  Diagnostics diagnostics;
  ReadContext ctx(doc.origin, diagnostics, catalog);
  Scenario s;
  if (read_sections(doc, sections, ctx, s)) finish_sections(s, sections, ctx);
  diagnostics.throw_if_any();
  return s;
}

}  // namespace clustersim::config
