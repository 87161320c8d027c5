// The shareable what-if page of `clustersim report --sweep FILE` and `clustersim report --plan FILE`: one
// self-contained HTML file (no network access) with a heat map of one metric over two varied fields and
// the Pareto front of two metrics, drawn by the page's own JavaScript (tools/clustersim/whatif_page.html,
// compiled into the binary) from the data computed here and embedded as JSON.
//
// Sweep (the CSV or JSON Lines of `clustersim sweep`): the heat map's axes are two varied pointers (default:
// the first two), each cell the best `ok` row's metric over the other varied fields (lowest index on a tie);
// a cell without an `ok` row shows the status of its first row. The Pareto front minimises two metrics
// over the `ok` rows (default: step_time_s and the first of a cost, an energy, or the memory column).
//
// Plan (`clustersim plan --format json [--pareto] [--top K]`): the heat map is over two strategy fields
// (default tp x pp), each cell the best listed strategy's metric (default: the objective); the front is the
// planner's (over every feasible strategy) when the JSON has `pareto`, else the front of the listed ones.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace clustersim::cli {

struct WhatIfOptions {
  std::string x, y;        // heat-map axes (sweep: varied pointers; plan: strategy fields)
  std::string z;           // heat-map metric
  std::string pareto_x;    // Pareto axes (both minimised)
  std::string pareto_y;
  std::string generator;   // "clustersim <version>"
};

/// Page data of a sweep output file (`text` its contents; JSON Lines when `jsonl`). Throws ConfigError
/// naming `source` (and the line) for unreadable rows, or the option for an unknown axis or metric.
nlohmann::json sweep_page_data(const std::string& text, bool jsonl, const std::string& source,
                               const WhatIfOptions& options);

/// Page data of `plan --format json` output. Throws ConfigError naming `source` and the JSON pointer.
nlohmann::json plan_page_data(const nlohmann::json& plan, const std::string& source, const WhatIfOptions& options);

/// The page template (whatif_page.html) with its data placeholder.
const char* whatif_page_template();

/// The page with `data` embedded.
std::string whatif_html(const nlohmann::json& data);

}  // namespace clustersim::cli
