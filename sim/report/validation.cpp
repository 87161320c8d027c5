#include "sim/report/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "sim/config/experiment_loader.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/report/energy_validation.hpp"

namespace clustersim {
namespace {

double metric_value(const StepResult& r, const std::string& name) {
  if (name == "step_time_s") return r.step_time.value();
  if (name == "mfu") return r.mfu;
  if (name == "hfu") return r.hfu;
  if (name == "tflops_per_device") return r.tflops_per_device;
  if (name == "hw_tflops_per_device") return r.hw_tflops_per_device;
  CS_ASSERT(false, "unknown validation metric " + name);
  return 0;
}

// Builds and predicts one case; on a configuration error returns nullopt with the first diagnostic.
std::optional<StepResult> predict_case(config::ExperimentLoader& loader, const nlohmann::json& doc,
                                       const std::string& id, const std::vector<config::Override>& overrides,
                                       std::string& problem) {
  try {
    const config::ResolvedDocument resolved = loader.resolve(doc, id);
    const Scenario s = loader.build(resolved, overrides);
    return run_analytic(s);
  } catch (const ConfigError& e) {
    problem = e.diagnostics().front().message;
    return std::nullopt;
  }
}

}  // namespace

std::vector<ValidationSummary> ValidationResult::summaries() const {
  std::map<std::pair<std::string, std::string>, ValidationSummary> by;
  for (const ValidationRow& r : rows) {
    ValidationSummary& s = by[{r.group, r.metric}];
    s.group = r.group;
    s.metric = r.metric;
    s.rows += 1;
    s.mean_abs_error += std::fabs(r.rel_error);
    s.max_abs_error = std::max(s.max_abs_error, std::fabs(r.rel_error));
  }
  std::vector<ValidationSummary> out;
  for (auto& [key, s] : by) {
    s.mean_abs_error /= s.rows;
    out.push_back(s);
  }
  return out;
}

double ValidationResult::max_abs_error() const {
  double m = 0;
  for (const ValidationRow& r : rows) m = std::max(m, std::fabs(r.rel_error));
  return m;
}

ValidationResult run_validation(const config::ReferenceSet& set, const config::CatalogPaths& paths) {
  ValidationResult out;
  out.skipped = set.skipped;
  config::ExperimentLoader loader(paths);
  for (const config::ReferenceCase& c : set.cases) {
    if (config::is_energy_case(c)) {
      append_energy_validation(c, paths, out);
      continue;
    }
    nlohmann::json doc = c.experiment;
    std::vector<config::Override> overrides;
    if (doc.contains("devices_per_node_override")) {
      overrides.push_back({"/cluster/node/devices_per_node", doc["devices_per_node_override"].dump()});
      doc.erase("devices_per_node_override");
    }
    std::string problem;
    const std::optional<StepResult> r = predict_case(loader, doc, c.id, overrides, problem);
    if (!r) {
      out.skipped.push_back({c.id, fmt::format("experiment not expressible: {}", problem)});
      continue;
    }
    for (const config::MeasuredMetric& m : c.metrics) {
      const double predicted = metric_value(*r, m.name);
      out.rows.push_back({c.id, c.group, m.name, m.value, predicted, (predicted - m.value) / m.value});
    }
    out.assumptions.emplace_back(c.id, c.assumptions);
  }
  return out;
}

nlohmann::json validation_json(const ValidationResult& r) {
  nlohmann::json j;
  j["rows"] = nlohmann::json::array();
  for (const ValidationRow& row : r.rows) {
    j["rows"].push_back({{"id", row.id},
                         {"group", row.group},
                         {"metric", row.metric},
                         {"measured", row.measured},
                         {"predicted", row.predicted},
                         {"rel_error", row.rel_error}});
  }
  j["skipped"] = nlohmann::json::array();
  for (const auto& s : r.skipped) j["skipped"].push_back({{"id", s.id}, {"reason", s.reason}});
  j["summary"] = nlohmann::json::array();
  for (const ValidationSummary& s : r.summaries()) {
    j["summary"].push_back({{"group", s.group},
                            {"metric", s.metric},
                            {"rows", s.rows},
                            {"mean_abs_error", s.mean_abs_error},
                            {"max_abs_error", s.max_abs_error}});
  }
  nlohmann::json a = nlohmann::json::object();
  for (const auto& [id, list] : r.assumptions) a[id] = list;
  j["assumptions"] = a;
  return j;
}

std::string validation_text(const ValidationResult& r) {
  std::string out = fmt::format("{:<44} {:<20} {:>12} {:>12} {:>9}\n", "id", "metric", "measured", "predicted", "error");
  for (const ValidationRow& row : r.rows) {
    out += fmt::format("{:<44} {:<20} {:>12.4g} {:>12.4g} {:>+8.1f}%\n", row.id, row.metric, row.measured,
                       row.predicted, 100.0 * row.rel_error);
  }
  out += "\nsummary (|relative error|)\n";
  for (const ValidationSummary& s : r.summaries()) {
    out += fmt::format("  {:<22} {:<20} {:>3} rows  mean {:>5.1f}%  max {:>5.1f}%\n", s.group, s.metric, s.rows,
                       100.0 * s.mean_abs_error, 100.0 * s.max_abs_error);
  }
  out += fmt::format("\nskipped ({})\n", r.skipped.size());
  for (const auto& s : r.skipped) out += fmt::format("  {:<44} {}\n", s.id, s.reason);
  out += "\nassumed framework defaults (fields the source leaves unstated)\n";
  for (const auto& [id, list] : r.assumptions) {
    if (list.empty()) continue;
    out += fmt::format("  {}:\n", id);
    for (const std::string& a : list) out += fmt::format("      {}\n", a);
  }
  out += "\nunits: step_time_s in s; mfu, hfu as fractions; *tflops_per_device in TFLOP/s per device\n";
  return out;
}

}  // namespace clustersim
