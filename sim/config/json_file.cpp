#include "sim/config/json_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>

#include "sim/config/provenance.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim::config {

namespace {

// Tracks the keys of the objects being parsed so that a repeated key, which nlohmann would silently
// resolve to its last value, is reported.
class DuplicateKeyFinder {
 public:
  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
        open_.push_back({pending_key(), std::set<std::string>{}});
        break;
      case Event::array_start:
        open_.push_back({pending_key(), std::nullopt});
        break;
      case Event::object_end:
      case Event::array_end:
        if (!open_.empty()) open_.pop_back();
        break;
      case Event::key: {
        auto& keys = open_.back().keys;
        const auto& key = parsed.get_ref<const std::string&>();
        if (keys && !keys->insert(key).second) duplicates_.push_back(child_pointer(pointer(), key));
        key_ = key;
        break;
      }
      case Event::value:
        break;
    }
    return true;
  }
  [[nodiscard]] const std::vector<std::string>& duplicates() const { return duplicates_; }

 private:
  struct Open {
    std::string name;                           // key of this container in its parent ("" at the root)
    std::optional<std::set<std::string>> keys;  // nullopt for arrays
  };
  std::string pending_key() {
    std::string k = std::move(key_);
    key_.clear();
    return k;
  }
  [[nodiscard]] std::string pointer() const {
    std::string p;
    for (std::size_t i = 1; i < open_.size(); ++i) p = child_pointer(p, open_[i].name);
    return p;
  }
  std::vector<Open> open_;
  std::string key_;
  std::vector<std::string> duplicates_;
};

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& file) {
  try {
    DuplicateKeyFinder finder;
    nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), std::ref(finder),
                                             /*allow_exceptions=*/true, /*ignore_comments=*/false);
    if (!finder.duplicates().empty()) {
      std::vector<Diagnostic> ds;
      for (const auto& p : finder.duplicates())
        ds.push_back({file, p, "duplicate key (only one value is allowed)"});
      throw ConfigError(std::move(ds));
    }
    return j;
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's message already carries "at line L, column C"; drop its "[json.exception...]" tag.
    std::string message = e.what();
    if (const auto tag_end = message.find("] ");
        message.starts_with("[json.exception") && tag_end != std::string::npos) {
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
