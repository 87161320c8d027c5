#include "sim/config/reference_energy_runs.hpp"

#include <fmt/format.h>

#include <array>
#include <map>

#include "sim/config/energy_section.hpp"
#include "sim/config/json_file.hpp"
#include "sim/config/object_reader.hpp"
#include "sim/config/read_context.hpp"
#include "sim/config/reference_record.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/core/unit_parse.hpp"

namespace clustersim::config {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 1> kEnergyKinds{kTrainingRunEnergyKind};
constexpr std::array<std::string_view, 3> kConfidence{"high", "medium", "low"};
// At least 1e-6 of its unit: the check divides by measured figures, and a subnormal value overflows the
// relative error to inf (as a record's step time of 1e-320 s did in the step-record reader).
constexpr NumberRange kPositive{.min = 1e-6};

constexpr Field measured(std::string_view key, std::string_view doc, NumberRange range = kPositive) {
  return {.key = key, .kind = FieldKind::number, .doc = doc, .numbers = range, .also = also_null};
}

constexpr Field kEnergyModelFields[] = {
    {.key = "name", .kind = FieldKind::string, .doc = "model name as stated", .fallback = "required"},
    measured("params", "parameters as stated"),
};
constexpr Section kEnergyModelSection{"energy-record-model", "/*/model", "the model as stated",
                                      kEnergyModelFields};

constexpr Field kEnergyHardwareFields[] = {
    {.key = "accelerator", .kind = FieldKind::string, .doc = "accelerator as stated", .fallback = "required"},
    {.key = "count",
     .kind = FieldKind::integer,
     .doc = "accelerators in the run",
     .fallback = "required",
     .ints = {.min = 1}},
};
constexpr Section kEnergyHardwareSection{"energy-record-hardware", "/*/hardware", "the devices",
                                         kEnergyHardwareFields};

constexpr Field kDatacenterFields[] = {
    {.key = "operator", .kind = FieldKind::string, .doc = "who runs the datacenter", .fallback = "required"},
    {.key = "site",
     .kind = FieldKind::string,
     .doc = "where it is, as the source names it",
     .fallback = "required"},
    {.key = "date", .kind = FieldKind::string, .doc = "YYYY-MM of the run", .fallback = "required"},
};
constexpr Section kDatacenterSection{
    "energy-record-datacenter", "/*/datacenter",
    "where and when the run drew its electricity (chooses the carbon intensity)", kDatacenterFields};

constexpr Field kEnergyMeasuredFields[] = {
    measured("training_days", "wall-clock days of training"),
    measured("avg_system_power_per_accelerator_W", "measured average system power per accelerator, W"),
    measured("pue", "datacenter power usage effectiveness", {.min = 1}),
    measured("energy_MWh", "facility energy of the run"),
    measured("gross_tCO2e", "tonnes CO2e at the location-based grid mix"),
    measured("net_tCO2e", "tonnes CO2e after carbon-free energy purchases", {.min = 0}),
    measured("tflops_per_chip", "achieved TFLOP/s per accelerator (not used by the check)"),
    measured("peak_tflops", "peak TFLOP/s per accelerator (not used by the check)"),
    measured("total_flops", "FLOPs of the run (not used by the check)"),
    measured("chip_tdp_W", "accelerator TDP, W (not used by the check)"),
};
constexpr Section kEnergyMeasuredSection{"energy-record-measured", "/*/measured", "figures the source states",
                                         kEnergyMeasuredFields};

constexpr Field kEnergyRecordFields[] = {
    {.key = "id", .kind = FieldKind::string, .doc = "unique, lowercase", .fallback = "required"},
    {.key = "kind",
     .kind = FieldKind::choice,
     .doc = "record kind",
     .fallback = "required",
     .choices = kEnergyKinds},
    {.key = "source_group", .kind = FieldKind::string, .doc = "one key per source", .fallback = "required"},
    {.key = "source",
     .kind = FieldKind::object,
     .doc = "citation",
     .fallback = "required",
     .section = &kReferenceSourceSection},
    {.key = "model",
     .kind = FieldKind::object,
     .doc = "model",
     .fallback = "required",
     .section = &kEnergyModelSection},
    {.key = "hardware",
     .kind = FieldKind::object,
     .doc = "devices",
     .fallback = "required",
     .section = &kEnergyHardwareSection},
    {.key = "datacenter",
     .kind = FieldKind::object,
     .doc = "where and when",
     .fallback = "required",
     .section = &kDatacenterSection},
    {.key = "measured",
     .kind = FieldKind::object,
     .doc = "measurement",
     .fallback = "required",
     .section = &kEnergyMeasuredSection},
    {.key = "confidence",
     .kind = FieldKind::choice,
     .doc = "how directly the figures were read",
     .choices = kConfidence},
    {.key = "notes", .kind = FieldKind::text, .doc = "caveats", .also = also_null},
};

// A record as read: every optional is "not stated".
struct EnergyRecord {
  std::string id, group;
  std::int64_t count = 0;
  Datacenter datacenter;
  std::optional<double> days, power, pue, energy_mwh, gross_t, net_t;
};

std::optional<double> stated(ObjectReader& r, std::string_view key) {
  const json* v = r.find(key);
  return v == nullptr || v->is_null() ? std::nullopt : r.get_number(key);
}

void read_record(const json& value, std::size_t index, ReadContext& ctx, EnergyRecord& out) {
  ObjectReader top(value, fmt::format("/{}", index), kEnergyRecordSection, ctx);
  if (!top.valid()) return;
  out.id = top.require_string("id");
  if (!top.has("kind")) top.error("kind", "missing required key");
  top.get_choice("kind");
  out.group = top.require_string("source_group");
  auto child = [&](std::string_view key, auto&& read) {
    auto r = top.require_child(key);
    if (r.valid()) read(r);
    r.finish();
  };
  child("source", [](ObjectReader& r) {
    r.require_string("citation");
    for (std::string_view key : {"arxiv", "url", "location", "source_type", "quote", "quote_context"}) {
      if (r.has(key)) r.accept(key);
    }
  });
  child("model", [](ObjectReader& r) {
    r.require_string("name");
    stated(r, "params");
  });
  child("hardware", [&](ObjectReader& r) {
    r.require_string("accelerator");
    out.count = r.require_integer("count");
  });
  child("datacenter", [&](ObjectReader& r) {
    out.datacenter.operator_name = r.require_string("operator");
    out.datacenter.site = r.require_string("site");
    out.datacenter.date = r.require_string("date");
  });
  child("measured", [&](ObjectReader& r) {
    out.days = stated(r, "training_days");
    out.power = stated(r, "avg_system_power_per_accelerator_W");
    out.pue = stated(r, "pue");
    out.energy_mwh = stated(r, "energy_MWh");
    out.gross_t = stated(r, "gross_tCO2e");
    out.net_t = stated(r, "net_tCO2e");
    for (std::string_view key : {"tflops_per_chip", "peak_tflops", "total_flops", "chip_tdp_W"})
      stated(r, key);
  });
  if (top.has("confidence")) top.get_choice("confidence");
  if (top.has("notes")) top.accept("notes");
  top.finish();
}

std::optional<std::string> build_energy_case(const EnergyRecord& rec, ReferenceCase& c) {
  if (!rec.days || !rec.power || !rec.pue) {
    return std::string("needs measured.training_days, avg_system_power_per_accelerator_W and pue");
  }
  c.experiment = {{std::string(kTrainingRunEnergyKind),
                   {{"accelerators", rec.count},
                    {"avg_system_power", fmt::format("{} W", *rec.power)},
                    {"duration", fmt::format("{} d", *rec.days)},
                    {"pue", *rec.pue},
                    {"operator", rec.datacenter.operator_name},
                    {"site", rec.datacenter.site},
                    {"date", rec.datacenter.date}}}};
  c.assumptions.push_back(
      "Patterson et al. 2021 §2.5: MWh = days x 24 h x accelerators x measured average system power x PUE; "
      "tCO2e = MWh x carbon intensity of the record's datacenter (operator, site, month) in "
      "configs/energy/carbon_intensity.json");
  if (rec.energy_mwh) c.metrics.push_back({"energy_mwh", *rec.energy_mwh, std::nullopt});
  if (rec.gross_t) c.metrics.push_back({"co2e_t", *rec.gross_t, std::nullopt});
  if (rec.net_t) c.metrics.push_back({"co2e_net_t", *rec.net_t, std::nullopt});
  if (c.metrics.empty()) return std::string("no energy or tCO2e measured");
  return std::nullopt;
}

}  // namespace

