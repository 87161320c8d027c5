// The output file of a sweep: appended to with one write per batch of rows, flushed to the kernel at once
// (a killed process loses no written row) and fsync'ed at most every `sync_interval` (a crashed machine
// loses at most that much). `scan_existing` is the --resume side: it reads what an interrupted run left.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/plan/row_format.hpp"

namespace clustersim::plan {

class OutputFile {
 public:
  /// Opens `path` for appending (`truncate` empties it first). Throws OutputError naming the path when it
  /// cannot be opened.
  OutputFile(const std::filesystem::path& path, bool truncate,
             std::chrono::milliseconds sync_interval = std::chrono::milliseconds(1000));
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Writes all of `text` (retrying short writes); fsyncs when the interval has elapsed. Throws
  /// OutputError on an I/O error.
  void append(std::string_view text);
  /// Empties the file (OutputError when it cannot).
  void truncate();
  /// Forces an fsync (OutputError when it fails).
  void sync();
  /// Syncs and closes, reporting a failure as OutputError (the destructor cannot).
  void close();

 private:
  int fd_ = -1;
  std::string path_;
  std::chrono::milliseconds sync_interval_;
  std::chrono::steady_clock::time_point last_sync_;
};

/// What an earlier (possibly killed) run left in an output file.
struct ExistingOutput {
  bool exists = false;                 // the file exists and is not empty
  bool has_header = false;             // CSV: its first line is the header
  std::vector<std::uint64_t> indices;  // point indices of its complete rows, sorted, unique
  std::uint64_t truncated_bytes = 0;   // bytes of an incomplete last line removed from the file
};

/// Reads `path` for --resume: checks that its header (CSV) or first row's keys (JSON Lines) match
/// `formatter`'s columns (ConfigError naming the file otherwise), collects the indices of complete rows and
/// truncates an incomplete last line (an interrupted write) so appending continues on a line boundary.
/// `check_row`, when given, sees the first complete row of each status but `error` (ok, infeasible,
/// invalid: at most three; an error row may have a cause that does not repeat, a flow-engine child killed)
/// with its point index and its text with its '\n', before anything in the file changes; it may throw to
/// refuse the file.
ExistingOutput scan_existing(
    const std::filesystem::path& path, const RowFormatter& formatter,
    const std::function<void(std::uint64_t index, const std::string& row)>& check_row = {});

/// Columns named by a header line (CSV) or by the keys of a row (JSON Lines), in order.
std::vector<std::string> columns_of_line(RowFormat format, std::string_view line);

}  // namespace clustersim::plan
