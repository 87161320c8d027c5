// clustersim merge OUT FILES...: combines sweep shard files into one, sorted by point index.
#include <cstdio>

#include "commands.hpp"
#include "sim/plan/merge.hpp"

namespace clustersim::cli {

Command add_merge_command(CLI::App& app, const GlobalOptions& /*global*/) {
  struct Options {
    std::string output;
    std::vector<std::string> inputs;
    std::string format;
  };
  auto opt = std::make_shared<Options>();
  app.add_option("output", opt->output, "merged file to write")->required();
  app.add_option("files", opt->inputs, "shard files written by `clustersim sweep --shard`")->required()->check(CLI::ExistingFile);
  app.add_option("--format", opt->format, "csv or jsonl (default: from the output's extension)")
      ->check(CLI::IsMember({"csv", "jsonl"}));
  return [opt]() {
    const plan::RowFormat format =
        opt->format.empty() ? plan::format_of_path(opt->output) : plan::parse_row_format(opt->format);
    const std::vector<std::filesystem::path> inputs(opt->inputs.begin(), opt->inputs.end());
    const plan::MergeSummary s = plan::merge_files(opt->output, inputs, format);
    std::fprintf(stderr, "%llu rows merged into %s (%llu duplicates dropped)\n", static_cast<unsigned long long>(s.rows),
                 opt->output.c_str(), static_cast<unsigned long long>(s.duplicates));
    return 0;
  };
}

}  // namespace clustersim::cli