const Section kEnergyRecordSection{"energy-record", "/*", "one whole-run energy record (docs/validation.md)",
                                   kEnergyRecordFields};

std::vector<ReferenceCase> read_energy_runs(const std::filesystem::path& file,
                                            std::vector<ReferenceSkip>& skipped) {
  const json doc = read_json_file(file);
  if (!doc.is_array()) throw ConfigError(file.string(), "", "expected a JSON array of energy records");
  const Provenance origin(file.string(), file.parent_path());
  Diagnostics diagnostics;
  ReadContext ctx(origin, diagnostics);
  std::vector<EnergyRecord> parsed(doc.size());
  std::map<std::string, std::size_t> ids;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    read_record(doc[i], i, ctx, parsed[i]);
    if (!parsed[i].id.empty() && !ids.emplace(parsed[i].id, i).second) {
      ctx.error(fmt::format("/{}/id", i),
                fmt::format("duplicate id \"{}\" (first at /{})", parsed[i].id, ids[parsed[i].id]));
    }
  }
  diagnostics.throw_if_any();
  std::vector<ReferenceCase> out;
  for (const EnergyRecord& rec : parsed) {
    ReferenceCase c;
    c.id = rec.id;
    c.group = rec.group;
    c.split = "arithmetic";
    if (auto reason = build_energy_case(rec, c)) {
      skipped.push_back({c.id, c.group, c.split, *reason, {}, {}});
    } else {
      out.push_back(std::move(c));
    }
  }
  return out;
}

