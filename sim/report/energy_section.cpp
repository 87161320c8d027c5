#include "sim/report/energy_section.hpp"

#include <fmt/format.h>

#include "sim/core/diagnostics.hpp"
#include "sim/energy/scenario_energy.hpp"

namespace clustersim {
namespace {

using nlohmann::json;

}  // namespace

void energy_step_fields(const EnergySpec& spec, const StepEnergy& e, Usd cost_per_step, long long devices,
                        ReportSink& out) {
  // In key order (a sweep row sorts its keys once per set of keys, so the order is not a contract).
  out.put("avg_power_w", "cluster", e.avg_power.cluster.value());
  out.put("avg_power_w", "device", e.avg_power.device.value());
  out.put("avg_power_w", "node", e.avg_power.node.value());
  out.put("by_component", "cooling", e.by_component.cooling.value());
  out.put("by_component", "devices", e.by_component.devices.value());
  out.put("by_component", "hosts", e.by_component.hosts.value());
  out.put("by_component", "network", e.by_component.network.value());
  out.put("", "carbon_intensity_g_per_kwh", spec.carbon_intensity.value() * kJoulesPerKwh * 1000.0);
  out.put("", "co2e_g_per_token", (spec.carbon_intensity * e.per_token).value() * 1000.0);
  out.put("", "cost_usd_per_step", cost_per_step.value());
  out.put("", "cost_usd_per_token", cost_per_step.value() / e.tokens);
  out.put("", "device_usd_per_hour", spec.pricing.device_time_rate().value() * 3600.0);
  out.put("", "electricity_usd_per_kwh", spec.pricing.electricity.value() * kJoulesPerKwh);
  out.put("", "joules_per_device", e.per_device.value());
  out.put("", "joules_per_step", e.per_step.value());
  out.put("", "joules_per_token", e.per_token.value());
  out.put("peak_power_w", "cluster", e.peak_power.cluster.value());
  out.put("peak_power_w", "device", e.peak_power.device.value());
  out.put("peak_power_w", "node", e.peak_power.node.value());
  out.put("peak_power_w", "upper_bound", e.peak_is_upper_bound);
  out.put("", "power_cap_w", spec.power_cap ? json(spec.power_cap->value()) : json());
  out.put("", "pue", spec.pue);
  for (DeviceState s : kAllDeviceStates) out.put("state_power_w", to_string(s), e.state_power[s].value());
  out.put("", "step_time_s", e.step_time.value());
  for (DeviceState s : kAllDeviceStates) {
    out.put("time_in_state_s", to_string(s), e.device_seconds[s].value() / static_cast<double>(devices));
  }
  out.put("", "tokens_per_step", e.tokens);
}

namespace {

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

constexpr const char* kExplainEnergy = R"(How clustersim computes energy, power, carbon and cost (docs/energy.md)

1. Device power per state (configs/energy/device_power.json; TDPs cited, per-state values estimates)
   idle < waiting < communication < memory < compute <= TDP; each state in [idle, TDP] (else input error).
   Timeline (sim/energy/graph_timeline.hpp), per pipeline stage, all tp*dp*cp devices of a stage alike:
     forward/backward op: compute-bound part -> compute, memory-bound part -> memory,
                          exposed TP/CP/ZeRO communication -> communication
     pipeline transfer wait before an op -> communication; optimizer step -> memory;
     gradient reduction on the DP channel -> communication; anything else in the step -> waiting.
   Overlapping states count as the hungriest: compute > memory > communication > waiting > idle.

2. Per step (sim/energy/step_energy.hpp), T = step time, N nodes of n devices, m_d devices per stage:
     E_devices = sum_d m_d * sum_s P_s * t_{d,s}
     E_hosts   = N * P_host * T
     E_network = (N * nics * P_nic + N * nics * ports_per_nic * (P_switch_port + P_optics)) * T
     E_cooling = (PUE - 1) * (E_devices + E_hosts + E_network)        (PUE: The Green Grid WP#49)
     joules_per_step = sum of the four; joules_per_token = / tokens per step; joules_per_device = / (N n)
     avg_power_w.device = E_devices / (N n T); .node = n * device + P_host + nics * P_nic;
     avg_power_w.cluster = joules_per_step / T (facility power)
     peak_power_w.cluster = (max over the timeline of summed device power + static IT) * PUE
     cost_usd_per_step = electricity price * joules_per_step + device rate * N n * T

3. Per run (sim/energy/run_energy.hpp), from the run model's time in each state, mean over trials:
     training, recomputing: avg_power_w.cluster; restarting, repair_wait: (devices idle + static IT) * PUE;
     restoring: + storage checkpoint_io; checkpoint_stall: (devices waiting + static IT + storage) * PUE
     run.energy_mwh = sum P_state * t_state / 3.6e9 J
     run.co2e_t = energy * carbon intensity / 1000 kg                    (Patterson et al. 2021, sec. 2.5)
     run.cost_usd = energy * electricity price + device rate * devices * wall time
     device rate = price.device_hour, or capex.per_device / capex.amortisation, or 0

4. Power cap (models/energy/power_cap.hpp, models/energy/dvfs.hpp; CMOS P_dyn ~ f^3, Weste & Harris ch. 5)
     P_s(r) = P_idle + (P_s - P_idle) * ((1 - k_s) + k_s r^alpha);  t_s(r) = t_s ((1 - sigma_s) + sigma_s / r)
     a state above the cap runs at the r_s that brings it to the cap (clamped to min_clock_ratio);
     k = (idle 0, compute 1, memory 0.5, communication 0.3, waiting 1), sigma = (0, 1, 0.2, 0.05, 0), alpha 3.
     The step engine is re-run with peak FLOP/s / t_compute factor, HBM bandwidth / t_memory factor and
     link bandwidths / t_communication factor (sim/energy/capped_scenario.hpp); a cap >= TDP changes nothing.

5. Defaults when the `energy` section omits a key (each one used is listed under energy.defaults_used):
     device: catalog entry of the cluster's device (or alias); else the reference entry scaled by TDP
     node: energy catalog node entry (average host power); else the node's host_power (an upper bound)
           and the catalog default NIC power; nics from the node
     network: fat tree -> (2L - 1) switch ports per NIC, L tiers of radix-64 switches for the NIC count,
              port and optics power from configs/energy/infrastructure_power.json; other topologies 0 W
     storage 0 W, pue 1.0 (IT only), carbon intensity 0, prices 0.
   Experiments without an `energy` section get these defaults when their device has its own catalog entry.

6. Validation: Patterson et al. 2021 Table 4 runs, MWh = days * 24 h * chips * avg system power * PUE,
   tCO2e with the datacenter's carbon intensity (configs/energy/carbon_intensity.json); `clustersim validate`.
)";

std::string explain_inputs(const Scenario& s) {
  const EnergySpec& e = *s.energy;
  std::string out = fmt::format("\nInputs of experiment {}\n", s.name);
  out += fmt::format("  device {} TDP {:.0f} W; state power W:", e.device.device, e.device.tdp.value());
  for (DeviceState st : kAllDeviceStates) out += fmt::format(" {} {:.0f}", to_string(st), e.device.power[st].value());
  out += fmt::format("\n  node: host {:.0f} W, {} NICs of {:.0f} W; network: {:.3g} switch ports per NIC at {:.0f} + {:.0f} W\n",
                     e.node.host.value(), e.node.nics, e.node.nic.value(), e.network.ports_per_nic,
                     e.network.switch_port.value(), e.network.optics_port.value());
  out += fmt::format("  storage {:.0f} W during checkpoint I/O; PUE {:.3g}; carbon {:.4g} gCO2e/kWh\n",
                     e.storage.checkpoint_io.value(), e.pue, e.carbon_intensity.value() * kJoulesPerKwh * 1000.0);
  out += fmt::format("  electricity {:.4g} USD/kWh; device time {:.4g} USD/h\n", e.pricing.electricity.value() * kJoulesPerKwh,
                     e.pricing.device_time_rate().value() * 3600.0);
  if (e.power_cap) out += fmt::format("  power cap {:.0f} W\n", e.power_cap->value());
  for (const std::string& d : e.defaults_used) out += fmt::format("  default: {}\n", d);
  return out;
}

}  // namespace

std::string explain_energy(const Scenario* s) {
  std::string out = kExplainEnergy;
  if (s != nullptr && s->energy) out += explain_inputs(*s);
  if (s != nullptr && !s->energy) out += fmt::format("\nExperiment {} has no energy figures (no energy section and no catalog entry for device {}).\n", s->name, s->cluster.node.device.name);
  return out;
}

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

void add_energy_section(const Scenario& s, Prediction& p, bool with_text, bool with_json) {
  if (!s.energy) return;
  const EnergySpec& spec = *s.energy;
  const bool engine_timeline = p.step.timeline.size() > 0 && !spec.power_cap;
  // The engine's graph is the one the energy model would build unless device stragglers rescaled its costs.
  const StepGraph* graph = engine_timeline && s.stragglers.devices.empty() ? p.step.graph.get() : nullptr;
  const ScenarioStepEnergy se = scenario_step_energy(s, engine_timeline ? &p.step.timeline : nullptr, graph);
  p.energy_step = se.energy;
  p.energy_cost_per_step = se.cost_per_step;
  p.energy_timeline_engine = engine_timeline ? p.step.engine : std::string("analytic");
  if (with_text) p.energy_text = step_text(spec, se);
  // The power-cap what-if is a list (no sweep column): without JSON or text nobody reads it.
  if (with_json || with_text) {
    json j;
    if (with_json) {
      JsonSink sink(j);
      energy_step_fields(spec, se.energy, se.cost_per_step, s.cluster.devices(), sink);
    }
    if (!spec.power_cap_sweep.empty()) {
      const std::vector<CapSweepPoint> sweep = sweep_power_caps_through_engine(s);
      if (with_json) j["power_cap_sweep"] = sweep_json(sweep);
      if (with_text) p.energy_text += sweep_text(sweep);
    }
    if (with_json) {
      json defaults = json::array();
      for (const std::string& d : spec.defaults_used) defaults.push_back(d);
      j["defaults_used"] = defaults;
      j["timeline_engine"] = p.energy_timeline_engine;
      p.energy_json = std::move(j);
    }
  }
  if (p.run && !p.run->trial_outcomes.empty()) add_run_energy(spec, cluster_shape_of(s), se.energy, p);
}

}  // namespace clustersim
