#include "sim/report/energy_section.hpp"

#include <fmt/format.h>

#include "sim/core/diagnostics.hpp"
#include "sim/energy/scenario_energy.hpp"

namespace clustersim {
namespace {

using nlohmann::json;

json per_state_json(const PerState<Watts>& w) {
  json j = json::object();
  for (DeviceState s : kAllDeviceStates) j[std::string(to_string(s))] = w[s].value();
  return j;
}

json power_json(const PowerFigures& p) {
  return {{"device", p.device.value()}, {"node", p.node.value()}, {"cluster", p.cluster.value()}};
}

json step_json(const EnergySpec& spec, const ScenarioStepEnergy& se, long long devices) {
  const StepEnergy& e = se.energy;
  json j;
  j["joules_per_step"] = e.per_step.value();
  j["joules_per_token"] = e.per_token.value();
  j["joules_per_device"] = e.per_device.value();
  j["step_time_s"] = e.step_time.value();
  j["tokens_per_step"] = e.tokens;
  j["avg_power_w"] = power_json(e.avg_power);
  j["peak_power_w"] = power_json(e.peak_power);
  j["peak_power_w"]["upper_bound"] = e.peak_is_upper_bound;
  j["by_component"] = {{"devices", e.by_component.devices.value()},
                       {"hosts", e.by_component.hosts.value()},
                       {"network", e.by_component.network.value()},
                       {"cooling", e.by_component.cooling.value()}};
  j["state_power_w"] = per_state_json(e.state_power);
  json t = json::object();
  for (DeviceState s : kAllDeviceStates) {
    t[std::string(to_string(s))] = e.device_seconds[s].value() / static_cast<double>(devices);
  }
  j["time_in_state_s"] = t;
  j["pue"] = spec.pue;
  j["carbon_intensity_g_per_kwh"] = spec.carbon_intensity.value() * kJoulesPerKwh * 1000.0;
  j["co2e_g_per_token"] = (spec.carbon_intensity * e.per_token).value() * 1000.0;
  j["electricity_usd_per_kwh"] = spec.pricing.electricity.value() * kJoulesPerKwh;
  j["device_usd_per_hour"] = spec.pricing.device_time_rate().value() * 3600.0;
  j["cost_usd_per_step"] = se.cost_per_step.value();
  j["cost_usd_per_token"] = se.cost_per_step.value() / e.tokens;
  j["power_cap_w"] = spec.power_cap ? json(spec.power_cap->value()) : json();
  return j;
}

json sweep_json(const std::vector<CapSweepPoint>& points) {
  json out = json::array();
  for (const CapSweepPoint& p : points) {
    out.push_back({{"cap_w", p.cap.value()},
                   {"binding", p.effect.binding},
                   {"reachable", p.effect.reachable},
                   {"compute_clock_ratio", p.effect.state_clock_ratio[DeviceState::compute]},
                   {"step_time_s", p.energy.step_time.value()},
                   {"step_time_factor", p.step_time_factor},
                   {"joules_per_step", p.energy.per_step.value()},
                   {"joules_per_token", p.energy.per_token.value()},
                   {"avg_power_w_cluster", p.energy.avg_power.cluster.value()},
                   {"cost_usd_per_token", p.cost_per_token.value()}});
  }
  return out;
}

std::string step_text(const EnergySpec& spec, const ScenarioStepEnergy& se) {
  const StepEnergy& e = se.energy;
  std::string out = "energy\n";
  if (spec.power_cap) out += fmt::format("  power cap           {:.0f} W per device\n", spec.power_cap->value());
  out += fmt::format("  per step            {:.4g} MJ   per token {:.4g} J   cost {:.4g} USD/Mtoken\n",
                     e.per_step.value() / 1e6, e.per_token.value(), se.cost_per_step.value() / e.tokens * 1e6);
  out += fmt::format("  avg power           device {:.0f} W   node {:.2f} kW   cluster {:.4g} MW\n",
                     e.avg_power.device.value(), e.avg_power.node.value() / 1e3, e.avg_power.cluster.value() / 1e6);
  out += fmt::format("  peak power          device {:.0f} W   node {:.2f} kW   cluster {:.4g} MW{}\n",
                     e.peak_power.device.value(), e.peak_power.node.value() / 1e3, e.peak_power.cluster.value() / 1e6,
                     e.peak_is_upper_bound ? " (upper bound)" : "");
  const double total = e.per_step.value();
  out += fmt::format("  by component        devices {:.1f} %  hosts {:.1f} %  network {:.1f} %  cooling {:.1f} %\n",
                     100 * e.by_component.devices.value() / total, 100 * e.by_component.hosts.value() / total,
                     100 * e.by_component.network.value() / total, 100 * e.by_component.cooling.value() / total);
  for (const std::string& d : spec.defaults_used) out += fmt::format("  default: {}\n", d);
  return out;
}

std::string sweep_text(const std::vector<CapSweepPoint>& points) {
  std::string out = "power-cap what-if (step engine re-run per cap)\n";
  out += fmt::format("  {:>8} {:>7} {:>12} {:>8} {:>12} {:>14}\n", "cap W", "clock", "step s", "x step", "J/token",
                     "USD/Mtoken");
  for (const CapSweepPoint& p : points) {
    out += fmt::format("  {:>8.0f} {:>7.3f} {:>12.4g} {:>8.3f} {:>12.4g} {:>14.4g}{}\n", p.cap.value(),
                       p.effect.state_clock_ratio[DeviceState::compute], p.energy.step_time.value(),
                       p.step_time_factor, p.energy.per_token.value(), p.cost_per_token.value() * 1e6,
                       p.effect.reachable ? "" : "  (cap below the lowest clock: not reached)");
  }
  return out;
}

void add_run_energy(const EnergySpec& spec, const ClusterShape& shape, const StepEnergy& step, Prediction& p) {
  const RunEnergy r = mean_run_energy(spec, shape, step, *p.run);
  p.run_json["energy_mwh"] = r.mwh();
  p.run_json["co2e_t"] = r.co2e_tonnes();
  p.run_json["cost_usd"] = r.cost().value();
  p.run_json["electricity_cost_usd"] = r.electricity_cost.value();
  p.run_json["device_cost_usd"] = r.device_cost.value();
  p.run_json["energy_by_state_mwh"] = {{"training", to_mwh(r.by_state.training)},
                                       {"recomputing", to_mwh(r.by_state.recomputing)},
                                       {"restarting", to_mwh(r.by_state.restarting)},
                                       {"repair_wait", to_mwh(r.by_state.repair_wait)},
                                       {"restoring", to_mwh(r.by_state.restoring)},
                                       {"checkpoint_stall", to_mwh(r.by_state.checkpoint_stall)}};
  p.energy_text += fmt::format("  run                 {:.4g} MWh   {:.4g} tCO2e   {:.4g} USD (electricity {:.4g}, devices {:.4g})\n",
                               r.mwh(), r.co2e_tonnes(), r.cost().value(), r.electricity_cost.value(),
                               r.device_cost.value());
}

}  // namespace

RunEnergy mean_run_energy(const EnergySpec& spec, const ClusterShape& shape, const StepEnergy& step,
                          const run::RunResult& run) {
  CS_ASSERT(!run.trial_outcomes.empty(), "run result without trials");
  RunEnergy mean;
  const double n = static_cast<double>(run.trial_outcomes.size());
  for (const run::TrialOutcome& trial : run.trial_outcomes) {
    const run::StateTimes& st = trial.states;
    const RunEnergy r = compute_run_energy(
        spec, shape, step,
        {st.training, st.recomputing, st.restarting, st.repair_wait, st.restoring, st.checkpoint_stall});
    mean.energy += r.energy / n;
    mean.by_state.training += r.by_state.training / n;
    mean.by_state.recomputing += r.by_state.recomputing / n;
    mean.by_state.restarting += r.by_state.restarting / n;
    mean.by_state.repair_wait += r.by_state.repair_wait / n;
    mean.by_state.restoring += r.by_state.restoring / n;
    mean.by_state.checkpoint_stall += r.by_state.checkpoint_stall / n;
    mean.co2e += r.co2e / n;
    mean.electricity_cost += r.electricity_cost / n;
    mean.device_cost += r.device_cost / n;
  }
  return mean;
}

void add_energy_section(const Scenario& s, Prediction& p) {
  if (!s.energy) return;
  const EnergySpec& spec = *s.energy;
  const ScenarioStepEnergy se = scenario_step_energy(s);
  json j = step_json(spec, se, s.cluster.devices());
  p.energy_text = step_text(spec, se);
  if (!spec.power_cap_sweep.empty()) {
    const std::vector<CapSweepPoint> sweep = sweep_power_caps_through_engine(s);
    j["power_cap_sweep"] = sweep_json(sweep);
    p.energy_text += sweep_text(sweep);
  }
  json defaults = json::array();
  for (const std::string& d : spec.defaults_used) defaults.push_back(d);
  j["defaults_used"] = defaults;
  p.energy_json = std::move(j);
  if (p.run && !p.run->trial_outcomes.empty()) add_run_energy(spec, cluster_shape_of(s), se.energy, p);
}

}  // namespace clustersim
