#include "whatif_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "sim/core/diagnostics.hpp"

namespace clustersim::cli {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxCells = 10000;        // heat-map cells a page draws
constexpr std::size_t kMaxScatterPoints = 5000;  // Pareto scatter points besides the front

// A finite number written as `text` (the whole text), else nullopt.
std::optional<double> number_of(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<double> json_number(const json& v) {
  if (v.is_number()) {
    const double d = v.get<double>();
    return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
  }
  if (v.is_string()) return number_of(v.get<std::string>());
  return std::nullopt;
}

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

// Metrics where more is better; every other metric is minimised.
bool higher_is_better(std::string_view metric) {
  for (std::string_view part : {"mfu", "hfu", "tokens_per_s", "tflops", "headroom", "goodput", "throughput"}) {
    if (metric.find(part) != std::string_view::npos) return true;
  }
  return false;
}

// Splits RFC 4180 CSV text into records (quoted fields may hold commas, quotes and newlines). A last line
// without '\n' (an interrupted write) is dropped, as `clustersim merge` does.
std::vector<std::vector<std::string>> csv_records(const std::string& text, const std::string& source) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"') {
      if (!field.empty()) throw ConfigError(source, "", fmt::format("line {}: a quote inside an unquoted field", line));
      quoted = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      record.push_back(std::move(field));
      field.clear();
      out.push_back(std::move(record));
      record.clear();
      ++line;
    } else if (c != '\r') {
      field += c;
    }
  }
  return out;
}

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<json>> rows;  // cells: strings (CSV) or JSON values (JSON Lines)
  [[nodiscard]] std::optional<std::size_t> column(std::string_view name) const {
    const auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) return std::nullopt;
    return static_cast<std::size_t>(it - columns.begin());
  }
};

Table read_table(const std::string& text, bool jsonl, const std::string& source) {
  Table t;
  if (!jsonl) {
    auto records = csv_records(text, source);
    if (records.empty()) throw ConfigError(source, "", "no header line: not the CSV output of clustersim sweep");
    t.columns = std::move(records.front());
    for (std::size_t r = 1; r < records.size(); ++r) {
      if (records[r].size() != t.columns.size()) {
        throw ConfigError(source, "", fmt::format("row {} has {} fields, the header {}", r, records[r].size(),
                                                  t.columns.size()));
      }
      std::vector<json> row;
      row.reserve(records[r].size());
      for (std::string& f : records[r]) row.emplace_back(std::move(f));
      t.rows.push_back(std::move(row));
    }
    return t;
  }
  std::size_t start = 0;
  std::size_t line = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) break;  // interrupted last line
    ++line;
    const std::string_view l(text.data() + start, end - start);
    start = end + 1;
    if (l.empty()) continue;
    nlohmann::ordered_json obj = nlohmann::ordered_json::parse(l, nullptr, false);  // keys in column order
    if (!obj.is_object()) throw ConfigError(source, "", fmt::format("line {}: not a JSON object", line));
    if (t.columns.empty()) {
      for (const auto& [k, v] : obj.items()) t.columns.push_back(k);
    }
    std::vector<json> row;
    for (const std::string& c : t.columns) {
      if (!obj.contains(c)) throw ConfigError(source, "", fmt::format("line {}: no key \"{}\"", line, c));
      row.emplace_back(obj[c]);
    }
    t.rows.push_back(std::move(row));
  }
  if (t.columns.empty()) throw ConfigError(source, "", "no rows: not the JSON Lines output of clustersim sweep");
  return t;
}

// Distinct values of one axis, numeric ascending when every value is a number, else in order of appearance.
std::vector<std::string> axis_values(const std::vector<std::string>& seen) {
  std::vector<std::string> out;
  for (const std::string& v : seen) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  const bool numeric = std::all_of(out.begin(), out.end(), [](const std::string& v) { return number_of(v).has_value(); });
  if (numeric) {
    std::stable_sort(out.begin(), out.end(),
                     [](const std::string& a, const std::string& b) { return *number_of(a) < *number_of(b); });
  }
  return out;
}

