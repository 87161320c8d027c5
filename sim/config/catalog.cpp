#include "sim/config/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "sim/config/edit_distance.hpp"
#include "sim/config/json_file.hpp"

namespace clustersim::config {

std::string_view to_string(CatalogKind kind) {
  switch (kind) {
    case CatalogKind::devices:
      return "devices";
    case CatalogKind::nodes:
      return "nodes";
    case CatalogKind::clusters:
      return "clusters";
    case CatalogKind::models:
      return "models";
    case CatalogKind::experiments:
      return "experiments";
  }
  return "devices";
}

std::string_view singular(CatalogKind kind) {
  switch (kind) {
    case CatalogKind::devices:
      return "device";
    case CatalogKind::nodes:
      return "node";
    case CatalogKind::clusters:
      return "cluster";
    case CatalogKind::models:
      return "model";
    case CatalogKind::experiments:
      return "experiment";
  }
  return "device";
}

Catalog::Catalog(CatalogPaths paths) : paths_(std::move(paths)) {}

std::shared_ptr<void>& Catalog::derived(std::string_view tag) {
  auto it = derived_.slots.find(tag);
  if (it == derived_.slots.end()) it = derived_.slots.emplace(std::string(tag), nullptr).first;
  return it->second;
}

bool Catalog::is_path_reference(std::string_view reference) {
  return reference.find('/') != std::string_view::npos || reference.ends_with(".json");
}

std::optional<std::filesystem::path> Catalog::find(CatalogKind kind, std::string_view name) const {
  std::string key = fmt::format("{}/{}", to_string(kind), name);
  {
    const std::lock_guard lock(found_->mutex);
    if (auto it = found_->files.find(key); it != found_->files.end()) return it->second;
  }
  std::optional<std::filesystem::path> out;
  for (const auto& root : paths_.roots) {
    auto file = root / to_string(kind) / (std::string(name) + ".json");
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) {
      out = file.lexically_normal();
      break;
    }
  }
  const std::lock_guard lock(found_->mutex);
  found_->files.emplace(std::move(key), out);
  return out;
}

std::vector<std::string> Catalog::names(CatalogKind kind) const {
  std::vector<std::string> out;
  for (const auto& root : paths_.roots) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(root / to_string(kind), ec)) {
      if (entry.path().extension() == ".json") out.push_back(entry.path().stem().string());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::filesystem::path Catalog::resolve(CatalogKind kind, std::string_view reference,
                                       const std::filesystem::path& base_dir) const {
  if (reference.empty()) {
    throw std::invalid_argument(
        fmt::format("empty {} reference (expected a catalog name or a file path)", singular(kind)));
  }
  if (is_path_reference(reference)) {
    const std::filesystem::path given(reference);
    const auto file = (given.is_absolute() ? given : base_dir / given).lexically_normal();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
      throw std::invalid_argument(
          fmt::format("{} file \"{}\" not found (looked for {})", singular(kind), reference, file.string()));
    }
    return file;
  }
  if (auto file = find(kind, reference)) return *file;
  const auto all = names(kind);
  const std::vector<std::string_view> views(all.begin(), all.end());
  std::string roots;
  for (const auto& r : paths_.roots) roots += (roots.empty() ? "" : ", ") + (r / to_string(kind)).string();
  throw std::invalid_argument(fmt::format(
      "unknown {} \"{}\" in the catalog ({}){}", singular(kind), reference,
      roots.empty() ? "no catalog roots given" : "searched " + roots, did_you_mean(reference, views)));
}

const nlohmann::json& Catalog::load(const std::filesystem::path& file) {
  if (const nlohmann::json* j = loaded(file)) return *j;
  const std::string key = file.lexically_normal().string();
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, read_json_file(key)).first;
  by_given_path_.emplace(file.string(), &it->second);
  return it->second;
}

const nlohmann::json* Catalog::loaded(const std::filesystem::path& file) const {
  const auto it = by_given_path_.find(file.native());
  return it == by_given_path_.end() ? nullptr : it->second;
}

}  // namespace clustersim::config
