#include "sim/report/energy_section.hpp"

namespace clustersim {

// Placeholder until the energy integration lands: the energy section is not yet computed.
void add_energy_section(const Scenario&, Prediction&) {}

}  // namespace clustersim
