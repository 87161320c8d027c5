#include "sim/plan/point_evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "sim/report/prediction.hpp"
#include "sim/scenario/work_bounds.hpp"

namespace clustersim::plan {
namespace {

constexpr double kGiB = 1073741824.0;

std::string one_line(const ConfigError& e) {
  std::string out;
  for (const Diagnostic& d : e.diagnostics()) {
    if (!out.empty()) out += "; ";
    out += d.pointer.empty() ? d.message : d.pointer + ": " + d.message;
  }
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

bool is_pointer_problem(const Diagnostic& d, const std::string& pointer) {
  if (d.file != "<--set>" || !pointer.starts_with(d.pointer)) return false;
  return d.message.starts_with("unknown key") || d.message.starts_with("malformed") ||
         d.message.starts_with("cannot set") || d.message.starts_with("not a JSON pointer");
}

std::vector<std::string> axis_pointers(const SweepSpace& space) {
  std::vector<std::string> out;
  for (const VarySpec& a : space.axes()) out.push_back(a.pointer);
  return out;
}

}  // namespace

void flatten_json(const nlohmann::json& j, std::vector<std::pair<std::string, nlohmann::json>>& out) {
  const auto walk = [&out](const auto& self, const nlohmann::json& node, const std::string& prefix) -> void {
    for (auto it = node.begin(); it != node.end(); ++it) {
      std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
      if (it->is_object()) {
        self(self, *it, key);
      } else if (it->is_primitive()) {
        out.emplace_back(std::move(key), *it);
      }
    }
  };
  walk(walk, j, "");
  // A walk of the (key-sorted) objects is usually sorted already: check before sorting.
  const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(out.begin(), out.end(), by_key)) std::sort(out.begin(), out.end(), by_key);
}

void flatten_json_into(const nlohmann::json& j, std::vector<std::pair<std::string, nlohmann::json>>& out) {
  std::size_t n = 0;
  std::string key;  // the dotted key of the current leaf; prefixes are kept by truncating back
  const auto walk = [&](const auto& self, const nlohmann::json& node) -> void {
    const std::size_t prefix = key.size();
    for (auto it = node.begin(); it != node.end(); ++it) {
      key.resize(prefix);
      if (prefix > 0) key += '.';
      key += it.key();
      if (it->is_object()) {
        self(self, *it);
      } else if (it->is_primitive()) {
        if (n < out.size()) {
          auto& [k, v] = out[n];
          if (k != key) k.assign(key);
          v = *it;
        } else {
          out.emplace_back(key, *it);
        }
        ++n;
      }
    }
    key.resize(prefix);
  };
  walk(walk, j);
  out.resize(n);
  const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(out.begin(), out.end(), by_key)) std::sort(out.begin(), out.end(), by_key);
}

PointEvaluator::PointEvaluator(const config::CatalogPaths& paths, const config::ResolvedDocument& doc,
                               const SweepSpace& space)
    : loader_(paths), doc_(doc), space_(space), typed_(loader_, doc_, axis_pointers(space)) {}

SweepRow PointEvaluator::evaluate(std::uint64_t index) {
  SweepRow row;
  evaluate(index, row);
  return row;
}

void PointEvaluator::evaluate(std::uint64_t index, SweepRow& row) {
  space_.overrides_at(index, overrides_);
  run(index, row);
}

SweepRow PointEvaluator::evaluate_base() {
  overrides_.clear();
  SweepRow row;
  run(0, row);
  return row;
}

void PointEvaluator::run(std::uint64_t index, SweepRow& row) {
  row.index = index;
  row.status = RowStatus::ok;
  row.reason.clear();
  try {
    std::optional<Scenario> typed;
    if (typed_on_ && !overrides_.empty()) typed = typed_.build(overrides_);
    if (typed) ++typed_points_;
    const Scenario s = typed ? std::move(*typed) : loader_.build_in_place(doc_, overrides_);
    if (auto over = work_over_bounds(estimate_work(s, s.engine == "flow"), max_cost_))
      throw std::invalid_argument(*over);
    const Prediction p = predict(s, {.text = false, .json = json_rows_});
    if (json_rows_) {
      // The per-stage array is not a column (flatten_json keeps scalars): not built.
      nlohmann::json j = prediction_json(s, p, /*include_inputs=*/false, /*include_stages=*/false);
      flatten_json_into(j, row.metrics);
    } else {
      row_writer_.write(s, p, row.metrics);
    }
    if (!p.step.fits) {
      row.status = RowStatus::infeasible;
      row.reason = fmt::format("memory: {:.2f} GiB needed on stage {}, {:.2f} GiB available",
                               p.step.memory.total().value() / kGiB, p.step.memory_stage,
                               p.step.memory_capacity.value() / kGiB);
    }
  } catch (const ConfigError& e) {
    row.status = RowStatus::invalid;
    row.reason = one_line(e);
    row.metrics.clear();
  } catch (const std::invalid_argument& e) {
    row.status = RowStatus::invalid;
    row.reason = e.what();
    row.metrics.clear();
  } catch (const std::exception& e) {
    row.status = RowStatus::error;
    row.reason = e.what();
    row.metrics.clear();
  }
  std::replace(row.reason.begin(), row.reason.end(), '\n', ' ');
}

void check_axes(config::ExperimentLoader& loader, const config::ResolvedDocument& doc, const SweepSpace& space) {
  Diagnostics problems;
  for (const VarySpec& axis : space.axes()) {
    try {
      if (doc.document.contains(nlohmann::json::json_pointer(axis.pointer))) continue;
    } catch (const nlohmann::json::exception&) {
      problems.add(std::string(kVaryLabel), axis.pointer, "malformed JSON pointer (use ~0 for '~' and ~1 for '/')");
      continue;
    }
    const config::Override probe{axis.pointer, axis.values.front()};
    try {
      (void)loader.build(doc, std::span<const config::Override>(&probe, 1));
    } catch (const ConfigError& e) {
      for (const Diagnostic& d : e.diagnostics()) {
        if (is_pointer_problem(d, axis.pointer)) {
          problems.add(std::string(kVaryLabel), axis.pointer, fmt::format("not a key of the experiment: {}", d.message));
          break;
        }
      }
    }
  }
  problems.throw_if_any();
}

RowSchema probe_schema(PointEvaluator& evaluator, const SweepSpace& space, std::uint64_t probe_limit) {
  RowSchema schema;
  for (const VarySpec& a : space.axes()) schema.inputs.push_back(a.pointer);
  SweepRow base = evaluator.evaluate_base();
  const std::uint64_t n = std::min(space.size(), probe_limit);
  for (std::uint64_t i = 0; base.metrics.empty() && i < n; ++i) {
    SweepRow row = evaluator.evaluate(i);
    if (!row.metrics.empty()) base = std::move(row);
  }
  if (base.metrics.empty()) {
    throw ConfigError(
        std::string(kVaryLabel), "",
        fmt::format("the sweep's columns cannot be fixed: the experiment itself and its first {} "
                    "points all fail (the experiment: {})",
                    n, base.reason));
  }
  for (auto& [k, v] : base.metrics) schema.metrics.push_back(k);
  return schema;
}

}  // namespace clustersim::plan
