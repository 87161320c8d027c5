#include "sim/engine/flow/flow_options.hpp"

namespace clustersim::flow {

std::string fidelity_name(Fidelity f) { return f == Fidelity::exact ? "exact" : "phase"; }

}  // namespace clustersim::flow
