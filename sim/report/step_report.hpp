// Rendering of a step prediction: JSON (stable keys), readable text, CSV.
//
// JSON keys are a contract (later work adds keys, never renames): step_time_s, tokens_per_s,
// tflops_per_device, mfu, hfu, bubble_fraction, bubble_fraction_textbook, memory{...}, communication_exposed_s
// {tp, pp, dp, cp, ep}, devices, engine. Every figure's unit is in its key name or documented in
// docs/metrics.md.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.hpp"
#include "sim/engine/step_result.hpp"

namespace clustersim {

/// Where report keys go: the JSON report (JsonSink) or a sweep row written straight from the typed results
/// (sim/report/prediction_row.hpp), so both read the same key names and values from one place.
class ReportSink {
 public:
  virtual ~ReportSink() = default;
  /// One key: `section` "" for a top-level key, else the name of the object it belongs to. An object
  /// value is a block of keys under section.name; an array value is a list (a row has no column for it).
  virtual void put(std::string_view section, std::string_view name, const nlohmann::json& value) = 0;
};

/// Writes keys into a JSON object: j[name] or j[section][name].
class JsonSink final : public ReportSink {
 public:
  explicit JsonSink(nlohmann::json& j) : j_(j) {}
  void put(std::string_view section, std::string_view name, const nlohmann::json& value) override;

 private:
  nlohmann::json& j_;
};

/// Every key of step_report_json except "stages" and "experiment".
void step_report_fields(const Scenario& s, const StepResult& r, ReportSink& out);

/// The report as JSON. `include_inputs` echoes the scenario under "experiment".
nlohmann::json step_report_json(const Scenario& s, const StepResult& r, bool include_inputs = true,
                                bool include_stages = true);

/// Human-readable summary with units.
std::string step_report_text(const Scenario& s, const StepResult& r);
/// The `data_parallel` block of a dp_mode other than allreduce (keys in docs/metrics.md) and its text.
nlohmann::json data_parallel_json(const Scenario& s, const DataParallelResult& d);
std::string data_parallel_text(const Scenario& s, const DataParallelResult& d);

/// Flattens the scalar leaves of a JSON object into (dotted key, value text) pairs, in key order.
std::vector<std::pair<std::string, std::string>> flatten_scalars(const nlohmann::json& j);

}  // namespace clustersim
