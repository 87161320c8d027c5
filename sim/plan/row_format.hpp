// Text of sweep rows: CSV (RFC 4180 quoting, one header line) or JSON Lines (one object per line, keys in
// column order). Every row is exactly one line, so a line that lacks its '\n' is an interrupted write.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/plan/sweep_row.hpp"
#include "sim/plan/sweep_space.hpp"

namespace clustersim::plan {

enum class RowFormat { csv, jsonl };

/// "csv" or "jsonl"; throws ConfigError (file "<--format>") otherwise.
RowFormat parse_row_format(std::string_view text);

/// The format implied by a file name (".jsonl"/".ndjson" → jsonl, else csv).
RowFormat format_of_path(std::string_view path);

class RowFormatter {
 public:
  RowFormatter(RowFormat format, RowSchema schema, const SweepSpace& space);

  /// The header line (with '\n') for CSV; "" for JSON Lines.
  [[nodiscard]] std::string header() const;

  /// Appends the line of `row` (with '\n') to `out`. Metrics not in the schema are dropped; schema
  /// metrics the row lacks are empty (CSV) or null (JSON Lines).
  void append(const SweepRow& row, std::string& out) const;

  /// The start of the line of point `index` up to and including its last varied value (what append
  /// writes before the status), or nullopt when the space has no such point; a --resume check.
  [[nodiscard]] std::optional<std::string> point_prefix(std::uint64_t index) const;

  [[nodiscard]] RowFormat format() const { return format_; }
  [[nodiscard]] std::uint64_t points() const;
  [[nodiscard]] const RowSchema& schema() const { return schema_; }

 private:
  void write(const SweepRow& row, std::string& out, bool inputs_only) const;

  RowFormat format_;
  RowSchema schema_;
  const SweepSpace& space_;
  std::vector<std::string> quoted_keys_;  // JSON-escaped column names (JSON Lines)
};

/// The point index of a complete row line, or nullopt for a header or malformed line.
std::optional<std::uint64_t> row_index(RowFormat format, std::string_view line);

/// Appends `text` as one CSV field (quoted when it holds a comma, quote or newline).
void append_csv_field(std::string_view text, std::string& out);

}  // namespace clustersim::plan
