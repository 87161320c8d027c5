#include "trial_checkpoint.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "sim/core/diagnostics.hpp"

namespace clustersim::cli {
namespace {

std::string header_of(std::uint64_t fingerprint) {
  return fmt::format("# clustersim run checkpoint 1 fingerprint={}\n", fingerprint);
}

std::string hex(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", v);
  return b;
}

std::string line_of(std::uint32_t group, std::uint64_t trial, const run::TrialOutcome& t) {
  const run::StateTimes& s = t.states;
  std::string l = fmt::format("{} {}", group, trial);
  for (const Seconds v : {s.training, s.recomputing, s.restarting, s.repair_wait, s.restoring, s.checkpoint_stall}) {
    l += fmt::format(" {}", hex(v.value()));
  }
  for (const std::uint32_t n : t.interruptions) l += fmt::format(" {}", n);
  l += '\n';
  return l;
}

// One complete line of the file, or nothing when it is not one (a cut or foreign line).
std::optional<std::pair<std::pair<std::uint32_t, std::uint64_t>, run::TrialOutcome>> parse_line(
    const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> f;
  for (std::string t; in >> t;) f.push_back(t);
  if (f.size() != 2 + 6 + run::kComponentClassCount) return std::nullopt;
  const auto integer = [](const std::string& t, std::uint64_t max) -> std::optional<std::uint64_t> {
    if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos || t.size() > 19) return std::nullopt;
    const std::uint64_t v = std::strtoull(t.c_str(), nullptr, 10);
    if (v > max) return std::nullopt;
    return v;
  };
  const auto group = integer(f[0], 0xffffffffULL), trial = integer(f[1], ~0ULL >> 1);
  if (!group || !trial) return std::nullopt;
  double v[6];
  for (std::size_t k = 0; k < 6; ++k) {
    char* end = nullptr;
    v[k] = std::strtod(f[2 + k].c_str(), &end);
    if (end != f[2 + k].c_str() + f[2 + k].size() || !(v[k] >= 0) || v[k] > 1e300) return std::nullopt;
  }
  run::TrialOutcome t;
  t.states = {Seconds(v[0]), Seconds(v[1]), Seconds(v[2]), Seconds(v[3]), Seconds(v[4]), Seconds(v[5])};
  for (std::size_t c = 0; c < run::kComponentClassCount; ++c) {
    const auto n = integer(f[8 + c], 0xffffffffULL);
    if (!n) return std::nullopt;
    t.interruptions[c] = static_cast<std::uint32_t>(*n);
  }
  return std::make_pair(std::make_pair(static_cast<std::uint32_t>(*group), *trial), t);
}

}  // namespace

std::uint64_t fingerprint_of(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ULL;
  }
  return h;
}

TrialCheckpoint::TrialCheckpoint(const std::string& path, bool resume, std::uint64_t fingerprint)
    : path_(path) {
  const std::string header = header_of(fingerprint);
  if (resume) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream all;
    if (in) all << in.rdbuf();
    const std::string text = all.str();
    if (!text.empty() && text.rfind(header, 0) != 0) {
      throw ConfigError("<command line>", "--resume",
                        fmt::format("{} is not a checkpoint of this run (its first line is not \"{}\": another "
                                    "experiment, --set, seed or trial count); remove it or drop --resume",
                                    path, header.substr(0, header.size() - 1)));
    }
    for (std::size_t pos = text.empty() ? 0 : header.size(); pos < text.size();) {
      const auto eol = text.find('\n', pos);
      if (eol == std::string::npos) break;  // cut by the signal
      if (auto entry = parse_line(text.substr(pos, eol - pos))) kept_.insert(*entry);
      pos = eol + 1;
    }
  }
  // The file is rewritten with the trials it keeps, so that appending continues on a line boundary.
  file_.emplace(path, true);
  std::string text = header;
  for (const auto& [key, t] : kept_) text += line_of(key.first, key.second, t);
  file_->append(text);
  last_ = std::chrono::steady_clock::now();
}

std::optional<run::TrialOutcome> TrialCheckpoint::find(std::uint32_t group, std::uint64_t trial) {
  const auto it = kept_.find({group, trial});
  if (it == kept_.end()) return std::nullopt;
  // The fingerprint names the run, not the model that simulated it: the first kept trial of each group is
  // simulated again and checked against the file in keep().
  if (checked_groups_.insert(group).second) {
    checking_ = it->first;
    return std::nullopt;
  }
  ++reused_;
  return it->second;
}

void TrialCheckpoint::keep(std::uint32_t group, std::uint64_t trial, const run::TrialOutcome& outcome) {
  if (checking_ && *checking_ == std::make_pair(group, trial)) {
    checking_.reset();
    const run::TrialOutcome& file = kept_.at({group, trial});
    if (line_of(group, trial, outcome) != line_of(group, trial, file)) {
      // The first figure that differs, in decimal.
      static constexpr const char* kStates[] = {"training",    "recomputing", "restarting",
                                                "repair wait", "restoring",   "checkpoint stall"};
      const run::StateTimes& a = outcome.states;
      const run::StateTimes& b = file.states;
      const Seconds here[] = {a.training,    a.recomputing, a.restarting,
                              a.repair_wait, a.restoring,   a.checkpoint_stall};
      const Seconds there[] = {b.training,    b.recomputing, b.restarting,
                               b.repair_wait, b.restoring,   b.checkpoint_stall};
      std::string what = "its interruption counts differ";
      for (std::size_t k = 0; k < 6; ++k) {
        if (here[k].value() != there[k].value()) {
          what = fmt::format("its {} time is {:.9g} s here and {:.9g} s in the file", kStates[k],
                             here[k].value(), there[k].value());
          break;
        }
      }
      throw ConfigError(
          "<command line>", "--resume",
          fmt::format("{} was written by a clustersim whose model gives other figures: trial {} of "
                      "group {} was simulated again and {}; remove it or drop --resume",
                      path_, trial, group, what));
    }
    ++reused_;  // the file's line, already written back
    return;
  }
  buffer_ += line_of(group, trial, outcome);
  const auto now = std::chrono::steady_clock::now();
  if (buffer_.size() > 65536 || now - last_ > std::chrono::milliseconds(200)) flush(now);
}

void TrialCheckpoint::flush(std::chrono::steady_clock::time_point now) {
  if (!buffer_.empty()) file_->append(buffer_);
  buffer_.clear();
  last_ = now;
}

void TrialCheckpoint::finish() {
  flush(std::chrono::steady_clock::now());
  file_->close();
}

}  // namespace clustersim::cli
