#include "sim/report/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "sim/config/edit_distance.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/report/energy_validation.hpp"
#include "sim/report/prediction.hpp"

namespace clustersim {
namespace {

constexpr std::array<const char*, 2> kSplitOrder{"test", "calibration"};

double predicted_value(const StepResult& r, const config::ReferenceCase& c, const config::MeasuredMetric& m) {
  const double step = r.step_time.value();
  if (m.name == "step_time_s") return step;
  if (m.name == "tokens_per_s") return c.tokens_per_step / step;
  if (m.name == "tokens_per_s_per_gpu") return c.tokens_per_step / step / c.devices;
  if (m.name == "samples_per_s") return c.samples_per_step / step;
  if (m.name == "tflops_per_gpu_model") return r.tflops_per_device;
  if (m.name == "tflops_per_gpu_hardware") return r.hw_tflops_per_device;
  // MFU/HFU against the peak the source divided by, when it says which.
  if (m.name == "mfu") return m.peak_tflops ? r.tflops_per_device / *m.peak_tflops : r.mfu;
  if (m.name == "hfu") return m.peak_tflops ? r.hw_tflops_per_device / *m.peak_tflops : r.hfu;
  CS_ASSERT(false, "unknown validation metric " + m.name);
  return 0;
}

std::optional<StepResult> predict_case(config::ExperimentLoader& loader, const config::ReferenceCase& c,
                                       std::string& problem, ValidatedConfig& config) {
  const std::vector<config::Override> overrides = case_overrides(c);
  try {
    const config::ResolvedDocument resolved = loader.resolve(c.experiment, c.id);
    const Scenario s = loader.build(resolved, overrides);
    config = {s.cluster.node.device.name, std::string(to_string(s.training.precision)), c.devices,
              s.parallelism};
    // A stated power limit runs the capped scenario (predict() applies energy.power_cap).
    if (s.energy && s.energy->power_cap) return predict(s).step;
    return run_analytic(s);
  } catch (const ConfigError& e) {
    // A problem inside the record's generated experiment is said by its message alone (the pointer is
    // into a document the user never wrote); one inside a catalog entry (a --configs root's node, device,
    // model) names that file and key.
    const Diagnostic& d = e.diagnostics().front();
    problem = d.file == c.id ? d.message : d.to_string();
    return std::nullopt;
  }
}

ValidationSummary summarize(const std::vector<ValidationRow>& rows, const std::string& split,
                            const std::string& group) {
  ValidationSummary s{split, group, 0, 0, 0};
  for (const ValidationRow& r : rows) {
    if (r.split != split || (!group.empty() && r.group != group)) continue;
    s.rows += 1;
    s.mean_abs_error += std::fabs(r.rel_error);
    s.max_abs_error = std::max(s.max_abs_error, std::fabs(r.rel_error));
  }
  if (s.rows > 0) s.mean_abs_error /= s.rows;
  return s;
}

}  // namespace

std::vector<ValidationSummary> ValidationResult::summaries(const std::string& split) const {
  std::map<std::string, int> groups;
  for (const ValidationRow& r : rows) {
    if (r.split == split) groups[r.group] += 1;
  }
  std::vector<ValidationSummary> out;
  for (const auto& [group, n] : groups) out.push_back(summarize(rows, split, group));
  return out;
}

ValidationSummary ValidationResult::overall(const std::string& split) const {
  return summarize(rows, split, "");
}

double ValidationResult::max_abs_error() const {
  double m = 0;
  for (const ValidationRow& r : rows) m = std::max(m, std::fabs(r.rel_error));
  return m;
}

ValidationResult run_validation(const config::ReferenceSet& set, const config::CatalogPaths& paths,
                                const std::string& split) {
  ValidationResult out;
  for (const auto& s : set.skipped) {
    if (split == "all" || s.split == split) out.skipped.push_back(s);
  }
  config::ExperimentLoader loader(paths);
  for (const config::ReferenceCase& c : set.cases) {
    if (split != "all" && c.split != split) continue;
    std::string problem;
    ValidatedConfig config;
    const std::optional<StepResult> r = predict_case(loader, c, problem, config);
    if (!r) {
      out.skipped.push_back({c.id, c.group, c.split, fmt::format("experiment not expressible: {}", problem), c.file, c.pointer});
      continue;
    }
    const config::MeasuredMetric& m = c.metrics.front();
    const double predicted = predicted_value(*r, c, m);
    out.rows.push_back({c.id, c.group, c.split, m.name, m.value, predicted, (predicted - m.value) / m.value,
                        r->fits, r->memory.total().value(), r->memory_capacity.value()});
    out.configs.push_back(std::move(config));
    out.assumptions.emplace_back(c.id, c.assumptions);
    out.profiles.emplace_back(c.id, c.profile);
  }
  return out;
}

std::vector<config::Override> case_overrides(const config::ReferenceCase& c) {
  std::vector<config::Override> overrides;
  if (c.devices_per_node_override) {
    overrides.push_back({"/cluster/node/devices_per_node", std::to_string(*c.devices_per_node_override)});
  }
  if (c.domain_devices_override) {
    overrides.push_back({"/cluster/node/nvlink_domain_devices", std::to_string(*c.domain_devices_override)});
  }
  return overrides;
}

const config::ReferenceCase& find_case(const config::ReferenceSet& set, const std::string& id,
                                       const std::string& origin_file, const std::string& origin_pointer) {
  for (const config::ReferenceCase& c : set.cases) {
    if (c.id == id) return c;
  }
  for (const config::ReferenceSkip& s : set.skipped) {
    if (s.id == id) {
      throw ConfigError(s.file.empty() ? origin_file : s.file, s.file.empty() ? origin_pointer : s.pointer,
                        fmt::format("record \"{}\" is skipped, so it has no experiment: {}", id, s.reason));
    }
  }
  std::vector<std::string_view> ids;
  for (const config::ReferenceCase& c : set.cases) ids.push_back(c.id);
  for (const config::ReferenceSkip& s : set.skipped) ids.push_back(s.id);
  std::vector<std::string> files;
  for (const config::ReferenceCase& c : set.cases) {
    if (std::find(files.begin(), files.end(), c.file) == files.end()) files.push_back(c.file);
  }
  const std::string where =
      files.size() > 1 ? fmt::format(" (records of {} and {})", files.front(), files.back()) : std::string();
  throw ConfigError(origin_file, origin_pointer,
                    fmt::format("no record with id \"{}\"{}{}", id, where, config::did_you_mean(id, ids)));
}

config::ReferenceSet read_corpus(const std::filesystem::path& file, const config::CatalogPaths& paths,
                                 bool default_corpus) {
  config::ReferenceSet set = config::read_reference_runs(file, paths);
  const auto moe = file.parent_path() / "moe_runs.json";
  if (default_corpus && std::filesystem::exists(moe)) {
    config::ReferenceSet more = config::read_reference_runs(moe, paths);
    set.cases.insert(set.cases.end(), std::make_move_iterator(more.cases.begin()),
                     std::make_move_iterator(more.cases.end()));
    set.skipped.insert(set.skipped.end(), more.skipped.begin(), more.skipped.end());
    set.records += more.records;
  }
  return set;
}

void add_energy_arithmetic(ValidationResult& r, const std::filesystem::path& file,
                           const config::CatalogPaths& paths) {
  for (const config::ReferenceCase& c : config::read_energy_runs(file, r.arithmetic_skipped)) {
    append_energy_arithmetic(c, paths, r);
  }
}

nlohmann::json validation_json(const ValidationResult& r) {
  nlohmann::json j;
  auto rows_json = [](const std::vector<ValidationRow>& rows) {
    nlohmann::json a = nlohmann::json::array();
    for (const ValidationRow& row : rows) {
      a.push_back({{"id", row.id},
                   {"group", row.group},
                   {"split", row.split},
                   {"metric", row.metric},
                   {"measured", row.measured},
                   {"predicted", row.predicted},
                   {"rel_error", row.rel_error}});
    }
    return a;
  };
  j["rows"] = rows_json(r.rows);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const ValidationRow& row = r.rows[i];
    j["rows"][i]["fits_memory"] = row.fits_memory;
    j["rows"][i]["memory_bytes"] = row.memory_bytes;
    j["rows"][i]["capacity_bytes"] = row.capacity_bytes;
  }
  j["summary"] = nlohmann::json::array();
  for (const char* split : kSplitOrder) {
    const ValidationSummary all = r.overall(split);
    if (all.rows == 0) continue;
    nlohmann::json groups = nlohmann::json::array();
    for (const ValidationSummary& s : r.summaries(split)) {
      groups.push_back({{"group", s.group},
                        {"rows", s.rows},
                        {"mean_abs_error", s.mean_abs_error},
                        {"max_abs_error", s.max_abs_error}});
    }
    j["summary"].push_back({{"split", split},
                            {"rows", all.rows},
                            {"mean_abs_error", all.mean_abs_error},
                            {"max_abs_error", all.max_abs_error},
                            {"groups", groups}});
  }
  j["skipped"] = nlohmann::json::array();
  for (const auto& s : r.skipped) {
    j["skipped"].push_back({{"id", s.id}, {"group", s.group}, {"split", s.split}, {"reason", s.reason}});
  }
  nlohmann::json a = nlohmann::json::object();
  for (const auto& [id, list] : r.assumptions) a[id] = list;
  j["assumptions"] = a;
  nlohmann::json p = nlohmann::json::object();
  for (const auto& [id, name] : r.profiles) p[id] = name.empty() ? nlohmann::json() : nlohmann::json(name);
  j["profiles"] = p;
  j["arithmetic_check"] = {{"rows", rows_json(r.arithmetic)}, {"skipped", nlohmann::json::array()}};
  for (const auto& s : r.arithmetic_skipped)
    j["arithmetic_check"]["skipped"].push_back({{"id", s.id}, {"reason", s.reason}});
  return j;
}

