#include "sim/plan/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "sim/core/diagnostics.hpp"
#include "sim/core/output_error.hpp"

namespace clustersim::plan {

OutputFile::OutputFile(const std::filesystem::path& path, bool truncate, std::chrono::milliseconds sync_interval)
    : path_(path.string()), sync_interval_(sync_interval), last_sync_(std::chrono::steady_clock::now()) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncate ? O_TRUNC : 0), 0644);
  if (fd_ < 0) throw OutputError(path_, std::strerror(errno));
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) {
    ::fsync(fd_);
    ::close(fd_);
  }
}

void OutputFile::append(std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw OutputError(path_, std::strerror(errno));
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  if (std::chrono::steady_clock::now() - last_sync_ >= sync_interval_) sync();
}

void OutputFile::sync() {
  // fsync of a pipe, a terminal or /dev/null fails with EINVAL (nothing to sync): not an error.
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP) {
    throw OutputError(path_, std::strerror(errno));
  }
  last_sync_ = std::chrono::steady_clock::now();
}

void OutputFile::truncate() {
  // A character device (/dev/null, /dev/full) or a FIFO cannot be truncated and has nothing to empty.
  if (::ftruncate(fd_, 0) != 0 && errno != EINVAL) throw OutputError(path_, std::strerror(errno));
}

void OutputFile::close() {
  if (fd_ < 0) return;
  sync();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && errno != EINTR) throw OutputError(path_, std::strerror(errno));
}

std::vector<std::string> columns_of_line(RowFormat format, std::string_view line) {
  std::vector<std::string> cols;
  if (format == RowFormat::jsonl) {
    const auto j = nlohmann::ordered_json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return cols;
    for (auto it = j.begin(); it != j.end(); ++it) cols.push_back(it.key());
    return cols;
  }
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cols.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  cols.push_back(std::move(cur));
  return cols;
}

ExistingOutput scan_existing(
    const std::filesystem::path& path, const RowFormatter& formatter,
    const std::function<void(std::uint64_t index, const std::string& row)>& check_row) {
  ExistingOutput out;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size == 0) return out;
  out.exists = true;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path.string(), "", "cannot open for --resume");
  const std::vector<std::string> expected = formatter.schema().columns();
  const RowFormat format = formatter.format();
  std::string line;
  std::uint64_t complete_bytes = 0;
  bool first = true;
  // The rows handed to check_row: the first of each status but error.
  std::vector<std::string> seen;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no '\n': an interrupted write
    complete_bytes += line.size() + 1;
    if (first) {
      first = false;
      const bool header = format == RowFormat::csv;
      if (columns_of_line(format, line) != expected) {
        throw ConfigError(path.string(), "",
                          fmt::format("--resume: the {} does not match this sweep's columns (different --vary "
                                      "axes, experiment or format?)",
                                      header ? "header" : "first row"));
      }
      out.has_header = header;
      if (header) continue;
    }
    const auto idx = row_index(format, line);
    const std::uint64_t line_number = out.indices.size() + (out.has_header ? 2 : 1);
    if (!idx)
      throw ConfigError(path.string(), "", fmt::format("--resume: line {} is not a row", line_number));
    // Every row: a point of this sweep, with the values this sweep gives that point (other --vary values or
    // order, with the same axes, are another sweep's).
    const std::optional<std::string> prefix = formatter.point_prefix(*idx);
    if (!prefix) {
      throw ConfigError(
          path.string(), "",
          fmt::format("--resume: line {} is a row of point {}, but this sweep has {} points (other "
                      "--vary values?); remove the file or drop --resume",
                      line_number, *idx, formatter.points()));
    }
    if (line.size() <= prefix->size() || line.compare(0, prefix->size(), *prefix) != 0 ||
        line[prefix->size()] != ',') {
      throw ConfigError(
          path.string(), "",
          fmt::format("--resume: line {} (point {}) does not hold the values this sweep gives that "
                      "point (other --vary values or order?); remove the file or drop --resume",
                      line_number, *idx));
    }
    if (check_row && seen.size() < 3) {
      // The status follows the varied values: "ok," (CSV) or "\"status\":\"ok\"," (JSON Lines).
      std::string_view rest = std::string_view(line).substr(prefix->size() + 1);
      if (format == RowFormat::jsonl && rest.starts_with("\"status\":\"")) rest.remove_prefix(10);
      const std::string status(rest.substr(0, rest.find_first_of(",\"")));
      if ((status == "ok" || status == "infeasible" || status == "invalid") &&
          std::find(seen.begin(), seen.end(), status) == seen.end()) {
        seen.push_back(status);
        check_row(*idx, line + "\n");
      }
    }
    out.indices.push_back(*idx);
  }
  in.close();
  if (complete_bytes < size) {
    out.truncated_bytes = size - complete_bytes;
    std::filesystem::resize_file(path, complete_bytes);
    if (complete_bytes == 0) out.exists = false;
  }
  std::sort(out.indices.begin(), out.indices.end());
  out.indices.erase(std::unique(out.indices.begin(), out.indices.end()), out.indices.end());
  return out;
}

}  // namespace clustersim::plan
