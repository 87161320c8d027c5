// `run --checkpoint FILE [--resume]`: the Monte Carlo's finished trials in a file (docs/limits.md,
// "Interrupted work"), so that a run stopped by a signal resumes without simulating them again.
//
// The file is a header line naming the run it belongs to (a fingerprint of the scenario as read: the
// experiment, every --set, the run section with its seed and trial counts) and one line per finished trial:
// "GROUP TRIAL" then the six state times in hexadecimal floating point (an exact round trip, so a resumed
// run prints the same bits) and the interruption counts per component class. Lines are batched and
// written at least every 0.2 s; an incomplete last line (cut by the signal) is dropped on --resume. The
// fingerprint names the run, not the model: on --resume the first kept trial of each group is simulated
// again, and a file whose line differs (written by a clustersim whose model gives other figures) is refused.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "sim/plan/output_file.hpp"
#include "sim/run/run_model.hpp"

namespace clustersim::cli {

class TrialCheckpoint final : public run::TrialStore {
 public:
  /// Opens `path` (before any work: a path that cannot be written is exit 2 at once). With `resume`, the
  /// complete lines of an earlier checkpoint with the same fingerprint are read (another run's file is a
  /// ConfigError at --resume) and written back; without it the file is started afresh.
  TrialCheckpoint(const std::string& path, bool resume, std::uint64_t fingerprint);
  std::optional<run::TrialOutcome> find(std::uint32_t group, std::uint64_t trial) override;
  void keep(std::uint32_t group, std::uint64_t trial, const run::TrialOutcome& outcome) override;
  /// Writes what is buffered and closes the file (OutputError on failure).
  void finish();
  /// Trials read from the file by --resume, and how many of them a run used.
  [[nodiscard]] std::size_t loaded() const { return kept_.size(); }
  [[nodiscard]] std::size_t reused() const { return reused_; }

 private:
  void flush(std::chrono::steady_clock::time_point now);
  std::map<std::pair<std::uint32_t, std::uint64_t>, run::TrialOutcome> kept_;
  std::optional<plan::OutputFile> file_;
  std::string buffer_;
  std::chrono::steady_clock::time_point last_;
  std::size_t reused_ = 0;
  std::string path_;
  std::set<std::uint32_t> checked_groups_;  // groups whose first kept trial was simulated again
  std::optional<std::pair<std::uint32_t, std::uint64_t>> checking_;  // that trial, until keep() compares it
};

/// FNV-1a of a text (the fingerprint of a run: its scenario as JSON).
std::uint64_t fingerprint_of(const std::string& text);

}  // namespace clustersim::cli