std::string validation_text(const ValidationResult& r) {
  std::string out;
  for (const char* split : kSplitOrder) {
    const ValidationSummary all = r.overall(split);
    if (all.rows == 0) continue;
    out += fmt::format("== {} split{} ==\n", split,
                       std::string_view(split) == "calibration"
                           ? " (in-sample: device efficiency was fitted on it)"
                           : " (held out: never used to fit anything)");
    out +=
        fmt::format("{:<52} {:<24} {:>11} {:>11} {:>8}\n", "id", "metric", "measured", "predicted", "error");
    for (const ValidationRow& row : r.rows) {
      if (row.split != split) continue;
      out += fmt::format("{:<52} {:<24} {:>11.4g} {:>11.4g} {:>+7.1f}%\n", printable(row.id), row.metric, row.measured,
                         row.predicted, 100.0 * row.rel_error);
    }
    out += fmt::format("\n{} split summary (|relative error|)\n", split);
    for (const ValidationSummary& s : r.summaries(split)) {
      out += fmt::format("  {:<44} {:>3} rows  mean {:>6.1f}%  max {:>6.1f}%\n", printable(s.group), s.rows,
                         100.0 * s.mean_abs_error, 100.0 * s.max_abs_error);
    }
    out += fmt::format("  {:<44} {:>3} rows  mean {:>6.1f}%  max {:>6.1f}%\n", "ALL " + std::string(split),
                       all.rows, 100.0 * all.mean_abs_error, 100.0 * all.max_abs_error);
    int over = 0;
    for (const ValidationRow& row : r.rows) over += row.split == split && !row.fits_memory;
    out += fmt::format(
        "  memory: the model says {} of these {} published configurations do not fit in device memory\n"
        "  (they ran, so the memory model or the record's reading is off there; fits_memory in --format json)\n\n",
        over, all.rows);
  }
  out += fmt::format("skipped ({})\n", r.skipped.size());
  for (const auto& s : r.skipped) {
    out += fmt::format("  [{}] {:<52} {}\n", s.split, printable(s.id), printable(s.reason));
  }
  out += "\nassumptions (values not taken from the record)\n";
  for (std::size_t i = 0; i < r.assumptions.size(); ++i) {
    const auto& [id, list] = r.assumptions[i];
    const std::string& profile = r.profiles[i].second;
    out += fmt::format("  {} [profile {}]:\n", printable(id), profile.empty() ? "none" : profile);
    for (const std::string& a : list) out += fmt::format("      {}\n", printable(a));
  }
  if (!r.arithmetic.empty() || !r.arithmetic_skipped.empty()) {
    out +=
        "\narithmetic check (whole-run energy: the Patterson formula on the record's own power, count, days\n"
        "and PUE; it checks arithmetic and units, not the simulator, and is not part of accuracy)\n";
    for (const ValidationRow& row : r.arithmetic) {
      out += fmt::format("  {:<40} {:<12} {:>11.4g} {:>11.4g} {:>+7.1f}%\n", printable(row.id), row.metric, row.measured,
                         row.predicted, 100.0 * row.rel_error);
    }
    for (const auto& s : r.arithmetic_skipped) out += fmt::format("  {:<40} skipped: {}\n", printable(s.id), printable(s.reason));
  }
  out +=
      "\nunits: step_time_s in s; tokens/samples per s; tflops in TFLOP/s per device; mfu, hfu as "
      "fractions\n";
  return out;
}

}  // namespace clustersim
