#include "sim/plan/sweep_runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/diagnostics.hpp"
#include "sim/plan/output_file.hpp"
#include "sim/plan/point_evaluator.hpp"
#include "sim/scenario/work_bounds.hpp"

namespace clustersim::plan {
namespace {

struct Chunk {
  std::string text;
  std::uint64_t rows = 0;
  std::uint64_t ok = 0, infeasible = 0, invalid = 0, error = 0;
};

// Shard positions k = 0..count-1 map to point index shard.index + k·shard.count; resumed indices skipped.
class Work {
 public:
  Work(const SweepSpace& space, const Shard& shard, std::vector<std::uint64_t> done)
      : shard_(shard), done_(std::move(done)) {
    positions_ = space.size() > shard.index ? (space.size() - shard.index + shard.count - 1) / shard.count : 0;
  }
  [[nodiscard]] std::uint64_t positions() const { return positions_; }
  [[nodiscard]] std::uint64_t index(std::uint64_t k) const { return shard_.index + k * shard_.count; }
  [[nodiscard]] bool done(std::uint64_t index) const { return std::binary_search(done_.begin(), done_.end(), index); }
  [[nodiscard]] std::uint64_t done_in_shard() const {
    return static_cast<std::uint64_t>(std::count_if(done_.begin(), done_.end(), [&](std::uint64_t i) {
      return shard_.contains(i) && i < index(positions_);
    }));
  }

 private:
  Shard shard_;
  std::vector<std::uint64_t> done_;
  std::uint64_t positions_ = 0;
};

class Pipeline {
 public:
  Pipeline(const SweepJob& job, const RowFormatter& formatter, const Work& work, std::uint64_t chunk_size)
      : job_(job), formatter_(formatter), work_(work), chunk_size_(chunk_size),
        chunks_((work.positions() + chunk_size - 1) / chunk_size), window_(4 * static_cast<std::uint64_t>(job.jobs)) {}

  void worker() {
    try {
      PointEvaluator evaluator(job_.paths, job_.document, *job_.space);
      evaluator.set_max_cost(job_.max_cost);
      SweepRow row;
      for (;;) {
        const std::uint64_t c = next_.fetch_add(1);
        if (c >= chunks_ || failed_.load()) return;
        {
          std::unique_lock lock(mutex_);
          space_cv_.wait(lock, [&] { return c < written_ + window_ || failed_.load(); });
        }
        Chunk chunk = evaluate(evaluator, row, c);
        std::lock_guard lock(mutex_);
        ready_.emplace(c, std::move(chunk));
        ready_cv_.notify_one();
      }
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      failed_ = true;
      ready_cv_.notify_all();
      space_cv_.notify_all();
    }
  }

  // Writes chunks in order on the calling thread.
  void write(OutputFile& out, SweepSummary& summary, SweepProgress& progress) {
    for (std::uint64_t c = 0; c < chunks_; ++c) {
      Chunk chunk;
      {
        std::unique_lock lock(mutex_);
        ready_cv_.wait(lock, [&] { return ready_.contains(c) || failed_.load(); });
        if (failed_) return;
        chunk = std::move(ready_.at(c));
        ready_.erase(c);
      }
      out.append(chunk.text);
      {
        std::lock_guard lock(mutex_);
        written_ = c + 1;
      }
      space_cv_.notify_all();
      summary.written += chunk.rows;
      summary.ok += chunk.ok;
      summary.infeasible += chunk.infeasible;
      summary.invalid += chunk.invalid;
      summary.error += chunk.error;
      progress.done += chunk.rows;
      if (job_.on_progress) job_.on_progress(progress);
    }
  }

  // Stops the workers after a failure on the writing side.
  void abort() {
    std::lock_guard lock(mutex_);
    failed_ = true;
    space_cv_.notify_all();
  }

  void rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // `row` is the worker's, reused across its points (its key strings and metric vector).
  Chunk evaluate(PointEvaluator& evaluator, SweepRow& row, std::uint64_t c) {
    Chunk chunk;
    const std::uint64_t end = std::min(work_.positions(), (c + 1) * chunk_size_);
    for (std::uint64_t k = c * chunk_size_; k < end; ++k) {
      const std::uint64_t index = work_.index(k);
      if (work_.done(index)) continue;
      evaluator.evaluate(index, row);
      formatter_.append(row, chunk.text);
      ++chunk.rows;
      switch (row.status) {
        case RowStatus::ok: ++chunk.ok; break;
        case RowStatus::infeasible: ++chunk.infeasible; break;
        case RowStatus::invalid: ++chunk.invalid; break;
        case RowStatus::error: ++chunk.error; break;
      }
    }
    return chunk;
  }

