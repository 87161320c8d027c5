#include "work_limits.hpp"

#include <cmath>

#include "sim/config/provenance.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/scenario/work_bounds.hpp"

namespace clustersim::cli {

void add_max_cost_option(CLI::App& app, double& scale) {
  app.add_option("--max-cost", scale,
                 "scale the work bounds (step-graph operations, flow-engine devices, sweep points) by this "
                 "factor; see docs/limits.md")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            double v = 0;
            try {
              std::size_t used = 0;
              v = std::stod(text, &used);
              if (used != text.size()) return "--max-cost: '" + text + "' is not a number";
            } catch (const std::exception&) {
              return "--max-cost: '" + text + "' is not a number";
            }
            if (!std::isfinite(v) || v < 1) return "--max-cost: '" + text + "' must be a finite factor >= 1";
            return {};
          },
          "FACTOR>=1"));
}

void check_work(const Scenario& s, double scale) {
  if (auto over = work_over_bounds(estimate_work(s, s.engine == "flow"), scale)) {
    throw ConfigError("<command line>", "--max-cost", *over);
  }
}

ConfigError naming_set_values(const ConfigError& e, const Scenario& s, const std::vector<config::Override>& overrides) {
  std::vector<Diagnostic> out = e.diagnostics();
  const std::string experiment = s.source_file.empty() ? "<experiment>" : s.source_file;
  for (Diagnostic& d : out) {
    if (d.file != experiment) continue;
    for (const config::Override& o : overrides) {
      const bool below = d.pointer == o.pointer ||
                         (d.pointer.starts_with(o.pointer) && d.pointer.size() > o.pointer.size() &&
                          d.pointer[o.pointer.size()] == '/');
      if (below) {
        d.file = std::string(config::kSetLabel);
        break;
      }
    }
  }
  return ConfigError(std::move(out));
}

}  // namespace clustersim::cli
