#include "sim/report/run_section.hpp"

namespace clustersim {

// Placeholder until the run-level integration lands: the run section is not yet computed.
void add_run_section(const Scenario&, Prediction&) {}

}  // namespace clustersim
