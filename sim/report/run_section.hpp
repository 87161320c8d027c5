// The run-level section of a prediction (failures, checkpoints, goodput over a whole training run).
#pragma once

#include "sim/report/prediction.hpp"

namespace clustersim {

/// Fills p.run, p.run_json and p.run_text when s.run is present; does nothing otherwise.
void add_run_section(const Scenario& s, Prediction& p);

}  // namespace clustersim
