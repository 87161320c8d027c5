// A command-line fraction such as `5%`, `0.5%` or `1e-6`, for --max-error, --rtol and --atol.
#pragma once

#include <string>

namespace clustersim::cli {

/// `text` as a non-negative fraction ("5%" -> 0.05). Throws ConfigError("<command line>", option, ...)
/// naming `example` (e.g. "5%") when it is not one.
double parse_fraction_option(const std::string& text, const char* option, const char* example);

}  // namespace clustersim::cli
