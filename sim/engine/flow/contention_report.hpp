// The flow engine's extra report section: which links were busiest, and the step-time difference against
// the analytic engine (which assumes every collective gets its bottleneck bandwidth alone) explained as
// the change in exposed communication per kind.
//
// JSON keys (all times in seconds, utilisation as a fraction of the link's per-direction bandwidth over
// the simulated step): see docs/flow_engine.md "Report".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/engine/flow/flow_engine.hpp"

namespace clustersim::flow {

/// The "contention" object of the run report for job `job` of `run`, against the analytic result.
nlohmann::json contention_json(const FlowRun& run, const StepResult& analytic, std::size_t job = 0);

/// One paragraph for the text report.
std::string contention_text(const FlowRun& run, const StepResult& analytic, std::size_t job = 0);

}  // namespace clustersim::flow
