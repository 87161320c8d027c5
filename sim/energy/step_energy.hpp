// Energy and power of one training step, from the time each device spends in each state.
//
// With P_s the board power of state s (capped by EnergySpec::power_cap if set, see
// models/energy/power_cap.hpp), t_{d,s} the time representative d spends in s, m_d its multiplicity,
// T the step time, N nodes with n devices, H host power per node, c NICs per node of power p_nic:
//   devices  E_dev  = sum_d m_d * sum_s P_s * t_{d,s}
//   hosts    E_host = N * H * T
//   network  E_net  = (N * c * p_nic + switch ports * (port + optics)) * T
//   cooling  E_cool = (PUE - 1) * (E_dev + E_host + E_net)                  (PUE definition, The Green
//                                                                           Grid WP#49)
//   per step E      = E_dev + E_host + E_net + E_cool;  per token E / tokens;  per device E / (N n)
// Average power: device E_dev / (N n T) (board only); node n * device + H + c * p_nic (IT power a rack
// PDU sees); cluster E / T (facility, incl. switches and cooling).
// Peak power: device = the largest state power present in the step; node = n * device peak + H + c p_nic
// (upper bound: assumes a node's devices peak together); cluster = (max over time of the summed device
// power + static IT power) * PUE — exact in time when computed from a StepTimeline (representatives are
// assumed aligned with the devices they stand for), an upper bound (sum of peaks) from a StepActivity.
// Applying PUE to the peak treats cooling as proportional to IT power at every instant (approximation).
#pragma once

#include "models/energy/energy_spec.hpp"
#include "sim/energy/cluster_shape.hpp"
#include "sim/energy/device_timeline.hpp"
#include "sim/energy/step_activity.hpp"

namespace clustersim {

struct PowerFigures {
  Watts device{0};   // one accelerator board
  Watts node{0};     // one node's IT power: devices + host + NICs
  Watts cluster{0};  // whole job at the facility meter: IT + switches + cooling
};

struct EnergyByComponent {
  Joules devices{0};  // accelerator boards
  Joules hosts{0};    // CPUs, DRAM, fans, PSU losses, in-node switches
  Joules network{0};  // NICs, switch ports, optics
  Joules cooling{0};  // facility overhead (PUE - 1) * IT
  [[nodiscard]] Joules total() const { return devices + hosts + network + cooling; }
};

struct StepEnergy {
  Seconds step_time{0};
  double tokens = 0;   // tokens per step
  Joules per_step{0};  // facility energy of the whole job for one step
  Joules per_token{0};
  Joules per_device{0};  // per_step / devices
  PowerFigures avg_power;
  PowerFigures peak_power;
  bool peak_is_upper_bound = true;  // false when the cluster peak came from a timeline sweep
  EnergyByComponent by_component;
  PerState<Watts> state_power;       // board power per state used (after the cap)
  PerState<Seconds> device_seconds;  // summed over all real devices
  PerState<Joules> device_joules;    // summed over all real devices
};

/// From the aggregate form. Preconditions (asserted): spec.validate() empty, tokens_per_step > 0,
/// activity.device_count() == shape.devices(), state times of each representative <= step time.
StepEnergy compute_step_energy(const EnergySpec& spec, const ClusterShape& shape,
                               const StepActivity& activity, double tokens_per_step);

/// From a timeline: same figures, and the cluster peak from a sweep over time.
StepEnergy compute_step_energy(const EnergySpec& spec, const ClusterShape& shape,
                               const StepTimeline& timeline, double tokens_per_step);
/// The same from representatives' resolved covers (resolve_timeline / resolved_timeline_of).
StepEnergy compute_step_energy(const EnergySpec& spec, const ClusterShape& shape,
                               const ResolvedTimeline& timeline, double tokens_per_step);
/// The same when activity_of(timeline) is already at hand.
StepEnergy compute_step_energy(const EnergySpec& spec, const ClusterShape& shape,
                               const ResolvedTimeline& timeline, const StepActivity& activity,
                               double tokens_per_step);

/// The same when the peak over time of the summed device power is already known from the timeline
/// (graph_timeline.hpp timeline_totals): figures as from the resolved timeline.
StepEnergy compute_step_energy(const EnergySpec& spec, const ClusterShape& shape, const StepActivity& activity,
                               double tokens_per_step, Watts timeline_device_power_peak);

/// Constant (state-independent) IT power of the job: hosts, NICs and switch fabric.
Watts static_it_power(const EnergySpec& spec, const ClusterShape& shape);

}  // namespace clustersim
