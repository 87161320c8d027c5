// Subcommands of the clustersim CLI. Each registers its options on the app and returns the callback
// that runs it; the callback returns the process exit code (0 ok, 2 bad input, 3 validation failed).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace clustersim::cli {

struct GlobalOptions {
  std::vector<std::string> config_dirs;
};

using Command = std::function<int()>;

Command add_run_command(CLI::App& app, const GlobalOptions& global);
Command add_validate_command(CLI::App& app, const GlobalOptions& global);
Command add_sweep_command(CLI::App& app, const GlobalOptions& global);
Command add_plan_command(CLI::App& app, const GlobalOptions& global);
Command add_merge_command(CLI::App& app, const GlobalOptions& global);
Command add_explain_command(CLI::App& app, const GlobalOptions& global);
Command add_collective_command(CLI::App& app, const GlobalOptions& global);
Command add_calibrate_links_command(CLI::App& app, const GlobalOptions& global);
Command add_topo_command(CLI::App& app, const GlobalOptions& global);
Command add_compare_command(CLI::App& app, const GlobalOptions& global);
Command add_schema_command(CLI::App& app, const GlobalOptions& global);
Command add_report_command(CLI::App& app, const GlobalOptions& global);
Command add_completion_command(CLI::App& app, const GlobalOptions& global);

}  // namespace clustersim::cli
