// Rendering of a step prediction: JSON (stable keys), readable text, CSV.
//
// JSON keys are a contract (later work adds keys, never renames): step_time_s, tokens_per_s,
// tflops_per_device, mfu, hfu, bubble_fraction, bubble_fraction_textbook, memory{...}, communication_exposed_s
// {tp, pp, dp, cp, ep}, devices, engine. Every figure's unit is in its key name or documented in
// docs/metrics.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.hpp"
#include "sim/engine/step_result.hpp"

namespace clustersim {

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