bool is_energy_case(const ReferenceCase& c) {
  return c.experiment.is_object() && c.experiment.contains(std::string(kTrainingRunEnergyKind));
}

EnergyCaseInputs energy_case_inputs(const ReferenceCase& c, const CatalogPaths& paths) {
  CS_ASSERT(is_energy_case(c), "not an energy validation case");
  const json& e = c.experiment[std::string(kTrainingRunEnergyKind)];
  const auto dir = energy_catalog_dir(paths);
  if (!dir)
    throw ConfigError(c.id, "", "no energy catalog (energy/carbon_intensity.json) under the catalog roots");
  const Datacenter where{e.at("operator").get<std::string>(), e.at("site").get<std::string>(),
                         e.at("date").get<std::string>()};
  const auto carbon = carbon_intensity_for_datacenter(*dir, where);
  if (!carbon) {
    throw ConfigError((*dir / "carbon_intensity.json").string(), "/entries",
                      fmt::format("no entry states operator \"{}\", site \"{}\", date \"{}\"",
                                  where.operator_name, where.site, where.date));
  }
  EnergyCaseInputs in;
  in.gross.accelerators = e.at("accelerators").get<long long>();
  in.gross.avg_system_power =
      Watts(parse_quantity(e.at("avg_system_power").get<std::string>(), Dimension::power));
  in.gross.duration = Seconds(parse_quantity(e.at("duration").get<std::string>(), Dimension::time));
  in.gross.pue = e.at("pue").get<double>();
  in.gross.carbon_intensity = carbon->gross;
  in.net = carbon->net;
  in.carbon_entry = carbon->name;
  return in;
}

}  // namespace clustersim::config
