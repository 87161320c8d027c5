// The `heterogeneous` section of a report: per-pool work, busy fraction, compute time, memory, energy and
// the bottleneck pool of a cluster.pools job (sim/engine/hetero.hpp, docs/heterogeneous.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/engine/step_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim {

nlohmann::json hetero_json(const Scenario& s, const HeteroResult& h);
std::string hetero_text(const Scenario& s, const StepResult& r);

}  // namespace clustersim
