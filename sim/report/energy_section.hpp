// The energy section of a prediction: per-step energy and power from the step timeline, per-run MWh,
// CO2e and cost, and the power-cap what-if table. Formulas: docs/energy.md and sim/energy/*.hpp.
//
// JSON keys (under "energy"; energies in J per step, powers in W, times in s, money in USD):
//   joules_per_step, joules_per_token, joules_per_device, step_time_s, tokens_per_step,
//   avg_power_w {device, node, cluster}, peak_power_w {device, node, cluster, upper_bound},
//   by_component {devices, hosts, network, cooling}      J per step, facility total = joules_per_step
//   state_power_w {idle, compute, memory, communication, waiting}   board power used (after any cap)
//   time_in_state_s {idle, ...}                           mean over devices, sums to step_time_s
//   pue, carbon_intensity_g_per_kwh, electricity_usd_per_kwh, device_usd_per_hour
//   cost_usd_per_step, cost_usd_per_token, co2e_g_per_token, power_cap_w (null when none)
//   power_cap_sweep [{cap_w, binding, reachable, compute_clock_ratio, step_time_s, step_time_factor,
//                     joules_per_step, joules_per_token, avg_power_w_cluster, cost_usd_per_token}]
//   defaults_used [strings]
// Under "run" (when the prediction has a run): energy_mwh, co2e_t, cost_usd, electricity_cost_usd,
//   device_cost_usd, energy_by_state_mwh {training, recomputing, restarting, repair_wait, restoring,
//   checkpoint_stall} — means over the run model's trials.
#pragma once

#include "sim/energy/run_energy.hpp"
#include "sim/report/prediction.hpp"
#include "sim/report/step_report.hpp"

namespace clustersim {

/// Fills p.energy_json and p.energy_text when s.energy is present, and adds the run energy keys to
/// p.run_json when p.run is present.
/// Sets p.energy_step (and its cost and timeline engine), p.energy_json with `with_json`, p.energy_text with
/// `with_text`; the power-cap what-if (a list: no sweep column) is computed only for the JSON or the text.
void add_energy_section(const Scenario& s, Prediction& p, bool with_text = true, bool with_json = true);

/// The step keys of the "energy" report block (all but power_cap_sweep, defaults_used, timeline_engine).
void energy_step_fields(const EnergySpec& spec, const StepEnergy& e, Usd cost_per_step, long long devices,
                        ReportSink& out);

/// `clustersim explain energy`: every formula, default and source of the energy figures; with a
/// scenario that has an energy spec, also the inputs it resolved to (state powers, host, network, PUE,
/// carbon intensity, prices, caps) and the defaults it used.
std::string explain_energy(const Scenario* s = nullptr);

/// Run energy averaged over the trials of `run` (each trial's state times through compute_run_energy).
/// Precondition: run.trial_outcomes is not empty.
RunEnergy mean_run_energy(const EnergySpec& spec, const ClusterShape& shape, const StepEnergy& step,
                          const run::RunResult& run);

}  // namespace clustersim
