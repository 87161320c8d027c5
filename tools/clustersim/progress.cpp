#include "progress.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <utility>

namespace clustersim::cli {

std::string clock_text(double s) {
  const auto t = static_cast<long>(s);
  return fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60);
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

ProgressLine::ProgressLine(bool terminal, std::string unit, std::chrono::milliseconds quiet_for)
    : terminal_(terminal), unit_(std::move(unit)), quiet_for_(quiet_for) {}

void ProgressLine::operator()(std::uint64_t done, std::uint64_t total) {
  if (finished_) return;  // the final line is drawn once
  const auto now = std::chrono::steady_clock::now();
  const bool last = done >= total;
  if (terminal_ && !drawn_ && now - start_ < quiet_for_) return;  // short jobs stay silent
  const auto every = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(10000);
  if (!last && now - last_ < every) return;
  if (!terminal_ && !last && last_ == std::chrono::steady_clock::time_point{}) {
    last_ = now;  // no line before the first interval has a rate
    return;
  }
  last_ = now;
  drawn_ = true;
  finished_ = last;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  const double frac = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const int filled = static_cast<int>(frac * 30);
  const std::string eta = rate > 0 ? clock_text(static_cast<double>(total - std::min(done, total)) / rate) : "?";
  std::fprintf(stderr, "%s[%s%s] %5.1f%% %llu/%llu  %.0f %s/s  ETA %s%s", terminal_ ? "\r" : "",
               std::string(static_cast<std::size_t>(filled), '#').c_str(),
               std::string(static_cast<std::size_t>(30 - filled), '.').c_str(), 100 * frac,
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), rate, unit_.c_str(),
               eta.c_str(), terminal_ ? " " : "\n");
  if (terminal_ && last) std::fputc('\n', stderr);
}

struct ElapsedLine::State {
  std::mutex mutex;
  std::condition_variable cv;
  bool stop = false;
  bool drawn = false;
  std::thread thread;
};

ElapsedLine::ElapsedLine(bool terminal, std::string what, double estimated_seconds,
                         std::chrono::milliseconds quiet_for) {
  if (!terminal) return;
  state_ = std::make_unique<State>();
  State* st = state_.get();
  st->thread = std::thread([st, what = std::move(what), estimated_seconds, quiet_for] {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock lock(st->mutex);
    if (st->cv.wait_for(lock, quiet_for, [st] { return st->stop; })) return;  // short jobs stay silent
    do {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "\r%s: %s elapsed of about %s estimated ", what.c_str(), clock_text(elapsed).c_str(),
                   clock_text(estimated_seconds).c_str());
      std::fflush(stderr);
      st->drawn = true;
    } while (!st->cv.wait_for(lock, std::chrono::milliseconds(500), [st] { return st->stop; }));
  });
}

ElapsedLine::~ElapsedLine() {
  if (!state_) return;
  {
    const std::lock_guard lock(state_->mutex);
    state_->stop = true;
  }
  state_->cv.notify_all();
  state_->thread.join();
  if (state_->drawn) std::fputc('\n', stderr);
}

}  // namespace clustersim::cli
