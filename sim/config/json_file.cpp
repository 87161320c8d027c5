#include "sim/config/json_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "sim/core/diagnostics.hpp"

namespace clustersim::config {

nlohmann::json parse_json_text(std::string_view text, const std::string& file) {
  try {
    return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/true,
                                 /*ignore_comments=*/false);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's message already carries "at line L, column C"; drop its "[json.exception...]" tag.
    std::string message = e.what();
    if (const auto tag_end = message.find("] "); message.starts_with("[json.exception") &&
                                                  tag_end != std::string::npos) {
      message.erase(0, tag_end + 2);
    }
    throw ConfigError(file, "", message);
  }
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path.string(), "", "cannot open file (does it exist?)");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(path.string(), "", "error while reading the file");
  return parse_json_text(text.str(), path.string());
}

}  // namespace clustersim::config
