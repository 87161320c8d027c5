#include "models/energy/training_run_energy.hpp"

#include "sim/core/diagnostics.hpp"

namespace clustersim {

TrainingRunEnergy estimate_training_run_energy(const TrainingRunEnergyInput& in) {
  CS_ASSERT(in.accelerators > 0, "accelerator count must be positive");
  CS_ASSERT(in.avg_system_power.value() > 0.0, "average power must be positive");
  CS_ASSERT(in.duration.value() > 0.0, "duration must be positive");
  CS_ASSERT(in.pue >= 1.0, "PUE must be >= 1");
  CS_ASSERT(in.carbon_intensity.value() >= 0.0, "carbon intensity must not be negative");
  TrainingRunEnergy out;
  out.it_energy = in.avg_system_power * in.duration * static_cast<double>(in.accelerators);
  out.facility_energy = out.it_energy * in.pue;
  out.co2e = in.carbon_intensity * out.facility_energy;
  return out;
}

}  // namespace clustersim
