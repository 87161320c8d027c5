#include "sim/report/nccl_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/collectives/collective_group.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim {
namespace {

bool parse_double(const std::string& s, double& out) {
  try {
    std::size_t used = 0;
    out = std::stod(s, &used);
    return used == s.size() && std::isfinite(out);
  } catch (const std::exception&) {
    return false;
  }
}

bool is_integer_token(const std::string& s) {
  return !s.empty() && s.find_first_of(".eE") == std::string::npos &&
         s.find_first_not_of("-0123456789") == std::string::npos;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

NcclLog parse_nccl_log(const std::string& text, const std::string& file) {
  NcclLog log;
  std::istringstream in(text);
  std::string line;
  int line_no = 0, rank_lines = 0, n_gpus = 0, n_threads = 1;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream words(line);
    std::vector<std::string> t;
    for (std::string w; words >> w;) t.push_back(w);
    if (t.empty()) continue;
    if (t[0] == "#") {
      if (t.size() > 1 && t[1] == "Rank") ++rank_lines;
      for (std::size_t i = 1; i + 1 < t.size(); ++i) {
        if (t[i] == "nGpus") n_gpus = std::atoi(t[i + 1].c_str());
        if (t[i] == "nThread") n_threads = std::max(1, std::atoi(t[i + 1].c_str()));
      }
      continue;
    }
    if (t[0][0] == '#') continue;
    double bytes = 0;
    if (!parse_double(t[0], bytes) || !is_integer_token(t[0])) continue;  // not a data row (NCCL INFO, ...)
    // size count type [redop] [root] time algbw busbw #wrong ...
    std::size_t i = 3;
    if (i < t.size() && !is_integer_token(t[i])) {
      double x = 0;
      if (!parse_double(t[i], x)) ++i;  // redop ("sum", "none")
    }
    if (i < t.size() && is_integer_token(t[i])) ++i;  // root (-1, 0)
    NcclLogRow row;
    row.bytes = bytes;
    double algbw = 0;
    if (t.size() < i + 3 || !parse_double(t[i], row.time_us) || !parse_double(t[i + 1], algbw) ||
        !parse_double(t[i + 2], row.busbw) || bytes <= 0 || row.time_us <= 0) {
      throw ConfigError(file, fmt::format("line {}", line_no),
                        fmt::format("not an nccl-tests data row (size count type [redop] [root] time algbw "
                                    "busbw ...): \"{}\"",
                                    line.size() > 80 ? line.substr(0, 77) + "..." : line));
    }
    log.rows.push_back(row);
  }
  if (log.rows.empty()) {
    throw ConfigError(file, "", "no nccl-tests data rows found (lines starting with the size in bytes)");
  }
  log.ranks = rank_lines > 0 ? rank_lines : n_gpus * n_threads;
  return log;
}

LinkFit fit_links(const CollectiveModel& model, const CollectiveSweepSpec& spec, const NcclLog& log) {
  LinkFit fit;
  std::vector<NcclLogRow> rows = log.rows;
  std::sort(rows.begin(), rows.end(), [](const NcclLogRow& a, const NcclLogRow& b) { return a.bytes < b.bytes; });
  const std::size_t large_from = std::min(rows.size() - std::min<std::size_t>(rows.size(), 2),
                                          rows.size() - rows.size() / 3);
  std::vector<double> ratios;
  CollectiveEstimate largest;
  CollectiveRequest req;
  req.op = spec.op;
  req.algorithm = spec.algorithm;
  req.ring_order = spec.ring_order;
  req.ranks = strided_group(spec.ranks);
  const auto estimate = [&](double bytes) {
    req.bytes = Bytes(bytes);
    return model.estimate(req);
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CollectiveEstimate e = estimate(rows[i].bytes);
    LinkFitRow r{rows[i].bytes, rows[i].busbw, e.busbw / 1e9, false};
    if (i >= large_from && rows[i].bytes >= 1048576.0 && r.model_busbw > 0 && r.measured_busbw > 0) {
      r.fitted = true;
      ratios.push_back(r.measured_busbw / r.model_busbw);
    }
    if (i + 1 == rows.size()) largest = e;
    fit.rows.push_back(r);
  }
  const PhaseEstimate* worst = nullptr;
  for (const PhaseEstimate& p : largest.phases) {
    if (p.cost.bottleneck >= 0 && (!worst || p.cost.bandwidth > worst->cost.bandwidth)) worst = &p;
  }
  const LinkEfficiency& eff = model.options().efficiency;
  if (worst != nullptr) {
    const LinkKind k = model.graph().link(worst->cost.bottleneck).kind;
    fit.link_kind = std::string(to_string(k));
    if (largest.algorithm == CollectiveAlgorithm::nvls) {
      fit.key = "collectives.nvls_efficiency";
      fit.current = eff.nvls;
    } else if (k == LinkKind::nvlink || k == LinkKind::nvswitch_port || k == LinkKind::torus ||
               k == LinkKind::torus_optical) {
      fit.key = "intra_link.efficiency";
      fit.current = eff.of(k);
    } else {
      fit.key = "nic.efficiency";
      fit.current = eff.of(k);
    }
  }
  if (!ratios.empty()) {
    fit.ratio = median(ratios);
    fit.suggested = fit.current * fit.ratio;
  }
  // Latency: least squares t = α + β·S over the small rows (< 64 KiB), measured and modelled.
  std::vector<std::pair<double, double>> small_measured, small_model;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].bytes >= 65536.0) continue;
    small_measured.push_back({rows[i].bytes, rows[i].time_us});
    const CollectiveEstimate e = estimate(rows[i].bytes);
    small_model.push_back({rows[i].bytes, e.time.value() * 1e6});
  }
  const auto intercept = [](const std::vector<std::pair<double, double>>& pts) {
    const double n = static_cast<double>(pts.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [x, y] : pts) {
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    const double den = n * sxx - sx * sx;
    return den > 0 ? (sy * sxx - sx * sxy) / den : sy / n;
  };
  if (small_measured.size() >= 2) {
    fit.measured_latency_us = std::max(0.0, intercept(small_measured));
    fit.model_latency_us = std::max(0.0, intercept(small_model));
  }
  return fit;
}

}  // namespace clustersim
