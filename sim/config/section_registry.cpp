#include "sim/config/section_registry.hpp"

#include <algorithm>

#include "sim/config/compression_reader.hpp"
#include "sim/config/energy_section.hpp"
#include "sim/config/jobs_section.hpp"
#include "sim/config/run_section.hpp"
#include "sim/config/section_readers.hpp"
#include "sim/config/stragglers_section.hpp"

namespace clustersim::config {
namespace {

SectionRegistry make_standard() {
  SectionRegistry r;
  r.add({"cluster", true, [](ObjectReader& in, Scenario& out) { out.cluster = read_cluster(in); }, {}});
  r.add({"model", true, [](ObjectReader& in, Scenario& out) { out.model = read_model(in); }, {}});
  r.add({"parallelism", true, [](ObjectReader& in, Scenario& out) { out.parallelism = read_parallelism(in); }, {}});
  r.add({"training", true, [](ObjectReader& in, Scenario& out) { out.training = read_training(in); }, {}});
  r.add(energy_section());
  r.add(run_section());
  r.add(compression_section());
  r.add(flow_section());  // before stragglers: its finish hook reads flow.leaf_nodes
  r.add(stragglers_section());
  r.add(jobs_section());  // after stragglers: renumbers the expanded device stragglers per job
  return r;
}

}  // namespace

const SectionRegistry& SectionRegistry::standard() {
  static const SectionRegistry kStandard = make_standard();
  return kStandard;
}

void SectionRegistry::add(SectionSpec spec) {
  static constexpr std::string_view kReserved[] = {"schema_version", "name", "description", "engine"};
  CS_ASSERT(std::find(std::begin(kReserved), std::end(kReserved), spec.key) == std::end(kReserved),
            "section key is a reserved top-level key");
  CS_ASSERT(std::none_of(sections_.begin(), sections_.end(), [&](const SectionSpec& s) { return s.key == spec.key; }),
            "section registered twice");
  CS_ASSERT(static_cast<bool>(spec.parse) != static_cast<bool>(spec.parse_value),
            "a section has exactly one of parse and parse_value");
  CS_ASSERT(!spec.parse_value || !spec.required, "a parse_value section is optional");
  sections_.push_back(std::move(spec));
}

}  // namespace clustersim::config
