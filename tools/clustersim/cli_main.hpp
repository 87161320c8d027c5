// The clustersim command line as a library function: parses argv, runs one subcommand and maps errors to
// exit codes (0 ok, 1 internal error, 2 bad input or unwritable output, 3 a check failed). main() is
// this call; tools/clustersim/config_fuzz.cpp calls it in-process on fuzzed inputs.
#pragma once

#include <string>

namespace clustersim::cli {

/// `allocator`, when given, names the heap allocator of the process for `--version` ("allocator: ...").
int run_cli(int argc, char** argv, std::string (*allocator)() = nullptr);

}  // namespace clustersim::cli
