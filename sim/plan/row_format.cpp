#include "sim/plan/row_format.hpp"

#include <fmt/format.h>

#include <charconv>

#include "sim/core/diagnostics.hpp"

namespace clustersim::plan {
namespace {

constexpr std::string_view kJsonIndexPrefix = "{\"index\":";

std::string json_string(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

// An override value as JSON: the parsed scalar when the text is one (4, 0.5, true), else a string.
std::string input_json(const std::string& text) {
  auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_primitive()) return json_string(text);
  return parsed.dump();
}

}  // namespace

const char* to_string(RowStatus s) {
  switch (s) {
    case RowStatus::ok: return "ok";
    case RowStatus::infeasible: return "infeasible";
    case RowStatus::invalid: return "invalid";
    case RowStatus::error: return "error";
  }
  return "error";
}

std::vector<std::string> RowSchema::columns() const {
  std::vector<std::string> c{"index"};
  c.insert(c.end(), inputs.begin(), inputs.end());
  c.emplace_back("status");
  c.emplace_back("reason");
  c.insert(c.end(), metrics.begin(), metrics.end());
  return c;
}

RowFormat parse_row_format(std::string_view text) {
  if (text == "csv") return RowFormat::csv;
  if (text == "jsonl") return RowFormat::jsonl;
  throw ConfigError("<--format>", "", fmt::format("unknown format \"{}\" (expected csv or jsonl)", text));
}

RowFormat format_of_path(std::string_view path) {
  return path.ends_with(".jsonl") || path.ends_with(".ndjson") ? RowFormat::jsonl : RowFormat::csv;
}

void append_csv_field(std::string_view text, std::string& out) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  out += '"';
}

RowFormatter::RowFormatter(RowFormat format, RowSchema schema, const SweepSpace& space)
    : format_(format), schema_(std::move(schema)), space_(space) {
  CS_ASSERT(schema_.inputs.size() == space_.axes().size(), "schema inputs must be the sweep axes");
  for (const std::string& c : schema_.columns()) quoted_keys_.push_back(json_string(c));
}

std::string RowFormatter::header() const {
  if (format_ == RowFormat::jsonl) return {};
  std::string out;
  bool first = true;
  for (const std::string& c : schema_.columns()) {
    if (!first) out += ',';
    first = false;
    append_csv_field(c, out);
  }
  out += '\n';
  return out;
}

std::optional<std::string> RowFormatter::point_prefix(std::uint64_t index) const {
  if (index >= space_.size()) return std::nullopt;
  SweepRow row;
  row.index = index;
  std::string line;
  write(row, line, /*inputs_only=*/true);
  return line;
}

void RowFormatter::append(const SweepRow& row, std::string& out) const {
  write(row, out, false);
}

std::uint64_t RowFormatter::points() const {
  return space_.size();
}

void RowFormatter::write(const SweepRow& row, std::string& out, bool inputs_only) const {
  std::size_t value_idx[SweepSpace::kMaxAxes];
  const std::size_t n_inputs = space_.axes().size();
  space_.value_indices(row.index, std::span<std::size_t>(value_idx, n_inputs));
  const bool csv = format_ == RowFormat::csv;
  std::size_t col = 0;
  const auto key = [&] {
    if (csv) {
      if (col > 0) out += ',';
    } else {
      out += col == 0 ? "{" : ",";
      out += quoted_keys_[col];
      out += ':';
    }
    ++col;
  };
  key();
  fmt::format_to(std::back_inserter(out), "{}", row.index);
  for (std::size_t a = 0; a < n_inputs; ++a) {
    key();
    const std::string& v = space_.axes()[a].values[value_idx[a]];
    if (csv) {
      append_csv_field(v, out);
    } else {
      out += input_json(v);
    }
  }
  if (inputs_only) return;
  key();
  out += csv ? std::string(to_string(row.status)) : json_string(to_string(row.status));
  key();
  if (csv) {
    append_csv_field(row.reason, out);
  } else {
    out += json_string(row.reason);
  }
  // Both lists are sorted by key: merge them. Values other than strings are written by the JSON library's
  // serializer straight into `out` (the text dump() gives, without a string per value; such text never
  // needs CSV quoting).
  nlohmann::detail::serializer<nlohmann::json> serializer(nlohmann::detail::output_adapter<char>(out), ' ');
  auto it = row.metrics.begin();
  for (const std::string& m : schema_.metrics) {
    key();
    while (it != row.metrics.end() && it->first < m) ++it;
    if (it != row.metrics.end() && it->first == m) {
      if (csv && it->second.is_string()) {
        append_csv_field(it->second.get_ref<const std::string&>(), out);
      } else {
        serializer.dump(it->second, false, false, 0);
      }
    } else if (!csv) {
      out += "null";
    }
  }
  out += csv ? "\n" : "}\n";
}

std::optional<std::uint64_t> row_index(RowFormat format, std::string_view line) {
  if (format == RowFormat::jsonl) {
    if (!line.starts_with(kJsonIndexPrefix)) return std::nullopt;
    line.remove_prefix(kJsonIndexPrefix.size());
  }
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
  if (ec != std::errc() || end == line.data() || end == line.data() + line.size() || *end != ',') return std::nullopt;
  return v;
}

}  // namespace clustersim::plan
