#include "sim/plan/trust_region.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace clustersim::plan {

unsigned parallelism_kinds(const ParallelismSpec& p) {
  unsigned k = 0;
  if (p.tp > 1) k |= kind_tp;
  if (p.pp > 1) k |= kind_pp;
  if (p.cp > 1) k |= kind_cp;
  if (p.vp > 1) k |= kind_interleaved;
  if (p.zero_stage >= 3 && p.dp > 1) k |= kind_sharded;
  if (p.ep > 1 || p.etp > 1) k |= kind_ep;
  return k;
}

std::string kinds_text(unsigned kinds) {
  std::string out;
  for (auto [bit, name] : {std::pair{kind_tp, "TP"}, std::pair{kind_pp, "PP"}, std::pair{kind_cp, "CP"},
                           std::pair{kind_interleaved, "VP"}, std::pair{kind_sharded, "ZeRO-3"},
                           std::pair{kind_ep, "EP"}}) {
    if ((kinds & bit) == 0) continue;
    if (!out.empty()) out += "+";
    out += name;
  }
  return out.empty() ? "none" : out;
}

namespace {

// FP16 and BF16 run at the same tensor-core rate on every device in the catalog: one precision class.
std::string precision_class(std::string_view precision) {
  if (precision == "fp16" || precision == "bf16") return "fp16/bf16";
  return std::string(precision);
}

}  // namespace

TrustRegion trust_region(const ValidationResult& r, double max_error) {
  TrustRegion out;
  out.max_error = max_error;
  for (std::size_t i = 0; i < r.rows.size() && i < r.configs.size(); ++i) {
    const ValidationRow& row = r.rows[i];
    if (row.split != "test" || !(std::fabs(row.rel_error) <= max_error)) continue;
    const ValidatedConfig& c = r.configs[i];
    out.points.push_back({row.id, c.device, precision_class(c.precision), parallelism_kinds(c.parallelism),
                          c.devices, row.rel_error});
  }
  return out;
}

TrustVerdict classify(const TrustRegion& region, const Scenario& base, const Strategy& st, int devices) {
  const std::string device = base.cluster.node.device.name;
  const std::string precision = precision_class(to_string(base.training.precision));
  const unsigned kinds = parallelism_kinds(parallelism_of(st));
  int on_device = 0, with_precision = 0, lo = std::numeric_limits<int>::max(), hi = 0;
  for (const ValidatedPoint& v : region.points) {
    if (v.device != device) continue;
    ++on_device;
    if (v.precision != precision) continue;
    ++with_precision;
    if ((v.kinds & kinds) != kinds) continue;
    lo = std::min(lo, v.devices);
    hi = std::max(hi, v.devices);
  }
  const auto pct = 100.0 * region.max_error;
  if (on_device == 0)
    return {false, fmt::format("no test record on {} predicted within {:.0f}%", device, pct)};
  if (with_precision == 0)
    return {false,
            fmt::format("no test record on {} in {} predicted within {:.0f}%", device, precision, pct)};
  if (hi == 0)
    return {false, fmt::format("no test record on {} {} uses {} (within {:.0f}%)", device, precision,
                               kinds_text(kinds), pct)};
  if (devices < lo || devices > hi)
    return {false, fmt::format("{} devices outside the {}-{} validated for {} on {} {}", devices, lo, hi,
                               kinds_text(kinds), device, precision)};
  return {true, fmt::format("{} on {} {} validated on {}-{} devices", kinds_text(kinds), device, precision,
                            lo, hi)};
}

}  // namespace clustersim::plan
