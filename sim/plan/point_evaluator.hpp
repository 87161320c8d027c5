// Evaluates sweep points: applies a point's overrides to a resolved experiment (build_in_place, no JSON
// re-parsing), runs predict() and turns the report into a SweepRow. Never throws for a bad point: invalid
// input and memory that does not fit become the row's status and reason.
//
// Not thread-safe (it owns an ExperimentLoader whose catalog caches entries): use one per thread.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/config/experiment_loader.hpp"
#include "sim/config/typed_patch.hpp"
#include "sim/plan/sweep_row.hpp"
#include "sim/plan/sweep_space.hpp"
#include "sim/report/prediction_row.hpp"

namespace clustersim::plan {

class PointEvaluator {
 public:
  /// `doc` is copied; overrides naming other catalog entries load them through this evaluator's catalog.
  PointEvaluator(const config::CatalogPaths& paths, const config::ResolvedDocument& doc,
                 const SweepSpace& space);

  SweepRow evaluate(std::uint64_t index);
  /// The same row written into `row`, reusing its strings and metric vector (no allocation per column
  /// once `row` has held a row of the same columns): what the sweep runner calls per point.
  void evaluate(std::uint64_t index, SweepRow& row);
  /// The experiment without any axis value (index 0 in the row).
  SweepRow evaluate_base();
  /// Scales the work bounds (sim/scenario/work_bounds.hpp): a point over them is invalid, not run.
  void set_max_cost(double scale) { max_cost_ = scale; }
  /// Points whose axes are all typed fields are built by patching them (config/typed_patch.hpp) unless
  /// this is off; then every point re-reads the JSON document (the reference the tests compare against).
  void set_typed_patch(bool on) { typed_on_ = on; }
  /// Rows are written straight from the typed results (PredictionRowWriter) unless this is on; then each
  /// point builds its report JSON and flattens it (the reference the tests compare against).
  void set_json_rows(bool on) { json_rows_ = on; }
  /// Whether the typed path applies to this sweep, and how many points took it so far.
  [[nodiscard]] bool typed_patch_enabled() const { return typed_.enabled(); }
  [[nodiscard]] std::uint64_t typed_points() const { return typed_points_; }

 private:
  void run(std::uint64_t index, SweepRow& row);
  double max_cost_ = 1.0;
  config::ExperimentLoader loader_;
  config::ResolvedDocument doc_;
  const SweepSpace& space_;
  std::vector<config::Override> overrides_;
  config::TypedPointBuilder typed_;
  bool typed_on_ = true;
  bool json_rows_ = false;
  PredictionRowWriter row_writer_;
  std::uint64_t typed_points_ = 0;
};

/// Checks every axis pointer against the resolved document before a sweep runs: a pointer must name a
/// value of the document or a key the schema accepts (decided by building the document with the axis's
/// first value). Throws one ConfigError (file "<--vary>") listing every unknown or malformed pointer.
void check_axes(config::ExperimentLoader& loader, const config::ResolvedDocument& doc,
                const SweepSpace& space);

/// The schema of a sweep: its axes, and the metric keys of the experiment without axis values, or when
/// that fails of the first point (in index order, at most `probe_limit` tried) that yields metrics. The
/// columns never depend on which later points succeed; throws ConfigError when none of them yields metrics.
RowSchema probe_schema(PointEvaluator& evaluator, const SweepSpace& space, std::uint64_t probe_limit = 64);

/// Flattens the scalar leaves of a JSON object into sorted (dotted key, value) pairs (appended to `out`,
/// which is then sorted).
void flatten_json(const nlohmann::json& j, std::vector<std::pair<std::string, nlohmann::json>>& out);
/// The same pairs, replacing the contents of `out`: its key strings are overwritten in place (a key equal
/// to the one already at its position is not rewritten), so a vector reused across rows of the same
/// columns allocates nothing for the keys.
void flatten_json_into(const nlohmann::json& j, std::vector<std::pair<std::string, nlohmann::json>>& out);

}  // namespace clustersim::plan
