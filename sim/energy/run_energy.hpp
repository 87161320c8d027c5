// Energy, emissions and cost of a whole training run, from the run model's time in each run state.
//
// The run model (sim/run, run::StateTimes) gives, per trial, the wall time the job spends in each state;
// the fields below map one to one. Powers per state
// (all multiplied by PUE for the facility):
//   training         the step's average cluster power (StepEnergy::avg_power.cluster, includes PUE)
//   recomputing      same as training (lost work is re-done by the same steps)
//   restarting       devices idle + static IT (hosts, NICs, switches)
//   repair_wait      same as restarting (the job holds its nodes while waiting for a repaired one)
//   restoring        devices idle + static IT + storage checkpoint I/O power
//   checkpoint_stall devices waiting + static IT + storage checkpoint I/O power
// energy  E = sum_state P_state * t_state
// co2e    = E * grid carbon intensity                   (Patterson et al. 2021, §2.5)
// cost    = E * electricity price + device time rate * devices * wall time   (models/energy/pricing.hpp)
// Assumes the job keeps all its nodes through restarts (a replaced node draws the same power).
#pragma once

#include "models/energy/energy_spec.hpp"
#include "sim/energy/cluster_shape.hpp"
#include "sim/energy/step_energy.hpp"

namespace clustersim {

struct RunTimeInStates {
  Seconds training{0};          // productive steps
  Seconds recomputing{0};       // steps re-done after a failure (lost work)
  Seconds restarting{0};        // detection, rescheduling, relaunch, initialisation
  Seconds repair_wait{0};       // waiting for a repaired node when no spare is available
  Seconds restoring{0};         // reading the last checkpoint
  Seconds checkpoint_stall{0};  // training blocked while a checkpoint is written

  [[nodiscard]] Seconds wall() const {
    return training + recomputing + restarting + repair_wait + restoring + checkpoint_stall;
  }
};

struct RunEnergyByState {
  Joules training{0};
  Joules recomputing{0};
  Joules restarting{0};
  Joules repair_wait{0};
  Joules restoring{0};
  Joules checkpoint_stall{0};
};

struct RunEnergy {
  Joules energy{0};  // facility energy over the run
  RunEnergyByState by_state;
  KgCo2e co2e{0};
  Usd electricity_cost{0};
  Usd device_cost{0};  // rental or amortised capital for devices * wall time
  [[nodiscard]] Usd cost() const { return electricity_cost + device_cost; }
  [[nodiscard]] double mwh() const { return to_mwh(energy); }
  [[nodiscard]] double co2e_tonnes() const { return to_tonnes(co2e); }
};

/// Preconditions (asserted): spec valid; every time >= 0; `step` computed for the same spec and shape.
RunEnergy compute_run_energy(const EnergySpec& spec, const ClusterShape& shape, const StepEnergy& step,
                             const RunTimeInStates& times);

}  // namespace clustersim
