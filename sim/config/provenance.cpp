#include "sim/config/provenance.hpp"

#include <algorithm>

namespace clustersim::config {

std::string child_pointer(std::string_view parent, std::string_view key) {
  std::string out;
  out.reserve(parent.size() + key.size() + 1);
  out.append(parent);
  out += '/';
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

bool pointer_within(std::string_view pointer, std::string_view prefix) {
  if (pointer.size() < prefix.size() || pointer.substr(0, prefix.size()) != prefix) return false;
  return pointer.size() == prefix.size() || pointer[prefix.size()] == '/';
}

Provenance::Provenance(std::string root_file, std::filesystem::path root_dir) {
  mounts_.push_back({"", std::move(root_file), "", std::move(root_dir)});
}

void Provenance::mount(const std::string& resolved_pointer, std::string file, std::string file_pointer,
                       std::filesystem::path dir) {
  if (resolved_pointer.empty()) {
    mounts_.clear();
  } else {
    std::erase_if(mounts_, [&](const Mount& m) { return pointer_within(m.resolved, resolved_pointer); });
  }
  mounts_.push_back({resolved_pointer, std::move(file), std::move(file_pointer), std::move(dir)});
  // Keep the root first so root_file() stays cheap.
  std::stable_partition(mounts_.begin(), mounts_.end(), [](const Mount& m) { return m.resolved.empty(); });
}

const Provenance::Mount& Provenance::deepest(std::string_view resolved_pointer) const {
  const Mount* best = &mounts_.front();
  for (const auto& m : mounts_) {
    if (m.resolved.size() > best->resolved.size() && pointer_within(resolved_pointer, m.resolved)) best = &m;
  }
  return *best;
}

SourceLocation Provenance::locate(std::string_view resolved_pointer) const {
  const Mount& m = deepest(resolved_pointer);
  return {m.file, m.file_pointer + std::string(resolved_pointer.substr(m.resolved.size()))};
}

const std::filesystem::path& Provenance::directory_of(std::string_view resolved_pointer) const {
  return deepest(resolved_pointer).dir;
}

}  // namespace clustersim::config
