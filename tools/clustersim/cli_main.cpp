// The whole clustersim command line as one function (cli_main.hpp): main() and the in-process fuzz
// driver (config_fuzz) call it.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>

#include "cli_main.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "paths.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/core/output_error.hpp"
#include "sim/engine/flow/flow_availability.hpp"

namespace clustersim::cli {

int run_cli(int argc, char** argv, std::string (*allocator)()) {
  CLI::App app{"clustersim — a simulator of large-model training clusters"};
  app.require_subcommand(1);
  GlobalOptions global;
  // Global options are accepted before or after the subcommand, and every subcommand's --help lists them.
  const auto add_global_options = [&global](CLI::App& a) {
    a.add_option(
         "--configs", global.config_dirs,
         "extra catalog root (holds devices/, nodes/, ...), searched before the bundled one; repeatable")
        ->check(CLI::ExistingDirectory)
        ->group("Global options");
  };
  add_global_options(app);
  app.set_version_flag(
      "--version",
      [allocator] {
        std::string text = version_text() + "\n" + flow::flow_engine_status();
        if (allocator != nullptr) text += "\nallocator: " + allocator();
        return text;
      },
      "print version, catalog roots, whether the flow engine is built and the heap allocator, then exit");
  // The exit codes, in the help of the program and of every subcommand.
  const std::string exit_codes =
      "Exit codes: 0 ok, 1 internal error (a bug: please report it), 2 bad input or unwritable output, "
      "3 a check failed (validate --max-error, compare) or nothing fits (plan).";
  std::map<const CLI::App*, Command> commands;
  const auto add = [&](const char* name, const char* help, auto factory) {
    CLI::App* sub = app.add_subcommand(name, help);
    add_global_options(*sub);
    commands[sub] = factory(*sub, global);
    const std::string own = sub->get_footer();  // a subcommand's own footer comes first
    sub->footer(own.empty() ? exit_codes : own + "\n\n" + exit_codes);
  };
  add("run", "predict one experiment", add_run_command);
  add("validate", "compare predictions with measured runs", add_validate_command);
  add("sweep", "evaluate a grid of experiment variants (--vary), streamed to CSV/JSON Lines",
      add_sweep_command);
  add("plan", "search parallelization strategies (and device counts) that fit memory", add_plan_command);
  add("merge", "combine sweep shard files into one, sorted by point index", add_merge_command);
  add("explain", "show how a figure is computed (formulas, defaults, sources)", add_explain_command);
  add("collective", "nccl-tests-style sweep of one collective on a cluster", add_collective_command);
  add("calibrate-links", "fit a link efficiency from an nccl-tests log", add_calibrate_links_command);
  add("topo", "describe a cluster's network: inventory, bisection, hops, oversubscription",
      add_topo_command);
  add("compare", "compare two report JSON files field by field (golden-file regression tests)",
      add_compare_command);
  add("schema", "print the declared configuration keys as a JSON Schema or Markdown tables",
      add_schema_command);
  add("report",
      "write one self-contained HTML report (inputs, timeline, memory, communication, energy), or with "
      "--sweep/--plan a what-if page (heat map, Pareto front)",
      add_report_command);
  add("completion", "print a bash or zsh completion script", add_completion_command);
  // Set after the subcommands: CLI11 copies the parent's footer into a subcommand made after it, which
  // printed the exit codes twice in every subcommand's help.
  app.footer(exit_codes);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    for (const auto& [sub, run] : commands) {
      if (!sub->parsed()) continue;
      const int code = run();
      finish_stdout();
      return code;
    }
    return 2;
  } catch (const OutputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const ConfigError& e) {
    for (const Diagnostic& d : e.diagnostics()) std::fprintf(stderr, "error: %s\n", d.to_string().c_str());
    return 2;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    return 1;
  }
}

}  // namespace clustersim::cli
