#include "sim/config/override.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "sim/config/catalog.hpp"
#include "sim/config/json_file.hpp"
#include "sim/config/reference_resolver.hpp"

namespace clustersim::config {
namespace {

nlohmann::json parse_value(const Override& o) {
  if (auto parsed = try_parse_json_value(o.value, std::string(kSetLabel), o.pointer))
    return *std::move(parsed);
  return nlohmann::json(o.value);
}

void problem(ResolvedDocument& doc, const std::string& pointer, std::string message) {
  doc.problems.push_back({pointer, {std::string(kSetLabel), pointer, std::move(message)}});
}

// Splits an RFC 6901 pointer into unescaped tokens; false on a malformed escape.
bool split_pointer(std::string_view pointer, std::vector<std::string>& tokens) {
  std::size_t pos = 1;
  while (pos <= pointer.size()) {
    const std::size_t end = std::min(pointer.find('/', pos), pointer.size());
    std::string token;
    for (std::size_t i = pos; i < end; ++i) {
      if (pointer[i] != '~') {
        token += pointer[i];
      } else if (i + 1 < end && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token += pointer[++i] == '0' ? '~' : '/';
      } else {
        return false;
      }
    }
    tokens.push_back(std::move(token));
    pos = end + 1;
  }
  return true;
}

// Sets `value` at `o.pointer`, creating missing objects. Returns the pointer of the first created key
// (the new subtree that "<--set>" owns), or "" and a problem when the path cannot be set.
std::optional<std::string> set_value(ResolvedDocument& doc, const Override& o, nlohmann::json value) {
  std::vector<std::string> tokens;
  if (!split_pointer(o.pointer, tokens)) {
    problem(doc, o.pointer, "malformed JSON pointer (use ~0 for '~' and ~1 for '/')");
    return std::nullopt;
  }
  nlohmann::json* node = &doc.document;
  std::string at;
  std::optional<std::string> created;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    // An existing array element by its index (e.g. /cluster/pools/1/nodes); arrays are not extended.
    if (node->is_array() && !t.empty() && t.size() < 10 &&
        std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        std::stoul(t) < node->size()) {
      at = child_pointer(at, t);
      node = &(*node)[std::stoul(t)];
      continue;
    }
    if (!node->is_object()) {
      problem(doc, o.pointer,
              fmt::format("cannot set {}: {} is {}, not an object", o.pointer,
                          at.empty() ? "the document" : at, node->type_name()));
      return std::nullopt;
    }
    at = child_pointer(at, t);
    if (!node->contains(t)) {
      if (!created) created = at;
      (*node)[t] = nlohmann::json::object();
    }
    node = &(*node)[t];
  }
  *node = std::move(value);
  return created ? *created : o.pointer;
}

}  // namespace

Override parse_override(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    throw ConfigError(std::string(kSetLabel), "",
                      fmt::format("\"{}\" is not POINTER=VALUE (e.g. /parallelism/tp=4)", text));
  }
  Override o{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
  if (!o.pointer.starts_with('/')) {
    throw ConfigError(
        std::string(kSetLabel), o.pointer,
        fmt::format("\"{}\" is not a JSON pointer: it must start with '/' (e.g. /parallelism/tp)",
                    o.pointer));
  }
  return o;
}

void apply_overrides(ResolvedDocument& doc, std::span<const Override> overrides, Catalog& catalog) {
  ReferenceResolver resolver(catalog);
  for (const auto& o : overrides) {
    if (!o.pointer.starts_with('/')) {
      problem(doc, o.pointer, "not a JSON pointer: it must start with '/' (e.g. /parallelism/tp)");
      continue;
    }
    const auto owned = set_value(doc, o, parse_value(o));
    if (!owned) continue;
    doc.origin.mount(*owned, std::string(kSetLabel), *owned, {});
    resolver.resolve_at(doc, o.pointer);
  }
}

}  // namespace clustersim::config