  const SweepJob& job_;
  const RowFormatter& formatter_;
  const Work& work_;
  const std::uint64_t chunk_size_;
  const std::uint64_t chunks_;
  const std::uint64_t window_;
  std::atomic<std::uint64_t> next_{0};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
  std::mutex mutex_;
  std::condition_variable ready_cv_, space_cv_;
  std::map<std::uint64_t, Chunk> ready_;
  std::uint64_t written_ = 0;
};

}  // namespace

SweepSummary run_sweep(const SweepJob& job) {
  CS_ASSERT(job.space != nullptr && job.jobs >= 1, "run_sweep needs a space and jobs >= 1");
  const auto start = std::chrono::steady_clock::now();
  const SweepSpace& space = *job.space;
  // Opened (not truncated) before any point is evaluated: an unwritable path fails at once. A file this
  // call created is removed again when the axes or the columns are refused below.
  std::error_code ec;
  const bool existed = std::filesystem::exists(job.output, ec);
  OutputFile out(job.output, /*truncate=*/false);
  RowSchema schema;
  try {
    config::ExperimentLoader loader(job.paths);
    check_axes(loader, job.document, space);
    if (auto over =
            sweep_over_bound(static_cast<double>(Work(space, job.shard, {}).positions()), job.max_cost)) {
      throw ConfigError(std::string(kVaryLabel), "", *over);
    }
    PointEvaluator probe(job.paths, job.document, space);
    probe.set_max_cost(job.max_cost);
    schema = probe_schema(probe, space);
  } catch (...) {
    if (!existed) std::filesystem::remove(job.output, ec);
    throw;
  }
  const RowFormatter formatter(job.format, std::move(schema), space);

  SweepSummary summary;
  std::vector<std::uint64_t> done;
  bool need_header = true;
  if (job.resume) {
    // The columns name the axes, not the experiment or the model that computed the rows: the file's first
    // row of each status (ok, infeasible, invalid) is computed again and must be the same text, else the
    // file is another sweep's or was written by a clustersim whose model gives other figures.
    const std::vector<std::string> columns = formatter.schema().columns();
    const auto check = [&](std::uint64_t index, const std::string& row_text) {
      PointEvaluator evaluator(job.paths, job.document, space);
      evaluator.set_max_cost(job.max_cost);
      SweepRow row;
      evaluator.evaluate(index, row);
      std::string here;
      formatter.append(row, here);
      if (here == row_text) return;
      // The first column that differs, both values.
      std::string what = "its text differs";
      const auto strip = [](const std::string& t) { return t.substr(0, t.size() - 1); };
      if (formatter.format() == RowFormat::csv) {
        const std::vector<std::string> a = columns_of_line(RowFormat::csv, strip(row_text));
        const std::vector<std::string> b = columns_of_line(RowFormat::csv, strip(here));
        for (std::size_t k = 0; k < std::min({a.size(), b.size(), columns.size()}); ++k) {
          if (a[k] != b[k]) {
            what = fmt::format("column {} is \"{}\" in the file and \"{}\" here", columns[k],
                               printable(a[k].substr(0, 160)), printable(b[k].substr(0, 160)));
            break;
          }
        }
      } else {
        const auto a = nlohmann::ordered_json::parse(strip(row_text), nullptr, false);
        const auto b = nlohmann::ordered_json::parse(strip(here), nullptr, false);
        for (const std::string& k : columns) {
          const std::string x = a.is_object() && a.contains(k) ? a[k].dump() : "(none)";
          const std::string y = b.is_object() && b.contains(k) ? b[k].dump() : "(none)";
          if (x != y) {
            what = fmt::format("key {} is {} in the file and {} here", k, printable(x.substr(0, 160)),
                               printable(y.substr(0, 160)));
            break;
          }
        }
      }
      throw ConfigError(
          job.output.string(), "",
          fmt::format("--resume: its row of point {} is not what this sweep computes for that point "
                      "({}): another experiment, --set or --max-cost, or a clustersim whose model "
                      "gives other figures; remove the file or drop --resume",
                      index, what));
    };
    ExistingOutput existing = scan_existing(job.output, formatter, check);
    need_header = !existing.has_header;
    summary.truncated_bytes = existing.truncated_bytes;
    done = std::move(existing.indices);
  }
  const Work work(space, job.shard, std::move(done));
  if (!job.resume) out.truncate();
  if (need_header) out.append(formatter.header());

  SweepProgress progress;
  summary.skipped = progress.skipped = work.done_in_shard();
  progress.total = work.positions() - progress.skipped;
  const std::uint64_t per_thread = work.positions() / static_cast<std::uint64_t>(job.jobs);
  const std::uint64_t chunk_size = std::clamp<std::uint64_t>(per_thread / 256, 1, 64);
  Pipeline pipeline(job, formatter, work, chunk_size);
  std::vector<std::jthread> workers;
  for (int i = 0; i < job.jobs; ++i) workers.emplace_back([&pipeline] { pipeline.worker(); });
  try {
    pipeline.write(out, summary, progress);
  } catch (...) {
    pipeline.abort();
    throw;
  }
  workers.clear();
  out.close();
  pipeline.rethrow();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace clustersim::plan
