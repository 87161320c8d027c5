// `clustersim calibrate-links LOG`: reads a user's nccl-tests log (the table every *_perf binary prints,
// NVIDIA/nccl-tests src/common.cu; also `clustersim collective --format nccl`) and fits the efficiency of
// the link that bounds the collective in this model, so the catalog's node entry can be set from the
// user's own measurements.
//
// Fit: for the large-message rows (>= 1 MiB, the upper third of the sizes, at least two rows) the
// measured bus bandwidth over the model's, r = median(busbw_measured / busbw_model), scales the current
// efficiency of the bottleneck link kind of the largest size (intra_link.efficiency for NVLink/NVSwitch/
// torus links, nic.efficiency for NIC and switch links, collectives.nvls_efficiency when NVLink SHARP
// carries it): suggested = current · r (> 1 is reported as above the line rate). The latency is the
// intercept of a least-squares line t = α + β·S over the rows below 64 KiB, beside the model's.
#pragma once

#include <string>
#include <vector>

#include "sim/collectives/collective_model.hpp"
#include "sim/collectives/collective_sweep.hpp"

namespace clustersim {

struct NcclLogRow {
  double bytes = 0;
  double time_us = 0;  // out-of-place
  double busbw = 0;    // out-of-place, GB/s
};

struct NcclLog {
  std::vector<NcclLogRow> rows;
  int ranks = 0;  // "#  Rank" lines, else nGpus x nThread of the header (0: not stated)
};

/// Parses the text of a log; throws ConfigError naming `file` and the line for a malformed data row, or
/// when no data row is found.
NcclLog parse_nccl_log(const std::string& text, const std::string& file);

struct LinkFitRow {
  double bytes = 0;
  double measured_busbw = 0;  // GB/s
  double model_busbw = 0;     // GB/s
  bool fitted = false;        // among the large-message rows of the fit
};

struct LinkFit {
  std::vector<LinkFitRow> rows;
  std::string link_kind;   // bottleneck link kind of the largest size ("nvswitch_port", "nic_uplink", ...)
  std::string key;         // catalog key to set ("intra_link.efficiency", "nic.efficiency", ...)
  double current = 0;      // its value in the catalog
  double ratio = 0;        // median measured / model busbw of the fitted rows
  double suggested = 0;    // current · ratio
  double measured_latency_us = -1;  // intercept of the small-message rows (-1: too few rows)
  double model_latency_us = -1;
};

/// Fits `log` against `model` for `spec` (op, algorithm, ranks; sizes are the log's).
LinkFit fit_links(const CollectiveModel& model, const CollectiveSweepSpec& spec, const NcclLog& log);

}  // namespace clustersim