// One candidate point of a heat map or a Pareto plot.
struct Point {
  double index = 0;       // sweep point index or plan rank
  std::string x, y;       // heat-map axis values
  std::optional<double> z, px, py;
  std::string status;     // "ok" or why the point has no figures
  std::string label;      // what the point is (varied values or strategy)
};

json heatmap(const std::vector<Point>& points, const std::string& x, const std::string& y, const std::string& z,
             const std::string& option_name) {
  std::vector<std::string> xs_seen, ys_seen;
  for (const Point& p : points) {
    xs_seen.push_back(p.x);
    ys_seen.push_back(p.y);
  }
  const std::vector<std::string> xs = axis_values(xs_seen);
  const std::vector<std::string> ys = axis_values(ys_seen);
  if (xs.size() * ys.size() > kMaxCells) {
    throw ConfigError(option_name, "",
                      fmt::format("a heat map of {} x {} values has more than {} cells; choose axes with fewer "
                                  "values (--x, --y)",
                                  xs.size(), ys.size(), kMaxCells));
  }
  const bool maximise = higher_is_better(z);
  struct Cell {
    std::optional<double> value;
    double index = 0;
    std::string status;
    std::string label;
    int rows = 0;
  };
  std::map<std::pair<std::size_t, std::size_t>, Cell> cells;
  for (const Point& p : points) {
    const auto xi = static_cast<std::size_t>(std::find(xs.begin(), xs.end(), p.x) - xs.begin());
    const auto yi = static_cast<std::size_t>(std::find(ys.begin(), ys.end(), p.y) - ys.begin());
    Cell& c = cells[{xi, yi}];
    if (c.rows++ == 0) {
      c.status = p.status;
      c.index = p.index;
      c.label = p.label;
    }
    if (p.status != "ok" || !p.z) continue;
    const bool better = !c.value || (maximise ? *p.z > *c.value : *p.z < *c.value) ||
                        (*p.z == *c.value && p.index < c.index);
    if (better) {
      c.value = p.z;
      c.index = p.index;
      c.status = "ok";
      c.label = p.label;
    }
  }
  json out_cells = json::array();
  for (const auto& [key, c] : cells) {
    out_cells.push_back({{"xi", key.first},
                         {"yi", key.second},
                         {"value", c.value ? json(*c.value) : json(nullptr)},
                         {"index", c.index},
                         {"status", c.status},
                         {"label", c.label},
                         {"rows", c.rows}});
  }
  return {{"x", x}, {"y", y}, {"z", z}, {"better", maximise ? "max" : "min"},
          {"xs", xs}, {"ys", ys}, {"cells", std::move(out_cells)}};
}

json point_json(const Point& p) { return json::array({p.index, *p.px, *p.py, p.label}); }

// Non-dominated points when both coordinates are minimised: sorted by x, then y; a point is on the front
// when its y is below every y before it.
std::vector<const Point*> front_of(const std::vector<const Point*>& pts) {
  std::vector<const Point*> sorted = pts;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Point* a, const Point* b) {
    if (*a->px != *b->px) return *a->px < *b->px;
    if (*a->py != *b->py) return *a->py < *b->py;
    return a->index < b->index;
  });
  std::vector<const Point*> front;
  double best = INFINITY;
  for (const Point* p : sorted) {
    if (*p->py < best) {
      front.push_back(p);
      best = *p->py;
    }
  }
  return front;
}

json pareto(const std::vector<Point>& points, const std::string& px, const std::string& py, const std::string& scope,
            const std::vector<Point>* given_front) {
  std::vector<const Point*> usable;
  for (const Point& p : points) {
    if (p.status == "ok" && p.px && p.py) usable.push_back(&p);
  }
  std::vector<const Point*> front;
  if (given_front != nullptr) {
    for (const Point& p : *given_front) {
      if (p.px && p.py) front.push_back(&p);
    }
  } else {
    front = front_of(usable);
  }
  json scatter = json::array();
  const std::size_t stride = usable.size() > kMaxScatterPoints ? (usable.size() + kMaxScatterPoints - 1) / kMaxScatterPoints : 1;
  for (std::size_t i = 0; i < usable.size(); i += stride) scatter.push_back(point_json(*usable[i]));
  json f = json::array();
  for (const Point* p : front) f.push_back(point_json(*p));
  return {{"x", px},
          {"y", py},
          {"scope", scope},
          {"points", std::move(scatter)},
          {"points_total", usable.size()},
          {"front", std::move(f)}};
}

}  // namespace

