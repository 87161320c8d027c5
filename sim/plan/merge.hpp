// `clustersim merge`: combines the output files of sweep shards (or of interrupted runs) into one file,
// rows sorted by point index, exact duplicates dropped.
//
// Every input must have the same columns (CSV header, or keys of the first JSON Lines row); the format is
// taken from the first input's name (format_of_path). Inputs already sorted by index (what `sweep` writes)
// are merged streaming (k-way, constant memory per file); an unsorted input is sorted in memory first.
#pragma once

#include <filesystem>
#include <vector>

#include "sim/plan/row_format.hpp"

namespace clustersim::plan {

struct MergeSummary {
  std::uint64_t rows = 0;        // rows written
  std::uint64_t duplicates = 0;  // identical rows dropped
};

/// Throws ConfigError naming the file when an input cannot be read, has other columns than the first, holds
/// a line that is not a row (an incomplete last line is ignored: an interrupted write), or two inputs
/// hold different rows for the same index.
MergeSummary merge_files(const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs,
                         RowFormat format);

}  // namespace clustersim::plan
