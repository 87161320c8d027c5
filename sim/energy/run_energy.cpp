#include "sim/energy/run_energy.hpp"

#include "sim/core/diagnostics.hpp"

namespace clustersim {

RunEnergy compute_run_energy(const EnergySpec& spec, const ClusterShape& shape, const StepEnergy& step,
                             const RunTimeInStates& t) {
  CS_ASSERT(t.training.value() >= 0.0 && t.recomputing.value() >= 0.0 && t.restarting.value() >= 0.0 &&
                t.repair_wait.value() >= 0.0 && t.restoring.value() >= 0.0 &&
                t.checkpoint_stall.value() >= 0.0,
            "run state times must not be negative");
  const double devices = static_cast<double>(shape.devices());
  const Watts static_it = static_it_power(spec, shape);
  const Watts idle_it = step.state_power[DeviceState::idle] * devices + static_it;
  const Watts waiting_it = step.state_power[DeviceState::waiting] * devices + static_it;
  const Watts storage = spec.storage.checkpoint_io;

  RunEnergy r;
  r.by_state.training = step.avg_power.cluster * t.training;
  r.by_state.recomputing = step.avg_power.cluster * t.recomputing;
  r.by_state.restarting = idle_it * t.restarting * spec.pue;
  r.by_state.repair_wait = idle_it * t.repair_wait * spec.pue;
  r.by_state.restoring = (idle_it + storage) * t.restoring * spec.pue;
  r.by_state.checkpoint_stall = (waiting_it + storage) * t.checkpoint_stall * spec.pue;
  r.energy = r.by_state.training + r.by_state.recomputing + r.by_state.restarting + r.by_state.repair_wait +
             r.by_state.restoring + r.by_state.checkpoint_stall;
  r.co2e = spec.carbon_intensity * r.energy;
  r.electricity_cost = spec.pricing.electricity * r.energy;
  r.device_cost = spec.pricing.device_time_rate() * t.wall() * devices;
  return r;
}

}  // namespace clustersim