json sweep_page_data(const std::string& text, bool jsonl, const std::string& source, const WhatIfOptions& o) {
  const Table t = read_table(text, jsonl, source);
  const auto index_col = t.column("index");
  const auto status_col = t.column("status");
  const auto reason_col = t.column("reason");
  if (!index_col || !status_col || !reason_col || *index_col != 0 || *status_col < 1) {
    throw ConfigError(source, "", "no index, varied, status and reason columns: not the output of clustersim sweep");
  }
  const std::vector<std::string> varied(t.columns.begin() + 1, t.columns.begin() + static_cast<long>(*status_col));
  const std::vector<std::string> metrics(t.columns.begin() + static_cast<long>(*reason_col) + 1, t.columns.end());
  if (varied.empty()) throw ConfigError(source, "", "the sweep varies no field: nothing to draw a heat map over");
  const auto in = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  const auto list = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
  };
  const std::string x = o.x.empty() ? varied[0] : o.x;
  const std::string y = o.y.empty() ? (varied.size() > 1 ? varied[1] : std::string()) : o.y;
  if (!in(varied, x)) throw ConfigError("<--x>", "", fmt::format("\"{}\" is not a varied field of {} ({})", x, source, list(varied)));
  if (!y.empty() && !in(varied, y)) {
    throw ConfigError("<--y>", "", fmt::format("\"{}\" is not a varied field of {} ({})", y, source, list(varied)));
  }
  if (!y.empty() && y == x) throw ConfigError("<--y>", "", "the heat map's two axes are the same field");
  const std::string z = o.z.empty() ? "step_time_s" : o.z;
  const std::string px = o.pareto_x.empty() ? "step_time_s" : o.pareto_x;
  std::string py = o.pareto_y;
  // The run's cost, the step's cost, the run's energy, the step's energy, else the memory per device.
  for (std::string_view suffix : {"cost_usd", "cost_usd_per_step", "energy_j", "joules_per_step"}) {
    for (const std::string& m : metrics) {
      if (py.empty() && m.ends_with(suffix)) py = m;
    }
  }
  if (py.empty()) py = "memory.total_bytes";
  for (const auto& [name, value] : {std::pair{"<--z>", z}, std::pair{"<--pareto-x>", px}, std::pair{"<--pareto-y>", py}}) {
    if (!in(metrics, value)) {
      throw ConfigError(name, "", fmt::format("\"{}\" is not a metric column of {}", value, source));
    }
  }
  const std::size_t xc = *t.column(x);
  const std::optional<std::size_t> yc = y.empty() ? std::nullopt : t.column(y);
  const std::size_t zc = *t.column(z), pxc = *t.column(px), pyc = *t.column(py);
  std::vector<Point> points;
  points.reserve(t.rows.size());
  std::map<std::string, std::size_t> statuses;
  for (const std::vector<json>& row : t.rows) {
    Point p;
    const auto index = json_number(row[*index_col]);
    if (!index) throw ConfigError(source, "", fmt::format("row with index \"{}\": not a number", text_of(row[*index_col])));
    p.index = *index;
    p.x = text_of(row[xc]);
    p.y = yc ? text_of(row[*yc]) : std::string();
    p.status = text_of(row[*status_col]);
    if (p.status != "ok") p.status += p.status.empty() ? "" : ": " + text_of(row[*reason_col]);
    ++statuses[text_of(row[*status_col])];
    for (std::size_t i = 1; i < *status_col; ++i) {
      p.label += fmt::format("{}{}={}", p.label.empty() ? "" : " ", t.columns[i], text_of(row[i]));
    }
    p.z = json_number(row[zc]);
    p.px = json_number(row[pxc]);
    p.py = json_number(row[pyc]);
    points.push_back(std::move(p));
  }
  json summary = {{"rows", t.rows.size()}, {"varied", varied}, {"statuses", statuses}};
  return {{"kind", "sweep"},
          {"source", source},
          {"generator", o.generator},
          {"summary", std::move(summary)},
          {"heatmap", heatmap(points, x, y, z, "<--x>")},
          {"pareto", pareto(points, px, py, "the ok rows of the sweep", nullptr)}};
}

