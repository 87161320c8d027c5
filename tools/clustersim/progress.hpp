// Progress lines on stderr for long jobs (sweep, plan, Monte Carlo run).
//
// On a terminal: a bar redrawn in place at most 10 times a second, after the job has run for
// `quiet_for` (short jobs print nothing). Not on a terminal: nothing, unless `log_lines` asks for one
// line every 10 s and a last one at the end (sweep --progress writing to a log). stdout is never touched.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace clustersim::cli {

/// h:mm:ss of a number of seconds.
std::string clock_text(double seconds);

/// Whether stderr is a terminal.
bool stderr_is_terminal();

class ProgressLine {
 public:
  /// `unit` names what is counted ("points", "strategies", "trials").
  ProgressLine(bool terminal, std::string unit, std::chrono::milliseconds quiet_for = std::chrono::milliseconds(0));

  /// Reports `done` of `total`; throttled. Call with done == total once at the end.
  void operator()(std::uint64_t done, std::uint64_t total);

 private:
  bool terminal_ = true;
  std::string unit_;
  std::chrono::milliseconds quiet_for_;
  bool drawn_ = false;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

/// A job without a count of its own (one flow-engine step): on a terminal, after `quiet_for`, a line
/// "<what>: h:mm:ss elapsed of about h:mm:ss estimated" redrawn every half second by a thread of its own
/// until destroyed (then ended with a newline). Not on a terminal: nothing, and no thread.
class ElapsedLine {
 public:
  ElapsedLine(bool terminal, std::string what, double estimated_seconds,
              std::chrono::milliseconds quiet_for = std::chrono::milliseconds(1000));
  ~ElapsedLine();
  ElapsedLine(const ElapsedLine&) = delete;
  ElapsedLine& operator=(const ElapsedLine&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace clustersim::cli
