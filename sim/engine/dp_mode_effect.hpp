// Applies a scenario's data-parallel mode to an engine's step result (both engines; summarize_step()).
//
// parameter_server: the round is the graph's dp_sync node as the engine timed it (closed form in the
//   analytic engine, push/pull flows to the server hosts in the flow engine); the step stays the timeline's.
// async, ssp: a worker's compute (step − round) and the round feed the event simulation of
//   async_sgd.hpp; the step time becomes the time of N updates (one global batch of samples), so tokens/s,
//   MFU and HFU follow the simulated update rate.
// local_sgd: the graph carries 1/H of each averaging per step; the result records the averaging and
//   adds the outer optimizer state (fp32 anchor + momentum, 8 B per parameter) to the optimizer memory.
#pragma once

#include "sim/engine/step_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim {

void apply_dp_mode(const Scenario& s, const StepGraph& g, StepResult& r);

}  // namespace clustersim
