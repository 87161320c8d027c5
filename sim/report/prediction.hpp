// A whole prediction: the step from an engine, then the optional run-level and energy sections.
//
// `predict()` is the one place that chains engine → run model → energy, so the CLI, sweeps and the
// planner all report the same figures. Sections append their own JSON keys and text lines.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.hpp"
#include "sim/engine/flow/flow_engine.hpp"
#include "sim/energy/step_energy.hpp"
#include "sim/engine/step_result.hpp"
#include "sim/run/run_result.hpp"

namespace clustersim::run {
class TrialStore;  // sim/run/run_model.hpp
}  // namespace clustersim::run

namespace clustersim {

struct Prediction {
  StepResult step;
  std::optional<flow::FlowRun> flow;  // engine "flow": the run, with its contention figures and link counters
  std::optional<StepResult>
      analytic;  // engine "flow": the analytic engine on the same scenario, for contention
  std::optional<run::RunResult> run;  // present when the scenario has a `run` section
  nlohmann::json run_json;            // keys under "run" (null when absent)
  std::string run_text;
  nlohmann::json energy_json;  // keys under "energy" (null when absent or not asked for: PredictOptions::json)
  std::string energy_text;
  /// The energy section's step figures (present when the scenario has energy figures), its cost per step
  /// and the engine whose timeline it read: what a sweep row's energy columns are written from.
  std::optional<StepEnergy> energy_step;
  Usd energy_cost_per_step{0};
  std::string energy_timeline_engine;
};

/// What a caller needs from predict(): sweeps and the planner read only the JSON keys.
struct PredictOptions {
  bool text = true;  // also format the sections' text lines (run_text, energy_text)
  /// Also build the energy section's JSON (energy_json). Sweep rows are written from the typed figures
  /// (sim/report/prediction_row.hpp) and turn it off; prediction_json then has no "energy" block.
  bool json = true;
  flow::Fidelity fidelity = flow::Fidelity::phase;  // engine "flow": collectives per phase or every step
  /// Monte Carlo trials of the run section as they finish (done, total); may be empty. Changes no figure.
  std::function<void(std::uint64_t done, std::uint64_t total)> on_trials = {};
  /// Keeps the run section's finished Monte Carlo trials and supplies those of an interrupted run (a
  /// checkpoint file: `run --checkpoint`); may be null. Changes no figure.
  run::TrialStore* trials = nullptr;
};

/// Runs the scenario's engine ("analytic" or "flow") on the scenario, slowed by its energy.power_cap
/// when one binds (MFU and HFU stay relative to the nominal peak), then the run and energy sections.
Prediction predict(const Scenario& s, PredictOptions options = {});

/// Full report: step keys (step_report_json) plus "run" and "energy" when present. Without
/// `include_stages` the per-stage array is left out (sweep rows, which hold only scalars, never read it).
nlohmann::json prediction_json(const Scenario& s, const Prediction& p, bool include_inputs = true,
                               bool include_stages = true);
std::string prediction_text(const Scenario& s, const Prediction& p);
std::string prediction_csv(const Scenario& s, const Prediction& p);

}  // namespace clustersim
