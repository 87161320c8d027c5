// Where each value of a resolved document was written: file and JSON pointer inside that file.
//
// Resolving an experiment splices catalog entries and --set values into one document. Each splice is a
// mount: the subtree at `resolved pointer` came from `file`, starting at `file pointer` there. A value's
// origin is given by the deepest mount that contains it, so a device field from
// configs/devices/a100-sxm4-80gb.json at /cluster/node/device/memory/capacity is reported as
// `configs/devices/a100-sxm4-80gb.json:/memory/capacity`.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::config {

/// Label used as the file of values given on the command line with --set.
inline constexpr std::string_view kSetLabel = "<--set>";

/// RFC 6901 pointer of `key` inside the object at `parent` ("~" -> "~0", "/" -> "~1").
std::string child_pointer(std::string_view parent, std::string_view key);

/// True when `pointer` equals `prefix` or lies below it (component-wise).
bool pointer_within(std::string_view pointer, std::string_view prefix);

struct SourceLocation {
  std::string file;
  std::string pointer;
};

class Provenance {
 public:
  /// `root_file` labels the top-level document; `root_dir` is where its relative paths are resolved.
  explicit Provenance(std::string root_file = {}, std::filesystem::path root_dir = {});

  /// Declares that the subtree at `resolved_pointer` now comes from `file` at `file_pointer`, whose
  /// relative references resolve against `dir`. Drops every mount at or below `resolved_pointer`.
  void mount(const std::string& resolved_pointer, std::string file, std::string file_pointer,
             std::filesystem::path dir);

  /// File and in-file pointer of the value at `resolved_pointer`.
  [[nodiscard]] SourceLocation locate(std::string_view resolved_pointer) const;

  /// Directory against which a path reference written at `resolved_pointer` is resolved.
  [[nodiscard]] const std::filesystem::path& directory_of(std::string_view resolved_pointer) const;

  [[nodiscard]] const std::string& root_file() const { return mounts_.front().file; }

 private:
  struct Mount {
    std::string resolved;
    std::string file;
    std::string file_pointer;
    std::filesystem::path dir;
  };
  [[nodiscard]] const Mount& deepest(std::string_view resolved_pointer) const;
  std::vector<Mount> mounts_;  // mounts_[0] is the root ("")
};

}  // namespace clustersim::config