namespace {

const char* const kStrategyFields[] = {"nodes", "devices", "tp", "pp", "dp", "cp", "vp", "ep", "etp",
                                       "micro_batch", "schedule", "recompute", "zero_stage", "sequence_parallel"};

std::string strategy_label(const json& s) {
  std::string out = fmt::format("tp{} pp{} dp{}", text_of(s.value("tp", json())), text_of(s.value("pp", json())),
                                text_of(s.value("dp", json())));
  if (s.value("cp", 1) != 1) out += fmt::format(" cp{}", text_of(s["cp"]));
  if (s.value("vp", 1) != 1) out += fmt::format(" vp{}", text_of(s["vp"]));
  if (s.value("ep", 1) != 1) out += fmt::format(" ep{}", text_of(s["ep"]));
  out += fmt::format(" mb{} {} {} zero{}{}", text_of(s.value("micro_batch", json())),
                     text_of(s.value("schedule", json())), text_of(s.value("recompute", json())),
                     text_of(s.value("zero_stage", json())), s.value("sequence_parallel", false) ? " sp" : "");
  return out;
}

}  // namespace

json plan_page_data(const json& plan, const std::string& source, const WhatIfOptions& o) {
  if (!plan.is_object() || !plan.contains("top") || !plan["top"].is_array() || !plan.contains("objective")) {
    throw ConfigError(source, "", "no \"top\" and \"objective\": not the output of clustersim plan --format json");
  }
  const json& top = plan["top"];
  if (top.empty()) throw ConfigError(source, "/top", "no strategy is listed (the plan found none that fits)");
  const auto in = [](std::string_view s) {
    return std::find(std::begin(kStrategyFields), std::end(kStrategyFields), s) != std::end(kStrategyFields);
  };
  const std::string x = o.x.empty() ? "tp" : o.x;
  const std::string y = o.y.empty() ? "pp" : o.y;
  for (const auto& [name, value] : {std::pair{"<--x>", x}, std::pair{"<--y>", y}}) {
    if (!in(value)) {
      throw ConfigError(name, "", fmt::format("\"{}\" is not a strategy field (tp, pp, dp, cp, vp, ep, etp, "
                                              "micro_batch, schedule, recompute, zero_stage, "
                                              "sequence_parallel, nodes, devices)",
                                              value));
    }
  }
  if (x == y) throw ConfigError("<--y>", "", "the heat map's two axes are the same field");
  const std::string z = o.z.empty() ? "objective" : o.z;
  const json& first = top[0];
  const std::string px = o.pareto_x.empty() ? (first.contains("run_time_s") ? "run_time_s" : "step_time_s") : o.pareto_x;
  std::string py = o.pareto_y;
  if (py.empty()) {
    py = plan["objective"] == "energy" ? "energy_j" : (first.contains("cost_usd") ? "cost_usd" : "device_hours");
  }
  for (const auto& [name, value] : {std::pair{"<--z>", z}, std::pair{"<--pareto-x>", px}, std::pair{"<--pareto-y>", py}}) {
    if (!first.contains(value) || !first[value].is_number()) {
      throw ConfigError(name, "", fmt::format("\"{}\" is not a figure of the strategies in {}", value, source));
    }
  }
  const auto point_of = [&](const json& c, const std::string& pointer) {
    if (!c.is_object() || !c.contains("strategy") || !c["strategy"].is_object()) {
      throw ConfigError(source, pointer, "a strategy entry without \"strategy\"");
    }
    Point p;
    p.index = c.value("rank", 0);
    p.x = text_of(c["strategy"].value(x, json()));
    p.y = text_of(c["strategy"].value(y, json()));
    p.status = "ok";
    p.label = strategy_label(c["strategy"]);
    p.z = c.contains(z) ? json_number(c[z]) : std::nullopt;
    p.px = c.contains(px) ? json_number(c[px]) : std::nullopt;
    p.py = c.contains(py) ? json_number(c[py]) : std::nullopt;
    return p;
  };
  std::vector<Point> points;
  for (std::size_t i = 0; i < top.size(); ++i) points.push_back(point_of(top[i], fmt::format("/top/{}", i)));
  std::vector<Point> given;
  // The planner's front is over (time, cost or energy): used when the axes are its own.
  const bool has_front =
      plan.contains("pareto") && plan["pareto"].is_array() && o.pareto_x.empty() && o.pareto_y.empty();
  if (has_front) {
    for (std::size_t i = 0; i < plan["pareto"].size(); ++i) {
      given.push_back(point_of(plan["pareto"][i], fmt::format("/pareto/{}", i)));
    }
  }
  json summary = json::object();
  for (const char* k : {"objective", "objective_unit", "strategies_enumerated", "pruned_by_memory", "simulated",
                        "invalid", "feasible"}) {
    if (plan.contains(k)) summary[k] = plan[k];
  }
  // Why strategies were invalid (plan JSON since 2026-11-27): [{pointer, count, example{strategy, message}}].
  if (plan.contains("invalid_reasons")) {
    const json& reasons = plan["invalid_reasons"];
    if (!reasons.is_array()) throw ConfigError(source, "/invalid_reasons", "not an array");
    json kept = json::array();
    for (std::size_t i = 0; i < reasons.size(); ++i) {
      const json& r = reasons[i];
      const bool ok = r.is_object() && r.contains("pointer") && r["pointer"].is_string() && r.contains("count") &&
                      r["count"].is_number_unsigned() && r.contains("example") && r["example"].is_object() &&
                      r["example"].contains("strategy") && r["example"]["strategy"].is_string() &&
                      r["example"].contains("message") && r["example"]["message"].is_string();
      if (!ok) {
        throw ConfigError(source, fmt::format("/invalid_reasons/{}", i),
                          "not {\"pointer\": string, \"count\": unsigned integer, \"example\": {\"strategy\": "
                          "string, \"message\": string}}");
      }
      kept.push_back({{"pointer", r["pointer"]},
                      {"count", r["count"]},
                      {"strategy", r["example"]["strategy"]},
                      {"message", r["example"]["message"]}});
    }
    summary["invalid_reasons"] = std::move(kept);
  }
  // plan --memory-limit (absent at the default): {share_of_device_memory, feasible_over_device_memory}.
  if (plan.contains("memory_limit")) {
    const json& m = plan["memory_limit"];
    const bool ok =
        m.is_object() && m.contains("share_of_device_memory") && m["share_of_device_memory"].is_number() &&
        m.contains("feasible_over_device_memory") && m["feasible_over_device_memory"].is_number_unsigned() &&
        json_number(m["share_of_device_memory"]).has_value() &&
        *json_number(m["share_of_device_memory"]) >= 0.1 && *json_number(m["share_of_device_memory"]) <= 2;
    if (!ok) {
      throw ConfigError(
          source, "/memory_limit",
          "not {\"share_of_device_memory\": number from 0.1 to 2, \"feasible_over_device_memory\": "
          "unsigned integer}");
    }
    summary["memory_limit"] = {{"share", m["share_of_device_memory"]},
                               {"over", m["feasible_over_device_memory"]}};
  }
  summary["listed"] = top.size();
  json hm = heatmap(points, x, y, z, "<--x>");  // "objective" is minimised, as the planner ranks it
  return {{"kind", "plan"},
          {"source", source},
          {"generator", o.generator},
          {"summary", std::move(summary)},
          {"heatmap", std::move(hm)},
          {"pareto", pareto(points, px, py,
                            has_front ? "the planner's front over every feasible strategy (plan --pareto)"
                                      : "the strategies listed in the plan (run plan with --pareto for the front "
                                        "over every feasible strategy)",
                            has_front ? &given : nullptr)}};
}

std::string whatif_html(const json& data) {
  std::string page = whatif_page_template();
  constexpr std::string_view marker = "/*CLUSTERSIM_WHATIF_JSON*/";
  const auto at = page.find(marker);
  if (at == std::string::npos) throw std::logic_error("what-if page template lacks its data marker");
  const std::string text = data.dump();
  std::string safe;
  safe.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    safe += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') safe += '\\';  // "</" ends <script>
  }
  page.replace(at, marker.size(), safe);
  return page;
}

}  // namespace clustersim::cli
