// The --max-cost option: scales the documented work bounds (sim/scenario/work_bounds.hpp) that refuse a
// prediction or sweep that would run for hours or exhaust memory.
#pragma once

#include <CLI/CLI.hpp>

#include <vector>

#include "sim/config/override.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim::cli {

/// Adds --max-cost FACTOR (a finite number >= 1; default 1) storing into `scale`.
void add_max_cost_option(CLI::App& app, double& scale);

/// Throws ConfigError (exit 2) naming the estimate and the --max-cost that lifts it when `s` is over the
/// work bounds scaled by `scale`.
void check_work(const Scenario& s, double scale);

/// `e` with every diagnostic that names the experiment file at a pointer a --set wrote (at or below one of
/// `overrides`) naming "<--set>" instead: the run model's bounds are checked after reading, against the
/// experiment's file, which did not hold the value.
ConfigError naming_set_values(const ConfigError& e, const Scenario& s, const std::vector<config::Override>& overrides);

}  // namespace clustersim::cli
